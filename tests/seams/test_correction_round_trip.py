"""The seam between the window's editors, the proposals store and the release writer
(issue 23): a mask painted (or a box dragged) on the slice the review window SHOWS goes
through the editor's math (``imaging.edit_slice``, ``imaging.brush``), the window's own
``store_proposal`` into a real study file, another reviewer's acceptance,
``accepted_corrections`` and ``write_release``; the release is loaded with
``load_benchmark`` and drawn by the window's own loader and renderer on the same shown
slice, and the painted pixels (the box) are exactly where they were painted there.

Each volume has a flipped, anisotropic grid, so that a slice taken along the wrong axis,
a lost flip or a transpose shows. The stored file is also checked against the patient
side (world coordinates from the file's own affine or direction matrix), which no code
of the app computes for this test: radiological convention puts the patient's right on
the screen's left and anterior at the top of an axial slice.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.cli import main
from medrcube_desktop.core.corrections import BBOX, MASK, Proposal
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.file_checks import require_item_files
from medrcube_desktop.imaging.brush import labels_npy, paint_stroke
from medrcube_desktop.imaging.edit_slice import (
    drag_corner,
    load_edit_slice,
    stored_box,
    stored_labels,
)
from medrcube_desktop.imaging.geometry import DisplayTransform
from medrcube_desktop.imaging.render import (
    box_on_slice,
    compose_rgba,
    load_slice_cached,
    render_item,
)
from medrcube_desktop.imaging.slice_data import to_neurological
from medrcube_desktop.review.proposing import decide
from medrcube_desktop.review.release import write_release
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark

pytest.importorskip("PySide6")
from medrcube_desktop.ui.corrections.controls import store_proposal  # noqa: E402

STROKE = [(3.5, 4.5), (9.5, 6.5)]
"""The brush's path on the SHOWN slice (x = shown column, y = shown row), near its
top-left corner: patient right and anterior on an axial slice in radiological
convention."""


def _study(tmp_path: Path) -> StudyStore:
    store = StudyStore(tmp_path / "study.sqlite")
    StudySettings(blind=False).save(store)
    return store


def _item(root: Path, item_id: str):
    return next(i for i in load_benchmark(root).items if i.id == item_id)


def _propose_and_release(tmp_path, root, item_id, draft_change, labels, edit, *, kind=MASK):
    """Store the proposal as the window does, accept it as another reviewer, release."""
    store = _study(tmp_path)
    draft = Proposal(item_id, kind, "2.1", "the outline misses the lesion", "dr-a",
                     draft_change, mask_labels=labels)  # fmt: skip
    stored = store_proposal(store, _item(root, item_id), draft, edit)
    decide(store, stored.uid, "accepted", "agreed, it does", "dr-b")
    accepted = store.accepted_corrections()
    assert [c.proposal.uid for c in accepted] == [stored.uid]
    out = tmp_path / "release"
    write_release(root, accepted, out, "2")
    store.close()
    assert main(["validate", str(out), "--deep", "--json"]) == 0  # the new mask decodes
    return out


def _paint(edit, value: int = 4) -> np.ndarray:
    """The shown labels after a stroke of the editor's brush (2 mm, the slice's mm)."""
    shown = edit.labels.copy() if edit.labels is not None else np.zeros(edit.shown_shape, int)
    assert paint_stroke(shown, STROKE, 2.0, edit.spacing, value) > 0
    return shown


def _mask_round_trip(tmp_path, root, item_id, slice_index=None, neurological=False):
    """Paint on the shown slice, release, and read the released item's shown slice."""
    item_ = _item(root, item_id)
    edit = load_edit_slice(item_, slice_index, neurological=neurological)
    assert edit.mask_editable is None
    painted = _paint(edit)
    labels = labels_npy(stored_labels(painted, edit.transform))
    out = _propose_and_release(tmp_path, root, item_id, edit.mask_change(), labels, edit)
    released = _item(out, item_id)
    assert released.mask_path is not None and released.mask_path != item_.mask_path
    again = load_edit_slice(released, edit.slice_index, neurological=neurological)
    assert again.transform == edit.transform and again.slice_index == edit.slice_index
    assert again.labels is not None and np.array_equal(again.labels, painted)
    # the renderer the window draws with: exactly the labelled pixels are tinted
    image, mask = require_item_files(released)
    data = load_slice_cached(image, edit.slice_index, mask, released.modality)
    if neurological:
        data = to_neurological(data)
    shown = compose_rgba(data).rgba  # the mask alone (the box is the box test's)
    plain = compose_rgba(dataclasses.replace(data, mask=None)).rgba
    tinted = np.any(shown[..., :3] != plain[..., :3], axis=-1)
    assert np.array_equal(tinted, painted != 0)
    changes = json.loads((out / "changes.json").read_text("utf-8"))
    (entry,) = changes["items"]
    assert entry["changes"][0]["field"] == "mask_path"
    assert (
        entry["changes"][0]["to"]
        == Path(released.mask_path).relative_to(Path(released.source_file).parent).as_posix()
    )
    return item_, released, edit, painted


