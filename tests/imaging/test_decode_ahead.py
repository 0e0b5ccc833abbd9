"""The first item's picture decoded while the window is built (issue 25 item 4): the
window's render then finds the slice in the cache; one slice is decoded once however
many threads ask for it at the same time."""

import threading
import time

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging import render
from medrcube_desktop.imaging.decode_ahead import decode_ahead, first_item
from medrcube_desktop.imaging.render import _reads_display_side, load_slice_cached, render_item
from tests.conftest import dicom_file, item, write_benchmark


@pytest.fixture
def bench(tmp_path):
    png = tmp_path / "p.png"
    Image.fromarray(np.arange(64 * 48, dtype=np.uint16).reshape(48, 64) * 7).save(png)
    records = [item("q0", image="images/p.png"), item("q1"), item("q2", image="images/p.png")]
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": records},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm"), "ds1/images/p.png": png},
    )
    return load_benchmark(root).items


def test_first_item_is_the_reviewers_last_else_the_first(bench):
    assert first_item(bench, "q2") is bench[2]
    assert first_item(bench, None) is bench[0]
    assert first_item(bench, "gone") is bench[0]
    assert first_item([], "q1") is None


def test_the_windows_render_of_a_decoded_item_reads_no_file(bench, monkeypatch):
    render._cached_slice.cache_clear()
    decode_ahead(bench[0]).join()
    misses = render._cached_slice.cache_info().misses
    assert misses == 1
    # the window asks with its view's side: a PNG's decode does not depend on it
    shown = render_item(bench[0], None, True, None, False, 0.4, False, False, 2048, 1536)
    info = render._cached_slice.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    render._cached_slice.cache_clear()
    again = render_item(bench[0], None, True, None, False, 0.4, False, False, 2048, 1536)
    assert np.array_equal(shown.rgba, again.rgba)  # the same picture as a fresh decode


def test_only_a_dicom_without_mask_is_decoded_for_the_views_side(bench, tmp_path):
    png, ct = bench[0].image_path, bench[1].image_path
    assert _reads_display_side(ct, None)
    assert not _reads_display_side(ct, png)  # a masked file is decoded in full
    assert not _reads_display_side(png, None)


def test_a_dicom_is_not_decoded_ahead_but_its_reader_is_imported(bench):
    render._cached_slice.cache_clear()
    decode_ahead(bench[1]).join()
    assert render._cached_slice.cache_info().misses == 0


def test_one_slice_is_decoded_once_for_threads_asking_together(bench, monkeypatch):
    render._cached_slice.cache_clear()
    calls = []
    real = render.load_slice

    def slow(*args):
        calls.append(args[0])
        time.sleep(0.2)
        return real(*args)

    monkeypatch.setattr(render, "load_slice", slow)
    path = bench[0].image_path
    got = []
    threads = [
        threading.Thread(target=lambda: got.append(load_slice_cached(path, None, None, "CT")))
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [path]
    assert got[0] is got[1] is got[2]
    assert render._IN_FLIGHT == {}  # nothing left behind


def test_the_first_items_reader_is_imported_ahead(bench, monkeypatch):
    import importlib

    from medrcube_desktop.imaging import decode_ahead as ahead

    imported = []
    monkeypatch.setattr(importlib, "import_module", lambda name: imported.append(name))
    ahead.import_reader_ahead(bench[1]).join()  # q1: images/ct.dcm
    assert imported == ["pydicom", "medrcube_desktop.imaging.dicom"]
    imported.clear()
    ahead.import_reader_ahead(bench[0]).join()  # a PNG
    assert imported == ["PIL.Image", "PIL.PngImagePlugin"]
    assert ahead.import_reader_ahead(None) is None


def test_a_reader_import_that_fails_is_left_to_the_decode(bench, monkeypatch):
    import importlib

    from medrcube_desktop.imaging import decode_ahead as ahead

    def refuse(name):
        raise ImportError(f"no {name}")

    escaped = []
    monkeypatch.setattr(importlib, "import_module", refuse)
    monkeypatch.setattr(threading, "excepthook", escaped.append)
    ahead.import_reader_ahead(bench[1]).join()
    assert escaped == []  # caught and logged: the window's render reports any failure
