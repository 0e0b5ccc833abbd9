"""Edited masks as new files: the source's mode (PNG) or affine, header and data type
(NIfTI) kept, the labels read back by the app's own mask readers."""

from __future__ import annotations

import nibabel as nib
import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.masks import mask_labels, picture_mask_values
from medrcube_desktop.review.release_masks import MaskEdit, new_mask_name, write_mask
from medrcube_desktop.review.release_records import ReleaseError


def _labels(top: int = 3) -> np.ndarray:
    labels = np.zeros((12, 10), np.uint16)
    labels[2:6, 1:4] = 1
    labels[7:11, 5:9] = top
    return labels


def _read(path):
    with Image.open(path) as picture:
        return picture.mode, mask_labels(picture_mask_values(picture, path), path)


@pytest.mark.parametrize("mode", ["L", "P", "RGB", "RGBA", "LA", "I;16"])
def test_a_png_mask_keeps_its_mode_and_reads_back_as_the_labels(tmp_path, mode):
    source = tmp_path / "old.png"
    if mode == "I;16":
        Image.frombytes("I;16", (10, 12), np.zeros((12, 10), "<u2").tobytes()).save(source)
    else:
        Image.fromarray(np.zeros((12, 10), np.uint8)).convert(mode).save(source)
    written_mode = _read(source)[0]
    target = tmp_path / "new.png"
    write_mask(target, source, tmp_path / "image.png", [MaskEdit(_labels(), None, None)], "i")
    got_mode, labels = _read(target)
    assert got_mode == written_mode and np.array_equal(labels, _labels())


def test_a_label_beyond_the_source_mode_widens_it_and_beyond_16_bits_is_refused(tmp_path):
    source = tmp_path / "old.png"
    Image.fromarray(np.zeros((12, 10), np.uint8)).save(source)
    write_mask(tmp_path / "new.png", source, source, [MaskEdit(_labels(300), None, None)], "i")
    mode, labels = _read(tmp_path / "new.png")
    assert mode == "I;16" and np.array_equal(labels, _labels(300))
    too_big = MaskEdit(_labels().astype(np.uint32) * 40_000, None, None)
    with pytest.raises(ReleaseError, match="i: label 120000 does not fit a PNG"):
        write_mask(tmp_path / "big.png", source, source, [too_big], "i")


def test_a_volume_mask_edit_along_another_axis_and_the_latest_edit_wins(tmp_path):
    affine = np.diag([1.5, 1.5, 3.0, 1.0])
    source = tmp_path / "m.nii"
    data = np.zeros((12, 10, 4), np.int16)
    data[0, 0, :] = 9
    nib.save(nib.Nifti1Image(data, affine), source)
    first = np.zeros((10, 4), np.uint8)
    first[1, 1] = 2
    latest = np.zeros((10, 4), np.uint8)
    latest[2, 2] = 4
    edits = [MaskEdit(first, 5, 0), MaskEdit(latest, 5, 0), MaskEdit(first, 6, 0)]
    write_mask(tmp_path / "n.nii", source, tmp_path / "img.nii", edits, "i")
    new = nib.load(tmp_path / "n.nii")
    assert new.get_data_dtype() == np.int16 and np.array_equal(new.affine, affine)
    got = np.asarray(new.dataobj)
    assert np.array_equal(got[5], latest) and np.array_equal(got[6], first)
    assert np.array_equal(np.delete(got, [5, 6], axis=0), np.delete(data, [5, 6], axis=0))


def test_a_new_volume_mask_is_drawn_by_the_window_on_its_image(tmp_path):
    image = tmp_path / "img.nii.gz"
    nib.save(nib.Nifti1Image(np.arange(480, dtype=np.int16).reshape(12, 10, 4), np.eye(4)), image)
    labels = np.zeros((12, 10), np.uint8)
    labels[3:8, 2:6] = 1
    write_mask(tmp_path / "mask.nii.gz", None, image, [MaskEdit(labels, 2, 2)], "i")
    shown = load_slice(image, None, tmp_path / "mask.nii.gz")  # slice of the largest mask area
    assert shown.slice_index == 2 and int((shown.mask != 0).sum()) == 20


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (MaskEdit(np.zeros((12, 10), np.uint8), 4, 2), "slice 4 along axis 2: the mask has 4"),
        (MaskEdit(np.zeros((12, 10), np.uint8), None, 2), "the mask is a volume: the correction names no slice"),
        (MaskEdit(np.zeros((10, 12), np.uint8), 1, 2), "the labels are 10x12, the mask's slice is 12x10"),
        (MaskEdit(np.full((12, 10), 300, np.uint16), 1, 2), "label 300 does not fit .* uint8"),
        (MaskEdit(np.zeros((12, 10), np.uint8), 1, 3), "axis 3 of a 3-D mask"),
    ],
)  # fmt: skip
def test_a_volume_edit_that_does_not_fit_is_refused_and_nothing_written(tmp_path, edit, said):
    source = tmp_path / "m.nii.gz"
    nib.save(nib.Nifti1Image(np.zeros((12, 10, 4), np.uint8), np.eye(4)), source)
    with pytest.raises(ReleaseError, match=f"item x: mask_path: {said}"):
        write_mask(tmp_path / "n.nii.gz", source, source, [edit], "item x: mask_path")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.nii.gz"]


