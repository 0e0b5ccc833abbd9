"""Rendering checked against hand computations and pydicom's own VOI implementation."""

from pathlib import Path

import nibabel as nib
import numpy as np
import pydicom
import pytest
from PIL import Image
from pydicom.pixels import apply_voi_lut

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.lookup_tables import window_to_unit
from medrcube_desktop.imaging.render import render_file
from tests.conftest import dicom_file


def gray(rendered):
    rgba = rendered.rgba
    assert rgba.dtype == np.uint8 and rgba.ndim == 3 and rgba.shape[2] == 4
    assert (rgba[..., 3] == 255).all()
    return rgba[..., 0]


def test_linear_window_matches_ps3_3_formula_by_hand():
    # C.11.2.1.2.1 with c=40, w=400: x <= c-0.5-(w-1)/2 = -160 -> 0; x > c-0.5+(w-1)/2 = 239 -> 1
    values = np.array([-1000.0, -160.0, 39.5, 239.0, 240.0, 3000.0])
    out = window_to_unit(values, 40, 400)
    np.testing.assert_allclose(out, [0.0, 0.0, 0.5, 1.0, 1.0, 1.0], atol=1e-12)


def test_linear_exact_sigmoid_and_width_one_by_hand():
    x = np.array([-10.0, 0.0, 10.0])
    # LINEAR_EXACT (C.11.2.1.3.2): (x - (c - w/2)) / w with c=0, w=20
    np.testing.assert_allclose(window_to_unit(x, 0, 20, "LINEAR_EXACT"), [0.0, 0.5, 1.0])
    # SIGMOID (C.11.2.1.3.1): 1 / (1 + exp(-4 (x - c) / w))
    sigmoid = 1 / (1 + np.exp(-4 * x / 20))
    np.testing.assert_allclose(window_to_unit(x, 0, 20, "SIGMOID"), sigmoid)
    # LINEAR with w = 1 is a threshold at c - 0.5 (no division by zero, no NaN)
    np.testing.assert_array_equal(window_to_unit(np.array([99.0, 99.6, 101.0]), 100, 1), [0, 1, 1])


def test_ct_without_file_window_uses_soft_tissue_window_on_hounsfield_units():
    path = dicom_file("CT_small.dcm")
    ds = pydicom.dcmread(path)
    assert "WindowCenter" not in ds
    hu = ds.pixel_array * float(ds.RescaleSlope) + float(ds.RescaleIntercept)
    out = gray(render_file(path))
    assert out.shape == hu.shape
    # by hand, window 40/400 (LINEAR_EXACT): below -160 HU black, above 240 HU white
    assert (out[hu <= -160] == 0).all()
    assert (out[hu >= 240] == 255).all()
    mid = (hu > -160) & (hu < 240)
    expected = np.rint((hu[mid] + 160) / 400 * 255)
    np.testing.assert_array_equal(out[mid], expected)


def test_monochrome1_uses_file_window_then_inverts_like_pydicom():
    path = dicom_file("RG1_J2KR.dcm")  # CR chest, MONOCHROME1, JPEG 2000 lossless
    ds = pydicom.dcmread(path)
    assert ds.PhotometricInterpretation == "MONOCHROME1"
    raw = ds.pixel_array
    reference = apply_voi_lut(raw, ds).astype(np.float64)  # pydicom, PS3.3 C.11.2.1.2
    y_max = 2 ** int(ds.BitsStored) - 1
    expected = np.rint((1.0 - reference / y_max) * 255)
    out = gray(render_file(path)).astype(np.float64)
    assert np.abs(out - expected).max() <= 1
    # MONOCHROME1: the highest stored value (unattenuated beam, air) shows darkest
    assert out.flat[np.argmax(raw)] <= 30 < 225 <= out.flat[np.argmin(raw)]


def test_multiframe_dicom_shows_central_frame_with_a_monotonic_mapping():
    path = dicom_file("emri_small.dcm")  # enhanced MR, 10 frames
    frames = pydicom.dcmread(path).pixel_array
    rendered = render_file(path)
    assert (rendered.slice_index, rendered.slice_count) == (5, 10)
    out = gray(rendered).ravel()
    order = np.argsort(frames[5].ravel(), kind="stable")
    assert (np.diff(out[order].astype(int)) >= 0).all()  # same ordering as frame 5
    other = np.argsort(frames[2].ravel(), kind="stable")
    assert (np.diff(out[other].astype(int)) < 0).any()  # and not frame 2's
    assert render_file(path, slice_index=2).slice_index == 2


