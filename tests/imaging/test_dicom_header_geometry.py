"""Spacing, aspect and orientation from a DICOM header (dicom_header.orient,
pixel_spacing, pixel_aspect): Pixel Spacing (PS3.3 C.7.6.2.1.1) else Imager Pixel
Spacing (C.8.11.7) else Pixel Aspect Ratio (C.7.6.3.1.7), top level else the Pixel
Measures and Plane Orientation functional groups (C.7.6.16.2.1, .4); cross sections
turned by Image Orientation (Patient) (C.7.6.2.1.1), radiographs by Patient
Orientation (C.7.6.1.1.1). Hand-built datasets; the expected pictures are numpy's
flips of the stored array, written out here."""

import numpy as np
import pytest
from pydicom.dataset import Dataset

from medrcube_desktop.imaging.dicom_header import orient, pixel_aspect, pixel_spacing
from medrcube_desktop.imaging.slice_data import SliceData

STORED = np.arange(6, dtype=np.int16).reshape(2, 3)
AT_TOP = "Pixel Spacing (0028,0030)"
AT_DETECTOR = "Imager Pixel Spacing (0018,1164), at the detector"
TURNED = "turned to radiological convention from Image Orientation (Patient)"


def _slice(modality, reduction=1):
    return SliceData(STORED.copy(), False, "MONOCHROME2", modality, reduction=reduction)


def _group(**elements):
    """A functional-groups item holding one macro sequence of one item."""
    ((sequence, values),) = elements.items()
    inner = Dataset()
    for keyword, value in values.items():
        setattr(inner, keyword, value)
    group = Dataset()
    setattr(group, sequence, [inner])
    return group


@pytest.mark.parametrize(
    ("elements", "spacing", "source", "aspect"),
    [
        ({"PixelSpacing": [0.5, 0.25]}, (0.5, 0.25), AT_TOP, 2.0),
        ({"ImagerPixelSpacing": [0.2, 0.4]}, (0.2, 0.4), AT_DETECTOR, 0.5),
        # an unusable Pixel Spacing gives way to the Imager Pixel Spacing
        (
            {"PixelSpacing": [0, 0.25], "ImagerPixelSpacing": [0.3, 0.6]},
            (0.3, 0.6),
            AT_DETECTOR,
            0.5,
        ),
        (
            {"PixelSpacing": [0.25, 0], "ImagerPixelSpacing": [0.3, 0.6]},
            (0.3, 0.6),
            AT_DETECTOR,
            0.5,
        ),
        (
            {"PixelSpacing": [-0.5, 0.25], "ImagerPixelSpacing": [0.3, 0.6]},
            (0.3, 0.6),
            AT_DETECTOR,
            0.5,
        ),
        (
            {"PixelSpacing": [0.5, -0.25], "ImagerPixelSpacing": [0.3, 0.6]},
            (0.3, 0.6),
            AT_DETECTOR,
            0.5,
        ),
        ({"PixelSpacing": [0.5], "ImagerPixelSpacing": [0.3, 0.6]}, (0.3, 0.6), AT_DETECTOR, 0.5),
        # a legal DS pair whose ratio overflows: no aspect from it
        (
            {"PixelSpacing": [1e300, 1e-10], "ImagerPixelSpacing": [0.3, 0.6]},
            (0.3, 0.6),
            AT_DETECTOR,
            0.5,
        ),
        # 1 : 100 is past the plausible 1/20..20: no physical size, square pixels
        ({"PixelSpacing": [0.01, 1.0]}, None, None, 1.0),
        ({"PixelAspectRatio": [4, 3]}, None, None, 4 / 3),
        ({"PixelAspectRatio": [0, 3]}, None, None, 1.0),
        ({"PixelAspectRatio": [3, 0]}, None, None, 1.0),
        ({}, None, None, 1.0),
    ],
)
def test_spacing_source_and_aspect(elements, spacing, source, aspect):
    ds = Dataset()
    for keyword, value in elements.items():
        setattr(ds, keyword, value)
    found, named = pixel_spacing(ds)
    assert found == spacing and named == source
    assert pixel_aspect(ds) == pytest.approx(aspect)


