"""A DICOM file whose Rows, Columns or Number of Frames is not one whole number is refused
with the element and its values named, the same words whether pydicom converted the
value (``MultiValue``) or it was read from its bytes (``plain_value``: a ``list``)."""

from __future__ import annotations

import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.dataelem import RawDataElement
from pydicom.tag import Tag

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.loading import load_slice


def _mr_small_with(tmp_path, tag: int, vr: str, value: bytes, implicit: bool = False):
    ds = pydicom.dcmread(get_testdata_file("MR_small.dcm"))
    ds[tag] = RawDataElement(Tag(tag), None if implicit else vr, len(value), value, 0,
                             implicit, True)  # fmt: skip
    if implicit:
        ds.file_meta.TransferSyntaxUID = pydicom.uid.ImplicitVRLittleEndian
    path = tmp_path / f"{tag:08X}_{implicit}.dcm"
    ds.save_as(path, enforce_file_format=True)
    return path


@pytest.mark.parametrize("implicit", [False, True])
@pytest.mark.parametrize(
    ("tag", "vr", "value", "said"),
    [
        (0x00280008, "IS", b"1\\2 ", "Number of Frames (0028,0008) is '1\\2'"),
        (0x00280008, "IS", b"3\\+4", "Number of Frames (0028,0008) is '3\\4'"),
        # 'y' is not IS: pydicom converts the element (a MultiValue, with its warning)
        (0x00280008, "IS", b"3\\y ", "Number of Frames (0028,0008) is '3\\y'"),
        # pydicom's IS keeps its text ('+4'): the message writes the number, as the plain read
        (0x00280008, "IS", b"+4\\y ", "Number of Frames (0028,0008) is '4\\y'"),
        (0x00280010, "US", b"\x40\x00\x40\x00", "Rows (0028,0010) is '64\\64'"),
        (0x00280011, "US", b"\x40\x00\x01\x00\x02\x00", "Columns (0028,0011) is '64\\1\\2'"),
    ],
)
def test_several_values_of_the_images_size_are_named_not_pythons_container(
    tmp_path, tag, vr, value, said, implicit
):
    path = _mr_small_with(tmp_path, tag, vr, value, implicit)
    with pytest.raises(ImageLoadError) as caught:
        load_slice(path)
    message = str(caught.value)
    assert message == f"{path}: {said}, not one whole number: the image's size is unknown"
    assert "MultiValue" not in message and "list" not in message


def test_a_number_of_frames_that_is_no_number_is_named(tmp_path):
    # not IS's pattern: pydicom converts it (with its warning) to the text itself
    path = _mr_small_with(tmp_path, 0x00280008, "IS", b"x ")
    with pytest.raises(ImageLoadError, match=r"Number of Frames \(0028,0008\) is 'x', not one"):
        load_slice(path)


def test_a_word_for_the_number_of_frames_is_named_whole_not_letter_by_letter(tmp_path):
    # one value, not several: its text as it stands ('xy'), not split into 'x\\y'
    path = _mr_small_with(tmp_path, 0x00280008, "IS", b"xy")
    with pytest.raises(ImageLoadError) as caught:
        load_slice(path)
    assert "Number of Frames (0028,0008) is 'xy', not one whole number" in str(caught.value)


@pytest.mark.parametrize("value", [b"1 ", b"+1", b"0 ", b""])
def test_one_frame_or_none_said_is_the_image(tmp_path, value):
    path = _mr_small_with(tmp_path, 0x00280008, "IS", value)
    data = load_slice(path)
    assert data.pixels.shape == (64, 64) and data.slice_count == 1
