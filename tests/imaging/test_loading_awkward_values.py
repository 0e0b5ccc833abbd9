"""Values at the edges of what the pipeline holds (whole floats beyond int64, rescales
that cannot be used, flat images, odd NIfTI types, labels beyond int32), checked against
references computed here: pydicom's ``pixel_array`` and ``apply_modality_lut``, nibabel's
data, and the window formula of DICOM PS3.3 C.11.2.1.2 written out again below."""

from __future__ import annotations

import warnings
from pathlib import Path

import nibabel as nib
import numpy as np
import pydicom
import pytest
from PIL import Image
from pydicom.pixels import apply_modality_lut

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.render import compose_rgba, render_file
from medrcube_desktop.imaging.slice_data import SliceData
from tests.conftest import dicom_file


def formula(values, center, width, function="LINEAR_EXACT") -> np.ndarray:
    """PS3.3 C.11.2.1.2.1 (LINEAR) and C.11.2.1.3.2 (LINEAR_EXACT) to 0..255, NaN black."""
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(all="ignore"):
        if function == "LINEAR_EXACT":
            unit = np.clip((x - (center - width / 2)) / width, 0, 1)
        elif width <= 1:
            unit = (x > center - 0.5).astype(float)
        else:
            unit = np.clip((x - (center - 0.5)) / (width - 1) + 0.5, 0, 1)
    unit = np.where(np.isfinite(unit), unit, 0.0)
    return np.rint(unit * 255).astype(np.uint8)