def test_16bit_png_is_windowed_not_clipped(tmp_path):
    ramp = np.arange(4096, dtype=np.uint16).reshape(64, 64)
    path = tmp_path / "ramp16.png"
    Image.fromarray(ramp).save(path)
    assert Image.open(path).mode.startswith("I")
    out = gray(render_file(path))
    assert (out == 255).mean() < 0.01  # an 8-bit clip would saturate 94 % of the ramp
    # by hand: the 0.5th..99.5th percentiles of 0..4095 are 20.475 and 4074.525
    lo, hi = 0.005 * 4095, 0.995 * 4095
    expected = np.rint(np.clip((ramp - lo) / (hi - lo), 0, 1) * 255)
    assert np.abs(out.astype(float) - expected).max() <= 1


def test_8bit_png_is_shown_as_stored(tmp_path):
    pixels = np.arange(100, dtype=np.uint8).reshape(10, 10) + 50
    Image.fromarray(pixels).save(tmp_path / "p.png")
    np.testing.assert_array_equal(gray(render_file(tmp_path / "p.png")), pixels)


def test_mask_is_semi_transparent_red_and_box_a_red_outline(tmp_path):
    path = dicom_file("CT_small.dcm")
    plain = render_file(path).rgba
    mask = np.zeros(plain.shape[:2], dtype=np.uint8)
    mask[40:60, 50:70] = 255
    Image.fromarray(mask).save(tmp_path / "mask.png")
    out = render_file(path, mask_path=tmp_path / "mask.png", bbox=(10, 20, 100, 110)).rgba
    g = plain[50, 60, 0].astype(float)
    assert tuple(out[50, 60, :3]) == (round(0.6 * g + 0.4 * 255), round(0.6 * g), round(0.6 * g))
    np.testing.assert_array_equal(out[45, 30], plain[45, 30])  # inside the box, outside the mask
    assert tuple(out[20, 50]) == (255, 0, 0, 255)  # top edge, row y0
    assert tuple(out[80, 100]) == (255, 0, 0, 255)  # right edge, column x1
    np.testing.assert_array_equal(out[5, 5], plain[5, 5])  # outside the box


def _volume(tmp_path, affine):
    data = np.zeros((6, 8, 5), dtype=np.float32)
    data[5, 7, :] = 100.0  # one bright voxel column at the highest i and j
    mask = np.zeros(data.shape, dtype=np.uint8)
    mask[1:3, 1:3, 1] = 1  # 4 voxels on slice 1
    mask[0:3, 0:4, 3] = 1  # 12 voxels on slice 3: the largest mask area
    nib.save(nib.Nifti1Image(data, affine), tmp_path / "vol.nii.gz")
    nib.save(nib.Nifti1Image(mask, affine), tmp_path / "mask.nii.gz")
    return tmp_path / "vol.nii.gz", tmp_path / "mask.nii.gz"


def test_nifti_slice_with_largest_mask_area_in_radiological_convention(tmp_path):
    image, mask = _volume(tmp_path, np.eye(4))  # RAS+: i -> patient right, j -> anterior
    with_mask = render_file(image, mask_path=mask)
    assert (with_mask.slice_index, with_mask.slice_count) == (3, 5)
    assert render_file(image).slice_index == 2  # central slice without a mask
    out = gray(render_file(image))
    assert out.shape == (8, 6)  # rows: anterior -> posterior, columns: right -> left
    assert out[0, 0] == 255  # most anterior, patient right shows top-left
    assert (out > 0).sum() == 1


def test_nifti_with_flipped_x_still_shows_patient_right_on_screen_left(tmp_path):
    image, _ = _volume(tmp_path, np.diag([-1.0, 1.0, 1.0, 1.0]))  # LAS: i -> patient left
    out = gray(render_file(image))
    assert out[0, -1] == 255


def test_unreadable_files_raise_image_load_error_naming_the_file(tmp_path):
    broken = tmp_path / "broken.dcm"
    broken.write_bytes(b"not a dicom file at all")
    with pytest.raises(ImageLoadError, match="broken.dcm"):
        render_file(broken)
    with pytest.raises(ImageLoadError, match="unknown image format"):
        render_file(Path(__file__))


def test_nifti_mask_on_another_affine_is_refused(tmp_path):
    data = np.ones((6, 8, 5), dtype=np.float32)
    nib.save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "v.nii.gz")
    nib.save(
        nib.Nifti1Image(np.ones((6, 8, 5), np.uint8), np.diag([-1.0, 1, 1, 1])),
        tmp_path / "m.nii.gz",
    )
    with pytest.raises(ImageLoadError, match="mask affine differs"):
        render_file(tmp_path / "v.nii.gz", mask_path=tmp_path / "m.nii.gz")


