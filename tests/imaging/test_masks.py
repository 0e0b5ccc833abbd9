"""Masks with many labels: labels are drawn in one pass (a lookup table by label rank),
and a mask with an implausible number of labels, or a float mask of non-whole numbers
(an intensity image given as the mask), is refused naming the file. Counts of calls,
not times, so the tests hold on a slow machine."""

import nibabel as nib
import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging import render
from medrcube_desktop.imaging.compositing import LABEL_PALETTE
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.masks import MAX_MASK_LABELS, mask_labels
from medrcube_desktop.imaging.render import compose_rgba, render_file
from medrcube_desktop.imaging.slice_data import SliceData


def test_a_megapixel_mask_of_10000_labels_is_refused_before_anything_is_drawn(
    tmp_path, monkeypatch
):
    side = 1000
    Image.fromarray(np.full((side, side), 100, np.uint8)).save(tmp_path / "p.png")
    labels = (np.arange(side * side, dtype=np.int32) % 10_000 + 1).reshape(side, side)
    Image.fromarray(labels.astype(np.uint16)).save(tmp_path / "intensity.png")
    drawn = []
    monkeypatch.setattr(render, "draw_mask", lambda *a, **k: drawn.append(a) or [])
    with pytest.raises(ImageLoadError) as caught:
        render_file(tmp_path / "p.png", mask_path=tmp_path / "intensity.png")
    assert str(caught.value) == (
        f"{tmp_path / 'intensity.png'}: the mask holds 10,000 distinct labels, more than "
        f"the {MAX_MASK_LABELS} a label mask may hold (0 = none): is this an image?"
    )
    assert drawn == []


def test_a_float_mask_of_non_whole_numbers_is_refused_naming_the_file(tmp_path):
    data = np.zeros((4, 5, 3), np.float32)
    nib.save(nib.Nifti1Image(data, np.eye(4)), tmp_path / "vol.nii.gz")
    mask = np.zeros_like(data)
    mask[1, 1, 1] = 0.37
    nib.save(nib.Nifti1Image(mask, np.eye(4)), tmp_path / "mask.nii.gz")
    with pytest.raises(ImageLoadError, match="not whole numbers \\(such as 0.37\\)") as caught:
        load_slice(tmp_path / "vol.nii.gz", mask_path=tmp_path / "mask.nii.gz")
    assert str(caught.value).startswith(str(tmp_path / "mask.nii.gz"))


def test_float_labels_a_scale_factor_rounded_are_still_labels():
    values = np.array([[0.0, 1.0000001], [2.9999, np.nan]], np.float32)
    np.testing.assert_array_equal(mask_labels(values, "m"), [[0, 1], [3, 0]])
    # 0 and 255 labels, each a run of four pixels (a label mask is piecewise constant)
    many = np.repeat(np.arange(MAX_MASK_LABELS + 1, dtype=np.int32), 4)
    assert mask_labels(many, "m").max() == MAX_MASK_LABELS
    with pytest.raises(ImageLoadError, match="256 distinct labels"):
        mask_labels(np.arange(1, MAX_MASK_LABELS + 2), "m")
    with pytest.raises(ImageLoadError, match="256 distinct labels"):  # a wide range: sorted
        mask_labels(np.arange(1, MAX_MASK_LABELS + 2) * 1_000_000, "m")


def _reference(base, mask, alpha, outline):
    """The former label-by-label drawing, kept here to compare pixel values."""
    from scipy import ndimage

    rgb = np.repeat(base[:, :, None], 3, axis=2).astype(np.float64)
    labels = [int(v) for v in np.unique(mask) if v != 0]
    colours = (
        [(255, 0, 0)] if len(labels) == 1 else [LABEL_PALETTE[i % 7] for i in range(len(labels))]
    )
    for label, colour in zip(labels, colours, strict=True):
        m = mask == label
        if outline:
            m = m & ~ndimage.binary_erosion(m)
            rgb[m] = colour
        else:
            rgb[m] = (1 - alpha) * rgb[m] + alpha * np.asarray(colour, np.float64)
    return np.clip(np.rint(rgb), 0, 255).astype(np.uint8)


@pytest.mark.parametrize("outline", [False, True])
@pytest.mark.parametrize("labels", [(5,), (1, 2, 9)])
def test_one_or_three_labels_overlay_as_before_pixel_for_pixel(outline, labels):
    rng = np.random.default_rng(3)
    base = rng.integers(0, 256, (40, 50)).astype(np.float64)
    mask = np.zeros((40, 50), np.int32)
    for k, label in enumerate(labels):
        mask[5 + 10 * k : 18 + 10 * k, 4 + 12 * k : 30 + 5 * k] = label
    mask[0, :] = labels[0]  # a label on the image edge: its border there too
    data = SliceData(base, False, "MONOCHROME2", window=(127.5, 256.0), mask=mask)
    data_ref = SliceData(base, False, "MONOCHROME2", window=(127.5, 256.0))
    gray = compose_rgba(data_ref).rgba[..., 0]
    out = compose_rgba(data, mask_alpha=0.4, mask_outline=outline)
    np.testing.assert_array_equal(out.rgba[..., :3], _reference(gray, mask, 0.4, outline))
    expected = [] if len(labels) == 1 else list(zip(labels, LABEL_PALETTE, strict=False))
    assert out.legend == expected


def test_the_outline_of_many_labels_takes_no_pass_per_label(monkeypatch):
    from scipy import ndimage

    calls = []
    real = ndimage.binary_erosion
    monkeypatch.setattr(ndimage, "binary_erosion", lambda *a, **k: calls.append(1) or real(*a, **k))
    mask = (np.arange(200 * 200, dtype=np.int32).reshape(200, 200) // 157) % MAX_MASK_LABELS
    data = SliceData(np.zeros((200, 200)), False, "MONOCHROME2", window=(0.5, 1.0), mask=mask)
    out = compose_rgba(data, mask_outline=True)
    assert calls == [] and len(out.legend) == MAX_MASK_LABELS - 1
