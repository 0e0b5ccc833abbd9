"""Woolf's interval, the Haldane–Anscombe correction, the Monte Carlo permutation p and
the Acc_H–SP correlation interval of ``evaluation.compare.credibility_models`` against
statsmodels' ``Table2x2``, enumeration and Fisher's z written out (issue 26 item 2)."""

import dataclasses
import math
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import Table2x2

from medrcube_desktop.evaluation.compare.credibility_models import (
    accuracy_shortcut_correlation,
    log_odds_ratio,
    model_credibility,
    permutation_p,
)


def _statsmodels_woolf(a, b, c, d):
    """ln OR and its 95 % interval from statsmodels (rows L right/wrong, columns H
    right/wrong: [[A, B], [D, C]]), 0.5 added to every cell when one is 0."""
    table = np.array([[a, b], [d, c]], dtype=float)
    if table.min() == 0:
        table = table + 0.5  # statsmodels' shift_zeros shifts the zero cells only
    t = Table2x2(table)
    low, high = t.log_oddsratio_confint(alpha=0.05)
    return t.log_oddsratio, low, high


@settings(max_examples=60, deadline=None)
@given(st.tuples(*[st.integers(0, 40)] * 4))
def test_woolf_and_haldane_equal_statsmodels_for_any_table_with_no_empty_margin(counts):
    a, b, c, d = counts
    if min(a + b, c + d, a + d, b + c) == 0:
        return  # undefined: tested in test_compare_credibility.py
    value, low, high, haldane = log_odds_ratio(counts)
    assert haldane == (min(counts) == 0)
    assert (value, low, high) == pytest.approx(_statsmodels_woolf(*counts))
    assert low <= value <= high
    (figure,) = model_credibility({"m": counts})
    assert (figure.log_or, figure.log_or_low, figure.log_or_high) == pytest.approx(
        (value, low, high)
    )


def _enumerated_p(a, b, c, d):
    n, k = a + b + c + d, a + b
    h_right = [True] * (a + d) + [False] * (b + c)
    sums = [sum(h_right[i] for i in placed) for placed in combinations(range(n), k)]
    return float(np.mean(np.array(sums) >= a))


def test_monte_carlo_permutation_p_counts_a_tie_as_extreme():
    # mutant: the permutation p counting > instead of >=. Here P(A* = A) = 100/252: the
    # tie is 40 % of the shuffles, P(A* ≥ A) = 0.5 and P(A* > A) = 0.1
    a, b, c, d = 3, 2, 3, 2
    low = np.array([True] * (a + b) + [False] * (c + d))
    high = np.array([True] * a + [False] * b + [False] * c + [True] * d)
    exact = _enumerated_p(a, b, c, d)
    assert exact == pytest.approx(0.5)
    p = permutation_p(low, high, n_permutations=4000, seed=3)
    assert p == pytest.approx(exact, abs=4 * math.sqrt(0.25 / 4000))


def test_permutation_p_of_a_model_prints_four_decimals_or_below():
    (figure,) = model_credibility({"m": (3, 2, 3, 2)})
    for p, text in ((0.5, "0.5000"), (0.00012, "0.0001"), (0.00009, "< 0.0001")):
        assert dataclasses.replace(figure, p_permutation=p).p_permutation_text() == text


def test_acc_h_shortcut_correlation_interval_is_fishers_z_and_p_the_t_test():
    rng = np.random.default_rng(4)
    counts = {f"m{k}": tuple(int(x) for x in rng.integers(5, 60, 4)) for k in range(12)}
    figures = model_credibility(counts)
    x = np.array([f.acc_h for f in figures])
    y = np.array([f.shortcut_prob for f in figures])
    n = len(x)
    r = float(np.sum((x - x.mean()) * (y - y.mean())) / math.sqrt(
        np.sum((x - x.mean()) ** 2) * np.sum((y - y.mean()) ** 2)
    ))  # fmt: skip
    z, half = math.atanh(r), stats.norm.ppf(0.975) / math.sqrt(n - 3)
    t = r * math.sqrt((n - 2) / (1 - r**2))
    got = accuracy_shortcut_correlation(figures)
    assert got.n == n
    assert got.r == pytest.approx(r)
    assert (got.low, got.high) == pytest.approx((math.tanh(z - half), math.tanh(z + half)))
    assert got.p == pytest.approx(2 * stats.t.sf(abs(t), n - 2))
    assert got.low <= got.r <= got.high


def test_the_most_discordant_table_has_permutation_p_1():
    # A = 0 is the least any shuffle of these margins can give (L and H right on 2 and
    # 4 of 8 pairs, 2 + 4 <= 8), so every shuffle is at least as large: p = 1 exactly
    # (the enumeration says so too); a statistic undefined or reordered there is wrong
    a, b, c, d = 0, 2, 2, 4
    low = np.array([True] * (a + b) + [False] * (c + d))
    high = np.array([True] * a + [False] * b + [False] * c + [True] * d)
    assert _enumerated_p(a, b, c, d) == 1.0
    assert permutation_p(low, high, n_permutations=500, seed=2) == 1.0


def test_permutation_p_reads_0_1_numbers_as_booleans():
    # 0/1 as ints or as floats (how RunMatrix.correct holds them), each array on its own
    a, b, c, d = 3, 2, 3, 2
    low = [1] * (a + b) + [0] * (c + d)
    high = [1] * a + [0] * b + [0] * c + [1] * d
    as_bool = permutation_p(np.array(low, bool), np.array(high, bool), 4000, seed=3)
    assert permutation_p(low, high, 4000, seed=3) == as_bool
    for kind in (int, float):
        lo, hi = np.array(low, kind), np.array(high, kind)
        assert permutation_p(lo, np.array(high, bool), 4000, seed=3) == as_bool
        assert permutation_p(np.array(low, bool), hi, 4000, seed=3) == as_bool
    assert as_bool == pytest.approx(_enumerated_p(a, b, c, d), abs=4 * math.sqrt(0.25 / 4000))
