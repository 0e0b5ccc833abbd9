"""dicom._decode_frame and _apply_modality on frames the loaders rarely give (issue 26,
mutants that survived): RGB of more than 8 bits whose file names no Bits Stored (16 is
assumed: the frame's dtype is 16-bit), a float frame holding NaN (no stored range is
read from floats), and a malformed Rescale Slope that pydicom's own modality LUT leaves
alone (the stored values, as float64). Values by hand or from pydicom's own functions."""

import math

import numpy as np
import pydicom
from pydicom.data import get_testdata_file
from pydicom.dataset import Dataset
from pydicom.pixels import apply_modality_lut

from medrcube_desktop.imaging.dicom import _apply_modality, _decode_frame


def test_16_bit_rgb_without_bits_stored_is_scaled_from_16_bits():
    ds = pydicom.dcmread(get_testdata_file("SC_rgb_16bit.dcm"))
    arr = ds.pixel_array.copy()
    assert arr.dtype == np.uint16 and arr.shape[-1] == 3
    # values where 16 and 17 bits round differently: 65535 * 255 / 65535 = 255,
    # * 255 / 131071 = 127.5 (128); 257 -> 1 and 0.5 (0)
    arr[0, 0] = (65535, 257, 0)
    del ds.BitsStored
    data = _decode_frame(arr, ds, 0, 1)
    assert data.is_color and data.pixels.dtype == np.uint8
    expected = np.rint(arr.astype(np.float64) * 255.0 / 65535.0).astype(np.uint8)
    np.testing.assert_array_equal(data.pixels, expected)
    assert data.pixels[0, 0].tolist() == [255, 1, 0]


def _monochrome():
    ds = Dataset()
    ds.PhotometricInterpretation = "MONOCHROME2"
    return ds


def test_a_float_frame_with_nan_is_decoded_with_its_nan_kept():
    arr = np.array([[math.nan, 1.5], [2.0, -3.25]], np.float32)
    data = _decode_frame(arr, _monochrome(), 0, 1)
    assert not data.is_color and data.pixels.dtype == np.float64
    np.testing.assert_array_equal(data.pixels, [[math.nan, 1.5], [2.0, -3.25]])
    assert data.notes == []


def test_a_float_frame_with_padding_compares_every_value():
    # padding 0.75 lies inside the frame's range 0.5 .. 0.9 though not between the
    # whole numbers its ends truncate to (0 .. 0): the one pixel holding it is padding
    ds = _monochrome()
    ds.PixelPaddingValue = 0  # an element to hold a float: set the value below
    ds["PixelPaddingValue"].value = 0.75
    arr = np.array([[0.5, 0.75], [0.9, 0.6]], np.float64)
    data = _decode_frame(arr, ds, 0, 1)
    np.testing.assert_array_equal(data.pixels, [[0.5, math.nan], [0.9, 0.6]])
    assert "1 padding pixels (Pixel Padding Value) shown black" in data.notes


def test_a_malformed_slope_pydicom_ignores_gives_the_stored_values_as_float64():
    # "2\3" cannot be read as one number; pydicom's modality LUT needs both Rescale
    # Slope and Intercept and, the intercept absent, returns the stored values
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ds.RescaleSlope = "2\\3"
    del ds.RescaleIntercept
    arr = np.array([[1, 2], [-5, 700]], np.int16)
    reference = apply_modality_lut(arr, ds)
    np.testing.assert_array_equal(reference, arr)
    out = _apply_modality(arr, ds, 0)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [[1.0, 2.0], [-5.0, 700.0]])
