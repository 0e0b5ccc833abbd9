"""Display geometry: EXIF, radiographs and NIfTI slices move pixels, masks and boxes together."""

import nibabel as nib
import numpy as np
import pydicom
import pytest
from PIL import Image, ImageOps
from pydicom.pixels import apply_voi_lut

from medrcube_desktop.imaging.geometry import EXIF_TRANSFORMS, DisplayTransform
from medrcube_desktop.imaging.render import render_file
from tests.conftest import dicom_file

RED = (255, 0, 0, 255)


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_transforms_match_pillow(orientation):
    stored = Image.fromarray(np.arange(12 * 7, dtype=np.uint8).reshape(7, 12))
    exif = stored.getexif()
    exif[0x0112] = orientation
    stored.info["exif"] = exif.tobytes()
    upright = np.asarray(ImageOps.exif_transpose(stored))
    np.testing.assert_array_equal(EXIF_TRANSFORMS[orientation].apply(np.asarray(stored)), upright)


def test_box_with_fractions_flips_to_the_mirrored_pixels():
    # pixels 10..20 of a 100-wide image mirror to 79..89 (99 - 20 .. 99 - 10)
    assert DisplayTransform(flip_cols=True).box((10.5, 10, 20.5, 20), (100, 100)) == (
        79,
        10,
        89,
        20,
    )
    assert DisplayTransform().box((200, 0, 300, 5), (100, 100)) is None
    assert DisplayTransform(transpose=True).box((1, 2, 3, 4), (10, 20)) == (2, 1, 4, 3)


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_mask_and_box_follow_the_exif_rotation_of_a_picture(tmp_path, orientation):
    pixels = np.full((60, 100), 40, dtype=np.uint8)
    pixels[5:15, 5:25] = 250  # a bright blob, stored top-left
    mask = np.zeros_like(pixels)
    mask[5:15, 5:25] = 255
    image = Image.fromarray(pixels)
    exif = image.getexif()
    exif[0x0112] = orientation
    image.save(tmp_path / "p.png", exif=exif.tobytes())
    Image.fromarray(mask).save(tmp_path / "m.png")
    out = render_file(tmp_path / "p.png", mask_path=tmp_path / "m.png", bbox=(5, 5, 24, 14)).rgba
    upright = np.asarray(ImageOps.exif_transpose(Image.open(tmp_path / "p.png")))
    assert out.shape[:2] == upright.shape
    rows, cols = np.nonzero(upright == 250)  # where the blob shows, found by Pillow
    tinted = out[rows, cols]
    assert (tinted[:, 0] > tinted[:, 1]).all()  # the red mask lies on the blob
    assert tuple(out[rows.min(), cols.min()]) == RED and tuple(out[rows.max(), cols.max()]) == RED


def test_radiograph_with_patient_orientation_r_f_is_mirrored_with_its_box():
    path = dicom_file("RG3_J2KR.dcm")  # CR, Patient Orientation R\F
    ds = pydicom.dcmread(path)
    assert list(ds.PatientOrientation) == ["R", "F"]
    y_max = 2 ** int(ds.BitsStored) - 1
    stored = np.rint((1.0 - apply_voi_lut(ds.pixel_array, ds) / y_max) * 255)  # MONOCHROME1
    rendered = render_file(path, bbox=(100, 200, 300, 400))
    out = rendered.rgba[..., 0].astype(float)
    width = stored.shape[1]
    inside = np.ones(out.shape, bool)
    inside[200:401, width - 1 - 300 : width - 1 - 100 + 1] = False  # the box's outline region
    assert np.abs(out - stored[:, ::-1])[inside].max() <= 1  # patient right now on screen left
    assert tuple(rendered.rgba[200, width - 1 - 300]) == RED  # box corner mirrored too
    assert any("Patient Orientation R\\F" in note for note in rendered.notes)


