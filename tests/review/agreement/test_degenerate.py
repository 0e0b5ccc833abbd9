"""Which figures are undefined, and why (agreement/degenerate.py): each rule by the
input it exists for, the reasons word for word."""

import numpy as np

from medrcube_desktop.review.agreement.degenerate import (
    NO_ITEM,
    agrees,
    mean_undefined,
    undefined_reasons,
)
from medrcube_desktop.review.agreement.intervals import Draws

ALL = ("agreement", "ci95", "cohen_kappa", "gwet_ac1", "pabak", "mcnemar_p", "kappa_ci95",
       "ac1_ci95", "wilson_ci95")  # fmt: skip


def r(a, b):
    return undefined_reasons(np.array(a, dtype=int), np.array(b, dtype=int))


def test_no_item_leaves_every_figure_undefined():
    assert NO_ITEM == "no item judged by both raters"
    assert r([], []) == dict.fromkeys(ALL, NO_ITEM)


def test_defined_figures_have_no_reason():
    assert r([0, 1, 1, 0], [0, 1, 0, 1]) == {}
    assert r([1, 0, 1], [1, 1, 0]) == {}


def test_one_item():
    assert r([1], [0]) == {
        "ci95": "one item: every resample is that item",
        "kappa_ci95": "one item: every resample is that item",
        "ac1_ci95": "one item: every resample is that item",
    }
    both = "both raters gave 'pass' to every item"
    assert r([1], [1]) == {
        "ci95": "one item: every resample is that item",
        "kappa_ci95": both,
        "ac1_ci95": "one item: every resample is that item",
        "cohen_kappa": both,
    }


def test_both_raters_one_and_the_same_value():
    fail = "both raters gave 'fail' to every item"
    assert r([0, 0, 0], [0, 0, 0]) == {
        "ci95": "every item agrees (no variation to resample)",
        "cohen_kappa": fail,
        "kappa_ci95": fail,
        "ac1_ci95": fail,
    }
    assert r([1, 1], [1, 1])["cohen_kappa"] == "both raters gave 'pass' to every item"


def test_each_rater_constant_but_different():
    why = "each rater gave one value to every item (every resample gives the same value)"
    assert r([1, 1, 1], [0, 0, 0]) == {
        "ci95": "no item agrees (no variation to resample)",
        "kappa_ci95": why,
        "ac1_ci95": why,
    }


def test_one_rater_constant_only_and_every_item_agreeing():
    assert r([1, 1, 1], [1, 0, 1]) == {}
    assert r([0, 1, 1], [0, 1, 1]) == {"ci95": "every item agrees (no variation to resample)"}
    assert r([0, 1], [1, 0]) == {"ci95": "no item agrees (no variation to resample)"}


def test_mean_undefined():
    draws = Draws(3, 10, 0)
    assert mean_undefined(np.array([], dtype=bool), draws, "agreement") == {
        "agreement": NO_ITEM,
        "ci95": NO_ITEM,
    }
    assert mean_undefined(np.array([], dtype=bool), None, "all_match") == {
        "all_match": NO_ITEM,
        "all_match_ci95": NO_ITEM,
    }
    ones = np.array([True, True, True])
    assert mean_undefined(ones, draws, "agreement") == {
        "ci95": "every item agrees (no variation to resample)"
    }
    assert mean_undefined(~ones, draws, "all_match") == {
        "all_match_ci95": "no item agrees (no variation to resample)"
    }
    assert mean_undefined(ones, None, "agreement") == {}
    assert mean_undefined(np.array([True, False, True]), draws, "agreement") == {}
    assert mean_undefined(np.array([True]), Draws(1, 10, 0), "all_match") == {
        "all_match_ci95": "one item: every resample is that item"
    }


def test_agrees_words():
    assert agrees("every item gives 1 (x)") == "every item agrees (x)"
    assert agrees("every item gives 0 (x)") == "no item agrees (x)"
    assert agrees("one item: every resample is that item") == (
        "one item: every resample is that item"
    )
    assert agrees("every item gives 0.5 (x)") == "every item gives 0.5 (x)"


def test_judgments_given_as_bools_or_lists():
    both = "both raters gave 'pass' to every item"
    expected = {
        "ci95": "every item agrees (no variation to resample)",
        "cohen_kappa": both,
        "kappa_ci95": both,
        "ac1_ci95": both,
    }
    assert undefined_reasons(np.array([True, True]), np.array([True, True])) == expected
    assert undefined_reasons(np.array([1, 1]), np.array([True, True])) == expected
    assert undefined_reasons(np.array([True, True]), np.array([1, 1])) == expected
    assert undefined_reasons([1, 1], [1, 1]) == expected
