"""Which frame of a DICOM is shown and with which rescale (issue 26): the central frame by
default, an asked index clamped to the frames there are, pydicom's own frame; Rescale
Slope/Intercept from the Pixel Value Transformation functional group (PS3.3 C.7.6.16.2.9)
when the top level has none, per frame before shared; values by hand."""

import struct

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.dataset import Dataset
from pydicom.sequence import Sequence

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.dicom import _apply_modality, load_dicom_slice


@pytest.mark.parametrize(("asked", "shown"), [(None, 5), (0, 0), (3, 3), (9, 9), (-4, 0), (99, 9)])
def test_the_frame_shown_is_the_central_or_the_asked_one_clamped(asked, shown):
    path = get_testdata_file("emri_small.dcm")
    frames = pydicom.dcmread(path).pixel_array
    assert frames.shape[0] == 10
    data = load_dicom_slice(path, asked)
    assert (data.slice_index, data.slice_count) == (shown, 10)
    np.testing.assert_array_equal(data.pixels, frames[shown])


def test_a_single_frame_is_frame_0_of_1_whatever_is_asked():
    path = get_testdata_file("CT_small.dcm")
    for asked in (None, 0, 5, -1):
        data = load_dicom_slice(path, asked)
        assert (data.slice_index, data.slice_count) == (0, 1)


@pytest.mark.parametrize("frames", [0, ""])
def test_a_number_of_frames_of_zero_or_empty_is_one_frame(tmp_path, frames):
    # pydicom reads such a file as one frame ("assuming 1 frame"): so is it shown
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ds.NumberOfFrames = frames
    path = tmp_path / "frames.dcm"
    ds.save_as(path)
    stored = pydicom.dcmread(path).pixel_array
    assert stored.shape == (128, 128)
    for asked in (None, 0, 3):
        data = load_dicom_slice(path, asked)
        assert (data.slice_index, data.slice_count) == (0, 1)
        # CT_small: Rescale Slope 1, Intercept -1024
        np.testing.assert_array_equal(data.pixels, stored.astype(np.int32) - 1024)


def test_a_header_without_rows_or_columns_is_no_image(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    del ds.Rows
    path = tmp_path / "no-rows.dcm"
    ds.save_as(path)
    with pytest.raises(ImageLoadError, match="holds no image"):
        load_dicom_slice(path, None)


def _item(slope, intercept):
    item = Dataset()
    item.RescaleSlope, item.RescaleIntercept = slope, intercept
    return item


def _group(pvt):
    group = Dataset()
    group.PixelValueTransformationSequence = Sequence([pvt])
    return group


def _enhanced(shared=None, per_frame=None):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    del ds.RescaleSlope, ds.RescaleIntercept
    if shared is not None:
        ds.SharedFunctionalGroupsSequence = Sequence([_group(shared)])
    if per_frame is not None:
        ds.PerFrameFunctionalGroupsSequence = Sequence([_group(p) for p in per_frame])
    return ds


ARR = np.array([[0, 1], [10, -3]], np.int16)


def test_the_shared_functional_groups_rescale():
    out = _apply_modality(ARR, _enhanced(shared=_item(2, -10)), 0)
    np.testing.assert_array_equal(out, [[-10, -8], [10, -16]])
    out = _apply_modality(ARR, _enhanced(shared=_item(0.5, 1.25)), 0)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [[1.25, 1.75], [6.25, -0.25]])


def test_the_per_frame_rescale_comes_before_the_shared_one():
    ds = _enhanced(shared=_item(1, 100), per_frame=[_item(3, 0), _item(1, -1)])
    np.testing.assert_array_equal(_apply_modality(ARR, ds, 0), ARR * 3)
    np.testing.assert_array_equal(_apply_modality(ARR, ds, 1), ARR - 1)
    # a frame past the per-frame items reads the first one
    np.testing.assert_array_equal(_apply_modality(ARR, ds, 7), ARR * 3)


def test_a_top_level_rescale_comes_before_the_functional_groups():
    ds = _enhanced(shared=_item(5, 5))
    ds.RescaleIntercept = -1  # only an intercept at the top level: slope 1
    np.testing.assert_array_equal(_apply_modality(ARR, ds, 0), ARR - 1)


def test_neither_a_top_level_nor_a_functional_group_rescale_is_the_stored_values():
    out = _apply_modality(ARR, _enhanced(), 0)
    assert out is ARR


