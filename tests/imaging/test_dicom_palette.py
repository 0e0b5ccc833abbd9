"""The Supplemental Palette Color LUT of a greyscale DICOM (PS3.3 C.7.6.3.1.5, issue 26):
stored values from the descriptor's first mapped value upward are shown through the
palette, the index clipped to the table, entries scaled to 8 bits. pydicom's
apply_color_lut does not support this module, so the expected colours are worked out by
hand from the tables written into pydicom's own CT_small.dcm and MR_small_bigendian.dcm."""

import numpy as np
import pydicom
from pydicom.data import get_testdata_file

from medrcube_desktop.imaging.dicom import _supplemental_palette, load_dicom_slice

# 16-bit tables of 3 entries: scaled by 255 / 65535 and rounded
RED = [0, 32768, 65535]  # 0, 127.50 -> 128, 255
GREEN = [65535, 1, 128]  # 255, 0.004 -> 0, 0.498 -> 0
BLUE = [257, 514, 1000]  # 1, 2, 3.89 -> 4
RGB16 = np.array([[0, 255, 1], [128, 0, 2], [255, 0, 4]], np.uint8)  # row i: entry i


def _with_palette(ds, descriptor, tables, dtype):
    ds.add_new(0x00281101, "US", list(descriptor))  # Red descriptor
    ds.add_new(0x00281102, "US", list(descriptor))
    ds.add_new(0x00281103, "US", list(descriptor))
    for tag, table in zip((0x00281201, 0x00281202, 0x00281203), tables, strict=True):
        raw = np.asarray(table, dtype=dtype).tobytes()
        ds.add_new(tag, "OW", raw + b"\0" * (len(raw) % 2))  # OW: even length
    return ds


def _ct(descriptor=(3, 100, 16), tables=(RED, GREEN, BLUE), dtype="<u2"):
    return _with_palette(
        pydicom.dcmread(get_testdata_file("CT_small.dcm")), descriptor, tables, dtype
    )


def test_mapped_values_take_the_palette_and_the_index_is_clipped_to_the_table():
    stored = np.array([[-5, 99, 100], [101, 102, 500]], np.int16)
    mask, rgb = _supplemental_palette(stored, _ct())
    np.testing.assert_array_equal(mask, [[False, False, True], [True, True, True]])
    assert rgb.dtype == np.uint8 and rgb.shape == (2, 3, 3)
    # index = clip(stored - 100, 0, 2): -5 and 99 read entry 0 (masked out), 500 the last
    np.testing.assert_array_equal(rgb, RGB16[[[0, 0, 0], [1, 2, 2]]])


def test_a_first_mapped_value_of_zero_maps_every_non_negative_value():
    stored = np.array([[0, 1, 2, 3]], np.uint16)
    mask, rgb = _supplemental_palette(stored, _ct(descriptor=(3, 0, 16)))
    assert mask.all()
    np.testing.assert_array_equal(rgb[0], RGB16[[0, 1, 2, 2]])


def test_an_8_bit_table_is_read_one_byte_an_entry_unscaled():
    tables = ([10, 200, 255], [0, 1, 2], [254, 128, 7])
    mask, rgb = _supplemental_palette(
        np.array([[4, 5, 6, 7]], np.int16), _ct(descriptor=(3, 5, 8), tables=tables, dtype="u1")
    )
    np.testing.assert_array_equal(mask, [[False, True, True, True]])
    np.testing.assert_array_equal(rgb[0], [[10, 0, 254], [10, 0, 254], [200, 1, 128], [255, 2, 7]])


