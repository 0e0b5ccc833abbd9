"""Inputs that are not regular files (a named pipe, a device, a socket) as a benchmark's
``test.json``, an image or a mask: refused with what they are, never opened (opening a
named pipe blocks until something writes to it). Every load runs in a thread with a join
timeout, so a regression fails instead of hanging the suite."""

import contextlib
import os
import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.files import not_a_file
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.loading import load_slice
from tests.conftest import dicom_file, item, write_benchmark

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")


def finishes(call, timeout_s=10.0):
    """``call()``'s result or exception, run in a thread; fails if it blocks."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        for fifo in _FIFOS:  # unblock the reader (a writer opening the pipe lets it go)
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"blocked for over {timeout_s} s reading a named pipe")
    return outcome


_FIFOS: list[Path] = []


def fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    _FIFOS.append(path)
    return path


def test_not_a_file_names_pipes_devices_sockets_and_folders(tmp_path):
    assert not_a_file(fifo(tmp_path / "p")) == "is a named pipe, not a file"
    assert not_a_file(tmp_path) == "is a folder, not a file"
    if os.path.exists("/dev/null"):
        assert not_a_file("/dev/null") == "is a device, not a file"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "s"))
        assert not_a_file(tmp_path / "s") == "is a socket, not a file"
    finally:
        sock.close()
    (tmp_path / "f").write_text("x")
    assert not_a_file(tmp_path / "f") is None
    assert not_a_file(tmp_path / "missing") is None  # the read that follows says why
    os.symlink(tmp_path / "p", tmp_path / "link")
    assert not_a_file(tmp_path / "link") == "is a named pipe, not a file"  # followed


def test_a_named_pipe_as_test_json_is_a_problem_not_a_hang(tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"good": [item("ok")]}, {"good/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    fifo(root / "piped" / "test.json")
    outcome = finishes(lambda: load_benchmark(root))
    bench = outcome["value"]
    assert [i.id for i in bench.items] == ["ok"]
    [problem] = bench.problems
    assert problem.file == "piped/test.json" and "is a named pipe, not a file" in problem.message


@pytest.mark.parametrize("field", ["image_path", "mask_path"])
def test_a_named_pipe_as_an_image_or_mask_is_reported_by_validation(tmp_path, field):
    root = tmp_path / "b"
    fifo(root / "ds1" / "images" / "pipe.png")
    record = item("x", image="images/ct.dcm")
    record[field] = "images/pipe.png"
    write_benchmark(root, {"ds1": [record]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})
    bench = finishes(lambda: load_benchmark(root))["value"]
    assert bench.items == []
    assert any(
        p.field == field and "is a named pipe, not a file: ds1/images/pipe.png" in p.message
        for p in bench.problems
    ), bench.problems


@pytest.mark.parametrize("name", ["x.dcm", "x.nii.gz", "x.nrrd", "x.png", "no_suffix"])
def test_every_reader_refuses_a_named_pipe_as_the_image(tmp_path, name):
    path = fifo(tmp_path / name)
    outcome = finishes(lambda: load_slice(path))
    assert isinstance(outcome.get("error"), ImageLoadError), outcome
    assert str(outcome["error"]) == f"{path}: the image is a named pipe, not a file"


@pytest.mark.parametrize("name", ["mask.png", "mask.nii.gz"])
def test_a_named_pipe_as_the_mask_is_refused(tmp_path, name):
    Image.fromarray(np.zeros((4, 4), dtype=np.uint8)).save(tmp_path / "p.png")
    mask = fifo(tmp_path / name)
    outcome = finishes(lambda: load_slice(tmp_path / "p.png", mask_path=mask))
    assert isinstance(outcome.get("error"), ImageLoadError), outcome
    assert "the mask is a named pipe, not a file" in str(outcome["error"])
