"""A NIfTI mask stored as 8- or 16-bit integers is labelled from its integers as read
(issue 25, first paint), and gives the slice, labels and render that the same mask
stored as float32 gives (the float path every mask took before)."""

import nibabel as nib
import numpy as np
import pytest

from medrcube_desktop.imaging import nifti
from medrcube_desktop.imaging.render import render_file


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16])
def test_an_integer_mask_renders_as_the_same_mask_in_float(tmp_path, dtype):
    rng = np.random.default_rng(4)
    image = rng.normal(100, 30, (24, 20, 9)).astype(np.float32)
    labels = np.zeros((24, 20, 9), dtype=np.int64)
    labels[5:15, 4:12, 6] = 2  # the largest area: slice 6
    labels[8:10, 8:10, 3] = 1
    if dtype != np.uint8:
        labels[2:4, 2:4, 6] = 300  # a label beyond 8 bits
    affine = np.diag([1.5, 1.2, 3.0, 1.0])
    nib.save(nib.Nifti1Image(image, affine), tmp_path / "image.nii.gz")
    nib.save(nib.Nifti1Image(labels.astype(dtype), affine), tmp_path / "mask_int.nii.gz")
    nib.save(nib.Nifti1Image(labels.astype(np.float32), affine), tmp_path / "mask_float.nii.gz")
    nifti._nifti_mask_volume.cache_clear()
    kept = nifti._nifti_mask_volume(str(tmp_path / "mask_int.nii.gz")).data
    assert kept.dtype == np.dtype(dtype)  # read as stored, no float copy
    as_int = render_file(tmp_path / "image.nii.gz", None, tmp_path / "mask_int.nii.gz")
    as_float = render_file(tmp_path / "image.nii.gz", None, tmp_path / "mask_float.nii.gz")
    assert as_int.slice_index == as_float.slice_index == 6
    assert np.array_equal(as_int.rgba, as_float.rgba)
    assert as_int.legend == as_float.legend
    assert len(as_int.legend) == (0 if dtype == np.uint8 else 2)  # one label: red
    assert as_int.window == as_float.window


def test_an_integer_volume_gets_the_window_of_its_float_copy(tmp_path):
    """``all_finite``: a volume read as integers is windowed without the finite copy,
    to the window the float32 volume gets with it."""
    from medrcube_desktop.imaging.auto_window import foreground_window

    rng = np.random.default_rng(6)
    stored = rng.integers(0, 200, (30, 26, 11)).astype(np.uint8)
    stored[:4] = 0  # a background at the minimum
    nib.save(nib.Nifti1Image(stored, np.eye(4)), tmp_path / "ints.nii.gz")
    nifti._nifti_volume.cache_clear()
    volume = nifti._nifti_volume(str(tmp_path / "ints.nii.gz"))
    assert volume.all_finite and volume.data.dtype == np.uint8  # as stored: no float copy
    expected = foreground_window(stored.astype(np.float32)[np.isfinite(stored)])
    assert volume.window == expected
    with_nan = stored.astype(np.float32)
    with_nan[0, 0, 0] = np.nan
    assert foreground_window(with_nan) == expected  # the NaN left out, as before