def test_box_on_a_nifti_slice_follows_the_radiological_reorientation(tmp_path):
    data = np.zeros((40, 50, 10), dtype=np.float32)
    data[2:8, 30:45, :] = 100.0  # blob: rows i 2-7, columns j 30-44 of the stored slice
    nib.save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "v.nii.gz")
    out = render_file(tmp_path / "v.nii.gz", bbox=(30, 2, 44, 7)).rgba
    red = np.all(out == RED, axis=2)
    rows, cols = np.nonzero(red)
    blob_rows, blob_cols = np.nonzero((out[..., 1] == 255) & ~red)  # bright, not red
    assert rows.min() <= blob_rows.min() and rows.max() >= blob_rows.max()
    assert cols.min() <= blob_cols.min() and cols.max() >= blob_cols.max()


def test_ct_stored_with_anterior_at_the_bottom_is_shown_anterior_up():
    path = dicom_file("explicit_VR-UN.dcm")  # CT, Image Orientation (Patient) 1\0\0\0\-1\0
    ds = pydicom.dcmread(path)
    assert [float(v) for v in ds.ImageOrientationPatient] == [1, 0, 0, 0, -1, 0]
    hu = ds.pixel_array * float(ds.RescaleSlope) + float(ds.RescaleIntercept)
    # by hand: soft-tissue window 40/400, then rows reversed (column cosines point anterior)
    expected = np.rint(np.clip((hu + 160) / 400, 0, 1) * 255)
    out = render_file(path).rgba[..., 0]
    np.testing.assert_array_equal(out, expected[::-1, :])


def test_pixel_aspect_comes_from_the_header():
    # color-pl.dcm: Pixel Aspect Ratio 4\3 (vertical\horizontal): pixels a third taller
    assert render_file(dicom_file("color-pl.dcm")).pixel_aspect == pytest.approx(4 / 3)
    assert render_file(dicom_file("CT_small.dcm")).pixel_aspect == 1.0  # 0.661468\0.661468


def test_nifti_pixel_aspect_follows_voxel_size_and_transpose(tmp_path):
    image = nib.Nifti1Image(np.ones((4, 6, 3), dtype=np.float32), np.diag([2.0, 1.0, 3.0, 1.0]))
    nib.save(image, tmp_path / "v.nii.gz")
    # axial display puts voxel axis 1 (1 mm, A-P) down the rows, axis 0 (2 mm) across
    assert render_file(tmp_path / "v.nii.gz").pixel_aspect == pytest.approx(0.5)


def test_edge_labels_by_hand():
    from medrcube_desktop.imaging.geometry import edge_labels

    # standard axial CT as stored: rows run toward P, columns toward L
    assert edge_labels("P", "L", DisplayTransform()) == {
        "top": "A",
        "bottom": "P",
        "left": "R",
        "right": "L",
    }
    # radiograph stored R\F (columns toward R, rows toward feet), then mirrored for display
    flipped = DisplayTransform(flip_cols=True)
    assert edge_labels("F", "R", flipped) == {"top": "S", "bottom": "I", "left": "R", "right": "L"}
    # an oblique code flips letter by letter, a transpose swaps the axes
    assert edge_labels("PR", "S", DisplayTransform(transpose=True))["top"] == "I"
    assert edge_labels("", "L", DisplayTransform()) is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("explicit_VR-UN.dcm", {"top": "A", "bottom": "P", "left": "R", "right": "L"}),  # CT
        ("RG3_J2KR.dcm", {"top": "S", "bottom": "I", "left": "R", "right": "L"}),  # CR
        ("color-pl.dcm", None),  # ultrasound: no patient orientation recorded
    ],
)
def test_rendered_dicom_carries_orientation_letters(name, expected):
    assert render_file(dicom_file(name)).edge_labels == expected


def test_nifti_stored_las_and_ras_both_show_radiological_letters(tmp_path):
    for name, affine in (("ras", np.eye(4)), ("las", np.diag([-1.0, 1.0, 1.0, 1.0]))):
        nib.save(nib.Nifti1Image(np.zeros((4, 5, 3), np.float32), affine), tmp_path / f"{name}.nii")
        labels = render_file(tmp_path / f"{name}.nii").edge_labels
        assert labels == {"top": "A", "bottom": "P", "left": "R", "right": "L"}, name


