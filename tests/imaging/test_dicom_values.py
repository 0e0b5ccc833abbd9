"""The values a DICOM frame is shown from, against pydicom's own transforms on the files
pydicom and pydicom-data ship (issue 26): Rescale Slope/Intercept (whole, fractional,
unusable), the Modality LUT Sequence, the VOI LUT Sequence, windows and their function,
MONOCHROME1 and Presentation LUT Shape INVERSE, Pixel Padding, palette and 16-bit RGB
colour, and overlay planes."""

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.pixels import apply_color_lut, apply_modality_lut, apply_voi

from medrcube_desktop.imaging.dicom import (
    _apply_modality,
    _padding_mask,
    _unusable_rescale,
    load_dicom_slice,
)


def _saved(tmp_path, name, **changes):
    ds = pydicom.dcmread(get_testdata_file(name))
    for key, value in changes.items():
        if value is None:
            delattr(ds, key)
        else:
            setattr(ds, key, value)
    path = tmp_path / f"changed-{name}"
    ds.save_as(path)
    return path, pydicom.dcmread(path)


def test_ct_rescale_is_pydicoms_modality_lut_in_int16():
    path = get_testdata_file("CT_small.dcm")
    ds = pydicom.dcmread(path)
    data = load_dicom_slice(path, None)
    assert data.pixels.dtype == np.int16
    np.testing.assert_array_equal(data.pixels, apply_modality_lut(ds.pixel_array, ds))
    assert (data.photometric, data.is_color, data.modality) == ("MONOCHROME2", False, "CT")
    assert data.notes == []


@pytest.mark.parametrize(
    ("slope", "intercept", "dtype"),
    [
        (2, -1000, np.int16),  # whole numbers within int16
        (1, 40000, np.int32),  # beyond int16: int32
        (20, -5, np.int32),  # the product beyond int16
        (-3, 7, np.int16),  # a negative slope
        (1000000, 0, np.float64),  # beyond int32: float
        (0.5, -10.25, np.float64),  # fractional
        (1, 0.5, np.float64),
    ],
)
def test_a_rescale_gives_the_values_pydicom_computes(tmp_path, slope, intercept, dtype):
    path, ds = _saved(tmp_path, "CT_small.dcm", RescaleSlope=slope, RescaleIntercept=intercept)
    data = load_dicom_slice(path, None)
    assert data.pixels.dtype == dtype
    np.testing.assert_array_equal(data.pixels, apply_modality_lut(ds.pixel_array, ds))
    assert data.notes == []


def test_a_rescale_reaching_int16s_ends_exactly_is_int16(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    arr = np.array([[0, 1], [2, 3]], np.int16)
    ds.RescaleSlope, ds.RescaleIntercept = 1, 2**15 - 4  # the top value 2**15 - 1
    out = _apply_modality(arr, ds, 0, (0, 3))
    assert out.dtype == np.int16 and out.max() == 2**15 - 1
    ds.RescaleIntercept = 2**15 - 3  # one more: int32
    out = _apply_modality(arr, ds, 0, (0, 3))
    assert out.dtype == np.int32 and out.max() == 2**15
    ds.RescaleSlope, ds.RescaleIntercept = 1, -(2**15)  # the bottom: int16
    assert _apply_modality(arr, ds, 0, (0, 3)).dtype == np.int16
    ds.RescaleIntercept = -(2**15) - 1
    assert _apply_modality(arr, ds, 0, (0, 3)).dtype == np.int32
    ds.RescaleSlope, ds.RescaleIntercept = 2**30, 0  # 3 * 2**30 beyond int32: float64
    out = _apply_modality(arr, ds, 0, (0, 3))
    assert out.dtype == np.float64 and out.max() == 3 * 2**30
    ds.RescaleSlope, ds.RescaleIntercept = 2**29, 0  # 3 * 2**29 within int32
    out = _apply_modality(arr, ds, 0, (0, 3))
    assert out.dtype == np.int32 and out.max() == 3 * 2**29
    # no span given: found from the array (0 and 3)
    assert _apply_modality(arr, ds, 0).max() == 3 * 2**29


def test_stored_values_are_returned_as_they_are_without_a_rescale(tmp_path):
    path, ds = _saved(tmp_path, "CT_small.dcm", RescaleSlope=1, RescaleIntercept=0)
    data = load_dicom_slice(path, None)
    np.testing.assert_array_equal(data.pixels, ds.pixel_array)
    assert data.pixels.dtype == ds.pixel_array.dtype
    path, ds = _saved(tmp_path, "CT_small.dcm", RescaleSlope=None, RescaleIntercept=None)
    np.testing.assert_array_equal(load_dicom_slice(path, None).pixels, ds.pixel_array)
    # only an intercept: slope 1
    path, ds = _saved(tmp_path, "CT_small.dcm", RescaleSlope=None, RescaleIntercept=-7)
    np.testing.assert_array_equal(load_dicom_slice(path, None).pixels, ds.pixel_array - 7)
    # only a slope: intercept 0
    path, ds = _saved(tmp_path, "CT_small.dcm", RescaleSlope=3, RescaleIntercept=None)
    np.testing.assert_array_equal(load_dicom_slice(path, None).pixels, ds.pixel_array * 3)


@pytest.mark.parametrize(
    ("slope", "intercept", "why"),
    [
        (0, -1024, "Rescale Slope 0 is not usable (zero or not finite)"),
        ("inf", 0, "Rescale Slope inf is not usable (zero or not finite)"),
        ("nan", 0, "Rescale Slope nan is not usable (zero or not finite)"),
        (1, "-inf", "Rescale Intercept -inf is not usable (not finite)"),
        (1e308, 0, "Rescale Slope 1e+308 and Intercept 0 exceed float64"),
    ],
)
def test_an_unusable_rescale_shows_the_stored_values_and_says_why(tmp_path, slope, intercept, why):
    path, ds = _saved(tmp_path, "CT_small.dcm", RescaleSlope=slope, RescaleIntercept=intercept)
    data = load_dicom_slice(path, None)
    np.testing.assert_array_equal(data.pixels, ds.pixel_array)
    assert data.notes == [f"{why}: ignored, stored values shown (slope 1, intercept 0)"]


def test_unusable_rescale_reasons_directly():
    assert _unusable_rescale(1.0, -1024.0, (0, 4095)) == ""
    assert _unusable_rescale(1.0, 0.0, None) == ""
    assert _unusable_rescale(-2.0, 5.0, (-3, 3)) == ""
    assert _unusable_rescale(1e300, 0.0, (-1, 1)) == ""
    assert _unusable_rescale(1e300, 0.0, (0, 10**9)) == (
        "Rescale Slope 1e+300 and Intercept 0 exceed float64"
    )
    assert _unusable_rescale(1e300, 0.0, (-(10**9), 0)) != ""  # the low end alone
    assert _unusable_rescale(float("nan"), 0.0, None).startswith("Rescale Slope nan")
    assert _unusable_rescale(2.0, float("nan"), None) == (
        "Rescale Intercept nan is not usable (not finite)"
    )


def test_a_float_frame_with_an_unusable_rescale_is_float64():
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ds.RescaleSlope = 0
    arr = np.array([[1.5, 2.5]], np.float32)
    notes = []
    out = _apply_modality(arr, ds, 0, None, notes)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [[1.5, 2.5]])
    assert len(notes) == 1
    ds.RescaleSlope, ds.RescaleIntercept = 1, 0
    assert _apply_modality(arr, ds, 0).dtype == np.float64  # a float frame: float64 always


