"""Fleiss' kappa and Krippendorff's alpha of three raters or more (agreement/fleiss.py)
against both written out by hand from their definitions (Fleiss 1971; Krippendorff 2011,
nominal, no missing values), and the rules that leave a figure undefined."""

import numpy as np
import pytest

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.agreement.fleiss import multi_rater


def fleiss_by_hand(data):
    """data: (items, raters) 0/1."""
    n_items, m = data.shape
    counts = np.stack([(data == 0).sum(axis=1), (data == 1).sum(axis=1)], axis=1)
    p_i = ((counts**2).sum(axis=1) - m) / (m * (m - 1))
    p_j = counts.sum(axis=0) / (n_items * m)
    pe = (p_j**2).sum()
    return (p_i.mean() - pe) / (1 - pe)


def alpha_by_hand(data):
    """Nominal alpha: 1 − D_o / D_e over the coincidence matrix."""
    n_items, m = data.shape
    o = np.zeros((2, 2))
    for row in data:
        for c in (0, 1):
            for k in (0, 1):
                nc, nk = (row == c).sum(), (row == k).sum()
                o[c, k] += (nc * (nk - (c == k))) / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = o[0, 1] + o[1, 0]
    d_e = 2 * n_c[0] * n_c[1] / (n - 1)
    return 1 - d_o / d_e


def panel(columns):
    """columns: {rater: list of 0/1 per item}; every rule gets the same values."""
    return {
        name: {f"i{k}": dict.fromkeys(RULE_IDS, v) for k, v in enumerate(values)}
        for name, values in columns.items()
    }


def test_fleiss_and_alpha_are_their_definitions():
    rng = np.random.default_rng(6)
    for trial in range(6):
        data = rng.integers(0, 2, size=(9 + trial, 3 + trial % 2))
        data[0], data[1, 0] = 1, 0  # both values present
        raters = panel({f"r{j}": list(data[:, j]) for j in range(data.shape[1])})
        got = multi_rater(raters)
        assert got["raters"] == sorted(raters)
        assert got["n_samples"] == data.shape[0]
        for rule in RULE_IDS:
            figures = got["rules"][rule]
            assert figures["fleiss_kappa"] == pytest.approx(fleiss_by_hand(data), abs=1e-6)
            assert figures["krippendorff_alpha"] == pytest.approx(alpha_by_hand(data), abs=1e-6)
            assert set(figures) == {"fleiss_kappa", "krippendorff_alpha"}


def test_by_hand_on_a_small_panel():
    # items (0,0,1), (1,1,1), (0,1,1), (0,0,0): P_i 1/3, 1, 1/3, 1 → P̄ 2/3;
    # p = (6/12, 6/12), P_e 1/2: kappa 1/3
    raters = panel({"a": [0, 1, 0, 0], "b": [0, 1, 1, 0], "c": [1, 1, 1, 0]})
    got = multi_rater(raters)["rules"][RULE_IDS[0]]
    assert got["fleiss_kappa"] == pytest.approx(1 / 3, abs=1e-6)
    data = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 1], [0, 0, 0]])
    assert got["krippendorff_alpha"] == pytest.approx(alpha_by_hand(data), abs=1e-6)


def test_the_items_every_rater_judged_and_the_sample():
    raters = panel({"a": [0, 1, 0, 1], "b": [0, 1, 1, 1], "c": [1, 1, 0, 0]})
    raters["c"].pop("i3")
    got = multi_rater(raters)
    assert got["n_samples"] == 3
    data = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0]])
    assert got["rules"]["1.1"]["fleiss_kappa"] == pytest.approx(fleiss_by_hand(data), abs=1e-6)
    some = multi_rater(raters, sample=["i0", "i2", "i3", "i9"])
    assert some["n_samples"] == 2
    assert some["rules"]["1.1"]["fleiss_kappa"] == pytest.approx(
        fleiss_by_hand(np.array([[0, 0, 1], [0, 1, 0]])), abs=1e-6
    )


def test_an_abstention_leaves_the_item_out_of_that_rule_only():
    raters = panel({"a": [0, 1, 0, 1, 1], "b": [0, 1, 1, 1, 0], "c": [1, 1, 0, 0, 1]})
    raters["b"]["i4"] = {**raters["b"]["i4"], "1.2": CANNOT_JUDGE}
    got = multi_rater(raters)
    assert got["n_samples"] == 5
    kept = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 1, 0]])
    assert got["rules"]["1.2"] == {
        "fleiss_kappa": pytest.approx(fleiss_by_hand(kept), abs=1e-6),
        "krippendorff_alpha": pytest.approx(alpha_by_hand(kept), abs=1e-6),
        "n_samples": 4,
    }
    assert "n_samples" not in got["rules"]["1.1"]


def test_undefined_rules_say_why():
    none = multi_rater(panel({"a": [], "b": [], "c": []}))
    assert none["n_samples"] == 0
    assert none["rules"]["1.1"] == {
        "fleiss_kappa": None,
        "krippendorff_alpha": None,
        "undefined": "no item judged by every rater",
    }
    one = multi_rater(panel({"a": [1], "b": [0], "c": [1]}))
    assert one["rules"]["2.3"]["undefined"] == (
        "one item judged by every rater: agreement beyond chance needs at least 2"
    )
    passes = multi_rater(panel({"a": [1, 1], "b": [1, 1], "c": [1, 1]}))
    assert passes["rules"]["1.1"]["undefined"] == "every rater gave 'pass' to every item"
    assert passes["rules"]["1.1"]["fleiss_kappa"] is None
    fails = multi_rater(panel({"a": [0, 0, 0], "b": [0, 0, 0], "c": [0, 0, 0]}))
    assert fails["rules"]["1.1"]["undefined"] == "every rater gave 'fail' to every item"
    mixed = multi_rater(panel({"a": [0, 1], "b": [0, 0], "c": [0, 0]}))
    assert "undefined" not in mixed["rules"]["1.1"]
