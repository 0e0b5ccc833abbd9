"""The image's volume and the mask's are read at once, on two threads (issue 25, first
paint): on nilearn's MNI152 T1 and a grey-matter mask made from nilearn's map (the
demo's first item), the slice, pixels, mask and window are those computed here from
nibabel's arrays; the errors are those of reading the two files one after the other."""

from __future__ import annotations

import threading
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging import nifti
from medrcube_desktop.imaging.nifti import load_nifti_slice
from tests.imaging.test_masks_pictures import NILEARN_GM, NILEARN_T1, nilearn_file


@pytest.fixture
def brain(tmp_path) -> tuple[Path, Path]:
    """The MNI152 T1 (197x233x189 uint8) and its grey matter > 0.5 as a uint8 mask."""
    grey = nib.load(nilearn_file(NILEARN_GM))
    mask = (np.asanyarray(grey.dataobj) > 0.5).astype(np.uint8)
    mask_path = tmp_path / "gm_mask.nii.gz"
    nib.save(nib.Nifti1Image(mask, grey.affine), mask_path)
    caches = (nifti._nifti_volume, nifti._nifti_mask_volume)  # a test may replace them
    for cache in caches:
        cache.cache_clear()
    yield nilearn_file(NILEARN_T1), mask_path
    for cache in caches:
        cache.cache_clear()


def test_the_slice_of_the_largest_mask_area_with_its_window(brain):
    image_path, mask_path = brain
    shown = load_nifti_slice(image_path, None, mask_path, "MRI")
    t1 = np.asanyarray(nib.load(image_path).dataobj).astype(np.float32)
    mask = np.asanyarray(nib.load(mask_path).dataobj)
    k = int(np.argmax((mask != 0).sum(axis=(0, 1))))
    assert shown.slice_index == k and shown.slice_count == t1.shape[2]
    assert np.array_equal(shown.pixels, shown.transform.apply(t1[:, :, k].astype(np.float64)))
    assert shown.mask.dtype == np.int32
    assert np.array_equal(shown.mask, shown.transform.apply(mask[:, :, k].astype(np.int32)))
    foreground = t1[t1 > t1.min()]
    lo, hi = np.percentile(foreground, [0.5, 99.5])
    width = float(hi - lo)
    assert shown.window == (float(lo) + width / 2.0, width)


def test_the_two_files_are_read_at_the_same_time(brain, monkeypatch):
    """Each read waits for the other to have started: read in turn, the first would
    wait for ever (the barrier's timeout breaks it, and the read fails)."""
    both = threading.Barrier(2, timeout=20)
    threads = {}

    def meeting(real, name):
        def read(path):
            threads[name] = threading.current_thread()
            both.wait()
            return real(path)

        return read

    monkeypatch.setattr(nifti, "_nifti_volume", meeting(nifti._nifti_volume, "image"))
    monkeypatch.setattr(nifti, "_nifti_mask_volume", meeting(nifti._nifti_mask_volume, "mask"))
    image_path, mask_path = brain
    shown = load_nifti_slice(image_path, None, mask_path, "MRI")
    assert threads["image"] is threading.current_thread()
    assert threads["mask"] is not threading.current_thread()
    assert shown.mask is not None and shown.mask.any()


def test_an_unreadable_mask_is_named_as_before(brain, tmp_path):
    image_path, _ = brain
    broken = tmp_path / "broken.nii.gz"
    broken.write_bytes(b"not gzip at all")
    with pytest.raises(ImageLoadError, match="cannot read NIfTI"):
        load_nifti_slice(image_path, None, broken, "MRI")


def test_an_unreadable_image_is_said_before_an_unreadable_mask(tmp_path):
    image = tmp_path / "image.nii.gz"
    image.write_bytes(b"\x1f\x8b broken image")
    mask = tmp_path / "mask.nii.gz"
    mask.write_bytes(b"broken mask")
    with pytest.raises(ImageLoadError) as raised:
        load_nifti_slice(image, None, mask, "MRI")
    assert str(raised.value).startswith(str(image))
    assert "mask.nii.gz" not in str(raised.value)


def test_a_four_d_mask_is_refused_after_the_image_is_read(brain, tmp_path):
    image_path, _ = brain
    series = np.zeros((197, 233, 189, 2), dtype=np.uint8)
    series[90:100, 100:110, 80, 0] = 1
    mask = tmp_path / "mask4d.nii.gz"
    nib.save(nib.Nifti1Image(series, nib.load(image_path).affine), mask)
    with pytest.raises(ImageLoadError, match="4-D file of 2 volumes"):
        load_nifti_slice(image_path, None, mask, "MRI")


def test_a_picture_given_as_the_mask_is_refused(brain):
    """The T1 itself as its mask: the labels' refusal comes from the mask's thread."""
    image_path, _ = brain
    with pytest.raises(ImageLoadError, match="distinct"):
        load_nifti_slice(image_path, None, image_path, "MRI")