def test_the_pixel_measures_group_is_used_only_without_a_top_level_spacing():
    ds = Dataset()
    ds.SharedFunctionalGroupsSequence = [
        _group(PixelMeasuresSequence={"PixelSpacing": [0.5, 0.25]})
    ]
    data = orient(_slice("CT"), ds)
    assert data.pixel_spacing == (0.5, 0.25) and data.spacing_source == AT_TOP
    assert data.pixel_aspect == 2.0
    ds.PixelSpacing = [0.2, 0.2]
    data = orient(_slice("CT"), ds)
    assert data.pixel_spacing == (0.2, 0.2) and data.pixel_aspect == 1.0


def test_a_reduced_decodes_pixels_are_reduction_times_larger():
    ds = Dataset()
    ds.PixelSpacing = [0.5, 0.25]
    assert orient(_slice("CT", reduction=2), ds).pixel_spacing == (1.0, 0.5)
    assert orient(_slice("CT", reduction=1), ds).pixel_spacing == (0.5, 0.25)
    assert orient(_slice("CT", reduction=4), Dataset()).pixel_spacing is None


def test_a_cross_section_is_turned_by_its_image_orientation():
    ds = Dataset()
    ds.ImageOrientationPatient = [-1, 0, 0, 0, 1, 0]  # columns toward the patient's right
    data = orient(_slice("CT"), ds)
    assert np.array_equal(data.pixels, STORED[:, ::-1])
    assert data.notes == [TURNED]
    assert data.axis_codes == ("P", "R")  # rows toward posterior, columns toward right
    axial = Dataset()
    axial.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    data = orient(_slice("MR"), axial)
    assert np.array_equal(data.pixels, STORED) and data.axis_codes == ("P", "L")


def test_the_plane_orientation_group_is_used_only_without_a_top_level_one():
    ds = Dataset()
    ds.SharedFunctionalGroupsSequence = [
        _group(PlaneOrientationSequence={"ImageOrientationPatient": [-1, 0, 0, 0, 1, 0]})
    ]
    data = orient(_slice("CT"), ds)
    assert np.array_equal(data.pixels, STORED[:, ::-1]) and data.axis_codes == ("P", "R")
    ds.ImageOrientationPatient = [1, 0, 0, 0, 1, 0]
    data = orient(_slice("CT"), ds)
    assert np.array_equal(data.pixels, STORED) and data.axis_codes == ("P", "L")


@pytest.mark.parametrize(
    ("iop", "codes"),
    [
        ([1, 0, 0, 0.1, 0.995, 0], ("P", "L")),  # cosines 0.1 from perpendicular: kept
        ([1, 0, 0, 0.5, 0.866, 0], None),  # 0.5: no edge letters
        ([1, 0, 0, 0, 1], None),  # five values: no edge letters, no error
    ],
)
def test_edge_letters_need_perpendicular_cosines(iop, codes):
    ds = Dataset()
    ds.ImageOrientationPatient = iop
    assert orient(_slice("CT"), ds).axis_codes == codes


def _radiograph(orientation, modality="DX"):
    ds = Dataset()
    ds.PatientOrientation = orientation
    return orient(_slice(modality), ds)


def test_a_radiograph_is_flipped_by_its_patient_orientation():
    # rows run toward the first value, columns toward the second: shown with the
    # patient's right on screen left (a row toward L) and the head up (a column toward F)
    data = _radiograph(["R", "H"])
    assert np.array_equal(data.pixels, STORED[::-1, ::-1])
    assert data.axis_codes == ("H", "R")
    assert data.notes == [
        "flipped left-right and top-bottom to show patient right on screen left, head up "
        "(Patient Orientation R\\H)"
    ]
    data = _radiograph(["R", "F"], "CR")
    assert np.array_equal(data.pixels, STORED[:, ::-1]) and data.axis_codes == ("F", "R")
    assert data.notes == [
        "flipped left-right to show patient right on screen left, head up "
        "(Patient Orientation R\\F)"
    ]
    data = _radiograph(["L", "H"])
    assert np.array_equal(data.pixels, STORED[::-1, :])
    assert data.notes[0].startswith("flipped top-bottom to show")
    data = _radiograph(["L", "F"])
    assert np.array_equal(data.pixels, STORED) and data.notes == []
    assert data.axis_codes == ("F", "L")


def test_other_radiographs_and_other_orientations_are_left_as_stored():
    data = _radiograph(["R", "H"], "MG")  # mammography hangs by its own rules
    assert np.array_equal(data.pixels, STORED) and data.axis_codes is None
    assert data.notes == []
    data = _radiograph(["R"])  # one value: no edge letters
    assert data.axis_codes is None
    assert orient(_slice("DX"), Dataset()).axis_codes is None