def _stroke_voxels(painted: np.ndarray, before: np.ndarray | None) -> np.ndarray:
    """(rows, cols) bool of the pixels the stroke set (value 4) on the shown slice."""
    return (painted == 4) & (True if before is None else before != 4)


# -- 2-D: a PNG mask on a PNG turned by EXIF, and on a DICOM shown mirrored ------------


def _png_bench(tmp_path: Path) -> Path:
    rows, cols = 30, 40  # stored; EXIF 6 shows it 40 rows by 30 columns
    picture = Image.fromarray(
        (np.arange(rows * cols).reshape(rows, cols) % 200 + 20).astype(np.uint8)
    )
    exif = Image.Exif()
    exif[0x0112] = 6  # transpose, then mirror the columns
    root = tmp_path / "bench"
    (root / "ds1" / "images").mkdir(parents=True)
    picture.save(root / "ds1" / "images" / "pic.png", exif=exif)
    mask = np.zeros((rows, cols), np.uint8)
    mask[20:26, 30:36] = 1
    Image.fromarray(mask).save(root / "ds1" / "images" / "pic_mask.png")
    records = [item("png-1", image="images/pic.png", mask_path="images/pic_mask.png",
                    modality="X-ray", bbox=[30, 2, 38, 9])]  # fmt: skip
    (root / "ds1" / "test.json").write_text(json.dumps(records, indent=2), "utf-8")
    return root


def test_a_png_mask_painted_on_an_exif_turned_picture_lands_where_it_was_painted(tmp_path):
    root = _png_bench(tmp_path)
    item_, released, edit, painted = _mask_round_trip(tmp_path, root, "png-1")
    assert edit.transform.transpose and edit.shown_shape == (40, 30)
    # EXIF 6 shows stored[H - 1 - c, r] at shown (r, c): the file holds the stroke there
    with Image.open(released.mask_path) as picture:
        stored = np.asarray(picture)
    rows, cols = np.nonzero(_stroke_voxels(painted, edit.labels))
    assert (stored[29 - cols, rows] == 4).all()
    assert int((stored == 4).sum()) == rows.size
    assert (stored[20:26, 30:36] == 1).sum() + rows.size >= 36  # the old label kept around


def test_a_png_mask_painted_on_a_dicom_shown_mirrored_lands_where_it_was_painted(tmp_path):
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1", mask_path="images/ct_mask.png")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    Image.fromarray(np.zeros((128, 128), np.uint8)).save(root / "ds1" / "images" / "ct_mask.png")
    _, released, edit, painted = _mask_round_trip(tmp_path, root, "ct-1", neurological=True)
    assert edit.transform.flip_cols  # patient right on screen right: the columns mirrored
    with Image.open(released.mask_path) as picture:
        stored = np.asarray(picture)
    # CT_small is an axial slice stored as radiology shows it: neurological mirrors it
    assert edit.transform == DisplayTransform(flip_cols=True)
    assert np.array_equal(stored[:, ::-1], np.where(painted == 4, 4, 0))


