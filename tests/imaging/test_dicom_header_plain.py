"""Header values read from their bytes (dicom_header.plain_value, issue 25 item 3) are
pydicom's values: every US, IS, DS and CS element of every pydicom test file (explicit
and implicit VR, little and big endian) that the plain path reads gives what pydicom's
own conversion gives (and pydicom says nothing about it); a value outside its VR's
pattern is left to pydicom, which reads it its own way."""

import warnings

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file, get_testdata_files
from pydicom.dataelem import RawDataElement
from pydicom.tag import Tag

from medrcube_desktop.imaging.dicom_header import NOT_PLAIN, element_value, plain_value


def _files():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydicom-data not downloaded: fewer files
        return sorted(get_testdata_files("*.dcm"))


def _pydicom_value(ds, tag):
    """pydicom's converted value and the warnings its conversion gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = ds[tag].value
    return value, [str(w.message) for w in caught]


def _as_list(value):
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        return [value]
    return list(value)


def test_every_plain_value_of_pydicoms_test_files_is_pydicoms_value():
    read = {"US": 0, "IS": 0, "DS": 0, "CS": 0}
    implicit = big = 0
    for path in _files():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ds = pydicom.dcmread(path, force=True)
        except Exception:
            continue
        for tag in list(ds.keys()):
            raw = ds.get_item(tag)
            if not isinstance(raw, RawDataElement):
                continue
            plain = plain_value(raw)
            if plain is NOT_PLAIN:
                continue
            expected, said = _pydicom_value(ds, tag)
            assert said == [], (path, hex(tag))  # pydicom reads it without a word
            assert _as_list(plain) == _as_list(expected), (path, hex(tag), plain, expected)
            vr = ds[tag].VR
            kind = {"US": int, "IS": int, "DS": float, "CS": str}[vr]
            assert all(type(v) is kind for v in _as_list(plain)), (path, hex(tag))
            read[vr] += 1
            implicit += raw.VR is None
            big += not raw.is_little_endian
    # the comparison ran over many values of each kind, both VR encodings, both orders
    assert min(read.values()) > 50, read
    assert implicit > 20 and big > 20, (implicit, big)


@pytest.mark.parametrize(
    ("vr", "value"),
    [
        ("DS", b"0.12345678901234567"),  # 19 characters: longer than DS allows
        ("DS", b"1.5\n"),  # pydicom's pattern ends at $, its check refuses the newline
        ("DS", b"abc "),
        ("DS", b"1.5\\\\2"),  # an empty value between two
        ("IS", b"1.0 "),  # not an integer string
        ("IS", b"1234567890123 "),  # 13 characters: longer than IS allows
        ("CS", b"mr"),  # lower case is no CS
        ("CS", b"ABCDEFGHIJKLMNOPQ "),  # 17 characters
    ],
)
def test_a_value_outside_its_vrs_pattern_is_left_to_pydicom(vr, value):
    # pydicom reads such values its own way (a DS "abc" stays the text "abc"): the
    # plain path declines them, and element_value gives pydicom's value
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    tag = {"DS": 0x00281050, "IS": 0x00200013, "CS": 0x00080060}[vr]  # WC, Instance, Modality
    ds[tag] = RawDataElement(Tag(tag), vr, len(value), value, 0, False, True, True, False)
    assert plain_value(ds.get_item(tag)) is NOT_PLAIN
    ours = element_value(ds, tag)
    fresh = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    fresh[tag] = RawDataElement(Tag(tag), vr, len(value), value, 0, False, True, True, False)
    assert _as_list(ours) == _as_list(fresh[tag].value)


def test_values_are_read_in_the_elements_byte_order_and_as_pydicom_splits_them():
    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm"))
    cases = {
        ("US", b"\x01\x02"): 0x0201,
        ("US", b"\x01\x02\x03\x04"): [0x0201, 0x0403],
        ("DS", b" -1.5e2\\+.25 "): [-150.0, 0.25],
        ("IS", b"+12 \x00"): 12,
        ("CS", b"ORIGINAL\\PRIMARY\\AXIAL "): ["ORIGINAL", "PRIMARY", "AXIAL"],
    }
    for (vr, value), expected in cases.items():
        raw = RawDataElement(Tag(0x00181000 + len(value)), vr, len(value), value,
                             0, False, True, True, False)  # fmt: skip
        assert plain_value(raw) == expected, (vr, value)
    big = RawDataElement(Tag(0x00280010), "US", 2, b"\x01\x02", 0, False, False,
                         True, False)  # fmt: skip
    assert plain_value(big) == 0x0102
    # "US or SS" in the dictionary (Pixel Padding Value): pydicom settles it
    padding = RawDataElement(Tag(0x00280120), "US", 2, b"\xff\xff", 0, False,
                             True, True, False)  # fmt: skip
    assert plain_value(padding) is NOT_PLAIN
    assert element_value(ds, 0x7FE00010) is not None  # Pixel Data (OW): pydicom's
    assert 0x0018A001 not in ds
    assert element_value(ds, 0x0018A001, "absent") == "absent"


def test_the_header_a_render_reads_is_pydicoms(tmp_path):
    # the values the overlay file's render reads, plain, against pydicom's own, and the
    # dataset left unconverted (the plain path writes nothing into it)
    ds = pydicom.dcmread(get_testdata_file("MR-SIEMENS-DICOM-WithOverlays.dcm"))
    tags = [0x00280010, 0x00280011, 0x00280100, 0x00280101, 0x00280103, 0x00080060,
            0x00200037, 0x00280030, 0x00281050, 0x00281051, 0x60000010, 0x60000011]  # fmt: skip
    ours = [element_value(ds, tag) for tag in tags]
    assert all(isinstance(ds.get_item(tag), RawDataElement) for tag in tags)
    theirs = [ds[tag].value for tag in tags]
    for mine, pydicoms in zip(ours, theirs, strict=True):
        assert np.array_equal(_as_list(mine), _as_list(pydicoms))
