"""A picture given as a mask is refused where masks are read (the window, ``render
--mask``, ``validate --deep`` all go through ``load_slice``): the image itself, a textured
grey picture (8-bit or 16-bit), a colour picture; real label masks still pass. The
figures in the messages are counted here by hand from the arrays."""

from __future__ import annotations

import os
from pathlib import Path

import nibabel as nib
import numpy as np
import pytest
from PIL import Image
from scipy import ndimage

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.masks import (
    PICTURE_MIN_DIFFERING,
    differing_neighbours,
    mask_labels,
)
from medrcube_desktop.imaging.render import render_file

NILEARN_T1 = "mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz"
NILEARN_GM = "mni_icbm152_gm_tal_nlin_sym_09a_converted.nii.gz"


def nilearn_file(name: str) -> Path:
    import nilearn

    return Path(nilearn.__file__).parent / "datasets" / "data" / name


def _grey_photo(shape=(60, 80)) -> np.ndarray:
    """(H, W) uint8, textured as a photo: smooth shading plus sensor noise."""
    rng = np.random.default_rng(7)
    rows, cols = np.mgrid[: shape[0], : shape[1]]
    shade = 60 + 1.5 * rows + cols
    return np.clip(shade + rng.normal(0, 12, shape), 0, 255).astype(np.uint8)


def _hand_figures(values: np.ndarray) -> tuple[int, int]:
    """(distinct non-zero values, whole percent of horizontally and vertically
    neighbouring non-zero pairs that differ), counted pair by pair."""
    height, width = values.shape
    pairs = differ = 0
    for r in range(height):
        for c in range(width):
            for rr, cc in ((r + 1, c), (r, c + 1)):
                if rr < height and cc < width and values[r, c] and values[rr, cc]:
                    pairs += 1
                    differ += int(values[r, c] != values[rr, cc])
    distinct = len({int(v) for v in values.ravel() if v})
    return distinct, (100 * differ) // pairs


def test_an_8_bit_grey_photo_given_as_the_mask_is_refused_with_its_figures(tmp_path):
    photo = _grey_photo()
    Image.fromarray(np.full(photo.shape, 90, np.uint8)).save(tmp_path / "image.png")
    Image.fromarray(photo).save(tmp_path / "photo.png")
    distinct, percent = _hand_figures(photo)
    assert distinct > 100 and percent >= 90  # what the photo is, counted here
    with pytest.raises(ImageLoadError) as caught:
        render_file(tmp_path / "image.png", mask_path=tmp_path / "photo.png")
    message = str(caught.value)
    assert message.startswith(
        f"{tmp_path / 'photo.png'}: {distinct} distinct values, {percent} % of neighbouring "
        "pixels differ: is this a picture?"
    )


def test_the_image_itself_as_its_mask_is_refused_also_through_a_link(tmp_path):
    Image.fromarray(_grey_photo()).save(tmp_path / "image.png")
    os.symlink(tmp_path / "image.png", tmp_path / "link.png")
    for mask in ("image.png", "link.png"):
        with pytest.raises(ImageLoadError, match="mask_path names the image itself") as caught:
            load_slice(tmp_path / "image.png", mask_path=tmp_path / mask)
        assert str(caught.value).startswith(str(tmp_path / mask))


def test_a_colour_photo_is_refused_and_grey_stored_as_rgb_is_read_as_its_grey(tmp_path):
    Image.fromarray(np.zeros((6, 8), np.uint8)).save(tmp_path / "image.png")
    rgb = np.zeros((6, 8, 3), np.uint8)
    rgb[1:3, 2:5] = (255, 0, 0)  # a red region drawn on black: a picture of the mask
    Image.fromarray(rgb).save(tmp_path / "red.png")
    with pytest.raises(ImageLoadError) as caught:
        load_slice(tmp_path / "image.png", mask_path=tmp_path / "red.png")
    assert str(caught.value) == (
        f"{tmp_path / 'red.png'}: the mask is a colour picture (RGB, red, green and blue "
        "differ in 6 pixels); a mask holds label numbers (0 = none): save it as a "
        "greyscale or palette PNG"
    )
    grey = np.zeros((6, 8), np.uint8)
    grey[1:3, 2:5], grey[4, 6] = 1, 7
    Image.fromarray(np.dstack([grey] * 3)).save(tmp_path / "grey_rgb.png")
    data = load_slice(tmp_path / "image.png", mask_path=tmp_path / "grey_rgb.png")
    np.testing.assert_array_equal(data.mask, grey)  # labels 1 and 7, not brightness