def test_neurological_convention_mirrors_axial_slices_with_their_box(tmp_path):
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.imaging.render import render_item
    from tests.conftest import item, write_benchmark

    data = np.zeros((40, 50, 10), dtype=np.float32)
    data[30:38, 5:10, :] = 100.0  # high i: patient right (RAS+)
    root = write_benchmark(
        tmp_path / "b", {"ds1": [item("v", image="v.nii.gz", modality="MRI", bbox=[5, 30, 9, 37])]}
    )
    nib.save(nib.Nifti1Image(data, np.eye(4)), root / "ds1" / "v.nii.gz")
    (bench_item,) = load_benchmark(root).items
    radiological = render_item(bench_item)
    neurological = render_item(bench_item, neurological=True)
    assert radiological.edge_labels["left"] == "R" and neurological.edge_labels["left"] == "L"
    np.testing.assert_array_equal(neurological.rgba, radiological.rgba[:, ::-1])  # box included


def test_enhanced_ct_takes_rescale_window_and_orientation_from_functional_groups():
    path = dicom_file("eCT_Supplemental.dcm")  # Enhanced CT, 2 frames, no top-level IOP
    ds = pydicom.dcmread(path)
    shared = ds.SharedFunctionalGroupsSequence[0]
    iop = [float(v) for v in shared.PlaneOrientationSequence[0].ImageOrientationPatient]
    assert "ImageOrientationPatient" not in ds and iop == [-1, 0, 0, 0, 1, 0]  # columns → R
    rescale = shared.PixelValueTransformationSequence[0]
    voi = shared.FrameVOILUTSequence[0]
    c, w = float(voi.WindowCenter), float(voi.WindowWidth)
    hu = ds.pixel_array[1] * float(rescale.RescaleSlope) + float(rescale.RescaleIntercept)
    # by hand: PS3.3 C.11.2.1.2.1 LINEAR, then mirrored so the patient's right is on the left
    expected = np.rint(np.clip((hu - (c - 0.5)) / (w - 1) + 0.5, 0, 1) * 255)[:, ::-1]
    rendered = render_file(path)  # central frame: index 1 of 2
    assert rendered.slice_index == 1 and rendered.window == (c, w)
    grey = (ds.pixel_array[1] < 1024)[:, ::-1]  # below the supplemental palette's range
    assert np.abs(rendered.rgba[..., 0].astype(float) - expected)[grey].max() <= 1
    # Supplemental Palette Color LUT (C.7.6.3.1.5), looked up by hand: entry = value - 1024
    entries, first, bits = (int(v) for v in ds.RedPaletteColorLookupTableDescriptor)
    assert (entries, first, bits) == (100, 1024, 16)
    red = np.frombuffer(ds.RedPaletteColorLookupTableData, "<u2")
    stored = ds.pixel_array[1][:, ::-1]
    coloured = stored >= first
    expected_red = np.rint(
        red[np.clip(stored[coloured].astype(int) - first, 0, entries - 1)] / 65535 * 255
    )
    np.testing.assert_array_equal(rendered.rgba[..., 0][coloured], expected_red)
    assert rendered.edge_labels == {"top": "A", "bottom": "P", "left": "R", "right": "L"}


@pytest.mark.parametrize("iop", [[0, 0, 0, 0, 0, 0], [1, 0, 0, 1, 0, 0]])
def test_degenerate_image_orientation_shows_the_image_as_stored_without_letters(tmp_path, iop):
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    plain = render_file(dicom_file("CT_small.dcm")).rgba
    ds.ImageOrientationPatient = iop
    ds.save_as(tmp_path / "bad.dcm")
    rendered = render_file(tmp_path / "bad.dcm")
    assert rendered.edge_labels is None
    np.testing.assert_array_equal(rendered.rgba, plain)


def test_dicom_overlay_planes_are_drawn_in_yellow():
    path = dicom_file("MR-SIEMENS-DICOM-WithOverlays.dcm")
    plane = pydicom.dcmread(path).overlay_array(0x6000).astype(bool)  # by pydicom
    rendered = render_file(path)
    yellow = np.all(rendered.rgba[..., :3] == (255, 255, 0), axis=2)
    np.testing.assert_array_equal(yellow, plane)  # identity orientation: same pixels
    assert plane.sum() == 323
