"""mask_labels and its helpers on small arrays whose answer is counted by hand: the
labels, the dtype, each refusal's exact message and the thresholds at their edges
(issue 26: a wrong bound or a wrong count must fail a test)."""

import warnings

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.masks import (
    LABEL_MAX,
    LABEL_MIN,
    MASK_INTEGRAL_TOLERANCE,
    MAX_MASK_LABELS,
    PICTURE_MIN_DIFFERING,
    PICTURE_MIN_VALUES,
    differing_neighbours,
    label_count,
    mask_labels,
    picture_mask_values,
)


def test_the_constants_are_the_documented_ones():
    assert (MAX_MASK_LABELS, PICTURE_MIN_VALUES, PICTURE_MIN_DIFFERING) == (255, 16, 0.5)
    assert (np.iinfo(np.int32).min, np.iinfo(np.int32).max) == (LABEL_MIN, LABEL_MAX)


def test_a_boolean_mask_is_0_and_1_int32():
    out = mask_labels(np.array([[True, False], [False, True]]), "m")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[1, 0], [0, 1]])


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint16, np.int64])
def test_integer_masks_keep_their_values_as_int32(dtype):
    values = np.array([[0, 3], [7, 3]], dtype)
    out = mask_labels(values, "m")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[0, 3], [7, 3]])


def test_the_int32_ends_are_labels_and_one_beyond_is_refused_with_its_value():
    ends = np.array([LABEL_MIN, 0, LABEL_MAX], np.int64)
    np.testing.assert_array_equal(mask_labels(ends, "m"), ends)
    with pytest.raises(ImageLoadError) as high:
        mask_labels(np.array([0, LABEL_MAX + 1], np.int64), "m.nii")
    assert str(high.value) == (
        "m.nii: the mask holds 2.14748e+09, beyond the label numbers a mask may hold "
        "(-2,147,483,648 to 2,147,483,647; 0 = none): is this an image?"
    )
    with pytest.raises(ImageLoadError) as low:  # the low end named, not the high one
        mask_labels(np.array([LABEL_MIN - 1, 5], np.int64), "m.nii")
    assert "the mask holds -2.14748e+09, beyond" in str(low.value)
    with pytest.raises(ImageLoadError, match=r"holds inf, beyond"):
        mask_labels(np.array([0.0, np.inf]), "m")
    with pytest.raises(ImageLoadError, match=r"holds -inf, beyond"):
        mask_labels(np.array([-np.inf, 1.0]), "m")
    with pytest.raises(ImageLoadError, match=r"holds 1e\+30, beyond"):
        mask_labels(np.array([1e30, 1.0], np.float32), "m")


def test_an_empty_mask_is_an_empty_label_array():
    for dtype in (np.uint8, np.float32):
        out = mask_labels(np.zeros((0, 3), dtype), "m")
        assert out.shape == (0, 3) and out.dtype == np.int32
    assert label_count(np.zeros((0,), np.int32)) == 0


def test_float_values_round_within_the_tolerance_and_beyond_it_are_refused():
    values = np.array([[0.0009, 1.9991], [-3.0004, np.nan]], np.float64)
    out = mask_labels(values, "m")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[0, 2], [-3, 0]])
    with pytest.raises(ImageLoadError) as caught:
        mask_labels(np.array([[0.0, 2.0], [np.nan, 4.0011]]), "f.nii")
    assert str(caught.value) == (
        "f.nii: the mask holds values that are not whole numbers (such as 4.0011); a mask "
        "holds label numbers (0 = none): is this an image?"
    )
    # the first value off (in C order) is the example
    with pytest.raises(ImageLoadError, match=r"such as 0\.5\)"):
        mask_labels(np.array([0.0, 0.5, 1.25]), "f")


def test_the_label_limit_counts_non_zero_values_only():
    at_limit = np.repeat(np.arange(1, MAX_MASK_LABELS + 1, dtype=np.int32), 4)  # no 0
    assert label_count(at_limit) == MAX_MASK_LABELS
    np.testing.assert_array_equal(mask_labels(at_limit, "m"), at_limit)
    over = np.repeat(np.arange(0, MAX_MASK_LABELS + 2, dtype=np.int32), 4)  # 0 and 256
    with pytest.raises(ImageLoadError) as caught:
        mask_labels(over, "big.png")
    assert str(caught.value) == (
        "big.png: the mask holds 256 distinct labels, more than the 255 a label mask may "
        "hold (0 = none): is this an image?"
    )
    with pytest.raises(ImageLoadError, match="holds 1,000 distinct labels"):
        mask_labels(np.arange(1, 1001, dtype=np.int32), "m")


