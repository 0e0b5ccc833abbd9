"""render.load_slice_cached (issue 26): one decode per file, slice, mask and stamp; the
view's side is part of the key only for a DICOM without a mask (its reduced JPEG 2000
decode), so a picture or a masked DICOM has one entry whatever the side; a replaced image
or mask is read again; nothing is left in the in-flight table. Decodes are counted by
replacing render.load_slice, and the arguments it receives are checked."""

import os
import shutil

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.imaging import render
from medrcube_desktop.imaging.render import load_slice_cached
from tests.conftest import dicom_file


@pytest.fixture
def calls(monkeypatch):
    render._cached_slice.cache_clear()
    seen = []
    real = render.load_slice

    def counting(*args):
        seen.append(args)
        return real(*args)

    monkeypatch.setattr(render, "load_slice", counting)
    yield seen
    render._cached_slice.cache_clear()


@pytest.fixture
def files(tmp_path):
    png = tmp_path / "a.png"
    Image.fromarray(np.arange(64, dtype=np.uint8).reshape(8, 8)).save(png)
    ct = tmp_path / "ct.dcm"
    shutil.copy(dicom_file("CT_small.dcm"), ct)
    mask = tmp_path / "m.png"
    Image.fromarray((np.arange(128 * 128).reshape(128, 128) % 3).astype(np.uint8)).save(mask)
    return png, ct, mask


def test_a_picture_has_one_entry_whatever_the_side(calls, files):
    png, _, _ = files
    first = load_slice_cached(png, None, None, None, 100)
    assert load_slice_cached(png, None, None, None, 200) is first
    assert load_slice_cached(png, None, None, None) is first
    assert calls == [(png, None, None, None, None)]
    assert render._IN_FLIGHT == {}


def test_a_dicom_without_mask_has_an_entry_per_side(calls, files):
    _, ct, _ = files
    a = load_slice_cached(ct, None, None, "CT", 100)
    b = load_slice_cached(ct, None, None, "CT", 200)
    assert a is not b and load_slice_cached(ct, None, None, "CT", 100) is a
    assert calls == [(ct, None, None, "CT", 100), (ct, None, None, "CT", 200)]
    assert render._IN_FLIGHT == {}


def test_a_masked_dicom_has_one_entry_whatever_the_side(calls, files):
    _, ct, mask = files
    a = load_slice_cached(ct, None, mask, "CT", 100)
    assert load_slice_cached(ct, None, mask, "CT", 200) is a
    assert calls == [(ct, None, mask, "CT", None)]
    np.testing.assert_array_equal(a.mask, np.arange(128 * 128).reshape(128, 128) % 3)


def test_the_slice_and_modality_are_part_of_the_key(calls, files):
    png, _, _ = files
    load_slice_cached(png, None, None, None)
    load_slice_cached(png, 0, None, None)
    load_slice_cached(png, None, None, "XR")
    assert calls == [(png, None, None, None, None), (png, 0, None, None, None),
                     (png, None, None, "XR", None)]  # fmt: skip


def test_a_replaced_image_or_mask_is_read_again(calls, files):
    png, ct, mask = files
    a = load_slice_cached(ct, None, mask, "CT")
    stat = mask.stat()
    Image.fromarray(np.ones((128, 128), np.uint8)).save(mask)
    os.utime(mask, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    b = load_slice_cached(ct, None, mask, "CT")
    assert b is not a and b.mask.all() and len(calls) == 2
    first = load_slice_cached(png, None, None, None)
    stat = png.stat()
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(png)
    os.utime(png, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    again = load_slice_cached(png, None, None, None)
    assert again is not first and not again.pixels.any() and len(calls) == 4
    assert render._IN_FLIGHT == {}