def test_a_multi_frame_file_reads_the_rescale_and_window_of_the_frame_shown(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("emri_small.dcm"))
    stored = ds.pixel_array
    groups = []
    for i in range(10):
        group = _group(_item(1, 100 * i))
        voi = Dataset()
        voi.WindowCenter, voi.WindowWidth = 10 * i, 100 + i
        group.FrameVOILUTSequence = Sequence([voi])
        groups.append(group)
    ds.PerFrameFunctionalGroupsSequence = Sequence(groups)
    path = tmp_path / "per-frame.dcm"
    ds.save_as(path)
    for frame in (0, 3, 9):
        data = load_dicom_slice(path, frame)
        np.testing.assert_array_equal(data.pixels, stored[frame].astype(np.int64) + 100 * frame)
        assert data.window == (10.0 * frame, 100.0 + frame)


def test_a_multi_frame_rgb_file_keeps_the_frame_index(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("SC_rgb.dcm"))
    first = ds.pixel_array
    assert first.dtype == np.uint8 and first.shape[-1] == 3
    ds.NumberOfFrames = 2
    ds.PixelData = ds.PixelData + (255 - first).tobytes()
    path = tmp_path / "rgb2.dcm"
    ds.save_as(path)
    data = load_dicom_slice(path, 1)
    assert (data.is_color, data.slice_index, data.slice_count) == (True, 1, 2)
    np.testing.assert_array_equal(data.pixels, 255 - first)


def test_rows_times_columns_beyond_the_pixel_limit_is_refused_before_decoding(
    tmp_path, monkeypatch
):
    # CT_small is 128 x 128 = 16,384 pixels: a limit of 16,383 refuses it, 16,384 not
    path = tmp_path / "ct.dcm"
    pydicom.dcmread(get_testdata_file("CT_small.dcm")).save_as(path)
    monkeypatch.setenv("MEDRCUBE_MAX_PIXELS", "16383")
    with pytest.raises(ImageLoadError) as raised:
        load_dicom_slice(path, None)
    assert str(raised.value).startswith(f"{path}: 16,384 pixels exceed the limit of 16,383")
    monkeypatch.setenv("MEDRCUBE_MAX_PIXELS", "16384")
    assert load_dicom_slice(path, None).pixels.shape == (128, 128)