def test_masks_of_other_kinds_are_refused(tmp_path):
    with pytest.raises(ReleaseError, match="m.txt: a mask can be edited only as NIfTI, NRRD"):
        write_mask(tmp_path / "n.png", tmp_path / "m.txt", tmp_path / "i.nrrd", [], "i")


@pytest.mark.parametrize("suffix", [".nrrd", ".mha"])
def test_an_itk_mask_edit_replaces_one_z_slice_and_keeps_the_grid(tmp_path, suffix):
    sitk = pytest.importorskip("SimpleITK")
    data = np.zeros((4, 12, 10), np.int16)  # (z, y, x)
    data[:, 0, 0] = 9
    source = sitk.GetImageFromArray(data)
    source.SetSpacing((0.7, 0.8, 2.5))
    source.SetOrigin((1.0, 2.0, 3.0))
    source.SetDirection((0.0, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    sitk.WriteImage(source, str(tmp_path / f"m{suffix}"))
    labels = np.zeros((12, 10), np.uint8)
    labels[3:5, 6:9] = 2
    write_mask(tmp_path / f"n{suffix}", tmp_path / f"m{suffix}", tmp_path / "i.nrrd",
               [MaskEdit(labels, 2, 0)], "i")  # fmt: skip
    new = sitk.ReadImage(str(tmp_path / f"n{suffix}"))
    assert (new.GetSpacing(), new.GetOrigin(), new.GetDirection()) == (
        source.GetSpacing(), source.GetOrigin(), source.GetDirection())  # fmt: skip
    got = sitk.GetArrayFromImage(new)
    assert got.dtype == np.int16 and np.array_equal(got[2], labels)
    assert np.array_equal(np.delete(got, 2, axis=0), np.delete(data, 2, axis=0))
    with pytest.raises(ReleaseError, match="i: the labels are 12x10, the mask's slice is 4x10"):
        write_mask(tmp_path / f"o{suffix}", tmp_path / f"m{suffix}", tmp_path / "i.nrrd",
                   [MaskEdit(labels, 2, 1)], "i")  # fmt: skip


def test_an_existing_file_is_never_written_over(tmp_path):
    source = tmp_path / "old.png"
    Image.fromarray(np.zeros((12, 10), np.uint8)).save(source)
    target = tmp_path / "taken.png"
    target.write_bytes(b"keep")
    with pytest.raises(ReleaseError, match="already exists"):
        write_mask(target, source, source, [MaskEdit(_labels(), None, None)], "i")
    assert target.read_bytes() == b"keep"


def test_new_names_beside_the_old_and_the_item_id_when_taken():
    taken = {"masks/a.r2.png", "masks/a.r2.x_1.png"}
    name = new_mask_name("masks/a.png", "2", taken.__contains__, "x 1", volume=False, is_mask=True)
    assert name == "masks/a.r2.x_1-2.png"
    assert (
        new_mask_name("v/b.nii", "2", taken.__contains__, "i", volume=True, is_mask=True)
        == "v/b.r2.nii"
    )
    image = new_mask_name("img.nii.gz", "1.0", taken.__contains__, "i", volume=True, is_mask=False)
    assert image == "img.mask.r1.0.nii.gz"
    assert (
        new_mask_name("p/x.jpg", "3", taken.__contains__, "i", volume=False, is_mask=False)
        == "p/x.mask.r3.png"
    )


def test_a_missing_or_unreadable_source_mask_is_refused_naming_the_item(tmp_path):
    (tmp_path / "bad.png").write_bytes(b"not a picture")
    for name in ("gone.nii.gz", "bad.png"):
        with pytest.raises(ReleaseError, match=f"item x: mask_path: cannot read .*{name}"):
            write_mask(
                tmp_path / "n",
                tmp_path / name,
                tmp_path / "i",
                [MaskEdit(_labels(), None, None)],
                "item x: mask_path",
            )


def test_an_itk_mask_is_named_as_one_file_and_a_2d_one_is_its_one_slice(tmp_path):
    sitk = pytest.importorskip("SimpleITK")

    def name(written):
        return new_mask_name(written, "2", lambda _: False, "x", volume=True, is_mask=True)

    assert [name(n) for n in ("v/m.nrrd", "v/m.nhdr", "v/m.mha", "v/m.mhd")] == [
        "v/m.r2.nrrd", "v/m.r2.nrrd", "v/m.r2.mha", "v/m.r2.mha"]  # fmt: skip
    flat = sitk.GetImageFromArray(np.zeros((12, 10), np.uint8))  # (y, x): shown as one slice
    flat.SetSpacing((0.5, 0.25))
    sitk.WriteImage(flat, str(tmp_path / "m.nrrd"))
    write_mask(tmp_path / "n.nrrd", tmp_path / "m.nrrd", tmp_path / "i.nrrd",
               [MaskEdit(_labels().astype(np.uint8), 0, 0)], "i")  # fmt: skip
    new = sitk.ReadImage(str(tmp_path / "n.nrrd"))
    assert new.GetDimension() == 2 and new.GetSpacing() == (0.5, 0.25)
    assert np.array_equal(sitk.GetArrayFromImage(new), _labels())
