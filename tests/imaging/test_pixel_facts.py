"""Value under the cursor and caliper lengths, against values computed independently."""

from __future__ import annotations

import math

import numpy as np
import pydicom
import pytest
from PIL import Image

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.imaging.pixel_facts import format_value
from medrcube_desktop.imaging.render import render_file, render_item
from medrcube_desktop.imaging.render_cache import RenderCache, render_key, rendered_bytes
from tests.conftest import dicom_file, nibabel_example


def make_item(item_id: str, path, modality: str) -> Item:
    task = canonical_task("Modality Recognition")
    return Item(item_id, "q", {"A": "a"}, "A", task, task.name, modality, "Chest", "ds", path, path)


def test_hu_under_a_pixel_of_ct_small_is_rescaled_stored_value():
    path = dicom_file("CT_small.dcm")
    ds = pydicom.dcmread(path)
    facts = render_file(path).facts
    assert facts.unit == "HU"
    for r, c in ((0, 0), (20, 10), (64, 64), (127, 90)):
        hu = float(ds.pixel_array[r, c]) * float(ds.RescaleSlope) + float(ds.RescaleIntercept)
        # (x, y) = (column, row) anywhere inside the pixel
        assert facts.value_at(c + 0.3, r + 0.7) == hu
        assert facts.describe(c + 0.5, r + 0.5).endswith(f"{int(hu)} HU")
    assert facts.value_at(-0.1, 3) is None and facts.value_at(3, 128.0) is None


def test_caliper_in_mm_from_pixel_spacing_and_named_source():
    path = dicom_file("CT_small.dcm")
    ds = pydicom.dcmread(path)
    row_mm, col_mm = (float(v) for v in ds.PixelSpacing)
    facts = render_file(path).facts
    assert facts.spacing_source.startswith("Pixel Spacing")
    start, end = (10.5, 20.5), (70.5, 100.5)  # (x, y): dc = 60, dr = 80
    length, unit = facts.distance(start, end)
    assert unit == "mm"
    assert length == pytest.approx(math.hypot(80 * row_mm, 60 * col_mm))
    assert facts.describe_distance(start, end) == f"{math.hypot(80 * row_mm, 60 * col_mm):.1f} mm"


def test_imager_pixel_spacing_is_said_to_be_at_the_detector(tmp_path):
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    del ds.PixelSpacing
    ds.ImagerPixelSpacing = [0.2, 0.3]
    path = tmp_path / "imager.dcm"
    ds.save_as(path)
    facts = render_file(path).facts
    assert facts.spacing == (0.2, 0.3)
    assert "Imager Pixel Spacing" in facts.spacing_source
    assert "detector" in facts.spacing_source
    length, _ = facts.distance((0, 0), (4, 3))
    assert length == pytest.approx(math.hypot(3 * 0.2, 4 * 0.3))


def test_mr_values_are_signal_in_arbitrary_units():
    path = dicom_file("MR_small.dcm")
    ds = pydicom.dcmread(path)
    facts = render_file(path).facts
    assert facts.unit == "signal (a.u.)"
    assert facts.value_at(5.5, 7.5) == float(ds.pixel_array[7, 5])


def test_a_picture_without_spacing_measures_in_pixels(tmp_path):
    values = np.arange(64 * 80, dtype=np.uint32).reshape(64, 80) % 256
    path = tmp_path / "g.png"
    Image.fromarray(values.astype(np.uint8)).save(path)
    facts = render_file(path).facts
    assert facts.unit == "grey level" and facts.spacing is None
    assert facts.value_at(3.5, 2.5) == float(values[2, 3])
    assert facts.distance((0, 0), (3, 4)) == (5.0, "pixels")
    assert "no pixel spacing" in facts.describe_distance((0, 0), (3, 4))