def test_nifti_ct_in_hounsfield_units_gets_the_ct_window_when_the_item_says_ct(tmp_path):
    hu = np.linspace(-1000, 1000, 6 * 8 * 3, dtype=np.float32).reshape(6, 8, 3)
    nib.save(nib.Nifti1Image(hu, np.eye(4)), tmp_path / "ct.nii.gz")
    assert render_file(tmp_path / "ct.nii.gz", modality="CT").window == (40.0, 400.0)
    assert render_file(tmp_path / "ct.nii.gz").window != (40.0, 400.0)  # no hint: percentiles


def test_2d_and_4d_nifti_show_a_slice(tmp_path):
    nib.save(
        nib.Nifti1Image(np.arange(12, dtype=np.float32).reshape(3, 4), np.eye(4)),
        tmp_path / "2d.nii",
    )
    assert render_file(tmp_path / "2d.nii").rgba.shape == (4, 3, 4)  # axial: rows A->P
    four = np.zeros((3, 4, 2, 5), dtype=np.float32)
    four[..., 0] = 1.0
    nib.save(nib.Nifti1Image(four, np.eye(4)), tmp_path / "4d.nii")
    rendered = render_file(tmp_path / "4d.nii")
    assert any("4-D file with 5 volumes" in n for n in rendered.notes)


def test_user_window_preset_and_invert_on_hounsfield_units(ct_benchmark):
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.imaging.render import CT_PRESETS, render_item

    item = load_benchmark(ct_benchmark).items[0]
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    hu = ds.pixel_array * float(ds.RescaleSlope) + float(ds.RescaleIntercept)
    center, width = CT_PRESETS["lung"]
    assert (center, width) == (-600.0, 1500.0)
    expected = np.rint(np.clip((hu - (center - width / 2)) / width, 0, 1) * 255)  # by hand
    lung = render_item(item, window=(center, width))
    assert lung.window == (center, width)
    np.testing.assert_array_equal(gray(lung), expected)
    np.testing.assert_array_equal(
        gray(render_item(item, window=(center, width), invert=True)), 255 - expected
    )


def test_voi_lut_sequence_is_applied_like_pydicom():
    path = dicom_file("vlut_04.dcm")  # IHE MESA display test: a VOI LUT Sequence, no window
    ds = pydicom.dcmread(path)
    assert "WindowCenter" not in ds and ds.VOILUTSequence[0].LUTDescriptor[2] == 16
    reference = apply_voi_lut(ds.pixel_array, ds).astype(np.float64)  # pydicom, C.11.2.1.1
    expected = np.rint(reference / 65535 * 255)
    rendered = render_file(path)
    assert np.abs(gray(rendered).astype(float) - expected).max() <= 1
    assert "VOI LUT Sequence of the file applied" in rendered.notes


def test_several_labels_get_colour_blind_safe_colours_and_a_legend(tmp_path):
    pixels = np.full((20, 30), 100, dtype=np.uint8)
    labels = np.zeros((20, 30), dtype=np.uint8)
    labels[2:6, 2:6] = 1
    labels[10:14, 10:14] = 7
    Image.fromarray(pixels).save(tmp_path / "p.png")
    Image.fromarray(labels).save(tmp_path / "labels.png")
    rendered = render_file(tmp_path / "p.png", mask_path=tmp_path / "labels.png")
    orange, sky_blue = (230, 159, 0), (86, 180, 233)  # Okabe-Ito, first two colours
    assert rendered.legend == [(1, orange), (7, sky_blue)]
    # by hand: 0.6 * 100 + 0.4 * colour
    assert tuple(rendered.rgba[3, 3, :3]) == tuple(round(60 + 0.4 * c) for c in orange)
    assert tuple(rendered.rgba[11, 11, :3]) == tuple(round(60 + 0.4 * c) for c in sky_blue)
    assert tuple(rendered.rgba[18, 28, :3]) == (100, 100, 100)


def test_images_over_the_pixel_limit_are_refused_before_decoding(tmp_path, monkeypatch):
    monkeypatch.setenv("MEDRCUBE_MAX_PIXELS", "10000")
    Image.fromarray(np.zeros((101, 100), np.uint8)).save(tmp_path / "big.png")  # 10,100 px
    with pytest.raises(ImageLoadError, match="10,100 pixels exceed the limit of 10,000"):
        render_file(tmp_path / "big.png")
    with pytest.raises(ImageLoadError, match="RG1_J2KR.dcm"):  # 1955 x 1841
        render_file(dicom_file("RG1_J2KR.dcm"))
    Image.fromarray(np.zeros((100, 100), np.uint8)).save(tmp_path / "ok.png")
    assert render_file(tmp_path / "ok.png").rgba.shape == (100, 100, 4)