# -- a NIfTI volume on a flipped, transposed grid --------------------------------------

NIFTI_AFFINE = np.array(
    [[-1.5, 0.0, 0.0, 30.0],  # voxel axis 0 runs toward patient left (-x in RAS)
     [0.0, 2.0, 0.0, -40.0],  # voxel axis 1 toward anterior (+y): the rows are shown
     [0.0, 0.0, 3.0, 10.0],  # as columns (a transpose); axis 2 toward superior: axial
     [0.0, 0.0, 0.0, 1.0]]
)  # fmt: skip
"""Voxel → RAS mm: shown transposed and flipped, anisotropic (1.5 × 2 × 3 mm)."""

VOLUME = (18, 22, 7)


def _nifti_bench(tmp_path: Path, mask: bool = True) -> Path:
    root = tmp_path / "bench"
    (root / "ds3" / "vol").mkdir(parents=True)
    rng = np.random.default_rng(3)
    data = rng.integers(0, 900, VOLUME).astype(np.int16)
    nib.save(nib.Nifti1Image(data, NIFTI_AFFINE), root / "ds3" / "vol" / "brain.nii.gz")
    fields = {}
    if mask:
        labels = np.zeros(VOLUME, np.uint8)
        labels[2:6, 3:8, 4] = 1  # the largest area on slice 4: the window opens there
        labels[10:12, 10:12, 1:3] = 2
        nib.save(nib.Nifti1Image(labels, NIFTI_AFFINE), root / "ds3" / "vol" / "brain_mask.nii.gz")
        fields["mask_path"] = "vol/brain_mask.nii.gz"
    records = [item("vol-1", image="vol/brain.nii.gz", modality="MRI", dataset="ds3",
                    gt_answer="MRI", **fields)]  # fmt: skip
    (root / "ds3" / "test.json").write_text(json.dumps(records, indent="\t"), "utf-8")
    return root


def _world(affine: np.ndarray, voxels: np.ndarray) -> np.ndarray:
    return voxels @ affine[:3, :3].T + affine[:3, 3]


@pytest.mark.parametrize("slice_index", [None, 2])
def test_a_nifti_mask_painted_on_the_shown_slice_is_that_slice_in_the_release(
    tmp_path, slice_index
):
    root = _nifti_bench(tmp_path)
    item_, released, edit, painted = _mask_round_trip(tmp_path, root, "vol-1", slice_index)
    assert edit.slice_index == (4 if slice_index is None else 2)
    new = nib.load(released.mask_path)
    assert np.array_equal(new.affine, NIFTI_AFFINE) and new.get_data_dtype() == np.uint8
    data = np.asarray(new.dataobj)
    old = np.asarray(nib.load(item_.mask_path).dataobj)
    changed = np.argwhere(data != old)
    assert changed.size and set(changed[:, 2]) == {edit.slice_index}  # only the shown slice
    # painted near the shown top-left: patient right (RAS x above the centre) and anterior
    stroke = np.argwhere(data == 4).astype(float)
    centre = _world(NIFTI_AFFINE, (np.array(VOLUME) - 1) / 2.0)
    world = _world(NIFTI_AFFINE, stroke).mean(axis=0)
    assert world[0] > centre[0] and world[1] > centre[1]
    assert int((data == 4).sum()) == int((painted == 4).sum())


def test_a_new_nifti_mask_on_an_item_without_one(tmp_path):
    root = _nifti_bench(tmp_path, mask=False)
    item_, released, edit, painted = _mask_round_trip(tmp_path, root, "vol-1", 5)
    data = np.asarray(nib.load(released.mask_path).dataobj)
    assert set(np.argwhere(data != 0)[:, 2]) == {5}


# -- an NRRD / MetaImage volume through SimpleITK ---------------------------------------