def test_the_modality_lut_sequence_is_pydicoms():
    path = get_testdata_file("mlut_18.dcm")
    ds = pydicom.dcmread(path)
    data = load_dicom_slice(path, None)
    assert data.pixels.dtype == np.float64
    np.testing.assert_array_equal(data.pixels, apply_modality_lut(ds.pixel_array, ds))


def test_the_voi_lut_sequence_is_applied_and_its_output_range_is_the_window():
    path = get_testdata_file("vlut_04.dcm")
    ds = pydicom.dcmread(path)
    data = load_dicom_slice(path, None)
    bits = int(ds.VOILUTSequence[0].LUTDescriptor[2])
    top = float(2**bits - 1)
    np.testing.assert_array_equal(data.pixels, apply_voi(ds.pixel_array, ds, index=0))
    assert data.pixels.dtype == np.float64
    assert data.window == (top / 2.0, top)
    assert data.voi_lut_function == "LINEAR_EXACT"
    assert data.notes == ["VOI LUT Sequence of the file applied"]
    assert data.value_unit == "VOI LUT output"


def test_a_window_in_the_file_comes_before_its_voi_lut_sequence(tmp_path):
    path, ds = _saved(tmp_path, "vlut_04.dcm", WindowCenter=1000, WindowWidth=400)
    data = load_dicom_slice(path, None)
    assert data.window == (1000.0, 400.0)
    np.testing.assert_array_equal(data.pixels, ds.pixel_array)
    assert data.voi_lut_function == "LINEAR"
    assert data.value_unit != "VOI LUT output"


@pytest.mark.parametrize(("function", "read"), [("SIGMOID", "SIGMOID"), (" ", "LINEAR")])
def test_the_window_function_is_the_files(tmp_path, function, read):
    path, _ = _saved(
        tmp_path, "CT_small.dcm", WindowCenter=40, WindowWidth=400, VOILUTFunction=function
    )
    data = load_dicom_slice(path, None)
    assert data.window == (40.0, 400.0)
    assert data.voi_lut_function == read
    assert data.file_windows == [(40.0, 400.0)]


def test_the_first_of_several_windows_is_shown():
    data = load_dicom_slice(get_testdata_file("MR-SIEMENS-DICOM-WithOverlays.dcm"), None)
    assert data.window == data.file_windows[0] == (450.0, 790.0)
    assert len(data.file_windows) == 2


