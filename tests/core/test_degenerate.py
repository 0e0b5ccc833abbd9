"""When a correlation is undefined, and the words that say so (issue 21, part 6)."""

import warnings

import numpy as np
import pytest

from medrcube_desktop.core.degenerate import (
    MIN_DISTINCT_POINTS,
    correlation_undefined,
    undefined_text,
)


def test_three_runs_two_identical_are_two_distinct_points():
    x = [0.5, 0.5, 0.7]  # runs 1 and 2 the same model: one point twice
    y = [0.2, 0.2, 0.9]
    assert correlation_undefined(x, y) == "fewer than 4 distinct points (3 points, 2 distinct)"
    # three distinct points are still too few: Fisher's z has SE 1/sqrt(n - 3)
    assert correlation_undefined([1, 2, 3], [1, 3, 2]) == (
        "fewer than 4 distinct points (3 points, 3 distinct)"
    )
    assert MIN_DISTINCT_POINTS == 4
    # a repeated point does not count twice: five points, three distinct
    assert correlation_undefined([1, 1, 2, 3, 3], [4, 4, 5, 6, 6]) == (
        "fewer than 4 distinct points (5 points, 3 distinct)"
    )


def test_a_constant_vector_has_zero_variance_whatever_the_number_of_points():
    reason = correlation_undefined([0.25] * 6, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], ("Acc_H", "SP"))
    assert reason == "zero variance: Acc_H is the same at every point (0.25)"
    reason = correlation_undefined([1, 2, 3, 4], [7, 7, 7, 7], ("Acc_H", "SP"))
    assert reason == "zero variance: SP is the same at every point (7)"


def test_four_distinct_points_are_defined_and_nan_pairs_are_left_out():
    assert correlation_undefined([1, 2, 3, 4], [2, 1, 4, 3]) is None
    # a NaN in either drops the pair: 4 points left of 5, defined; 3 left, undefined
    assert correlation_undefined([1, 2, 3, 4, np.nan], [2, 1, 4, 3, 5]) is None
    assert correlation_undefined([1, 2, 3, np.nan], [2, 1, 4, 3]) == (
        "fewer than 4 distinct points (3 points, 3 distinct)"
    )
    assert correlation_undefined([np.nan], [1.0]) == "no points"
    with pytest.raises(ValueError, match="differ in length"):
        correlation_undefined([1, 2], [1])


def test_deciding_calls_no_library_that_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        correlation_undefined(np.zeros(10), np.zeros(10))
        correlation_undefined(np.array([]), np.array([]))
    assert undefined_text("no points") == "undefined: no points"
