"""The windows a DICOM offers and the unit of its values (dicom_header.dicom_windows,
value_unit): Window Center/Width paired by position (PS3.3 C.11.2.1.2), a pair kept
only when both are finite and the width positive, top level else the Frame VOI LUT
functional group (C.7.6.16.2.10); Rescale Type (C.11.1.1.2) else the modality's unit.
Hand-built datasets, as pydicom converts them and as read from bytes."""

import pytest
from pydicom.dataelem import RawDataElement
from pydicom.dataset import Dataset
from pydicom.errors import BytesLengthException
from pydicom.tag import Tag

from medrcube_desktop.imaging.dicom_header import (
    dicom_windows,
    functional_group_item,
    value_unit,
)

CENTER, WIDTH = 0x00281050, 0x00281051


def _raw_windows(center: bytes, width: bytes) -> Dataset:
    """A dataset whose Window Center/Width are DS bytes as read from a file."""
    ds = Dataset()
    for tag, value in ((CENTER, center), (WIDTH, width)):
        ds[tag] = RawDataElement(Tag(tag), "DS", len(value), value, 0, False, True, True, False)
    return ds


def test_several_windows_converted_by_pydicom_are_paired_by_position():
    # a dataset built in memory holds pydicom's MultiValue, not a list
    ds = Dataset()
    ds.WindowCenter = [40, -600]
    ds.WindowWidth = [400, 1500]
    assert type(ds.WindowCenter).__name__ == "MultiValue"
    assert dicom_windows(ds, 0) == [(40.0, 400.0), (-600.0, 1500.0)]
    assert dicom_windows(_raw_windows(b"40\\-600", b"400\\1500 "), 0) == [
        (40.0, 400.0),
        (-600.0, 1500.0),
    ]


def test_a_pair_needs_a_finite_center_a_finite_width_and_a_positive_width():
    # 1e999 is a legal DS string (PS3.5 6.2) that reads as infinity; width 1 is the
    # smallest LINEAR window (C.11.2.1.2.1), width 0 none
    cases = [
        (b"1e999\\40", b"400\\400", [(40.0, 400.0)]),
        (b"40\\50", b"1e999\\400", [(50.0, 400.0)]),
        (b"40\\50", b"0\\400", [(50.0, 400.0)]),
        (b"40\\50", b"-10\\400", [(50.0, 400.0)]),
        (b"40", b"1", [(40.0, 1.0)]),
        (b"40\\40\\50", b"400\\400\\400", [(40.0, 400.0), (50.0, 400.0)]),  # repeats once
    ]
    for center, width, expected in cases:
        assert dicom_windows(_raw_windows(center, width), 0) == expected, (center, width)


def test_more_centers_than_widths_pairs_those_that_have_both():
    assert dicom_windows(_raw_windows(b"40\\-600", b"400"), 0) == [(40.0, 400.0)]
    assert dicom_windows(_raw_windows(b"40", b"400\\1500"), 0) == [(40.0, 400.0)]


def test_a_value_pydicom_cannot_read_as_a_number_is_skipped_not_the_rest():
    # "abc" is no DS: pydicom keeps the text; the numbers after it still count
    ds = _raw_windows(b"abc\\40 ", b"400")
    assert dicom_windows(ds, 0) == [(40.0, 400.0)]


def _voi_item(center, width):
    item = Dataset()
    item.WindowCenter = center
    item.WindowWidth = width
    group = Dataset()
    group.FrameVOILUTSequence = [item]
    return group


def test_a_top_level_center_without_a_width_gives_way_to_the_functional_groups():
    ds = Dataset()
    ds.WindowCenter = 40  # no Window Width beside it: no top-level window
    ds.SharedFunctionalGroupsSequence = [_voi_item(50, 350)]
    assert dicom_windows(ds, 0) == [(50.0, 350.0)]
    ds.WindowWidth = 400
    assert dicom_windows(ds, 0) == [(40.0, 400.0)]


def test_a_frame_past_the_per_frame_items_takes_the_first():
    ds = Dataset()
    ds.PerFrameFunctionalGroupsSequence = [_voi_item(50, 350), _voi_item(60, 300)]
    assert dicom_windows(ds, 1) == [(60.0, 300.0)]
    assert dicom_windows(ds, 2) == [(50.0, 350.0)]
    one = Dataset()
    one.PerFrameFunctionalGroupsSequence = [_voi_item(50, 350)]
    item = functional_group_item(one, 1, "FrameVOILUTSequence")
    assert (item.WindowCenter, item.WindowWidth) == (50, 350)


@pytest.mark.parametrize(
    ("rescale_type", "modality", "expected"),
    [
        ("OD", "CT", "OD"),  # optical density: the file's word wins
        (" HU ", "MR", "HU"),  # spaces around it are not the word
        ("US", "CT", "HU"),  # "US" is unspecified: the modality's unit
        ("us", "CT", "HU"),
        ("US", "MR", "signal (a.u.)"),
        ("US", "CR", "stored value"),
        (None, "CT", "HU"),
        (None, "MR", "signal (a.u.)"),
        (None, "PT", "stored value"),
        (None, None, "stored value"),
        ("", "CT", "HU"),
    ],
)
def test_the_unit_is_the_rescale_type_else_the_modalitys(rescale_type, modality, expected):
    ds = Dataset()
    if rescale_type is not None:
        ds.RescaleType = rescale_type
    assert value_unit(ds, modality) == expected


def test_a_frame_voi_center_without_a_width_is_not_read():
    # no pair without both (PS3.3 C.11.2.1.2): a functional group's Window Center alone
    # gives no window and is not read at all, so a value pydicom cannot convert (here
    # written as US, 3 bytes: pydicom raises on reading it) does not stop the image
    bad = RawDataElement(Tag(CENTER), "US", 3, b"\x01\x00\x00", 0, False, True, True, False)
    item = Dataset()
    item[CENTER] = bad
    with pytest.raises(BytesLengthException):
        _ = item[CENTER].value  # what reading it would do
    item[CENTER] = bad
    group = Dataset()
    group.FrameVOILUTSequence = [item]
    ds = Dataset()
    ds.SharedFunctionalGroupsSequence = [group]
    assert dicom_windows(ds, 0) == []
    assert item.get_item(CENTER) is bad  # left as read