def test_a_frame_count_the_data_does_not_hold_is_refused_in_pydicoms_words(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    ds.NumberOfFrames = 2  # the Pixel Data holds one 128 x 128 frame of 16 bits
    path = tmp_path / "frames.dcm"
    ds.save_as(path)
    with pytest.raises(
        ImageLoadError, match=r"less than expected \(32768 vs 65536 bytes\)"
    ) as caught:
        load_dicom_slice(path, None)
    assert str(caught.value).startswith(f"{path}: cannot decode image: Pixel Data (7FE0,0010)")


def _short_frames(tmp_path, keyword, bits, dtype, values):
    # three 4 x 4 frames declared; CT_small ends in Data Set Trailing Padding (FFFC,FFFC),
    # which pydicom 3 read as the missing part of frame 3 and showed as pixels
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    assert 0xFFFCFFFC in ds
    del ds.PixelData
    ds.Rows, ds.Columns, ds.NumberOfFrames, ds.BitsAllocated = 4, 4, 3, bits
    if keyword != "PixelData":
        for gone in ("BitsStored", "HighBit", "PixelRepresentation"):
            delattr(ds, gone)
    else:
        ds.BitsStored, ds.HighBit = 16, 15
    stored = (np.arange(values) % 100).astype(dtype)
    vr = {"PixelData": "OW", "FloatPixelData": "OF", "DoubleFloatPixelData": "OD"}[keyword]
    ds.add_new(keyword, vr, stored.tobytes())
    path = tmp_path / f"{keyword}-{values}.dcm"
    ds.save_as(path)
    return path, stored, ds


PIXEL_KINDS = [
    ("PixelData", 16, "<i2", "Pixel Data (7FE0,0010)", 2),
    ("FloatPixelData", 32, "<f4", "Float Pixel Data (7FE0,0008)", 4),
    ("DoubleFloatPixelData", 64, "<f8", "Double Float Pixel Data (7FE0,0009)", 8),
]


@pytest.mark.parametrize(("keyword", "bits", "dtype", "name", "size"), PIXEL_KINDS)
def test_frames_the_pixel_data_lacks_refuse_the_file_not_show_what_follows_it(
    tmp_path, keyword, bits, dtype, name, size
):
    # 40 values of the 48 three frames need: every frame refused, as pydicom refuses a
    # short single frame in memory (and the frame it used to show was the padding)
    path, _, _ = _short_frames(tmp_path, keyword, bits, dtype, 40)
    for frame in (None, 0, 1, 2):
        with pytest.raises(ImageLoadError) as raised:
            load_dicom_slice(path, frame)
        assert str(raised.value) == (
            f"{path}: cannot decode image: {name} holds less than expected "
            f"({40 * size} vs {48 * size} bytes) for 3 frame(s) of {16 * size} bytes: the "
            "file is cut short or Number of Frames, Rows, Columns, Samples per Pixel or Bits "
            "Allocated is wrong"
        )


@pytest.mark.parametrize(("keyword", "bits", "dtype", "name", "size"), PIXEL_KINDS)
def test_each_frame_of_whole_pixel_data_is_its_stored_values(
    tmp_path, keyword, bits, dtype, name, size
):
    path, stored, ds = _short_frames(tmp_path, keyword, bits, dtype, 48)
    slope, intercept = float(ds.RescaleSlope), float(ds.RescaleIntercept)
    for frame in (0, 1, 2):
        data = load_dicom_slice(path, frame)
        assert (data.slice_index, data.slice_count) == (frame, 3)
        expected = stored[16 * frame : 16 * frame + 16].reshape(4, 4) * slope + intercept
        np.testing.assert_array_equal(data.pixels, expected)


def test_pixel_data_beside_float_pixel_data_is_refused_not_read_as_the_first(tmp_path):
    # pydicom's file read decoded the Float Pixel Data (first in the file) past its end
    path, _, ds = _short_frames(tmp_path, "FloatPixelData", 32, "<f4", 32)
    ds.add_new("PixelData", "OW", bytes(64))
    ds.save_as(path)
    with pytest.raises(ImageLoadError) as raised:
        load_dicom_slice(path, 2)
    assert str(raised.value) == (
        f"{path}: cannot decode image: Pixel Data (7FE0,0010) and Float Pixel Data "
        "(7FE0,0008) are both present; one and only one of them may be (PS3.3 C.7.6.3)"
    )


def test_undefined_length_pixel_data_in_a_native_syntax_is_refused(tmp_path):
    # three 4 x 4 frames of 16 bits in two items: read as native, the items' tags were pixels
    from pydicom.encaps import encapsulate

    path, _, ds = _short_frames(tmp_path, "PixelData", 16, "<i2", 48)
    items = encapsulate([bytes(range(48)), bytes(range(48, 96))])
    ds.PixelData, ds["PixelData"].VR = items, "OB"
    ds.save_as(path)  # pydicom writes a defined length here: made undefined by hand
    head = b"\xe0\x7f\x10\x00OB\x00\x00" + struct.pack("<I", len(items))
    raw = path.read_bytes()
    assert raw.count(head) == 1
    at = raw.index(head) + len(head)
    path.write_bytes(
        raw[: at - 4] + b"\xff\xff\xff\xff" + items + b"\xfe\xff\xdd\xe0\0\0\0\0"
        + raw[at + len(items) :]
    )  # fmt: skip
    assert pydicom.dcmread(path)["PixelData"].is_undefined_length  # as written
    with pytest.raises(ImageLoadError) as raised:
        load_dicom_slice(path, 0)
    assert str(raised.value) == (
        f"{path}: cannot decode image: Pixel Data (7FE0,0010) has an undefined length "
        "(encapsulated items) in the uncompressed transfer syntax 1.2.840.10008.1.2.1 (PS3.5 "
        "A.4: only compressed transfer syntaxes encapsulate)"
    )


def test_pydicoms_refusal_of_a_frame_names_the_file(tmp_path):
    # Rows 0: pydicom's ValueError, named with the file (series read this function directly)
    path, _, ds = _short_frames(tmp_path, "PixelData", 16, "<i2", 48)
    ds.Rows = 0
    ds.save_as(path)
    with pytest.raises(ImageLoadError, match=rf"^{path}: cannot decode image: .*'Rows'") as raised:
        load_dicom_slice(path, 1)
    assert isinstance(raised.value.__cause__, ValueError)
