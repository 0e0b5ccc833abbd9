"""When dicom.native_frame reads the Pixel Data itself (issue 26): exactly the plain case
its docstring names (one uncompressed little-endian greyscale frame of 8 or 16 bits, the
exact length), every other file left to pydicom (None); the values equal pydicom's
``pixel_array`` and, where unused high bits hold garbage, the shifts by hand."""

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file

from medrcube_desktop.imaging.dicom import native_frame


def _ct(**changes):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    for key, value in changes.items():
        if value is ...:
            delattr(ds, key)
        else:
            setattr(ds, key, value)
    return ds


def _read(ds, expected=None):
    arr = native_frame(ds)
    assert arr is not None
    expected = ds.pixel_array if expected is None else expected
    np.testing.assert_array_equal(arr, expected)
    assert arr.dtype == expected.dtype and not arr.flags.writeable
    return arr


def test_plain_16_bit_signed_explicit_and_implicit_little_endian_are_read():
    assert _read(_ct()).dtype == np.dtype("<i2")
    implicit = pydicom.dcmread(get_testdata_file("MR_small_implicit.dcm"))
    assert implicit.file_meta.TransferSyntaxUID == "1.2.840.10008.1.2"
    _read(implicit)


def test_monochrome1_and_absent_samples_or_bits_stored_are_plain():
    _read(_ct(PhotometricInterpretation="MONOCHROME1"))
    stored = _ct().pixel_array  # pydicom refuses a file without Samples per Pixel
    _read(_ct(SamplesPerPixel=...), stored)  # absent: one sample
    _read(_ct(BitsStored=...), stored)  # absent: all the allocated bits
    assert int(_ct().BitsStored) == 16  # CT_small: stored == allocated, read as is


def _eight_bit(rows, columns, values, **changes):
    ds = _ct(Rows=rows, Columns=columns, BitsAllocated=8, BitsStored=8, HighBit=7)
    ds.PixelRepresentation = 0
    raw = np.asarray(values, np.uint8).tobytes()
    ds.PixelData = raw + b"\0" * (len(raw) % 2)
    for key, value in changes.items():
        setattr(ds, key, value)
    return ds


def test_8_bit_frames_with_an_odd_length_and_its_pad_byte_are_read():
    values = [[0, 1, 2, 3, 255], [7, 8, 9, 10, 11], [200, 100, 50, 25, 12]]
    ds = _eight_bit(3, 5, values)
    assert len(ds.PixelData) == 16  # 15 values and the pad byte
    arr = _read(ds)
    assert arr.dtype == np.uint8
    np.testing.assert_array_equal(arr, values)
    ds = _eight_bit(3, 5, values, PixelRepresentation=1)
    np.testing.assert_array_equal(_read(ds)[0], [0, 1, 2, 3, -1])


@pytest.mark.parametrize(
    "changes",
    [
        {"SamplesPerPixel": 3},
        {"PhotometricInterpretation": "RGB"},
        {"PhotometricInterpretation": "PALETTE COLOR"},
        {"BitsAllocated": 32},
        {"BitsAllocated": 12},
        {"BitsStored": 0},
        {"BitsStored": 17},
        {"PixelRepresentation": 2},
        {"Rows": 0},
        {"Columns": 0},
        {"Rows": 0, "PixelData": b""},  # no pixel, no byte: pydicom refuses Rows 0
        {"Columns": 0, "PixelData": b""},
        {"Rows": 64},  # half the frame: the data is twice as long
        {"Rows": ...},
        {"BitsAllocated": ...},
        {"PixelRepresentation": ...},
        {"PixelData": ...},
    ],
)
def test_anything_else_is_left_to_pydicom(changes):
    assert native_frame(_ct(**changes)) is None


def test_a_length_other_than_exact_or_exact_and_a_pad_byte_is_left_to_pydicom():
    ds = _ct()
    data = ds.PixelData
    ds.PixelData = data + b"\0\0"
    assert native_frame(ds) is None
    ds.PixelData = data[:-2]
    assert native_frame(ds) is None
    ds = _eight_bit(3, 5, np.zeros((3, 5)))
    ds.PixelData = ds.PixelData + b"\0\0"
    assert native_frame(ds) is None


def test_other_transfer_syntaxes_and_no_file_meta_are_left_to_pydicom():
    assert native_frame(pydicom.dcmread(get_testdata_file("MR_small_bigendian.dcm"))) is None
    assert native_frame(pydicom.dcmread(get_testdata_file("MR_small_RLE.dcm"))) is None
    ds = _ct()
    del ds.file_meta
    assert native_frame(ds) is None


def _twelve_bit(values, signed):
    ds = _ct(BitsStored=12, HighBit=11, Rows=1, Columns=len(values))
    ds.PixelRepresentation = int(signed)
    ds.PixelData = np.asarray(values, "<i2" if signed else "<u2").tobytes()
    return ds


def test_values_just_inside_twelve_bits_are_kept_just_outside_shifted():
    # signed 12 bits hold -2048 .. 2047; 2048 (0x0800) is -2048 and -2049 (0xF7FF) is 2047
    arr = _read(_twelve_bit([2047, -2048, 5], signed=True))
    np.testing.assert_array_equal(arr, [[2047, -2048, 5]])
    np.testing.assert_array_equal(_read(_twelve_bit([2048, 1], signed=True)), [[-2048, 1]])
    np.testing.assert_array_equal(_read(_twelve_bit([-2049, 1], signed=True)), [[2047, 1]])
    # unsigned 12 bits hold 0 .. 4095; 4096 (0x1000) is 0, 0x5123 is 0x123
    np.testing.assert_array_equal(_read(_twelve_bit([4095, 0], signed=False)), [[4095, 0]])
    np.testing.assert_array_equal(_read(_twelve_bit([4096, 3], signed=False)), [[0, 3]])
    np.testing.assert_array_equal(_read(_twelve_bit([0x5123, 4095], signed=False)), [[0x123, 4095]])


def test_one_bit_stored_and_one_column_frames_are_plain():
    # PS3.5 8.1.2: with Bits Stored 1 (High Bit 0) only bit 0 is the value, the 7 bits
    # above it are cleared: 0, 1, 3 (0b11), 0x80 read 0, 1, 1, 0
    ds = _eight_bit(1, 4, [[0, 1, 3, 0x80]], BitsStored=1, HighBit=0)
    np.testing.assert_array_equal(_read(ds), [[0, 1, 1, 0]])
    # a frame one pixel wide (3 x 1: 3 bytes and the pad byte) is still one plain frame
    ds = _eight_bit(3, 1, [[5], [6], [7]])
    assert len(ds.PixelData) == 4
    np.testing.assert_array_equal(_read(ds), [[5], [6], [7]])


def test_loading_reads_a_plain_frame_that_pydicom_refuses_without_samples_per_pixel(tmp_path):
    # Samples per Pixel absent: one sample (native_frame's default); pydicom's pixel_array
    # refuses the file ("Missing required element"), the load reads the Pixel Data itself
    from medrcube_desktop.imaging.dicom import load_dicom_slice

    whole = load_dicom_slice(get_testdata_file("CT_small.dcm"), None)
    ds = _ct(SamplesPerPixel=...)
    with pytest.raises(AttributeError, match="Samples per Pixel"):
        _ = ds.pixel_array
    path = tmp_path / "no_samples.dcm"
    ds.save_as(path)
    data = load_dicom_slice(path, None)
    np.testing.assert_array_equal(data.pixels, whole.pixels)
    assert data.pixels.dtype == whole.pixels.dtype
