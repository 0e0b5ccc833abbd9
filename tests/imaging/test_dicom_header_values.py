"""The plain header path (dicom_header.plain_value, issue 25 item 3) at its edges: an
element read empty, pydicom's options that change what a value becomes, a US value of
odd length, a big-endian US value of several values, a CS value ending in X. Each case
is checked against pydicom's own conversion of the same element (the value or the
type it gives), or against the DICOM rule (PS3.5 6.2) it follows."""

import decimal
import io

import numpy as np
import pydicom
import pytest
from pydicom import config
from pydicom.data import get_testdata_file
from pydicom.dataelem import RawDataElement
from pydicom.dataset import Dataset
from pydicom.tag import Tag

from medrcube_desktop.imaging.dicom_header import (
    NOT_PLAIN,
    dicom_windows,
    element_value,
    plain_value,
)


def _raw(tag, vr, value, little=True):
    length = 0 if value is None else len(value)
    return RawDataElement(Tag(tag), vr, length, value, 0, False, little, True, False)


def _read_back(ds):
    """``ds`` written to a little-endian explicit VR file and read again (its elements
    not yet converted, as a render reads them)."""
    buffer = io.BytesIO()
    ds.save_as(buffer, implicit_vr=False, little_endian=True)
    buffer.seek(0)
    return pydicom.dcmread(buffer, force=True)


def test_an_element_read_empty_is_pydicoms_none():
    # a zero-length US or DS element (Type 2, PS3.5 7.4) is read by pydicom as a raw
    # value None, not bytes: the plain path leaves it to pydicom, which gives None
    ds = Dataset()
    ds.Rows = None
    ds.WindowCenter = None
    ds.WindowWidth = "400"
    back = _read_back(ds)
    for tag in (0x00280010, 0x00281050):
        raw = back.get_item(tag)
        assert raw.value is None
        assert plain_value(raw) is NOT_PLAIN
    assert element_value(back, 0x00280010, "absent") is None
    assert element_value(back, 0x00281050, "absent") is None
    assert dicom_windows(back, 0) == []  # no center to pair with the width
    assert back.Rows is None and back.WindowCenter is None  # pydicom's own reading


def test_a_converted_element_is_not_read_plain():
    # only an element as read (RawDataElement) is read from its bytes; a converted
    # DataElement, whatever its value (even bytes), is pydicom's already
    ds = Dataset()
    ds.add_new(0x00281050, "DS", "40")
    ds.add_new(0x00280010, "US", b"\x00\x02")
    assert type(ds[0x00280010].value) is bytes
    for tag in (0x00281050, 0x00280010):
        assert plain_value(ds[tag]) is NOT_PLAIN
        assert element_value(ds, tag) is ds[tag].value


def test_a_us_value_of_odd_length_is_left_to_pydicom():
    # US is 2 bytes a value (PS3.5 6.2): 3 bytes are no US value; pydicom decides what
    # that is (an error, or UN with convert_wrong_length_to_UN)
    assert plain_value(_raw(0x00280010, "US", b"\x01\x02\x03")) is NOT_PLAIN
    assert plain_value(_raw(0x00280010, "US", b"\x01\x02\x03\x04\x05")) is NOT_PLAIN
    assert plain_value(_raw(0x00280010, "US", b"")) is NOT_PLAIN


def test_several_big_endian_us_values_are_read_big_endian():
    value = b"\x01\x02\x03\x04\x00\x10"
    raw = _raw(0x00280010, "US", value, little=False)
    expected = [int.from_bytes(value[i : i + 2], "big") for i in (0, 2, 4)]
    assert expected == [0x0102, 0x0304, 0x0010]
    assert plain_value(raw) == expected
    ds = Dataset()
    ds[0x00280010] = raw
    assert list(ds[0x00280010].value) == expected  # pydicom's conversion of it


def test_a_cs_value_ending_in_x_keeps_its_x():
    # Body Part Examined THORAX (PS3.16 CID 4031): only spaces and NULs are padding
    for value, expected in ((b"THORAX", "THORAX"), (b"THORAX\\BOX ", ["THORAX", "BOX"])):
        raw = _raw(0x00180015, "CS", value)
        assert plain_value(raw) == expected
        ds = Dataset()
        ds[0x00180015] = raw
        theirs = ds[0x00180015].value
        assert (list(theirs) if isinstance(expected, list) else theirs) == expected


@pytest.mark.parametrize(
    ("option", "on", "kind"),
    [
        ("use_DS_decimal", True, decimal.Decimal),
        ("use_DS_numpy", True, np.floating),
        ("use_IS_numpy", True, np.integer),
        ("data_element_callback", lambda raw, **kwargs: raw, None),
    ],
)
def test_each_pydicom_option_that_changes_a_value_sends_it_to_pydicom(
    monkeypatch, option, on, kind
):
    # with any one of them set, pydicom's value is no longer a plain int/float/str:
    # the plain path must not stand in for it
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    tags = {"DS": 0x00281052, "IS": 0x00200013, "US": 0x00280010, "CS": 0x00080060}
    monkeypatch.setattr(config, option, on)
    if option == "use_DS_decimal":  # as config.DS_decimal(True) sets it
        monkeypatch.setattr(pydicom.valuerep, "DSclass", pydicom.valuerep.DSdecimal)
    for vr, tag in tags.items():
        raw = ds.get_item(tag)  # as read: a RawDataElement of that VR
        assert type(raw) is RawDataElement and vr == raw.VR
        assert plain_value(raw) is NOT_PLAIN, (option, vr)
    if kind is not None:
        tag = tags["IS"] if option == "use_IS_numpy" else tags["DS"]
        value = element_value(ds, tag)
        assert isinstance(value, kind), (option, type(value))
        assert value == pydicom.dcmread(get_testdata_file("CT_small.dcm"))[tag].value