@pytest.mark.parametrize(
    "values",
    [
        [0, 0, 3, 3, 3],
        [5, 5, -2],  # negative labels, no 0
        [0, -7, 9, 9],
        [2**31 - 1, 0, -(2**31), 4],  # a range wider than the histogram: sorted
        [2**21, 0, 1, 1],  # just past 2**20 wide
        [2**20, 0],  # exactly 2**20 wide: the histogram
        [-5, -1, -3],  # all below 0: the histogram's zero bin lies outside it
        [1, 2, 3],  # all above 0
    ],
)
def test_label_count_is_numpys_count_of_distinct_non_zero_values(values):
    labels = np.array(values, np.int32)
    expected = len(set(values) - {0})
    assert label_count(labels) == expected
    assert label_count(labels.reshape(1, -1)) == expected


def test_differing_neighbours_counted_by_hand():
    # rows: (1,1) same, (1,2) differ, (2,0) not both labelled; columns: see below
    labels = np.array([[1, 1, 2], [1, 0, 2]], np.int32)
    # along axis 0 (down): (1,1) same, (1,0) skipped, (2,2) same -> 2 pairs, 0 differ
    # along axis 1 (across): row 0 (1,1) same, (1,2) differ; row 1 (1,0), (0,2) skipped
    # -> 2 pairs, 1 differs; in all 1 of 4
    assert differing_neighbours(labels) == 0.25
    assert differing_neighbours(np.array([[3, 4, 3, 4]], np.int32)) == 1.0  # axis 0 length 1
    assert differing_neighbours(np.array([[3], [4], [4]], np.int32)) == 0.5
    assert differing_neighbours(np.zeros((3, 3), np.int32)) == 0.0
    assert differing_neighbours(np.array([[1, 0, 2]], np.int32)) == 0.0  # none touch
    volume = np.zeros((2, 2, 2), np.int32)
    volume[0] = [[1, 1], [1, 1]]
    volume[1] = [[2, 1], [1, 1]]
    # 4 pairs on each axis: slices differ at one of 4; rows and columns of slice 1 at
    # one pair each (2 and its neighbour): 1 + 1 + 1 of 12
    assert differing_neighbours(volume) == pytest.approx(3 / 12)


def _texture(count: int, differing: float) -> np.ndarray:
    """A one-row mask of ``count`` distinct labels whose neighbours differ in exactly
    ``differing`` of the pairs (the labels 1..count, each run as needed)."""
    pairs = 4 * count
    differ = round(differing * pairs)
    row = [1]
    label = 1
    for k in range(pairs):
        if k < differ:
            label = label % count + 1
        row.append(label)
    out = np.array([row], np.int32)
    assert differing_neighbours(out) == differ / pairs
    assert label_count(out) == min(count, differ + 1)
    return out


def test_a_picture_is_refused_from_17_values_and_half_the_pairs_differing():
    at_half = _texture(PICTURE_MIN_VALUES + 1, PICTURE_MIN_DIFFERING)
    with pytest.raises(ImageLoadError) as caught:
        mask_labels(at_half, "pic.png")
    assert str(caught.value) == (
        "pic.png: 17 distinct values, 50 % of neighbouring pixels differ: is this a "
        "picture? A label mask holds 0 (none) and one number per structure, the same all "
        "over the structure"
    )
    below = _texture(PICTURE_MIN_VALUES + 1, 0.5 - 1 / (4 * 17))
    np.testing.assert_array_equal(mask_labels(below, "m"), below)
    # 16 values, every pair differing: too few values to be tested for texture
    sixteen = _texture(PICTURE_MIN_VALUES, 1.0)
    np.testing.assert_array_equal(mask_labels(sixteen, "m"), sixteen)
    # the percentage is floored: 67 of 68 pairs is 98.5 %, said 98 %
    nearly = _texture(PICTURE_MIN_VALUES + 1, 67 / 68)
    with pytest.raises(ImageLoadError, match="^m: 17 distinct values, 98 % of neighbouring"):
        mask_labels(nearly, "m")