@pytest.fixture
def no_warnings():
    """Fails the test when anything is warned (numpy casts, nibabel, ComplexWarning)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    assert [str(w.message) for w in caught] == []


def ct_with(tmp_path: Path, name: str, **elements) -> tuple[Path, pydicom.Dataset]:
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    with warnings.catch_warnings():  # pydicom warns on setting a DS of NaN: the test means it
        warnings.filterwarnings("ignore", "Invalid value for VR DS", UserWarning)
        for keyword, value in elements.items():
            setattr(ds, keyword, value)
    path = tmp_path / name
    ds.save_as(path, enforce_file_format=False)
    return path, pydicom.dcmread(path)


def file_window(ds) -> tuple[float, float]:
    def first(value) -> float:
        return float(value[0]) if isinstance(value, pydicom.multival.MultiValue) else float(value)

    return first(ds.WindowCenter), first(ds.WindowWidth)


# 1. whole values beyond int64 or float64's exact integers take the float path


def test_whole_floats_at_and_above_2_to_the_63_follow_the_formula(no_warnings):
    # whole, and fewer than 65,536 apart: what a lookup table would take, had the cast
    # to int64 not made every one of them -2**63
    pixels = 2.0**63 + np.array([[0.0, 2048.0], [4096.0, 6144.0], [8192.0, 2048.0]])
    window = (2.0**63 + 4096.0, 8192.0)
    rendered = compose_rgba(SliceData(pixels, False, "MONOCHROME2"), window=window)
    expected = formula(pixels, *window)
    assert np.array_equal(rendered.rgba[..., 0], expected)
    assert len(set(expected.ravel().tolist())) == 5  # not the one level of int64's overflow


@pytest.mark.parametrize(
    ("slope", "intercept", "center", "width"),
    [("1e300", "0", "1e302", "1e303"), ("1e-30", "1e30", "1e30", "1e20")],
)
def test_dicom_extreme_rescale_follows_pydicom_and_the_formula(
    tmp_path, no_warnings, slope, intercept, center, width
):
    path, ds = ct_with(
        tmp_path,
        "ct.dcm",
        RescaleSlope=slope,
        RescaleIntercept=intercept,
        WindowCenter=center,
        WindowWidth=width,
    )
    values = apply_modality_lut(ds.pixel_array, ds).astype(np.float64)
    rendered = render_file(path)
    center, width = file_window(ds)
    assert rendered.window == (center, width)
    expected = formula(values, center, width, "LINEAR")
    assert np.array_equal(rendered.rgba[..., 0], expected)
    assert int(expected.max()) > 0  # not the all-black of int64's overflow


def test_uint64_nifti_beyond_2_to_the_63_follows_nibabel_and_the_formula(tmp_path, no_warnings):
    stored = 2**63 + np.arange(24, dtype=np.uint64).reshape(2, 3, 4) * np.uint64(2**58)
    path = tmp_path / "big.nii.gz"
    nib.Nifti1Image(stored, np.eye(4), dtype=np.uint64).to_filename(path)
    data = np.asanyarray(nib.load(path).dataobj).astype(np.float64)[:, :, 1]
    window = (1.5e19, 1.0e19)
    shown = compose_rgba(load_slice(path, 1), window=window).rgba[..., 0]
    expected = formula(data, *window)  # orientation aside: the same levels, as many times
    assert np.array_equal(np.sort(shown, axis=None), np.sort(expected, axis=None))
    assert len(set(expected.ravel().tolist())) > 2


# 2. a flat image looks the same in every format


def constant_files(tmp_path: Path) -> dict[str, Path]:
    files = {}
    for value in (0, 1000, 65535):
        files[f"png16-{value}"] = tmp_path / f"c{value}.png"
        Image.fromarray(np.full((6, 5), value, np.uint16)).save(files[f"png16-{value}"])
    files["nifti"] = tmp_path / "c.nii.gz"
    nib.Nifti1Image(np.full((4, 5, 3), 0.3, np.float32), np.eye(4)).to_filename(files["nifti"])
    files["nifti-big"] = tmp_path / "cbig.nii.gz"
    big = np.full((4, 5, 3), 2**63, np.uint64)
    nib.Nifti1Image(big, np.eye(4), dtype=np.uint64).to_filename(files["nifti-big"])
    ds = pydicom.dcmread(dicom_file("MR_small.dcm"))
    del ds.WindowCenter, ds.WindowWidth
    ds.PixelData = np.full((ds.Rows, ds.Columns), 612, np.int16).tobytes()
    files["dicom-mr"] = tmp_path / "mr.dcm"
    ds.save_as(files["dicom-mr"], enforce_file_format=False)
    return files


def test_a_flat_image_shows_mid_grey_in_every_format_with_a_note(tmp_path):
    for name, path in constant_files(tmp_path).items():
        rendered = render_file(path)
        levels = set(rendered.rgba[..., 0].ravel().tolist())
        assert levels == {128}, (name, rendered.window, levels)
        assert any("holds one value" in note for note in rendered.notes), name


def test_a_flat_8_bit_picture_is_still_shown_as_stored(tmp_path):
    path = tmp_path / "c8.png"
    Image.fromarray(np.full((4, 4), 255, np.uint8)).save(path)
    rendered = render_file(path)
    assert rendered.window is None and int(rendered.rgba[..., 0].min()) == 255


# 3. a Rescale that cannot be used is ignored, with a note


@pytest.mark.parametrize(
    ("slope", "intercept"), [("NaN", "-1024"), ("inf", "-1024"), ("0", "5"), ("1", "inf")]
)
def test_unusable_rescale_is_ignored_with_a_note(tmp_path, slope, intercept):
    path, ds = ct_with(
        tmp_path,
        "ct.dcm",
        RescaleSlope=slope,
        RescaleIntercept=intercept,
        WindowCenter="1000",
        WindowWidth="800",
    )
    stored = ds.pixel_array.astype(np.float64)  # slope 1, intercept 0
    rendered = render_file(path)
    center, width = file_window(ds)
    assert np.array_equal(rendered.rgba[..., 0], formula(stored, center, width, "LINEAR"))
    assert any("Rescale" in note and "ignored" in note for note in rendered.notes)


# 4. one-line errors or notes, nothing on stderr


def test_nifti_with_an_empty_axis_is_refused_in_one_line(tmp_path):
    path = tmp_path / "empty.nii.gz"
    nib.Nifti1Image(np.zeros((8, 0, 3), np.float32), np.eye(4)).to_filename(path)
    with pytest.raises(ImageLoadError, match=r"empty\.nii\.gz: .*no voxels \(shape \(8, 0, 3\)\)"):
        load_slice(path)


def test_rgb_nifti_is_refused_in_one_line(tmp_path):
    rgb = np.zeros((4, 4, 2), dtype=[("R", "u1"), ("G", "u1"), ("B", "u1")])
    path = tmp_path / "rgb.nii.gz"
    nib.Nifti1Image(rgb, np.eye(4)).to_filename(path)
    with pytest.raises(ImageLoadError, match=r"rgb\.nii\.gz: .*only greyscale") as caught:
        load_slice(path)
    assert "\n" not in str(caught.value) and "cast" not in str(caught.value)


def test_complex_nifti_shows_the_magnitude_without_a_warning(tmp_path, no_warnings):
    values = np.arange(24).reshape(2, 3, 4) + 1j * np.arange(24).reshape(2, 3, 4)[::-1]
    path = tmp_path / "complex.nii.gz"
    nib.Nifti1Image(values.astype(np.complex64), np.eye(4)).to_filename(path)
    data = load_slice(path, 2)
    magnitude = np.abs(np.asanyarray(nib.load(path).dataobj))[:, :, 2]
    assert np.allclose(np.sort(data.pixels, axis=None), np.sort(magnitude, axis=None), rtol=1e-6)
    assert any("magnitude" in note for note in data.notes)


def test_huge_scl_slope_keeps_nibabels_values_without_a_warning(tmp_path, no_warnings):
    path = tmp_path / "slope.nii.gz"
    img = nib.Nifti1Image(np.arange(24, dtype=np.int16).reshape(2, 3, 4), np.eye(4))
    img.header.set_slope_inter(1e38, 0)
    img.to_filename(path)
    expected = np.asanyarray(nib.load(path).dataobj)[:, :, 3]
    assert expected.max() > np.finfo(np.float32).max  # beyond float32: no infinities
    data = load_slice(path, 3)
    assert np.array_equal(np.sort(data.pixels, axis=None), np.sort(expected, axis=None))


def test_number_of_frames_the_data_does_not_hold_gives_pydicoms_message(tmp_path):
    path, _ = ct_with(tmp_path, "frames.dcm", NumberOfFrames=2)
    with pytest.raises(ImageLoadError, match="less than expected") as caught:
        load_slice(path)
    assert "reshape" not in str(caught.value) and str(path) in str(caught.value)


@pytest.mark.parametrize("value", [1e30, np.inf, -3e9])
def test_float_mask_label_beyond_int32_is_refused(tmp_path, no_warnings, value):
    image = tmp_path / "image.nii.gz"
    nib.Nifti1Image(np.zeros((4, 4, 2), np.float32), np.eye(4)).to_filename(image)
    labels = np.zeros((4, 4, 2), np.float32)
    labels[1, 1, 0] = value
    mask = tmp_path / "mask.nii.gz"
    nib.Nifti1Image(labels, np.eye(4)).to_filename(mask)
    with pytest.raises(ImageLoadError, match=r"mask\.nii\.gz: the mask holds .*beyond"):
        load_slice(image, None, mask)


def test_integer_mask_label_beyond_int32_is_refused(tmp_path):
    from medrcube_desktop.imaging.masks import mask_labels

    with pytest.raises(ImageLoadError, match="beyond"):
        mask_labels(np.array([[0, 2**40]], np.int64), "m.png")
    edge = np.array([[0, 2**31 - 1, -(2**31)]], np.int64)
    assert mask_labels(edge, "m.png").tolist() == edge.tolist()


def test_4d_mask_of_several_volumes_is_refused(tmp_path):
    image = tmp_path / "image.nii.gz"
    nib.Nifti1Image(np.zeros((4, 4, 2), np.float32), np.eye(4)).to_filename(image)
    mask = tmp_path / "mask4d.nii.gz"
    nib.Nifti1Image(np.ones((4, 4, 2, 3), np.uint8), np.eye(4)).to_filename(mask)
    with pytest.raises(ImageLoadError, match=r"mask4d\.nii\.gz: .*4-D file of 3 volumes"):
        load_slice(image, None, mask)


def test_a_slice_with_no_finite_value_is_black_with_a_note_even_when_other_slices_have_one(
    tmp_path,
):
    volume = np.random.default_rng(0).random((6, 5, 3)).astype(np.float32)
    volume[:, :, 1] = np.nan
    nib.save(nib.Nifti1Image(volume, np.eye(4)), tmp_path / "v.nii.gz")
    note = "no pixel of this slice holds a finite value (NaN or infinite): nothing to window"
    shown = render_file(tmp_path / "v.nii.gz", 1)
    assert note in shown.notes and not shown.rgba[..., :3].any()  # NaN black
    assert note not in render_file(tmp_path / "v.nii.gz", 0).notes
    infinite = np.full((4, 4, 2), np.nan, np.float32)
    infinite[0, :, :], infinite[1, :, :] = np.inf, -np.inf
    nib.save(nib.Nifti1Image(infinite, np.eye(4)), tmp_path / "n.nii")
    shown = render_file(tmp_path / "n.nii")  # no finite value anywhere: no window
    assert note in shown.notes


def test_a_mask_slice_with_no_label_says_where_the_labels_are(tmp_path):
    image = np.random.default_rng(1).random((8, 8, 6)).astype(np.float32)
    mask = np.zeros((8, 8, 6), np.uint8)
    mask[2:4, 2:4, [2, 4]] = 1  # labels on slices 3 and 5 (numbered from 1)
    for name, data in (("i", image), ("m", mask), ("e", np.zeros_like(mask))):
        nib.save(nib.Nifti1Image(data, np.eye(4)), tmp_path / f"{name}.nii.gz")
    image_path, mask_path = tmp_path / "i.nii.gz", tmp_path / "m.nii.gz"
    assert "the mask labels nothing on this slice; it labels slices 3, 5 of 6" in (
        render_file(image_path, 0, mask_path).notes
    )
    assert "the mask labels nothing on this slice; it labels slices 3, 5 of 6" in (
        render_file(image_path, 3, mask_path).notes  # between the two labelled slices
    )
    assert not any("mask labels" in n for n in render_file(image_path, 2, mask_path).notes)
    opened = render_file(image_path, None, mask_path)  # opens on the largest area: a labelled one
    assert opened.slice_index in (2, 4) and not any("mask labels" in n for n in opened.notes)
    gaps = np.zeros_like(mask)
    gaps[1:3, 1:3, [1, 2, 5]] = 1  # slices 2, 3 and 6: not one run
    nib.save(nib.Nifti1Image(gaps, np.eye(4)), tmp_path / "gaps.nii.gz")
    assert "the mask labels nothing on this slice; it labels slices 2 to 3, 6 of 6" in (
        render_file(image_path, 3, tmp_path / "gaps.nii.gz").notes
    )
    negative = np.zeros(mask.shape, np.int16)
    negative[2:6, 2:6, 4] = -1  # a label is any value but 0, as draw_mask draws it
    nib.save(nib.Nifti1Image(negative, np.eye(4)), tmp_path / "neg.nii.gz")
    opened = render_file(image_path, None, tmp_path / "neg.nii.gz")
    assert opened.slice_index == 4 and not any("mask labels" in n for n in opened.notes)
    assert "it labels slice 5 of 6" in " ".join(
        render_file(image_path, 0, tmp_path / "neg.nii.gz").notes
    )
    empty = render_file(image_path, None, tmp_path / "e.nii.gz")
    assert "the mask labels no voxel in the whole volume: nothing to draw" in empty.notes


def test_an_empty_2d_mask_is_said(tmp_path):
    Image.fromarray(np.arange(64, dtype=np.uint8).reshape(8, 8) * 4).save(tmp_path / "i.png")
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(tmp_path / "m.png")
    shown = render_file(tmp_path / "i.png", None, tmp_path / "m.png")
    assert shown.notes == ["the mask labels no pixel: nothing to draw"]
    labelled = np.zeros((8, 8), np.uint8)
    labelled[1:3, 1:3] = 1
    Image.fromarray(labelled).save(tmp_path / "l.png")
    assert render_file(tmp_path / "i.png", None, tmp_path / "l.png").notes == []
