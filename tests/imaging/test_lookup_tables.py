"""The lookup-table path agrees with float64 windowing on real files (within 1 grey level;
in practice equal), and the uint8 compose keeps every pixel."""

from __future__ import annotations

import nibabel as nib
import numpy as np
import pydicom
import pytest
from PIL import Image
from pydicom.pixels import apply_modality_lut

from medrcube_desktop.imaging.auto_window import foreground_window, percentiles, robust_window
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.lookup_tables import gray8_by_table
from medrcube_desktop.imaging.lookup_tables import window_gray8 as _window_gray8
from medrcube_desktop.imaging.render import CT_SOFT_TISSUE_WINDOW, compose_rgba, render_file
from medrcube_desktop.imaging.slice_data import SliceData
from tests.conftest import dicom_file, nibabel_example, png16_file


def float_reference(values: np.ndarray, window, function="LINEAR_EXACT", mono1=False):
    """The float64 path: every pixel through the window formula (PS3.3 C.11.2.1.2)."""
    return _window_gray8(np.asarray(values, dtype=np.float64), window, function, mono1)


def assert_within_one(shown: np.ndarray, reference: np.ndarray) -> None:
    assert shown.shape == reference.shape
    assert int(np.abs(shown.astype(int) - reference.astype(int)).max()) <= 1


def test_ct_small_hounsfield_units_by_table_match_pydicom_float_path():
    path = dicom_file("CT_small.dcm")
    ds = pydicom.dcmread(path)
    hu = apply_modality_lut(ds.pixel_array, ds)  # pydicom, PS3.3 C.11.1, float64
    data = load_slice(path)
    assert data.pixels.dtype.kind == "i"  # whole-number rescale: integers kept
    np.testing.assert_array_equal(data.pixels, hu)
    shown = render_file(path).rgba[..., 0]
    assert_within_one(shown, float_reference(hu, CT_SOFT_TISSUE_WINDOW))


def test_mr_small_file_window_by_table_matches_float_path():
    path = dicom_file("MR_small.dcm")
    ds = pydicom.dcmread(path)
    window = (float(ds.WindowCenter), float(ds.WindowWidth))
    shown = render_file(path).rgba[..., 0]
    reference = float_reference(ds.pixel_array, window, "LINEAR")
    assert_within_one(shown, reference)


def test_16_bit_png_by_table_matches_float_path(tmp_path):
    path = png16_file(tmp_path / "mr16.png")
    stored = np.asarray(Image.open(path))
    assert stored.dtype == np.uint16 and stored.max() > 255
    data = load_slice(path)
    assert data.pixels.dtype == np.uint16
    rendered = render_file(path)
    window = robust_window(stored.astype(np.float64))  # numpy's own percentiles
    assert rendered.window == pytest.approx(window, abs=1e-9)
    assert_within_one(rendered.rgba[..., 0], float_reference(stored, window))


def test_nibabel_example_nifti_matches_float_path():
    path = nibabel_example()
    data = load_slice(path)
    header = nib.load(path).header
    cal = (float(header["cal_min"]), float(header["cal_max"]))
    if cal[1] > cal[0]:  # the header's display range (NIfTI-1 cal_min/cal_max)
        window = ((cal[0] + cal[1]) / 2, cal[1] - cal[0])
    else:
        volume = np.asanyarray(nib.load(path).dataobj[..., 0]).astype(np.float64)
        window = foreground_window(volume[np.isfinite(volume)])
    assert data.window == pytest.approx(window)
    shown = compose_rgba(data).rgba[..., 0]
    assert_within_one(shown, float_reference(data.pixels, window))


def test_table_is_identical_to_float_for_every_dtype_and_function():
    rng = np.random.default_rng(3)
    for dtype, low, high in ((np.uint8, 0, 256), (np.uint16, 0, 4096), (np.int16, -1024, 3000)):
        values = rng.integers(low, high, (64, 48)).astype(dtype)
        for function in ("LINEAR", "LINEAR_EXACT", "SIGMOID"):
            for mono1 in (False, True):
                table = gray8_by_table(values, (40.0, 400.0), function, mono1)
                np.testing.assert_array_equal(
                    table, float_reference(values, (40.0, 400.0), function, mono1)
                )


def test_table_declines_what_it_cannot_map_exactly():
    assert gray8_by_table(np.array([[0.5, 1.0]]), (0, 1), "LINEAR", False) is None
    wide = np.array([[0, 1 << 20]], dtype=np.int32)
    assert gray8_by_table(wide, (0, 10), "LINEAR", False) is None


