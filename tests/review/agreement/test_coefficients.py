"""The figures of one 2×2 table (agreement/coefficients.py) against values computed
another way: by hand, statsmodels' Cohen's kappa, Gwet's AC1 in its general q-category
form, and scipy's exact binomial test for McNemar."""

import numpy as np
import pytest
from scipy.stats import binomtest
from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

from medrcube_desktop.review.agreement.coefficients import (
    cohen_kappa,
    confusion,
    gwet_ac1,
    mcnemar_exact_p,
    pabak,
    percent_agreement,
)

TABLES = [[[3, 1], [2, 4]], [[5, 3], [0, 2]], [[1, 6], [2, 0]], [[0, 2], [7, 9]], [[10, 1], [4, 3]]]
"""Asymmetric tables: a swapped cell or margin gives another value."""


def _ac1_general(table):
    """Gwet's AC1 for q categories: p_e = Σ_k π_k (1 − π_k) / (q − 1)."""
    t = np.asarray(table, dtype=float)
    n = t.sum()
    po = np.trace(t) / n
    pi = (t.sum(axis=1) + t.sum(axis=0)) / (2 * n)  # per category, mean of the raters
    pe = float(np.sum(pi * (1 - pi)) / (len(pi) - 1))
    return (po - pe) / (1 - pe)


def test_confusion_counts_each_cell_rows_first_rater():
    a = np.array([0, 0, 0, 1, 1, 1, 1, 0, 1])
    b = np.array([0, 1, 1, 0, 1, 1, 1, 0, 0])
    # both fail: items 0, 7; a fails b passes: 1, 2; a passes b fails: 3, 8; both pass: 4-6
    assert confusion(a, b) == [[2, 2], [2, 3]]
    assert confusion(np.array([1, 1, 0]), np.array([0, 0, 0])) == [[1, 0], [2, 0]]
    assert confusion(np.array([0, 0, 0]), np.array([1, 1, 0])) == [[1, 2], [0, 0]]
    assert confusion(np.array([], dtype=int), np.array([], dtype=int)) == [[0, 0], [0, 0]]


def test_percent_agreement_and_pabak_by_hand():
    assert percent_agreement([[3, 1], [2, 4]]) == pytest.approx(0.7)
    assert percent_agreement([[0, 2], [7, 9]]) == pytest.approx(9 / 18)
    assert pabak([[3, 1], [2, 4]]) == pytest.approx(0.4)
    assert pabak([[0, 2], [7, 9]]) == pytest.approx(0.0)
    assert pabak([[0, 3], [1, 0]]) == pytest.approx(-1.0)
    assert percent_agreement([[0, 0], [0, 0]]) is None
    assert pabak([[0, 0], [0, 0]]) is None


@pytest.mark.parametrize("table", TABLES)
def test_cohen_kappa_is_statsmodels(table):
    assert cohen_kappa(table) == pytest.approx(sm_kappa(np.asarray(table)).kappa, abs=1e-12)


def test_cohen_kappa_by_hand_and_undefined():
    # n 10, p_o 0.7, A fails 0.4, B fails 0.5: p_e = 0.2 + 0.3 = 0.5, kappa 0.4
    assert cohen_kappa([[3, 1], [2, 4]]) == pytest.approx(0.4)
    # n 10, p_o 0.7, A fails 0.8, B fails 0.5: p_e = 0.4 + 0.1 = 0.5
    assert cohen_kappa([[5, 3], [0, 2]]) == pytest.approx(0.4)
    assert cohen_kappa([[5, 0], [0, 0]]) is None  # p_e = 1, both fail throughout
    assert cohen_kappa([[0, 0], [0, 6]]) is None  # both pass throughout
    assert cohen_kappa([[0, 0], [0, 0]]) is None
    # one rater constant: p_e = p_o, kappa 0 (defined)
    assert cohen_kappa([[0, 0], [2, 3]]) == pytest.approx(0.0)


@pytest.mark.parametrize("table", TABLES)
def test_gwet_ac1_is_the_general_form(table):
    assert gwet_ac1(table) == pytest.approx(_ac1_general(table), abs=1e-12)


def test_gwet_ac1_by_hand_and_when_constant():
    # pass rates 0.6 and 0.5: pi 0.55, p_e 2 * 0.55 * 0.45 = 0.495, (0.7 - 0.495) / 0.505
    assert gwet_ac1([[3, 1], [2, 4]]) == pytest.approx(0.205 / 0.505)
    assert gwet_ac1([[0, 0], [0, 6]]) == pytest.approx(1.0)  # p_e 0: defined
    assert gwet_ac1([[4, 0], [0, 0]]) == pytest.approx(1.0)
    assert gwet_ac1([[0, 0], [0, 0]]) is None


@pytest.mark.parametrize(
    "table",
    [*TABLES, [[5, 2], [0, 5]], [[1, 0], [9, 1]], [[2, 4], [4, 2]], [[0, 1], [0, 0]]],
)
def test_mcnemar_exact_p_is_the_binomial_test_of_the_discordant_pairs(table):
    b, c = table[0][1], table[1][0]
    expected = binomtest(min(b, c), b + c, 0.5, alternative="two-sided").pvalue
    assert mcnemar_exact_p(table) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_exact_p_is_one_without_discordant_pairs():
    assert mcnemar_exact_p([[4, 0], [0, 3]]) == 1.0
    assert mcnemar_exact_p([[0, 0], [0, 0]]) == 1.0
    assert isinstance(mcnemar_exact_p([[5, 2], [0, 5]]), float)
    assert mcnemar_exact_p([[5, 2], [0, 5]]) == pytest.approx(0.5)  # 2 · 0.5²


def test_mcnemar_exact_p_of_one_sided_discordance():
    # every discordant pair one way: 2 · 0.5^k (the guard must look at both off-diagonal
    # cells, not a diagonal one)
    assert mcnemar_exact_p([[3, 2], [0, 0]]) == pytest.approx(0.5)
    assert mcnemar_exact_p([[3, 0], [2, 0]]) == pytest.approx(0.5)
    assert mcnemar_exact_p([[0, 0], [3, 0]]) == pytest.approx(0.25)
    assert mcnemar_exact_p([[0, 4], [0, 9]]) == pytest.approx(0.125)