def test_mask_outline_draws_only_the_border_in_full_colour(ct_benchmark, tmp_path):
    from medrcube_desktop.imaging.loading import load_slice
    from medrcube_desktop.imaging.render import compose_rgba

    path = dicom_file("CT_small.dcm")
    mask = np.zeros((128, 128), np.uint8)
    mask[20:30, 40:50] = 255  # a 10 x 10 square: 36 border pixels, 64 inside
    Image.fromarray(mask).save(tmp_path / "m.png")
    data = load_slice(path, mask_path=tmp_path / "m.png")
    plain = compose_rgba(load_slice(path)).rgba
    out = compose_rgba(data, mask_outline=True).rgba
    red = np.all(out[..., :3] == (255, 0, 0), axis=2)
    assert red.sum() == 36 and red[20, 40:50].all() and red[29, 40:50].all()
    np.testing.assert_array_equal(out[21:29, 41:49], plain[21:29, 41:49])  # inside untouched
    half = compose_rgba(data, mask_alpha=1.0).rgba  # opacity 1: the fill is pure red
    assert np.all(half[20:30, 40:50, :3] == (255, 0, 0))


def test_mr_without_a_window_uses_percentiles_of_the_foreground():
    from medrcube_desktop.imaging.auto_window import foreground_window

    values = np.concatenate([np.zeros(9000), np.arange(1, 1001, dtype=float)])  # 90 % background
    lo, hi = np.percentile(np.arange(1, 1001, dtype=float), [0.5, 99.5])  # by numpy, tissue only
    assert foreground_window(values) == pytest.approx(((lo + hi) / 2, hi - lo))
    # with the background counted, the 0.5th..99.5th percentiles would start at 0
    assert np.percentile(values, 0.5) == 0.0


def test_presentation_lut_shape_inverse_inverts_once(tmp_path):
    source = pydicom.dcmread(dicom_file("CT_small.dcm"))
    normal = gray(render_file(dicom_file("CT_small.dcm")))
    source.PresentationLUTShape = "INVERSE"
    source.save_as(tmp_path / "inverse.dcm")
    inverse = gray(render_file(tmp_path / "inverse.dcm")).astype(int)
    assert np.abs(inverse - (255 - normal.astype(int))).max() <= 1  # rounding at exact halves
    source.PhotometricInterpretation = "MONOCHROME1"  # C.8.11.6.1.2: same inversion, not twice
    source.save_as(tmp_path / "mono1_inverse.dcm")
    once = gray(render_file(tmp_path / "mono1_inverse.dcm")).astype(int)
    assert np.abs(once - (255 - normal.astype(int))).max() <= 1


def test_nifti_mask_on_a_coarser_grid_over_the_same_region_is_resampled(tmp_path):
    image = np.zeros((20, 20, 10), dtype=np.float32)
    nib.save(nib.Nifti1Image(image, np.eye(4)), tmp_path / "v.nii.gz")  # 1 mm voxels
    coarse = np.zeros((10, 10, 5), dtype=np.uint8)
    coarse[5, 5, 3] = 1  # one 2 mm voxel: image voxels i, j in 10..11 and k in 6..7
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    affine[:3, 3] = 0.5  # outer faces at -0.5 .. 19.5 mm, like the image's
    nib.save(nib.Nifti1Image(coarse, affine), tmp_path / "m.nii.gz")
    rendered = render_file(tmp_path / "v.nii.gz", mask_path=tmp_path / "m.nii.gz")
    assert rendered.slice_index in (6, 7)  # a slice through the mask voxel, by hand
    red = rendered.rgba[..., 0] > rendered.rgba[..., 1]
    assert red.sum() == 4  # 2 x 2 image voxels
    assert any("mask resampled" in n for n in rendered.notes)


def test_every_window_stored_in_the_file_is_offered_first_one_used():
    path = dicom_file("MR-SIEMENS-DICOM-WithOverlays.dcm")  # two windows stored
    ds = pydicom.dcmread(path)
    pairs = list(
        zip((float(c) for c in ds.WindowCenter), (float(w) for w in ds.WindowWidth), strict=True)
    )
    rendered = render_file(path)
    assert rendered.file_windows == pairs and len(pairs) == 2
    assert rendered.window == pairs[0]