def test_a_palette_mask_gives_its_indices_as_labels(tmp_path):
    Image.fromarray(np.zeros((4, 5), np.uint8)).save(tmp_path / "image.png")
    indices = np.zeros((4, 5), np.uint8)
    indices[1, 1:4], indices[3, 0] = 1, 2
    mask = Image.fromarray(indices, mode="P")
    mask.putpalette([0, 0, 0, 128, 0, 0, 0, 128, 0])  # PASCAL VOC's first colours
    mask.save(tmp_path / "voc.png")
    data = load_slice(tmp_path / "image.png", mask_path=tmp_path / "voc.png")
    np.testing.assert_array_equal(data.mask, indices)


def test_the_mni_t1_and_a_tissue_probability_map_are_pictures():
    """nilearn's own uint8 volumes: fewer than 256 values, so only texture tells."""
    t1 = np.asanyarray(nib.load(nilearn_file(NILEARN_T1)).dataobj)
    distinct = len(np.unique(t1[t1 != 0]))
    assert distinct == 224
    with pytest.raises(ImageLoadError, match="^t1: 224 distinct values, 90 % of neighbouring"):
        mask_labels(t1, "t1")
    gm = np.asanyarray(nib.load(nilearn_file(NILEARN_GM)).dataobj)
    assert differing_neighbours(gm.astype(np.int32)) > 0.85  # a probability map, not labels
    with pytest.raises(ImageLoadError, match="is this a picture"):
        mask_labels(gm, "gm")


def _voronoi(region: np.ndarray, count: int) -> np.ndarray:
    """``count`` labelled regions filling ``region`` (each voxel: its nearest seed)."""
    rng = np.random.default_rng(0)
    seeds = np.argwhere(region)[rng.choice(int(region.sum()), count, replace=False)]
    marks = np.zeros(region.shape, np.int32)
    marks[tuple(seeds.T)] = np.arange(1, count + 1)
    _, nearest = ndimage.distance_transform_edt(marks == 0, return_indices=True)
    labels = marks[tuple(nearest)]
    labels[~region] = 0
    return labels


@pytest.mark.parametrize("step", [2, 4])
def test_many_label_masks_on_the_mni_brain_pass(step):
    """117 regions (as many as TotalSegmentator's classes) filling the brain, and 200
    parcels of the cortical ribbon (an atlas's), at 2 and 4 mm: refused by nothing."""
    t1 = np.asanyarray(nib.load(nilearn_file(NILEARN_T1)).dataobj)[::step, ::step, ::step]
    gm = np.asanyarray(nib.load(nilearn_file(NILEARN_GM)).dataobj)[::step, ::step, ::step]
    for labels, count in ((_voronoi(t1 > 40, 117), 117), (_voronoi(gm > 128, 200), 200)):
        assert len(np.unique(labels)) == count + 1
        assert differing_neighbours(labels) < PICTURE_MIN_DIFFERING / 2
        np.testing.assert_array_equal(mask_labels(labels, "atlas"), labels)
        middle = labels[:, :, labels.shape[2] // 2]  # one slice, as a PNG mask would be
        np.testing.assert_array_equal(mask_labels(middle, "slice"), middle)


def test_many_small_instances_pass():
    """150 cell nuclei of radius 1 (five pixels each), some touching: labels, not texture."""
    rng = np.random.default_rng(1)
    labels = np.zeros((128, 128), np.int32)
    rows, cols = np.mgrid[:128, :128]
    for n, (r, c) in enumerate(rng.integers(0, 128, (150, 2)), start=1):
        labels[(rows - r) ** 2 + (cols - c) ** 2 <= 1] = n
    np.testing.assert_array_equal(mask_labels(labels, "nuclei"), labels)


def test_a_volume_mask_that_is_a_picture_is_refused_by_the_nifti_reader(tmp_path):
    image = np.zeros((10, 12, 5), np.float32)
    nib.save(nib.Nifti1Image(image, np.eye(4)), tmp_path / "vol.nii.gz")
    textured = (np.arange(image.size).reshape(image.shape) * 37 % 101 + 1).astype(np.int16)
    nib.save(nib.Nifti1Image(textured, np.eye(4)), tmp_path / "mask.nii.gz")
    with pytest.raises(ImageLoadError) as caught:
        load_slice(tmp_path / "vol.nii.gz", mask_path=tmp_path / "mask.nii.gz")
    assert str(caught.value).startswith(
        f"{tmp_path / 'mask.nii.gz'}: 101 distinct values, 100 % of neighbouring pixels differ"
    )