def _itk_bench(tmp_path: Path, suffix: str) -> Path:
    sitk = pytest.importorskip("SimpleITK")
    root = tmp_path / "bench"
    (root / "ds4" / "vol").mkdir(parents=True)
    z, y, x = 7, 22, 18
    data = np.random.default_rng(5).integers(0, 900, (z, y, x)).astype(np.int16)
    labels = np.zeros((z, y, x), np.uint8)
    labels[4, 3:8, 2:6] = 1  # the largest area on slice 4 (z)
    labels[1:3, 10:12, 10:12] = 2
    for array, name in ((data, "ct"), (labels, "ct_mask")):
        image = sitk.GetImageFromArray(array)
        image.SetSpacing((1.5, 2.0, 3.0))  # x, y, z mm
        image.SetOrigin((10.0, -20.0, 5.0))
        image.SetDirection((-1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))  # x toward R
        sitk.WriteImage(image, str(root / "ds4" / "vol" / f"{name}{suffix}"), True)
    records = [item("itk-1", image=f"vol/ct{suffix}", mask_path=f"vol/ct_mask{suffix}",
                    dataset="ds4")]  # fmt: skip
    (root / "ds4" / "test.json").write_text(json.dumps(records), "utf-8")
    return root


@pytest.mark.parametrize("suffix", [".nrrd", ".mha"])
def test_an_itk_mask_painted_on_the_shown_slice_is_that_slice_in_the_release(tmp_path, suffix):
    sitk = pytest.importorskip("SimpleITK")
    root = _itk_bench(tmp_path, suffix)
    item_, released, edit, painted = _mask_round_trip(tmp_path, root, "itk-1")
    assert edit.slice_index == 4 and edit.transform.flip_cols
    assert released.mask_path.name.endswith(suffix)
    new, old = sitk.ReadImage(str(released.mask_path)), sitk.ReadImage(str(item_.mask_path))
    assert new.GetSpacing() == old.GetSpacing() and new.GetOrigin() == old.GetOrigin()
    assert new.GetDirection() == old.GetDirection()
    assert new.GetPixelID() == old.GetPixelID()
    data, before = sitk.GetArrayFromImage(new), sitk.GetArrayFromImage(old)  # (z, y, x)
    changed = np.argwhere(data != before)
    assert changed.size and set(changed[:, 0]) == {4}  # only the shown slice
    # painted near the shown top-left: patient right (LPS x below the centre), anterior
    strokes = [new.TransformIndexToPhysicalPoint([int(i) for i in v[::-1]])
               for v in np.argwhere(data == 4)]  # fmt: skip
    centre = new.TransformContinuousIndexToPhysicalPoint([(n - 1) / 2 for n in new.GetSize()])
    mean = np.mean(strokes, axis=0)
    assert mean[0] < centre[0] and mean[1] < centre[1]


# -- the box ---------------------------------------------------------------------------


def _box_round_trip(tmp_path, root, item_id, slice_index=None):
    """Drag the box's bottom-right corner on the shown slice; release; the renderer
    draws the released record's box where it was dragged to."""
    item_ = _item(root, item_id)
    edit = load_edit_slice(item_, slice_index)
    start = edit.box if edit.box is not None else (1, 1, 4, 4)
    dragged = drag_corner(start, 2, 12.2, 9.7, edit.shown_shape)
    assert dragged != start
    box = list(stored_box(dragged, edit.transform, edit.shown_shape))
    out = _propose_and_release(tmp_path, root, item_id, {"bbox": box}, None, edit, kind=BBOX)
    released = _item(out, item_id)
    assert list(released.bbox) == box
    record = next(r for r in json.loads(Path(released.source_file).read_text("utf-8"))
                  if r["id"] == item_id)  # fmt: skip
    assert record["bbox"] == box
    changes = json.loads((out / "changes.json").read_text("utf-8"))
    assert changes["items"][0]["changes"][0]["to"] == box
    image, mask = require_item_files(released)
    data = load_slice_cached(image, edit.slice_index, mask, released.modality)
    assert box_on_slice(data, released.bbox) == dragged
    # the outline is drawn on the dragged pixels' border, nowhere else
    plain = render_item(released, edit.slice_index, overlay=False).rgba
    drawn = render_item(released, edit.slice_index).rgba
    x0, y0, x1, y1 = dragged
    differs = np.any(drawn != plain, axis=-1)
    if mask is not None:
        differs &= data.mask == 0
    ys, xs = np.nonzero(differs)
    assert xs.min() == x0 and xs.max() == x1 and ys.min() == y0 and ys.max() == y1
    return edit, dragged