def test_large_images_are_reduced_for_display_only(tmp_path):
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.imaging.render import render_item
    from tests.conftest import item, write_benchmark

    root = write_benchmark(tmp_path / "b", {"ds1": [item("big", image="big.png")]})
    Image.fromarray(np.tile(np.arange(250, dtype=np.uint8), (40, 20))).save(
        root / "ds1" / "big.png"
    )  # 40 x 5000
    (big,) = load_benchmark(root).items
    assert render_item(big).rgba.shape == (40, 5000, 4)  # full size by default (batch output)
    shown = render_item(big, max_side=4096)
    assert shown.rgba.shape == (20, 2500, 4)  # factor 2, the smallest that fits
    assert any("1/2 resolution" in note for note in shown.notes)


def test_padding_pixels_of_a_signed_ct_are_black_and_left_out(tmp_path):
    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))  # signed CT, Pixel Padding Value -2000
    assert ds.PixelRepresentation == 1 and ds.PixelPaddingValue == -2000
    stored = ds.pixel_array.copy()
    stored[:10, :] = -2000  # a padded border, as outside a reconstruction circle
    ds.PixelData = stored.tobytes()
    ds.save_as(tmp_path / "padded.dcm")
    rendered = render_file(tmp_path / "padded.dcm")
    assert (gray(rendered)[:10] == 0).all()
    assert "1280 padding pixels (Pixel Padding Value) shown black" in rendered.notes
    ds.PhotometricInterpretation = "MONOCHROME1"  # padding stays black after the inversion
    ds.save_as(tmp_path / "padded_m1.dcm")
    assert (gray(render_file(tmp_path / "padded_m1.dcm"))[:10] == 0).all()


def test_rgb_ybr_and_palette_ultrasound_match_pydicom():
    from pydicom.pixels import apply_color_lut

    # RGB: shown as stored
    rgb = pydicom.dcmread(dicom_file("US1_UNCR.dcm"))
    np.testing.assert_array_equal(
        render_file(dicom_file("US1_UNCR.dcm")).rgba[..., :3], rgb.pixel_array
    )
    # YBR_FULL_422 JPEG, 30 frames: pydicom converts to RGB; we show the central frame
    ybr = pydicom.dcmread(dicom_file("examples_ybr_color.dcm"))
    assert ybr.PhotometricInterpretation == "YBR_FULL_422"
    shown = render_file(dicom_file("examples_ybr_color.dcm"))
    np.testing.assert_array_equal(shown.rgba[..., :3], ybr.pixel_array[15])
    # PALETTE COLOR with 16-bit palette entries: scaled to 8 bits, not truncated
    palette = pydicom.dcmread(dicom_file("OBXXXX1A.dcm"))
    assert int(palette.RedPaletteColorLookupTableDescriptor[2]) == 16
    expected = np.rint(apply_color_lut(palette.pixel_array, palette) / 65535 * 255)
    np.testing.assert_array_equal(render_file(dicom_file("OBXXXX1A.dcm")).rgba[..., :3], expected)


def test_jpeg_ls_and_jpeg_2000_decode_to_the_same_picture_as_uncompressed():
    plain = render_file(dicom_file("MR_small.dcm")).rgba
    for name in ("MR_small_jpeg_ls_lossless.dcm", "MR_small_jp2klossless.dcm", "MR_small_RLE.dcm"):
        np.testing.assert_array_equal(render_file(dicom_file(name)).rgba, plain, err_msg=name)


def test_a_16_bit_picture_maps_through_a_lookup_table_exactly_as_pixel_by_pixel(tmp_path):
    from PIL import Image

    from medrcube_desktop.imaging.loading import load_slice
    from medrcube_desktop.imaging.lookup_tables import window_gray8 as _window_gray8
    from medrcube_desktop.imaging.render import _to_gray8

    rng = np.random.default_rng(7)
    values = rng.integers(0, 4096, (64, 80)).astype(np.uint16)
    values[0, 0], values[0, 1] = 0, 65535  # the whole 16-bit range: 65,536 table entries
    Image.fromarray(values).save(tmp_path / "a.png")
    data = load_slice(tmp_path / "a.png", None, None, None)
    assert data.source_bits == 16
    for override in (None, (2000.0, 1500.0), (100.5, 3.0)):
        gray, window = _to_gray8(data, override)
        direct = _window_gray8(data.pixels, window, "LINEAR_EXACT", False)
        assert np.array_equal(gray, direct), override