def test_monochrome1_is_kept_and_inverse_makes_monochrome2_monochrome1(tmp_path):
    data = load_dicom_slice(get_testdata_file("RG1_UNCR.dcm"), None)
    assert data.photometric == "MONOCHROME1"
    assert data.notes == []
    path, _ = _saved(tmp_path, "CT_small.dcm", PresentationLUTShape="inverse ")
    data = load_dicom_slice(path, None)
    assert data.photometric == "MONOCHROME1"
    assert data.notes == ["Presentation LUT Shape INVERSE"]
    path, _ = _saved(tmp_path, "CT_small.dcm", PresentationLUTShape="IDENTITY")
    assert load_dicom_slice(path, None).photometric == "MONOCHROME2"


def test_pixel_padding_value_and_range_are_shown_black(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    stored = ds.pixel_array
    value = int(np.median(stored))
    path, ds = _saved(tmp_path, "CT_small.dcm", PixelPaddingValue=value)
    data = load_dicom_slice(path, None)
    expected = apply_modality_lut(stored, ds).astype(np.float64)
    expected[stored == value] = np.nan
    np.testing.assert_array_equal(data.pixels, expected)
    assert data.notes == [
        f"{int((stored == value).sum())} padding pixels (Pixel Padding Value) shown black"
    ]
    low, high = int(np.percentile(stored, 20)), int(np.percentile(stored, 40))
    # the range limit below the value: either order marks the values between, inclusive
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ds.add_new(0x00280120, "SS", high)  # Pixel Padding Value
    ds.add_new(0x00280121, "SS", low)  # Pixel Padding Range Limit
    path = tmp_path / "range.dcm"
    ds.save_as(path)
    data = load_dicom_slice(path, None)
    padded = (stored >= low) & (stored <= high)
    np.testing.assert_array_equal(np.isnan(data.pixels), padded)
    assert data.notes == [f"{int(padded.sum())} padding pixels (Pixel Padding Value) shown black"]


def test_padding_mask_by_hand():
    ds = pydicom.Dataset()
    stored = np.array([[0, 5, 9], [10, 11, 5]], np.int16)
    assert _padding_mask(stored, ds) is None
    ds.PixelPaddingValue = 5
    assert _padding_mask(stored, ds).tolist() == [[False, True, False], [False, False, True]]
    ds.PixelPaddingRangeLimit = 10
    assert _padding_mask(stored, ds).tolist() == [[False, True, True], [True, False, True]]
    ds.PixelPaddingValue, ds.PixelPaddingRangeLimit = 10, 5  # reversed: the same range
    assert _padding_mask(stored, ds).tolist() == [[False, True, True], [True, False, True]]
    # outside the stored span: nothing can be padding
    assert _padding_mask(stored, ds, (11, 20)) is None
    assert _padding_mask(stored, ds, (-5, 4)) is None
    assert _padding_mask(stored, ds, (10, 20)) is not None  # touches the span's low end
    assert _padding_mask(stored, ds, (-5, 5)) is not None  # touches its high end
    ds.PixelPaddingValue, ds.PixelPaddingRangeLimit = 0, 0
    assert _padding_mask(stored, ds).tolist() == [[True, False, False], [False, False, False]]


def test_a_palette_colour_image_is_pydicoms_lut_scaled_to_8_bits():
    path = get_testdata_file("OBXXXX1A.dcm")
    ds = pydicom.dcmread(path)
    data = load_dicom_slice(path, None)
    rgb = apply_color_lut(ds.pixel_array, ds).astype(np.float64)
    bits = int(ds.RedPaletteColorLookupTableDescriptor[2])
    expected = rgb if bits <= 8 else np.rint(rgb * 255.0 / (2**bits - 1))
    assert data.is_color and data.photometric == "PALETTE COLOR"
    assert data.pixels.dtype == np.uint8
    np.testing.assert_array_equal(data.pixels, expected.astype(np.uint8))
    assert bits == 16 and data.pixels.max() > 200  # scaled, not truncated to the low byte


def test_16_bit_rgb_is_scaled_to_8_bits():
    path = get_testdata_file("SC_rgb_16bit.dcm")
    ds = pydicom.dcmread(path)
    data = load_dicom_slice(path, None)
    bits = int(ds.BitsStored)
    expected = np.rint(ds.pixel_array.astype(np.float64) * 255.0 / (2**bits - 1))
    assert (data.is_color, data.photometric, data.pixels.dtype) == (True, "RGB", np.uint8)
    np.testing.assert_array_equal(data.pixels, expected.astype(np.uint8))


def test_overlay_planes_are_the_graphics():
    path = get_testdata_file("MR-SIEMENS-DICOM-WithOverlays.dcm")
    ds = pydicom.dcmread(path)
    data = load_dicom_slice(path, None)
    expected = np.asarray(ds.overlay_array(0x6000)).astype(bool)
    assert data.graphics is not None and data.graphics.dtype == bool
    np.testing.assert_array_equal(data.graphics, expected)
    assert expected.any()


def test_a_rescale_overflowing_by_its_intercept_is_unusable():
    # 1e308 * 1 is finite, 1e308 + 1.7e308 is not (float64 ends near 1.8e308)
    assert _unusable_rescale(1.0, 1.7e308, (0, 10**308)) == (
        "Rescale Slope 1 and Intercept 1.7e+308 exceed float64"
    )
    assert _unusable_rescale(1.0, -1.7e308, (-(10**308), 0)) != ""