def test_histogram_percentiles_equal_numpys():
    rng = np.random.default_rng(4)
    for values in (
        rng.integers(0, 4000, 100_000).astype(np.uint16),
        rng.integers(-1024, 2000, 999).astype(np.int16),
        np.array([7], dtype=np.uint8),
    ):
        got = percentiles(values, (0.5, 99.5))
        np.testing.assert_allclose(got, np.percentile(values, [0.5, 99.5]), rtol=0, atol=1e-9)


def test_end_percentiles_from_the_tails_equal_those_from_counts():
    from medrcube_desktop.imaging.auto_window import (
        _order_statistics_by_counts,
        _order_statistics_from_tails,
    )

    rng = np.random.default_rng(8)
    stored = pydicom.dcmread(dicom_file("MR_small.dcm")).pixel_array
    cases = [
        np.kron(stored, np.ones((8, 8), dtype=stored.dtype)),  # runs of equal values
        rng.integers(-1024, 3000, 300_000).astype(np.int16),
        rng.integers(0, 65536, 2**15).astype(np.uint16),
    ]
    for values in cases:
        flat = values.ravel()
        n = flat.size
        ranks = [int(0.005 * (n - 1)), int(0.005 * (n - 1)) + 1]
        ranks += [int(0.995 * (n - 1)), int(0.995 * (n - 1)) + 1]
        tails = _order_statistics_from_tails(flat, ranks)
        assert tails == _order_statistics_by_counts(flat, ranks)
        assert tails == {r: int(v) for r, v in zip(ranks, np.sort(flat)[ranks], strict=True)}
        got = percentiles(values, (0.5, 99.5))
        np.testing.assert_allclose(got, np.percentile(values, [0.5, 99.5]), rtol=0, atol=1e-9)
    background = np.where(rng.random(2**16) < 0.6, 0, rng.integers(1, 900, 2**16))
    assert _order_statistics_from_tails(background, [300, 301]) is None  # counted instead
    got = percentiles(background, (0.5, 99.5))
    np.testing.assert_allclose(got, np.percentile(background, [0.5, 99.5]), rtol=0, atol=1e-9)


def test_overlay_planes_drawn_without_float_keep_the_grey_elsewhere():
    path = dicom_file("MR-SIEMENS-DICOM-WithOverlays.dcm")
    data = load_slice(path)
    assert data.graphics is not None and data.graphics.any()
    rgba = compose_rgba(data).rgba
    assert rgba.dtype == np.uint8
    assert (rgba[data.graphics][:, :3] == (255, 255, 0)).all()
    plain = compose_rgba(
        type(data)(**{**data.__dict__, "graphics": None})  # the same slice, no overlay
    ).rgba
    outside = ~data.graphics
    np.testing.assert_array_equal(rgba[outside], plain[outside])


@pytest.mark.parametrize(
    ("dtype", "slope", "intercept", "expected"),
    [
        (np.int16, 1, -1024, np.int16),  # CT: the narrow type
        (np.uint16, 1, -1024, np.int16),
        (np.uint16, 16, -1024, np.int32),  # 4095 x 16 leaves int16 on the way
        (np.int16, 1, 0, np.int16),  # nothing to compute: the stored array itself
    ],
)
def test_rescale_keeps_exact_values_in_the_narrowest_type(dtype, slope, intercept, expected):
    from pydicom.dataset import Dataset

    from medrcube_desktop.imaging.dicom import _apply_modality

    stored = np.array([[0, 1, 2047], [4095, 100, 7]], dtype=dtype)
    ds = Dataset()
    ds.RescaleSlope, ds.RescaleIntercept = slope, intercept
    out = _apply_modality(stored, ds, 0)
    assert out.dtype == expected
    assert np.array_equal(out, stored.astype(np.float64) * slope + intercept)


@pytest.mark.parametrize("limit", [None, -1990, -2010])
def test_padding_mask_one_value_or_a_range(limit):
    from pydicom.dataset import Dataset

    from medrcube_desktop.imaging.dicom import _padding_mask

    stored = np.array([-2000, -1995, -2005, 0, -2000], dtype=np.int16)
    ds = Dataset()
    ds.PixelPaddingValue = -2000
    if limit is not None:
        ds.PixelPaddingRangeLimit = limit
    low, high = sorted((-2000, -2000 if limit is None else limit))
    assert np.array_equal(_padding_mask(stored, ds), (stored >= low) & (stored <= high))


