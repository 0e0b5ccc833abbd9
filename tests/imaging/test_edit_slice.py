"""The slice an editor draws a proposed box or mask on, and the way back to the file's
stored pixels under every display transform."""

from __future__ import annotations

import json

import nibabel as nib
import numpy as np
import pydicom
import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging.edit_slice import load_edit_slice, stored_box, stored_labels
from medrcube_desktop.imaging.geometry import EXIF_TRANSFORMS
from tests.conftest import dicom_file, item, write_benchmark


@pytest.mark.parametrize("orientation", sorted(EXIF_TRANSFORMS))
def test_a_box_and_labels_come_back_to_the_stored_pixels(orientation):
    transform = EXIF_TRANSFORMS[orientation]
    stored_shape = (30, 50)
    stored = np.arange(30 * 50, dtype=np.int32).reshape(stored_shape)
    shown = transform.apply(stored)
    assert np.array_equal(stored_labels(shown, transform), stored)
    box = (7, 3, 41, 22)  # x0, y0, x1, y1 in stored pixels
    on_screen = transform.box(box, stored_shape)
    assert stored_box(on_screen, transform, shown.shape) == box
    # the shown box's corner pixels hold the stored box's corner values
    x0, y0, x1, y1 = on_screen
    corners = {int(shown[y0, x0]), int(shown[y0, x1]), int(shown[y1, x0]), int(shown[y1, x1])}
    assert corners == {
        int(stored[3, 7]),
        int(stored[3, 41]),
        int(stored[22, 7]),
        int(stored[22, 41]),
    }


def _nifti_item(tmp_path):
    volume = np.arange(6 * 8 * 5, dtype=np.float32).reshape(6, 8, 5)
    mask = np.zeros((6, 8, 5), dtype=np.uint8)
    mask[1:3, 2:6, 3] = 2
    affine = np.diag([-1.0, 1.5, 2.0, 1.0])  # LAS: shown with a flip; 1 x 1.5 mm in plane
    bench = tmp_path / "bench" / "ds1"
    bench.mkdir(parents=True)
    nib.save(nib.Nifti1Image(volume, affine), bench / "v.nii.gz")
    nib.save(nib.Nifti1Image(mask, affine), bench / "m.nii.gz")
    record = item("nii-1", image="v.nii.gz", mask_path="m.nii.gz", modality="MRI")
    (bench / "test.json").write_text(json.dumps([record]), encoding="utf-8")
    return load_benchmark(tmp_path / "bench").items[0], mask


def test_a_volume_slice_gives_its_labels_in_stored_order_and_its_change(tmp_path):
    loaded, mask = _nifti_item(tmp_path)
    edit = load_edit_slice(loaded)
    assert edit.slice_index == 3 and edit.slice_count == 5  # the largest mask area
    assert not edit.transform.is_identity
    assert edit.stored_shape == (6, 8)
    assert np.array_equal(stored_labels(edit.labels, edit.transform), mask[:, :, 3])
    assert edit.mask_change() == {"slice_index": 3, "axis": 2, "shape": [6, 8]}
    assert edit.mask_editable is None
    # the spacing of the shown grid: stored rows (voxel axis 0) are 1 mm, columns 1.5 mm
    spacing = edit.spacing
    assert sorted(spacing) == [1.0, 1.5]
    assert spacing == ((1.5, 1.0) if edit.transform.transpose else (1.0, 1.5))


def test_an_itk_slice_is_axis_0_of_simpleitks_array(tmp_path):
    """The mask change of an NRRD slice names SimpleITK's array axis (z first), the
    convention of ``core.corrections.MASK``: its labels are ``array[k]``."""
    sitk = pytest.importorskip("SimpleITK")
    mask = np.zeros((5, 6, 8), np.uint8)  # (z, y, x)
    mask[3, 1:3, 2:6] = 2
    bench = tmp_path / "bench" / "ds1"
    bench.mkdir(parents=True)
    sitk.WriteImage(sitk.GetImageFromArray(np.arange(240, dtype=np.int16).reshape(5, 6, 8)),
                    str(bench / "v.nrrd"))  # fmt: skip
    sitk.WriteImage(sitk.GetImageFromArray(mask), str(bench / "m.nrrd"))
    record = item("itk-1", image="v.nrrd", mask_path="m.nrrd", modality="CT")
    (bench / "test.json").write_text(json.dumps([record]), encoding="utf-8")
    edit = load_edit_slice(load_benchmark(tmp_path / "bench").items[0])
    assert edit.slice_index == 3 and edit.stored_shape == (6, 8)
    assert edit.mask_change() == {"slice_index": 3, "axis": 0, "shape": [6, 8]}
    assert np.array_equal(stored_labels(edit.labels, edit.transform), np.take(mask, 3, axis=0))


def test_a_ct_slice_has_its_spacing_its_box_and_no_mask(tmp_path):
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1", bbox=[10, 20, 60, 90])]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    edit = load_edit_slice(load_benchmark(root).items[0])
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    assert edit.spacing == tuple(float(v) for v in ds.PixelSpacing)
    assert edit.rgba.shape[:2] == ds.pixel_array.shape == edit.stored_shape
    assert edit.transform.is_identity and edit.box == (10, 20, 60, 90)
    assert edit.labels is None
    assert edit.mask_change() == {"slice_index": None, "axis": None, "shape": [128, 128]}


def test_dragging_a_corner_moves_its_two_edges_to_the_nearest_pixel_border():
    from medrcube_desktop.imaging.edit_slice import corner_points, drag_corner

    box = (10, 20, 29, 39)  # pixels 10..29 x 20..39: the outline from (10, 20) to (30, 40)
    assert corner_points(box) == [(10, 20), (30, 20), (30, 40), (10, 40)]
    assert drag_corner(box, 0, 4.4, 15.6, (100, 100)) == (4, 16, 29, 39)
    assert drag_corner(box, 2, 50.5, 60.4, (100, 100)) == (10, 20, 50, 59)
    assert drag_corner(box, 1, 41.0, 22.2, (100, 100)) == (10, 22, 40, 39)
    # past the opposite corner: two pixels at least; off the image: clipped to it
    assert drag_corner(box, 0, 80.0, 80.0, (100, 100)) == (28, 38, 29, 39)
    assert drag_corner(box, 2, 500.0, -5.0, (100, 100)) == (10, 20, 99, 21)
