"""The self-test's comparison of the image area with the item's render (Qt-free)."""

import numpy as np
import pydicom
from PIL import Image

from medrcube_desktop.demo.shown_image import compare_shown, expected_slice_label
from tests.conftest import dicom_file


def _ct_rgba() -> np.ndarray:
    """pydicom's CT_small slice (128 x 128, a real CT) as grey RGBA, full range."""
    raw = pydicom.dcmread(dicom_file("CT_small.dcm")).pixel_array.astype(np.float64)
    grey = np.round(255 * (raw - raw.min()) / (raw.max() - raw.min())).astype(np.uint8)
    return np.dstack([grey, grey, grey, np.full_like(grey, 255)])


def _as_shown(rgba: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """What a view shows: the picture scaled (smoothly) to ``size`` (width, height)."""
    return np.asarray(Image.fromarray(rgba[..., :3]).resize(size, Image.Resampling.BICUBIC))


def test_the_item_s_picture_scaled_and_stretched_passes():
    rendered = _ct_rgba()
    facts, problems = compare_shown(_as_shown(rendered, (300, 390)), rendered)  # aspect 1.3
    assert problems == []
    assert facts["correlation"] > 0.99 and facts["mean_difference"] < 3


def test_a_black_image_area_fails():
    black = np.zeros((300, 300, 3), np.uint8)
    facts, problems = compare_shown(black, _ct_rgba())
    assert problems[0] == "the image area is blank (one grey level, 0)"
    assert np.isnan(facts["correlation"])


def test_another_picture_fails():
    rendered = _ct_rgba()
    other = _as_shown(np.ascontiguousarray(rendered[::-1, ::-1]), (300, 300))  # turned 180°
    _, problems = compare_shown(other, rendered)
    assert any(p.startswith("the image area is not the item's picture") for p in problems)


def test_an_empty_area_fails():
    assert compare_shown(np.zeros((0, 0, 4), np.uint8), _ct_rgba())[1] == [
        "the image area is empty (0x0 pixels)"
    ]


def test_slice_labels():
    assert expected_slice_label(55, 189) == "Slice 56 of 189"
    assert expected_slice_label(0, 1) == ""