def test_a_float_picture_is_refused_after_rounding():
    picture = _texture(20, 1.0).astype(np.float32) + 0.0001
    with pytest.raises(ImageLoadError, match="^p: 20 distinct values, 100 % of neighbouring"):
        mask_labels(picture, "p")


@pytest.mark.parametrize(
    ("mode", "kind"),
    [("L", "grey"), ("P", "palette"), ("I", "int"), ("I;16", "int"), ("F", "float")],
)
def test_grey_and_palette_pictures_give_their_stored_values(mode, kind):
    values = np.array([[0, 1, 2], [200, 3, 0]], np.uint8)
    img = Image.fromarray(values).convert(mode) if mode != "P" else Image.fromarray(values, "P")
    if mode == "P":
        img.putpalette([255 - i % 256 for i in range(768)])  # colours unlike the indices
    out = picture_mask_values(img, "m.png")
    np.testing.assert_array_equal(out, values.astype(np.int64))
    if kind in ("grey", "palette"):
        assert out.dtype == np.int32
    assert out.shape == (2, 3)


def test_a_1_bit_picture_is_0_and_255():
    img = Image.fromarray(np.array([[0, 255], [255, 0]], np.uint8)).convert("1")
    out = picture_mask_values(img, "m.png")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[0, 255], [255, 0]])


@pytest.mark.parametrize("mode", ["LA", "PA"])
def test_grey_or_index_with_alpha_gives_the_first_channel(mode):
    grey = np.array([[0, 4], [9, 4]], np.uint8)
    alpha = np.array([[255, 0], [10, 99]], np.uint8)
    img = Image.fromarray(np.stack([grey, alpha], axis=-1), "LA")
    if mode == "PA":
        img = Image.merge("PA", (Image.fromarray(grey, "P"), Image.fromarray(alpha, "L")))
    out = picture_mask_values(img, "m.png")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, grey)


@pytest.mark.parametrize("mode", ["RGB", "RGBA"])
def test_grey_stored_as_colour_is_its_grey_and_colour_is_refused_with_the_count(mode):
    grey = np.array([[0, 4, 4], [9, 0, 2]], np.uint8)
    channels = [grey, grey, grey] + ([np.full_like(grey, 7)] if mode == "RGBA" else [])
    out = picture_mask_values(Image.fromarray(np.stack(channels, -1), mode), "m.png")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, grey)
    for changed in (1, 2):  # green alone, blue alone
        colour = [c.copy() for c in channels]
        colour[changed][0, 1] = 5
        colour[changed][1, 0] = 8
        with pytest.raises(ImageLoadError) as caught:
            picture_mask_values(Image.fromarray(np.stack(colour, -1), mode), "c.png")
        assert str(caught.value) == (
            f"c.png: the mask is a colour picture ({mode}, red, green and blue differ in 2 "
            "pixels); a mask holds label numbers (0 = none): save it as a greyscale or "
            "palette PNG"
        )


def test_a_mode_without_grey_values_is_refused():
    img = Image.new("CMYK", (2, 2))
    with pytest.raises(ImageLoadError) as caught:
        picture_mask_values(img, "m.tif")
    assert str(caught.value) == "m.tif: a CMYK picture cannot be a mask (it holds no label numbers)"


def test_the_value_named_is_the_one_out_of_range_even_with_the_other_end_at_its_bound():
    with pytest.raises(ImageLoadError, match=r"holds 2\.14748e\+09, beyond"):
        mask_labels(np.array([LABEL_MIN, LABEL_MAX + 1], np.int64), "m")
    with pytest.raises(ImageLoadError) as caught:  # a float mask names its file too
        mask_labels(np.array([0.0, 3e9]), "vol.nii.gz")
    assert str(caught.value).startswith("vol.nii.gz: the mask holds 3e+09, beyond")


def test_a_value_exactly_the_tolerance_from_a_whole_number_is_a_label():
    assert MASK_INTEGRAL_TOLERANCE == 0.001
    np.testing.assert_array_equal(mask_labels(np.array([0.001, 1.0]), "m"), [0, 1])


def test_an_infinite_float_mask_is_refused_without_a_numpy_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ImageLoadError, match="holds inf"):
            mask_labels(np.array([np.inf, 1.0, np.nan]), "m")