def test_a_box_dragged_on_an_exif_turned_picture_is_drawn_where_it_was_dragged(tmp_path):
    edit, _ = _box_round_trip(tmp_path, _png_bench(tmp_path), "png-1")
    assert edit.transform.transpose and edit.transform.flip_cols


def test_a_box_dragged_on_a_transposed_nifti_slice_is_drawn_where_it_was_dragged(tmp_path):
    edit, _ = _box_round_trip(tmp_path, _nifti_bench(tmp_path), "vol-1")
    assert edit.transform.transpose


def test_the_brush_radius_is_millimetres_of_the_patient_on_an_anisotropic_volume(tmp_path):
    """One dab of 3 mm at a shown pixel's centre: in the release, exactly the voxels of
    that slice whose centres lie within 3 mm of it (world coordinates from the file's
    affine: 1.5 mm across the stored rows, 2 mm along them) hold the label."""
    root = _nifti_bench(tmp_path, mask=False)
    item_ = _item(root, "vol-1")
    edit = load_edit_slice(item_, 3)
    shown = np.zeros(edit.shown_shape, np.int32)
    assert paint_stroke(shown, [(10.5, 9.5)], 3.0, edit.spacing, 6) > 0
    labels = labels_npy(stored_labels(shown, edit.transform))
    out = _propose_and_release(tmp_path, root, "vol-1", edit.mask_change(), labels, edit)
    data = np.asarray(nib.load(_item(out, "vol-1").mask_path).dataobj)
    i, j = edit.transform.stored_pixel(9, 10, edit.shown_shape)
    centre = _world(NIFTI_AFFINE, np.array([i, j, 3.0]))
    grid = np.stack(np.meshgrid(np.arange(VOLUME[0]), np.arange(VOLUME[1]), indexing="ij"), -1)
    voxels = np.concatenate([grid.reshape(-1, 2), np.full((grid[..., 0].size, 1), 3)], axis=1)
    near = np.linalg.norm(_world(NIFTI_AFFINE, voxels.astype(float)) - centre, axis=1) <= 3.0
    assert np.array_equal((data[:, :, 3] == 6).reshape(-1), near)
    assert int((data == 6).sum()) == int(near.sum()) and near.sum() > 5


def test_the_brush_radius_is_millimetres_of_the_patient_on_an_nrrd_volume(tmp_path):
    """The same on an NRRD (1.5 mm across x, 2 mm along y; SimpleITK's physical points)."""
    sitk = pytest.importorskip("SimpleITK")
    root = _itk_bench(tmp_path, ".nrrd")
    item_ = _item(root, "itk-1")
    edit = load_edit_slice(item_, 3)
    shown = edit.labels.copy()
    assert paint_stroke(shown, [(8.5, 11.5)], 3.0, edit.spacing, 6) > 0
    labels = labels_npy(stored_labels(shown, edit.transform))
    out = _propose_and_release(tmp_path, root, "itk-1", edit.mask_change(), labels, edit)
    new = sitk.ReadImage(str(_item(out, "itk-1").mask_path))
    data = sitk.GetArrayFromImage(new)  # (z, y, x)
    y, x = edit.transform.stored_pixel(11, 8, edit.shown_shape)
    centre = np.array(new.TransformIndexToPhysicalPoint((int(x), int(y), 3)))
    rows, cols = data.shape[1:]
    near = np.array([[np.linalg.norm(np.array(new.TransformIndexToPhysicalPoint((c, r, 3))) - centre)
                      <= 3.0 for c in range(cols)] for r in range(rows)])  # fmt: skip
    assert np.array_equal(data[3] == 6, near) and near.sum() > 5