def independent_rgba(data, window, function, invert=False) -> np.ndarray:
    """The RGBA the renderer must produce, written here from the standard and not from
    the module: every pixel through the VOI formula in float64 (PS3.3 C.11.2.1.2.1 and
    C.11.2.1.3), MONOCHROME1 inverted after VOI, NaN black, rounded once; then the
    reviewer's negative, the grey in R, G and B, alpha 255, and the file's overlay
    planes in yellow."""
    x = np.asarray(data.pixels, dtype=np.float64)
    center, width = window
    with np.errstate(invalid="ignore"):
        if function == "LINEAR_EXACT":
            unit = np.clip((x - (center - width / 2)) / width, 0, 1)
        elif function == "SIGMOID":
            unit = 1 / (1 + np.exp(-4 * (x - center) / width))
        elif width <= 1:
            unit = np.where(np.isnan(x), np.nan, (x > center - 0.5).astype(np.float64))
        else:
            unit = np.clip((x - (center - 0.5)) / (width - 1) + 0.5, 0, 1)
    if data.photometric == "MONOCHROME1":
        unit = 1 - unit
    grey = np.rint(np.nan_to_num(unit, nan=0.0) * 255).astype(np.uint8)
    if invert:
        grey = 255 - grey
    rgba = np.empty(grey.shape + (4,), dtype=np.uint8)
    rgba[..., 0] = rgba[..., 1] = rgba[..., 2] = grey
    rgba[..., 3] = 255
    if data.graphics is not None:
        rgba[data.graphics] = (255, 255, 0, 255)
    return rgba


def reference_cases(tmp_path):
    """Real files on every table route: int16 with negative HU (CT_small), the file's
    window (MR_small), overlay planes (the Siemens MR), big-endian pixels, MONOCHROME1,
    16-bit PNGs (a real MR's values, and one spanning the whole 16-bit range)."""
    mono1 = pydicom.dcmread(dicom_file("MR_small.dcm"))
    mono1.PhotometricInterpretation = "MONOCHROME1"
    mono1.save_as(tmp_path / "mono1.dcm")
    full = np.random.default_rng(5).integers(0, 65536, (48, 40)).astype(np.uint16)
    full[0, 0], full[0, 1] = 0, 65535
    Image.fromarray(full).save(tmp_path / "full16.png")
    return [
        dicom_file("CT_small.dcm"),
        dicom_file("MR_small.dcm"),
        dicom_file("MR-SIEMENS-DICOM-WithOverlays.dcm"),
        dicom_file("MR_small_bigendian.dcm"),
        tmp_path / "mono1.dcm",
        png16_file(tmp_path / "mr16.png"),
        tmp_path / "full16.png",
    ]


def test_rendered_rgba_is_byte_identical_to_the_float_path_on_real_files(tmp_path):
    for path in reference_cases(tmp_path):
        data = load_slice(path)
        default = compose_rgba(data)
        function = data.voi_lut_function.upper() if data.window is not None else "LINEAR_EXACT"
        expected = independent_rgba(data, default.window, function)
        np.testing.assert_array_equal(default.rgba, expected, err_msg=path.name)
        for window in ((40.0, 400.0), (600.5, 1.0), (1000.0, 3000.0), (-30000.0, 70000.0)):
            for invert in (False, True):
                shown = compose_rgba(data, window=window, invert=invert).rgba
                reference = independent_rgba(data, window, "LINEAR_EXACT", invert)
                np.testing.assert_array_equal(shown, reference, err_msg=f"{path.name} {window}")
        again = compose_rgba(data).rgba  # from the remembered table
        np.testing.assert_array_equal(again, default.rgba, err_msg=path.name)


def test_a_remembered_table_grows_to_a_wider_slice_and_stays_exact():
    rng = np.random.default_rng(6)
    window = (123.25, 987.5)  # a window no other test uses: this test's own tables
    for function in ("LINEAR", "LINEAR_EXACT", "SIGMOID"):
        for low, high in ((0, 100), (-2000, 50), (-5000, 9000), (30000, 32767), (-32768, -32000)):
            values = rng.integers(low, high + 1, (32, 24)).astype(np.int16)
            data = SliceData(values, False, "MONOCHROME2", window=window, voi_lut_function=function)
            np.testing.assert_array_equal(
                compose_rgba(data).rgba,
                independent_rgba(data, window, function),
                err_msg=f"{function} {low}",
            )
    for dtype in (np.uint8, np.int8, np.uint16):  # the other table widths
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max + 1, (16, 16)).astype(dtype)
        data = SliceData(values, False, "MONOCHROME2", window=window)
        np.testing.assert_array_equal(
            compose_rgba(data).rgba, independent_rgba(data, window, "LINEAR"), err_msg=str(dtype)
        )
