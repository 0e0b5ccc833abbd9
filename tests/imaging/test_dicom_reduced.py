"""Which DICOM frames take the reduced JPEG 2000 decode (dicom._reduced_decode) and how a
reduced frame is marked (dicom._reduced), issue 26: greyscale and the colour JPEG 2000
keeps as RGB, YBR_ICT or YBR_RCT go to j2k.reduced_frame, other colour is decoded in full;
the reduction is 2**levels."""

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file
from pydicom.dataset import Dataset

from medrcube_desktop.imaging import j2k
from medrcube_desktop.imaging.dicom import _reduced, _reduced_decode
from medrcube_desktop.imaging.slice_data import SliceData

SENTINEL = (np.zeros((2, 2), np.uint16), 1)


@pytest.fixture
def calls(monkeypatch):
    seen = []

    def reduced_frame(ds, side):
        seen.append((str(ds.PhotometricInterpretation), side))
        return SENTINEL

    monkeypatch.setattr(j2k, "reduced_frame", reduced_frame)
    return seen


def _ds(name, **changes):
    ds = pydicom.dcmread(get_testdata_file(name))
    for key, value in changes.items():
        if value is ...:
            delattr(ds, key)
        else:
            setattr(ds, key, value)
    return ds


@pytest.mark.parametrize(
    ("name", "photometric"),
    [
        ("US1_J2KR.dcm", "YBR_RCT"),
        ("SC_rgb_gdcm_KY.dcm", "RGB"),
        ("GDCMJ2K_TextGBR.dcm", "YBR_ICT"),  # its YBR_RCT renamed: the name decides
    ],
)
def test_colour_kept_as_rgb_ict_or_rct_takes_the_reduced_decode(calls, name, photometric):
    ds = _ds(name, PhotometricInterpretation=photometric)
    assert int(ds.SamplesPerPixel) == 3
    assert _reduced_decode(ds, 123) is SENTINEL
    assert calls == [(photometric, 123)]


@pytest.mark.parametrize("photometric", ["YBR_FULL", "YBR_FULL_422", "MONOCHROME2", ""])
def test_other_colour_is_decoded_in_full(calls, photometric):
    ds = _ds("US1_J2KR.dcm", PhotometricInterpretation=photometric)
    assert _reduced_decode(ds, 123) is None
    assert calls == []


def test_colour_without_a_photometric_interpretation_is_decoded_in_full(calls):
    assert _reduced_decode(_ds("US1_J2KR.dcm", PhotometricInterpretation=...), 50) is None
    assert calls == []


@pytest.mark.parametrize("samples", [1, None, ...])  # one, empty, absent: one sample
def test_greyscale_takes_the_reduced_decode_whatever_its_photometric(calls, samples):
    # MONOCHROME2 is no colour name: only Samples per Pixel 1 (or none said) lets it pass
    ds = _ds("MR_small_jp2klossless.dcm", SamplesPerPixel=samples)
    assert _reduced_decode(ds, 16) is SENTINEL
    assert calls == [("MONOCHROME2", 16)]


def test_overlay_planes_keep_the_full_decode(calls):
    ds = _ds("MR_small_jp2klossless.dcm")
    ds.add_new(0x60023000, "OW", b"\0" * 8)
    assert _reduced_decode(ds, 16) is None
    assert calls == []


@pytest.mark.parametrize(("levels", "factor"), [(1, 2), (2, 4), (3, 8), (4, 16)])
def test_a_reduced_colour_frame_is_marked_2_to_the_levels(levels, factor):
    ds = Dataset()
    ds.Rows, ds.Columns = 5 * factor, 7 * factor
    data = SliceData(np.zeros((5, 7, 3), np.uint8), True, "RGB", None)
    out = _reduced(data, ds, levels)
    assert out is data and data.reduction == factor
    assert data.notes == [
        f"reduced 1/{factor}: decoded at 7x5 of the file's {7 * factor}x{5 * factor} pixels "
        "for this view (zoom in for full resolution)"
    ]


def test_a_reduced_greyscale_frame_without_photometric_interpretation_is_monochrome2(tmp_path):
    # pydicom refuses the full decode without (0028,0004); the reduced JPEG 2000 decode
    # does not ask for it, and the frame is read as MONOCHROME2 (PS3.3's greyscale default)
    from medrcube_desktop.imaging.dicom import load_dicom_slice

    ds = _ds("MR_small_jp2klossless.dcm", PhotometricInterpretation=...)
    path = tmp_path / "no-photometric.dcm"
    ds.save_as(path)
    data = load_dicom_slice(path, None, 16)
    assert (data.photometric, data.reduction, data.is_color) == ("MONOCHROME2", 4, False)
    assert (data.slice_index, data.slice_count) == (0, 1)