def test_nifti_value_has_scaling_applied_and_zooms_as_spacing():
    import nibabel as nib

    path = nibabel_example()
    img = nib.load(path)
    facts = render_file(path).facts
    assert facts.spacing_source == "NIfTI zooms (pixdim)"
    assert sorted(facts.spacing) == sorted(float(z) for z in img.header.get_zooms()[:2])
    shown = facts.values
    volume = np.asanyarray(img.dataobj[..., 0])  # scl_slope/scl_inter applied by nibabel
    middle = volume[:, :, volume.shape[2] // 2]
    # the display turns the slice (radiological convention): the same values, moved
    np.testing.assert_array_equal(np.sort(shown.ravel()), np.sort(middle.ravel()))


def test_display_reduction_reads_full_resolution_values(tmp_path):
    values = (np.arange(200 * 300) % 251).reshape(200, 300).astype(np.uint8)
    path = tmp_path / "big.png"
    Image.fromarray(values).save(path)
    item = make_item("big", path, "MRI")
    shown = render_item(item, max_side=100)
    assert shown.rgba.shape[:2] == (67, 100) and shown.facts.factor == 3
    assert shown.facts.value_at(10.2, 5.4) == float(values[16, 30])


def test_render_cache_is_bounded_in_bytes_and_keyed_by_display_state(tmp_path):
    path = dicom_file("CT_small.dcm")
    item = make_item("ct", path, "CT")
    rendered = render_item(item)
    size = rendered_bytes(rendered)
    cache = RenderCache(capacity_mb=2.5 * size / (1024 * 1024))
    keys = [
        render_key(item, None, True, (40.0, w), False, 0.4, False, False, 4096) for w in (1, 2, 3)
    ]
    assert len(set(keys)) == 3
    assert render_key(item, None, False, None, False, 0.4, False, False, 4096) != render_key(
        item, None, True, None, False, 0.4, False, False, 4096
    )
    for key in keys:
        cache.put(key, rendered)
    assert len(cache) == 2 and cache.nbytes <= cache.capacity_bytes
    assert cache.get(keys[0]) is None and cache.get(keys[2]) is rendered


def _turned_copy(tmp_path, name: str, **elements) -> tuple:
    """A copy of a pydicom test file with header elements changed (an orientation the
    display turns or flips), and the file's own stored pixels."""
    ds = pydicom.dcmread(dicom_file(name))
    for keyword, value in elements.items():
        setattr(ds, keyword, value)
    path = tmp_path / f"turned-{len(list(tmp_path.iterdir()))}.dcm"
    ds.save_as(path)
    return path, ds.pixel_array


@pytest.mark.parametrize(
    ("name", "elements", "expected"),
    [
        # a radiograph with patient right on image left, feet up: flipped both ways
        ("CT_small.dcm", {"Modality": "DX", "PatientOrientation": ["R", "H"]}, (False, True, True)),
        # rows along +y, columns along +x (an axial slice stored transposed)
        ("CT_small.dcm", {"ImageOrientationPatient": [0, 1, 0, 1, 0, 0]}, (True, False, False)),
        # rows toward anterior, columns toward left: transposed and flipped top-bottom
        ("MR_small.dcm", {"ImageOrientationPatient": [0, -1, 0, 1, 0, 0]}, (True, True, False)),
    ],
)
def test_readout_names_the_files_pixel_and_its_value_after_turns_and_flips(
    tmp_path, name, elements, expected
):
    path, stored = _turned_copy(tmp_path, name, **elements)
    ds = pydicom.dcmread(path)
    slope, intercept = float(ds.get("RescaleSlope", 1)), float(ds.get("RescaleIntercept", 0))
    facts = render_file(path).facts
    t = facts.transform
    assert (t.transpose, t.flip_rows, t.flip_cols) == expected
    height, width = facts.values.shape
    for y, x in ((0, 0), (3, 17), (height - 1, 5), (20, width - 1), (height - 1, width - 1)):
        r, c = facts.file_pixel(x + 0.5, y + 0.5)
        # the display grid's (y, x) is the file's (r, c) through the display transform
        flipped_y = height - 1 - y if t.flip_rows else y
        flipped_x = width - 1 - x if t.flip_cols else x
        assert (r, c) == ((flipped_x, flipped_y) if t.transpose else (flipped_y, flipped_x))
        value = float(stored[r, c]) * slope + intercept
        assert facts.value_at(x + 0.5, y + 0.5) == value
        assert facts.describe(x + 0.5, y + 0.5).startswith(f"x {c}  y {r}   {format_value(value)} ")


def test_readout_in_neurological_convention_names_the_files_pixel(tmp_path):
    path = dicom_file("CT_small.dcm")
    ds = pydicom.dcmread(path)
    rendered = render_item(make_item("ct", path, "CT"), neurological=True)
    facts = rendered.facts
    assert facts.transform.flip_cols and not facts.transform.transpose
    width = facts.values.shape[1]
    for y, x in ((0, 0), (40, 70), (127, 127)):
        hu = float(ds.pixel_array[y, width - 1 - x]) * float(ds.RescaleSlope) + float(
            ds.RescaleIntercept
        )
        assert facts.file_pixel(x + 0.5, y + 0.5) == (y, width - 1 - x)
        assert facts.describe(x + 0.5, y + 0.5) == f"x {width - 1 - x}  y {y}   {int(hu)} HU"


def _nilearn_t1():
    from pathlib import Path

    import nilearn

    return (
        Path(nilearn.__file__).parent
        / "datasets/data/mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz"
    )


@pytest.mark.parametrize("neurological", [False, True])
def test_a_volume_readout_names_the_voxel_index_as_nibabel_reads_it(neurological):
    """The MNI T1 of the demo: every shown point names ``[i, j, k]`` with nibabel's
    ``data[i, j, k]`` as its value, whatever the display turned and flipped."""
    import nibabel as nib

    path = _nilearn_t1()
    data = np.asanyarray(nib.load(path).dataobj)  # (197, 233, 189) uint8
    item = make_item("mni", path, "MRI")
    facts = render_item(item, slice_index=55, neurological=neurological).facts
    assert facts.transform.transpose  # shown turned: screen rows are the file's j
    height, width = facts.values.shape
    points = [(0, 0), (width - 1, height - 1), (174, 131), (40, 200), (width // 2, 17)]
    for x, y in points:
        i, j, k = facts.voxel_at(x + 0.5, y + 0.5)
        assert k == 55
        assert facts.value_at(x + 0.5, y + 0.5) == float(data[i, j, k])
        assert (
            facts.describe(x + 0.5, y + 0.5)
            == f"voxel [{i}, {j}, {k}]   {int(data[i, j, k])} {facts.unit}"
        )
    # the point the trial read as "x 174  y 131" on screen is one voxel, named in full
    text = facts.describe(174.5, 131.5)
    assert text.startswith("voxel [") and "x 174" not in text


def test_a_small_nifti_with_flipped_axes_names_its_voxels(tmp_path):
    import nibabel as nib

    data = np.arange(5 * 6 * 4, dtype=np.int16).reshape(5, 6, 4)
    affine = np.diag([-2.0, 1.5, 3.0, 1.0])  # i toward the left (L), j anterior, k superior
    nib.save(nib.Nifti1Image(data, affine), tmp_path / "v.nii.gz")
    facts = render_file(tmp_path / "v.nii.gz", slice_index=3).facts
    seen = set()
    for y in range(facts.values.shape[0]):
        for x in range(facts.values.shape[1]):
            i, j, k = facts.voxel_at(x + 0.5, y + 0.5)
            assert facts.value_at(x + 0.5, y + 0.5) == float(data[i, j, k]) and k == 3
            seen.add((i, j))
    assert len(seen) == 5 * 6  # every voxel of the slice once


def test_an_nrrd_volume_names_itk_index_x_y_z(tmp_path):
    import SimpleITK as sitk

    array = np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6)  # [z, y, x]
    sitk.WriteImage(sitk.GetImageFromArray(array), str(tmp_path / "v.nrrd"))
    facts = render_file(tmp_path / "v.nrrd", slice_index=2).facts
    for y in range(facts.values.shape[0]):
        for x in range(facts.values.shape[1]):
            i, j, k = facts.voxel_at(x + 0.5, y + 0.5)  # ITK index (x, y, z)
            assert k == 2 and facts.value_at(x + 0.5, y + 0.5) == float(array[k, j, i])


def test_a_2d_file_keeps_column_x_row_y():
    facts = render_file(dicom_file("CT_small.dcm")).facts
    assert facts.voxel_at(3.5, 4.5) is None
    assert facts.describe(3.5, 4.5).startswith("x 3  y 4   ")


def test_a_reduced_jpeg_2000_readout_says_it_is_not_the_files_pixel():
    """RG1_J2KR (the demo's rg1_j2kr.dcm) at 1/2: the value under the cursor is the
    wavelet's low-pass at the file pixel, not pydicom's pixel_array there."""
    from scipy import ndimage

    from medrcube_desktop.imaging.loading import load_slice
    from medrcube_desktop.imaging.render import compose_rgba

    path = dicom_file("RG1_J2KR.dcm")
    full = pydicom.dcmread(path).pixel_array.astype(np.float64)
    facts = compose_rgba(load_slice(path, display_side=800)).facts
    assert facts.reduction == 2
    assert facts.file_pixel(307.5, 244.5) == (488, 614)
    reduced = facts.value_at(307.5, 244.5)
    assert (reduced, full[488, 614]) == (15043.0, 15024.0)  # not the file's value
    low_pass = np.array([-1, 2, 6, 2, -1]) / 8  # the reversible 5/3 wavelet (15444-1 F.3.8)
    smooth = ndimage.convolve1d(ndimage.convolve1d(full, low_pass, 0), low_pass, 1)
    assert abs(reduced - smooth[488, 614]) < 1  # what it is: an average around the pixel
    assert facts.describe(307.5, 244.5) == (
        "x 614  y 488   \u224815043 stored value\n(reduced 1/2: nearby file pixels "
        "averaged; zoom in for its own)"
    )
    exact = compose_rgba(load_slice(path)).facts  # zoomed in: the full decode
    assert exact.describe(614.5, 488.5) == "x 614  y 488   15024 stored value"
