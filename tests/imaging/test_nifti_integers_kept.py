"""A NIfTI image stored as integers of at most 16 bits is kept as read (issue 25, first
paint: no float32 copy of the volume): its slices and its window are those of the
float32 volume every image was turned into before, on real files (nibabel's int16 fMRI
series, nilearn's uint8 MNI152 T1) and on int16 values below zero."""

from __future__ import annotations

import nibabel as nib
import numpy as np
import pytest

from medrcube_desktop.imaging import nifti
from medrcube_desktop.imaging.auto_window import foreground_window
from medrcube_desktop.imaging.nifti import load_nifti_slice
from tests.conftest import nibabel_example
from tests.imaging.test_masks_pictures import NILEARN_T1, nilearn_file


def _float32_window(volume: np.ndarray) -> tuple[float, float]:
    """The foreground window as it was computed on the float32 volume: the 0.5th and
    99.5th percentiles (np.percentile, linear) of the voxels above the minimum."""
    values = volume.astype(np.float32)
    foreground = values[values > values.min()]
    lo, hi = (float(v) for v in np.percentile(foreground, [0.5, 99.5]))
    if hi <= lo:
        lo, hi = float(values.min()), float(foreground.max())
    width = max(hi - lo, 1e-6)
    return lo + width / 2.0, width


@pytest.fixture(autouse=True)
def _fresh_cache():
    nifti._nifti_volume.cache_clear()
    yield
    nifti._nifti_volume.cache_clear()


@pytest.mark.parametrize(
    "path, stored",
    [(nibabel_example("example4d.nii.gz"), np.int16), (nilearn_file(NILEARN_T1), np.uint8)],
)
def test_a_real_integer_volume_is_kept_and_windowed_as_its_float_copy(path, stored):
    image = nib.load(path)
    assert image.get_data_dtype() == np.dtype(stored)
    volume = nifti._nifti_volume(str(path))
    assert volume.data.dtype == np.dtype(stored)
    first = np.asanyarray(image.dataobj)
    first = first[..., 0] if first.ndim == 4 else first
    # example4d's header sets cal_min/cal_max (its window); the foreground's is checked too
    expected_window = _float32_window(first)
    as_kept = foreground_window(volume.data, all_finite=True, as_dtype=np.float32)
    assert as_kept == expected_window
    assert volume.window == (volume.calibrated_window if volume.calibrated else expected_window)
    assert volume.calibrated == (stored == np.int16)
    shown = load_nifti_slice(path, 5, None, "MRI")
    expected = first[:, :, 5].astype(np.float32).astype(np.float64)
    assert shown.pixels.dtype == np.float64
    assert np.array_equal(shown.pixels, shown.transform.apply(expected))


def test_negative_int16_values_get_the_float_window(tmp_path):
    rng = np.random.default_rng(11)
    stored = rng.normal(40, 300, (40, 36, 7)).astype(np.int16)  # CT-like, below zero too
    stored[:, :5] = -1024  # air at the minimum
    path = tmp_path / "ct.nii.gz"
    nib.save(nib.Nifti1Image(stored, np.eye(4)), path)
    volume = nifti._nifti_volume(str(path))
    assert volume.data.dtype == np.int16
    assert volume.window == _float32_window(stored)
    assert load_nifti_slice(path, 3, None, "MR").window == volume.window


def test_a_scaled_integer_volume_is_read_as_float(tmp_path):
    """scl_slope set: nibabel returns the scaled floats, which are kept as float32."""
    stored = np.arange(2 * 3 * 4, dtype=np.int16).reshape(2, 3, 4)
    image = nib.Nifti1Image(stored, np.eye(4))
    image.header.set_slope_inter(0.5, 10)
    path = tmp_path / "scaled.nii.gz"
    nib.save(image, path)
    volume = nifti._nifti_volume(str(path))
    assert volume.data.dtype == np.float32
    assert np.array_equal(volume.data, stored.astype(np.float32) * 0.5 + 10)


def test_the_window_is_the_float_volumes_to_the_last_bit(tmp_path):
    """Twelve int16 voxels whose percentiles, interpolated from the integers, differ in
    the last bit from np.percentile of their float32 copy (893.8999999999999 against
    893.9): the volume kept as read still gets the float32 one, as before."""
    stored = np.array([771, 366, 659, 199, 944, 88, 264, 653, 16, 459, 147, 987], np.int16)
    path = tmp_path / "twelve.nii.gz"
    nib.save(nib.Nifti1Image(stored.reshape(3, 4, 1), np.eye(4)), path)
    volume = nifti._nifti_volume(str(path))
    assert volume.data.dtype == np.int16
    assert foreground_window(stored, all_finite=True) != _float32_window(stored)
    assert volume.window == _float32_window(stored) == (537.9, 893.9)
