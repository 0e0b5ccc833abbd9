"""One way to open a file for reading: a named pipe is refused, never waited on (issue
21: `self-test --expect FIFO` and an image-cache entry that is a FIFO hung)."""

from __future__ import annotations

import os
import signal

import pytest

from medrcube_desktop.core.files import NotARegularFile, open_regular, read_file_bytes

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    # a read that blocks would hang the test run: fail it instead after a generous wait
    previous = signal.signal(signal.SIGALRM, lambda *a: pytest.fail("the read blocked"))
    signal.alarm(20)
    yield path
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_open_regular_refuses_a_named_pipe_naming_it(fifo):
    with pytest.raises(NotARegularFile) as caught:
        open_regular(fifo)
    assert str(caught.value) == f"{fifo}: is a named pipe, not a file"


def test_read_file_bytes_refuses_a_folder(tmp_path):
    with pytest.raises(NotARegularFile, match="is a folder"):
        read_file_bytes(tmp_path)


def test_self_test_expect_refuses_a_named_pipe(fifo):
    from medrcube_desktop.cli.bundle import _read_expected
    from medrcube_desktop.errors import MedRCubeError

    with pytest.raises(MedRCubeError, match="named pipe"):
        _read_expected(fifo)


def test_an_image_cache_entry_that_is_a_named_pipe_is_prepared_again(fifo):
    from medrcube_desktop.evaluation.images import ImageCache

    key = "0" * 40
    meta = fifo.with_name(f"{key}.json")
    os.rename(fifo, meta)
    assert ImageCache(fifo.parent).get(key) is None


def test_an_image_cache_image_that_is_a_named_pipe_is_prepared_again(fifo):
    import json

    from medrcube_desktop.evaluation.images import ImageCache

    key = "1" * 40
    fifo.with_name(f"{key}.json").write_text(json.dumps({"mime": "image/png", "bytes": 3}))
    os.rename(fifo, fifo.with_name(f"{key}.png"))
    assert ImageCache(fifo.parent).get(key) is None


def test_an_image_cache_entry_that_is_a_link_out_is_never_written_through(tmp_path):
    from medrcube_desktop.core.write_guard import ProtectedFileError
    from medrcube_desktop.evaluation.images import ImageCache, PreparedImage

    precious = tmp_path / "precious.txt"
    precious.write_text("keep")
    cache = tmp_path / "cache"
    cache.mkdir()
    key = "2" * 40
    (cache / f"{key}.png").symlink_to(precious)
    with pytest.raises(ProtectedFileError, match="outside"):
        ImageCache(cache).put(key, PreparedImage(b"\x89PNG", "image/png", {"mime": "image/png"}))
    assert precious.read_text() == "keep"
