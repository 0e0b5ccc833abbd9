"""Which path a slice takes through the lookup tables, and that each gives the float
formula's levels (issue 26 items 1 and 3, ``python -m tests.mutation.run --modules
imaging.lookup_tables``): whole numbers by a table, other values refused to the float
path (None), 8/16-bit integers by RGBA words, empty slices, and grey or colour made
opaque. Expected levels from PS3.3 C.11.2.1.3.2 written out here (LINEAR_EXACT)."""

import numpy as np
import pytest

from medrcube_desktop.imaging.lookup_tables import (
    EXACT_WHOLE,
    LUT_MAX_ENTRIES,
    gray8_by_table,
    opaque_rgba,
    rgba_by_table,
)


def _levels(values, center, width, monochrome1=False):
    unit = np.clip((np.asarray(values, dtype=np.float64) - (center - width / 2)) / width, 0, 1)
    return np.rint((1 - unit if monochrome1 else unit) * 255).astype(np.uint8)


@pytest.mark.parametrize(
    "pixels",
    [
        np.array([[0.0, 3.0], [7.0, 12.0]]),  # whole floats, from 0: indexed by value
        np.array([[-5.0, 3.0], [7.0, 12.0]]),  # whole floats below 0: offset by low
        np.array([[5, 6], [7, 12]], dtype=np.int64),  # above 0, low > 0
        np.array([[-300, 0], [7, 1200]], dtype=np.int16),
        np.array(
            [[0, 3], [7, LUT_MAX_ENTRIES - 1]], dtype=np.int64
        ),  # the last value indexed directly
        np.array([[1, 3], [7, LUT_MAX_ENTRIES]], dtype=np.int64),  # one past: by offset
    ],
)
@pytest.mark.parametrize("monochrome1", [False, True])
def test_whole_numbers_go_through_a_table_with_the_formulas_levels(pixels, monochrome1):
    table = gray8_by_table(pixels, (5.0, 20.0), "LINEAR_EXACT", monochrome1)
    assert table is not None and table.dtype == np.uint8 and table.shape == pixels.shape
    np.testing.assert_array_equal(table, _levels(pixels, 5, 20, monochrome1))


@pytest.mark.parametrize(
    "pixels",
    [
        np.array([[0.5, 1.0]]),  # not whole
        np.array([[1.0, 1.5] + [1.0] * 96]),  # whole where sampled (every 97th), not between
        np.array([[1.0, np.inf]]),
        np.array([[1.0, np.nan]]),
        np.array([[0, LUT_MAX_ENTRIES]], dtype=np.int64),  # 65,537 values: too many
        np.array(
            [[-EXACT_WHOLE - 1, -EXACT_WHOLE]], dtype=np.int64
        ),  # beyond float64's whole numbers
        np.array([[EXACT_WHOLE, EXACT_WHOLE + 1]], dtype=np.int64),
        np.array([[1 + 2j]]),
    ],
)
def test_values_a_table_cannot_hold_exactly_go_to_the_float_path(pixels):
    assert gray8_by_table(pixels, (5.0, 20.0), "LINEAR_EXACT", False) is None


def test_the_extreme_whole_numbers_a_table_still_holds():
    edge = np.array([[EXACT_WHOLE - 10, EXACT_WHOLE]], dtype=np.int64)
    assert gray8_by_table(edge, (0.0, 1.0), "LINEAR_EXACT", False).tolist() == [[255, 255]]
    low = np.array([[-EXACT_WHOLE, -EXACT_WHOLE + 10]], dtype=np.int64)
    assert gray8_by_table(low, (0.0, 1.0), "LINEAR_EXACT", False).tolist() == [[0, 0]]
    span = np.array([[0, LUT_MAX_ENTRIES - 1]], dtype=np.int64) - 7  # 65,536 values: held
    assert gray8_by_table(span, (0.0, 1.0), "LINEAR_EXACT", False).tolist() == [[0, 255]]


