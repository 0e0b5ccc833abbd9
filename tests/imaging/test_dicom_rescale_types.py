"""Rescale Slope/Intercept in dicom._apply_modality at the edges of its integer types
(issue 26): int16 only when every value computed (each end, each product, the stored
values) fits, int32 when the rescaled ends do, float64 beyond; a range with no zero in it
is widened to zero; slope 1 and intercept 0 only give the stored array itself. Expected
values by hand (stored * slope + intercept)."""

import math

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.pixels import apply_modality_lut

from medrcube_desktop.imaging.dicom import _apply_modality


def _ds(slope, intercept):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ds.RescaleSlope, ds.RescaleIntercept = slope, intercept
    return ds


def _check(arr, slope, intercept, dtype, span="given"):
    arr = np.asarray(arr, np.int32 if np.abs(np.asarray(arr)).max() >= 2**15 else np.int16)
    given = (int(arr.min()), int(arr.max())) if span == "given" else None
    out = _apply_modality(arr, _ds(slope, intercept), 0, given)
    expected = [[int(v) * slope + intercept for v in row] for row in arr.tolist()]
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("span", ["given", None])
def test_slope_1_intercept_0_alone_leaves_the_stored_array(span):
    arr = np.array([[3, -4]], np.int16)
    given = (-4, 3) if span else None
    assert _apply_modality(arr, _ds(1, 0), 0, given) is arr
    _check([[3, -4]], 2, 0, np.int16, span)  # slope 2: rescaled
    _check([[3, -4]], 1, 1, np.int16, span)  # intercept 1: rescaled


@pytest.mark.parametrize("span", ["given", None])
def test_a_negative_low_end_is_what_decides_the_type(span):
    # -30000 - 3000 is beyond int16 although the high end (5 - 3000) is not
    _check([[-30000, 5]], 1, -3000, np.int32, span)
    _check([[-200, 0]], 200, 0, np.int32, span)  # the product -40000 beyond int16


@pytest.mark.parametrize("span", ["given", None])
def test_a_product_beyond_int16_is_int32_even_when_the_ends_fit(span):
    _check([[0, 200]], 200, -30000, np.int32, span)  # 40000 then 10000
    _check([[-200, 0]], 200, 30000, np.int32, span)  # -40000 then -10000


@pytest.mark.parametrize("span", ["given", None])
def test_values_all_below_zero_or_above_are_widened_to_zero_only(span):
    # nothing at 1: 1 + 32767 would not fit int16, the values computed all do
    _check([[-5, 0]], 1, 32767, np.int16, span)
    _check([[-5, -1]], 1, 32767, np.int16, span)
    _check([[2, 5]], 1, -32768, np.int16, span)


def test_an_end_beyond_int32_by_the_intercept_is_float64():
    # -2**20 * 2**10 = -2**30 fits int32; with the intercept -2**31 - 5 does not
    _check([[-(2**20), 0]], 2**10, -(2**30) - 5, np.float64)
    # 2**31 exactly: one past int32's top
    _check([[0, 1]], 1, 2**31 - 1, np.float64)
    _check([[0, 1]], 1, 2**31 - 2, np.int32)  # 2**31 - 1: int32's top


def test_without_a_span_the_stored_range_decides_whether_a_rescale_is_usable():
    arr = np.array([[0, 10]], np.int16)
    notes = []
    out = _apply_modality(arr, _ds(1e308, 0), 0, None, notes)
    assert out is arr
    assert notes == [
        "Rescale Slope 1e+308 and Intercept 0 exceed float64: ignored, stored values shown"
        " (slope 1, intercept 0)"
    ]


def test_an_unusable_rescale_of_integers_keeps_their_type():
    arr = np.array([[1, 2]], np.int16)
    out = _apply_modality(arr, _ds(0, 5), 0, (1, 2), [])
    assert out.dtype == np.int16
    np.testing.assert_array_equal(out, arr)


def test_a_float_frame_with_nan_is_rescaled_without_a_stored_range():
    arr = np.array([[math.nan, 1.5]], np.float32)
    out = _apply_modality(arr, _ds(2, -1), 0)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [[math.nan, 2.0]])


def test_a_multi_valued_slope_is_left_to_pydicoms_modality_lut():
    # "2\3": float() of two values fails; pydicom's apply_modality_lut reads it (the first)
    ds = _ds(1, -1024)
    ds.RescaleSlope = "2\\3"
    arr = np.array([[1, 2]], np.int16)
    out = _apply_modality(arr, ds, 0)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, apply_modality_lut(arr, ds))
    np.testing.assert_array_equal(out, [[1 * 2 - 1024, 2 * 3 - 1024]])


@pytest.mark.parametrize("span", ["given", None])
def test_the_value_at_zero_decides_the_type_though_no_pixel_holds_zero(span):
    # stored 1 .. 3, slope -10000, intercept 40000: 30000, 20000, 10000 all fit int16,
    # but the range widened to zero reaches 0 * -10000 + 40000 = 40000, beyond it
    _check([[1, 3], [2, 2]], -10000, 40000, np.int32, span)
    # widened to zero, the intercept 2**31 + 5 is beyond int32: float64, though every
    # value computed (2**31 - 5 .. 2**31 - 15) fits int32
    _check([[1, 2]], -10, 2**31 + 5, np.float64, span)