def test_a_9_bit_table_is_two_bytes_an_entry_scaled_by_511():
    tables = ([0, 511, 256], [1, 2, 3], [255, 100, 0])
    # 256 * 255 / 511 = 127.75 -> 128; 1, 2, 3 -> 0.499 -> 0, 0.998 -> 1, 1.497 -> 1;
    # 255 -> 127.25 -> 127, 100 -> 49.90 -> 50
    mask, rgb = _supplemental_palette(
        np.array([[0, 1, 2]], np.int16), _ct(descriptor=(3, 0, 9), tables=tables, dtype="<u2")
    )
    np.testing.assert_array_equal(rgb[0], [[0, 0, 127], [255, 1, 50], [128, 1, 0]])


def test_zero_entries_means_65536():
    # PS3.3 C.7.6.3.1.5: a first descriptor value of 0 is 2**16 entries
    table = np.arange(65536, dtype=np.uint32)[::-1] % 65536  # 65535 down to 0
    stored = np.array([[0, 1, 65535]], np.int32)
    stored = np.concatenate([stored, [[70000, 65534, 32768]]])
    mask, rgb = _supplemental_palette(
        stored, _ct(descriptor=(0, 0, 16), tables=(table, table, table))
    )
    assert mask.all()
    # entry i holds 65535 - i; 70000 is past the table and takes its last entry (0)
    expected = np.rint((65535 - np.minimum(stored, 65535)) * 255 / 65535).astype(np.uint8)
    np.testing.assert_array_equal(rgb[..., 0], expected)
    assert rgb[0, 0, 0] == 255 and rgb[1, 0, 0] == 0 and rgb[0, 2, 0] == 0


def test_big_endian_tables_are_read_big_endian(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("MR_small_bigendian.dcm"))
    _with_palette(ds, (3, 100, 16), (RED, GREEN, BLUE), ">u2")
    path = tmp_path / "palette-big.dcm"
    ds.save_as(path)
    read = pydicom.dcmread(path)
    assert read.original_encoding == (False, False)
    _, rgb = _supplemental_palette(np.array([[100, 101, 102]], np.int16), read)
    np.testing.assert_array_equal(rgb[0], RGB16)


def test_the_palette_is_loaded_with_the_frame_and_said_in_a_note(tmp_path):
    ds = _ct(descriptor=(3, 1000, 16))
    path = tmp_path / "palette.dcm"
    ds.save_as(path)
    stored = pydicom.dcmread(path).pixel_array
    data = load_dicom_slice(path, None)
    assert "Supplemental Palette Color LUT: mapped values shown in colour" in data.notes
    np.testing.assert_array_equal(data.supplemental, stored >= 1000)
    assert 0 < data.supplemental.sum() < stored.size  # CT_small has values on both sides
    index = np.clip(stored.astype(np.int64) - 1000, 0, 2)
    np.testing.assert_array_equal(data.supplemental_rgb, RGB16[index])


def test_pixel_presentation_decides_whether_the_palette_is_shown():
    stored = np.array([[100]], np.int16)
    ds = _ct()
    assert "PixelPresentation" not in ds  # absent reads as COLOR
    assert _supplemental_palette(stored, ds) is not None
    ds.PixelPresentation = "MIXED"
    assert _supplemental_palette(stored, ds) is not None
    ds.PixelPresentation = "color"
    assert _supplemental_palette(stored, ds) is not None
    ds.PixelPresentation = "MONOCHROME"
    assert _supplemental_palette(stored, ds) is None


def test_no_palette_or_a_malformed_one_is_none():
    stored = np.array([[100]], np.int16)
    assert _supplemental_palette(stored, pydicom.dcmread(get_testdata_file("CT_small.dcm"))) is None
    ds = _ct()
    del ds[0x00281201]  # red data missing
    assert _supplemental_palette(stored, ds) is None
    ds = _ct()
    del ds[0x00281101]  # red descriptor missing
    assert _supplemental_palette(stored, ds) is None
    ds = _ct()
    del ds[0x00281203]  # blue data missing
    assert _supplemental_palette(stored, ds) is None
    ds = _ct()
    ds[0x00281101].value = [3, 100]  # two values, not three
    assert _supplemental_palette(stored, ds) is None