def test_an_empty_slice_is_an_empty_picture():
    assert gray8_by_table(np.zeros((0, 3)), (0.0, 1.0), "LINEAR", False).shape == (0, 3)
    assert gray8_by_table(np.zeros((0, 3)), (0.0, 1.0), "LINEAR", False).dtype == np.uint8
    rgba = rgba_by_table(np.zeros((0, 3), np.uint16), (0.0, 1.0), "LINEAR", False)
    assert rgba.shape == (0, 3, 4) and rgba.dtype == np.uint8


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.uint16, np.int16])
@pytest.mark.parametrize("invert", [False, True])
def test_8_and_16_bit_integers_become_opaque_grey_words(dtype, invert):
    info = np.iinfo(dtype)
    pixels = np.array([[info.min, -1 if info.min < 0 else 1], [40, info.max]], dtype=dtype)
    rgba = rgba_by_table(pixels, (20.0, 80.0), "LINEAR_EXACT", True, invert=invert)
    level = _levels(pixels, 20, 80, monochrome1=True)
    level = 255 - level if invert else level
    assert rgba.shape == (2, 2, 4) and rgba.dtype == np.uint8
    for channel in range(3):
        np.testing.assert_array_equal(rgba[..., channel], level)
    assert (rgba[..., 3] == 255).all()
    assert (
        rgba_by_table(pixels, (20.0, 80.0), "LINEAR_EXACT", True).tolist()
        == opaque_rgba(_levels(pixels, 20, 80, monochrome1=True)).tolist()
    )  # invert defaults to False


@pytest.mark.parametrize(
    "pixels",
    [
        np.zeros((2, 2), np.int32),  # wider than 16 bits
        np.zeros((2, 2), np.float32),
        np.zeros((2, 2, 3), np.uint8),  # colour
        np.zeros(4, np.uint8),  # not a slice
    ],
)
def test_other_pixels_are_left_to_the_grey_table(pixels):
    assert rgba_by_table(pixels, (0.0, 1.0), "LINEAR", False) is None


def test_grey_and_colour_are_made_opaque_channel_for_channel():
    grey = np.array([[0, 7], [128, 255]], dtype=np.uint8)
    out = opaque_rgba(grey)
    assert out.shape == (2, 2, 4) and out.dtype == np.uint8
    assert out.tolist() == [
        [[0, 0, 0, 255], [7, 7, 7, 255]],
        [[128, 128, 128, 255], [255, 255, 255, 255]],
    ]
    colour = np.array([[[1, 2, 3], [4, 5, 6]]], dtype=np.uint8)
    out = opaque_rgba(colour)
    assert out.shape == (1, 2, 4) and out.dtype == np.uint8
    assert out.tolist() == [[[1, 2, 3, 255], [4, 5, 6, 255]]]


def test_a_kept_table_is_never_reused_for_another_window_or_inversion():
    # the tables are kept by dtype, window, function and inversions: each call below
    # gets its own levels, in an order where a wrong key would hand back the last table
    pixels = np.array([[0, 20], [40, 90]], dtype=np.uint16)
    calls = [
        ((10.0, 80.0), "LINEAR_EXACT", False, False),
        ((50.0, 80.0), "LINEAR_EXACT", False, False),  # another center, the same width
        ((50.0, 40.0), "LINEAR_EXACT", False, False),  # another width
        ((50.0, 40.0), "LINEAR_EXACT", True, False),  # MONOCHROME1
        ((50.0, 40.0), "LINEAR_EXACT", True, True),  # and the negative
        ((10.0, 80.0), "LINEAR_EXACT", False, False),  # the first again
    ]
    for window, function, monochrome1, invert in calls:
        level = _levels(pixels, *window, monochrome1=monochrome1)
        level = 255 - level if invert else level
        rgba = rgba_by_table(pixels, window, function, monochrome1, invert=invert)
        np.testing.assert_array_equal(rgba[..., 0], level)
    # a wider slice after a narrower one with the same window: the table grows to it
    wide = np.array([[0, 1000], [30000, 65535]], dtype=np.uint16)
    rgba = rgba_by_table(wide, (10.0, 80.0), "LINEAR_EXACT", False)
    np.testing.assert_array_equal(rgba[..., 0], _levels(wide, 10, 80))


@pytest.mark.parametrize("dtype", [np.int8, np.int16])
def test_offsets_beyond_the_dtypes_top_index_the_table_without_wrapping(dtype):
    # int16 -32768 .. 30000: 30000 - (-32768) = 62768 is beyond int16 (NumPy 2 keeps
    # int16 for an int16 array minus a Python int: it would wrap to -2768, the entry of
    # 27233); int8 -128 .. 100 likewise (228 wraps to -28)
    info = np.iinfo(dtype)
    top = 30000 if dtype == np.int16 else 100
    pixels = np.array([[info.min, top, 0, -1], [top - 1, info.min + 1, 7, top // 2]], dtype)
    assert int(pixels.max()) - int(pixels.min()) > info.max
    window = (0.0, float(2 * top))
    expected = _levels(pixels, *window)
    np.testing.assert_array_equal(gray8_by_table(pixels, window, "LINEAR_EXACT", False), expected)
