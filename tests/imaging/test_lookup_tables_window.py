"""The VOI window's edge cases and the grey-to-RGBA fallback (issue 26, ``python -m
tests.mutation.run --modules imaging.lookup_tables``): LINEAR with width 1 (a threshold
at c - 0.5) and width 2 (the general formula), NaN voxels shown black without an invalid
cast, and grey made opaque where the word trick is not used. Expected values worked out
by hand from PS3.3 C.11.2.1.2.1: y = ((x - (c - 0.5)) / (w - 1) + 0.5) clipped to [0, 1],
and for w = 1 y = 0 where x <= c - 0.5, else 1."""

import sys
import warnings

import numpy as np

from medrcube_desktop.imaging.lookup_tables import opaque_rgba, window_gray8, window_to_unit


def test_linear_width_1_is_a_threshold_just_above_c_minus_half():
    # c = 10.5: 9.5 and 10 (= c - 0.5) are at or below it, 10.5 and 11 above
    x = np.array([9.5, 10.0, 10.5, 11.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division by w - 1 = 0
        unit = window_to_unit(x, 10.5, 1.0, "LINEAR")
    assert unit.dtype == np.float64 and unit.tolist() == [0.0, 0.0, 1.0, 1.0]


def test_linear_width_2_uses_the_formula_not_the_threshold():
    # c = 10, w = 2: (x - 9.5) / 1 + 0.5 -> 9 -> 0.0, 9.5 -> 0.5, 10 -> 1.0 (clipped)
    unit = window_to_unit(np.array([9.0, 9.5, 10.0]), 10.0, 2.0, "LINEAR")
    assert unit.tolist() == [0.0, 0.5, 1.0]


def test_nan_voxels_are_black_in_either_photometry_without_an_invalid_cast():
    # c = 0, w = 11: (x + 0.5) / 10 + 0.5 -> x = 0: 0.55 -> 140 (rint 140.25); inverted
    # 0.45 -> 115 (rint 114.75); NaN black (0) both ways
    x = np.array([np.nan, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # casting NaN to uint8 warns and is undefined
        plain = window_gray8(x, (0.0, 11.0), "LINEAR", False)
        inverted = window_gray8(x, (0.0, 11.0), "LINEAR", True)
    assert plain.tolist() == [0, 140] and inverted.tolist() == [0, 115]


def test_grey_is_made_opaque_channel_by_channel_where_words_are_not_used(monkeypatch):
    # the path of a big-endian machine, whose word bytes would be in the other order
    monkeypatch.setattr(sys, "byteorder", "big")
    grey = np.array([[0, 7], [128, 255]], dtype=np.uint8)
    assert opaque_rgba(grey).tolist() == [
        [[0, 0, 0, 255], [7, 7, 7, 255]],
        [[128, 128, 128, 255], [255, 255, 255, 255]],
    ]
