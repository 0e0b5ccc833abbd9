"""Colour frames of a DICOM to 8 bits (issue 26): PALETTE COLOR through pydicom's
apply_color_lut, entries of more than 8 bits scaled by 255 / (2**bits - 1); RGB of more
than 8 bits stored scaled the same way; the frame's modality and index kept. Files are
pydicom's OBXXXX1A.dcm (16-bit palette) and SC_rgb_16bit.dcm with their values changed so
that scaling and truncating to the low byte differ."""

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.pixels import apply_color_lut

from medrcube_desktop.imaging.dicom import load_dicom_slice


def _palette_spread(ds):
    """``ds``'s 16-bit palette tables replaced by entries spread over 0 .. 65535 (with
    51528 = 257 * 200 + 128, 200.498 in 8 bits: a divisor of 65534 would round it up)."""
    for k, colour in enumerate(("Red", "Green", "Blue")):
        element = ds[f"{colour}PaletteColorLookupTableData"]
        count = len(element.value) // 2
        table = (np.arange(count, dtype=np.int64) * (7919 + 104 * k)) % 65536
        table[:3] = [51528, 65535, 0]
        element.value = table.astype("<u2").tobytes()
    return ds


def test_16_bit_palette_entries_are_scaled_to_8_bits_and_rounded(tmp_path):
    ds = _palette_spread(pydicom.dcmread(get_testdata_file("OBXXXX1A.dcm")))
    ds.PixelData = np.resize(np.arange(256, dtype=np.uint8), len(ds.PixelData)).tobytes()
    path = tmp_path / "palette.dcm"
    ds.save_as(path)
    ds = pydicom.dcmread(path)
    assert int(ds.RedPaletteColorLookupTableDescriptor[2]) == 16
    first = int(ds.RedPaletteColorLookupTableDescriptor[1])
    assert first <= int(ds.pixel_array.min())  # every stored value reads a table entry
    rgb = apply_color_lut(ds.pixel_array, ds).astype(np.float64)
    assert {0, 51528, 65535} <= set(np.unique(rgb[..., 0]).astype(int))
    expected = np.rint(rgb * 255.0 / 65535).astype(np.uint8)
    data = load_dicom_slice(path, None)
    assert (data.is_color, data.photometric, data.modality) == (True, "PALETTE COLOR", "US")
    assert (data.slice_index, data.slice_count) == (0, 1)
    assert data.pixels.dtype == np.uint8
    np.testing.assert_array_equal(data.pixels, expected)
    assert expected[rgb[..., 0] == 51528][0, 0] == 200  # 200.498, not 201


def test_a_multi_frame_palette_image_keeps_the_frame_index(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("OBXXXX1A.dcm"))
    first = ds.pixel_array
    ds.NumberOfFrames = 3
    ds.PixelData = ds.PixelData + (255 - first).astype(np.uint8).tobytes() + ds.PixelData
    path = tmp_path / "palette3.dcm"
    ds.save_as(path)
    data = load_dicom_slice(path, 1)
    assert (data.slice_index, data.slice_count) == (1, 3)
    ds = pydicom.dcmread(path)
    rgb = apply_color_lut(255 - first, ds).astype(np.float64)
    np.testing.assert_array_equal(data.pixels, np.rint(rgb * 255.0 / 65535).astype(np.uint8))


@pytest.mark.parametrize("bits", [16, 12])
def test_rgb_stored_in_more_than_8_bits_is_scaled_not_truncated(tmp_path, bits):
    ds = pydicom.dcmread(get_testdata_file("SC_rgb_16bit.dcm"))
    rgb = ds.pixel_array.astype(np.int64)
    # values spread over the range, off the v * 257 the file holds (0, 16448, ...)
    values = (np.arange(rgb.size).reshape(rgb.shape) * 37 + 1001) % (2**bits)
    ds.BitsStored, ds.HighBit = bits, bits - 1
    ds.PixelData = values.astype("<u2").tobytes()  # planar configuration 0: interleaved
    path = tmp_path / f"rgb{bits}.dcm"
    ds.save_as(path)
    np.testing.assert_array_equal(pydicom.dcmread(path).pixel_array, values)
    expected = np.rint(values * 255.0 / (2**bits - 1)).astype(np.uint8)
    assert (expected != (values % 256)).any()
    # a divisor of 2**bits + 1 or 2**bits - 2 rounds some of them otherwise
    for divisor in (2**bits + 1, 2**bits - 2):
        assert (np.rint(values * 255.0 / divisor) != expected).any()
    data = load_dicom_slice(path, None)
    assert (data.is_color, data.photometric, data.modality) == (True, "RGB", "OT")
    np.testing.assert_array_equal(data.pixels, expected)


def test_a_greyscale_frame_three_columns_wide_is_not_colour(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    values = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]], np.int16)
    ds.Rows, ds.Columns = 4, 3
    ds.PixelData = values.tobytes()
    ds.RescaleSlope, ds.RescaleIntercept = 1, 0
    path = tmp_path / "narrow.dcm"
    ds.save_as(path)
    data = load_dicom_slice(path, None)
    assert not data.is_color and data.photometric == "MONOCHROME2"
    np.testing.assert_array_equal(data.pixels, values)


def test_a_file_without_a_modality_has_none(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    del ds.Modality
    path = tmp_path / "no-modality.dcm"
    ds.save_as(path)
    assert load_dicom_slice(path, None).modality is None
    ds = pydicom.dcmread(get_testdata_file("SC_rgb_16bit.dcm"))
    del ds.Modality
    ds.save_as(path)
    assert load_dicom_slice(path, None).modality is None
