"""Every figure of one judgment (agreement/pair_figures.py): binary_figures against the
figures and intervals computed in the test (statsmodels kappa, Wilson, a bootstrap
drawn here), the zero-width rule, and the JSON form."""

import math

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa
from statsmodels.stats.proportion import proportion_confint

from medrcube_desktop.review.agreement.pair_figures import (
    PairFigures,
    binary_figures,
    pair_figures,
    rounded,
    rounded_interval,
)

A = np.array([1, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0])
B = np.array([1, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1])


def percentile(values):
    return tuple(float(x) for x in np.percentile(values, [2.5, 97.5]))


def kappa_ac1(a, b):
    n = len(a)
    po = np.mean(a == b)
    pa, pb = a.mean(), b.mean()
    pe = pa * pb + (1 - pa) * (1 - pb)
    pi = (pa + pb) / 2
    pe1 = 2 * pi * (1 - pi)
    kappa = math.nan if math.isclose(pe, 1.0) else (po - pe) / (1 - pe)
    assert n
    return kappa, (po - pe1) / (1 - pe1)


def test_binary_figures_against_independent_computations():
    got = binary_figures(A, B, bootstrap=400, seed=9)
    table = [[4, 3], [3, 10]]  # counted by hand
    assert got.confusion == table
    assert got.agreement == pytest.approx(14 / 20)
    assert got.pabak == pytest.approx(0.4)
    assert got.cohen_kappa == pytest.approx(sm_kappa(np.array(table)).kappa, abs=1e-12)
    pi = (13 / 20 + 13 / 20) / 2
    assert got.gwet_ac1 == pytest.approx((0.7 - 2 * pi * (1 - pi)) / (1 - 2 * pi * (1 - pi)))
    assert got.mcnemar_p == pytest.approx(1.0)  # 3 against 3: binomial p 1.0
    assert got.wilson_ci95 == pytest.approx(proportion_confint(14, 20, method="wilson"))
    draws = np.random.default_rng(9).integers(0, 20, size=(400, 20))
    agree = (A == B).astype(float)
    assert got.ci95 == pytest.approx(percentile(agree[draws].mean(axis=1)), abs=1e-12)
    per = np.array([kappa_ac1(A[d], B[d]) for d in draws])
    kappas = per[:, 0][np.isfinite(per[:, 0])]
    assert got.kappa_ci95 == pytest.approx(percentile(kappas), abs=1e-12)
    assert got.ac1_ci95 == pytest.approx(percentile(per[:, 1]), abs=1e-12)
    assert got.undefined == {}
    assert got.ci95[0] < got.agreement < got.ci95[1]


def test_mcnemar_is_asked_of_the_table():
    a = np.array([1, 1, 1, 1, 1, 0, 0])
    b = np.array([0, 0, 0, 0, 0, 0, 1])
    assert binary_figures(a, b, bootstrap=0).mcnemar_p == pytest.approx(0.21875)  # 2·7/64


def test_without_draws_no_interval_is_undefined_but_wilson():
    got = binary_figures(np.array([1, 1, 1]), np.array([1, 1, 1]), bootstrap=0)
    assert got.ci95 is None and got.kappa_ci95 is None and got.ac1_ci95 is None
    assert got.undefined == {"cohen_kappa": "both raters gave 'pass' to every item"}
    assert got.wilson_ci95 == pytest.approx(proportion_confint(3, 3, method="wilson"))
    none = binary_figures(np.array([], dtype=int), np.array([], dtype=int), bootstrap=0)
    assert none.undefined == {
        k: "no item judged by both raters"
        for k in ("agreement", "cohen_kappa", "gwet_ac1", "pabak", "mcnemar_p", "wilson_ci95")
    }
    assert none.mcnemar_p is None and none.agreement is None and none.wilson_ci95 is None


def test_an_undefined_interval_is_none_even_when_resamples_give_one():
    # both raters pass throughout: AC1 is 1 in every resample, kappa undefined
    got = binary_figures(np.ones(6, dtype=int), np.ones(6, dtype=int), bootstrap=200)
    assert got.cohen_kappa is None and got.gwet_ac1 == pytest.approx(1.0)
    assert got.kappa_ci95 is None and got.ac1_ci95 is None and got.ci95 is None
    both = "both raters gave 'pass' to every item"
    assert got.undefined == {
        "ci95": "every item agrees (no variation to resample)",
        "cohen_kappa": both,
        "kappa_ci95": both,
        "ac1_ci95": both,
    }


def test_a_zero_width_interval_is_undefined_with_its_value():
    # a constant: kappa = 0 in every resample where b varies (p_e = p_o)
    a = np.ones(8, dtype=int)
    b = np.array([1, 0, 1, 0, 1, 1, 0, 1])
    got = binary_figures(a, b, bootstrap=300, seed=1)
    assert got.kappa_ci95 is None
    assert got.undefined == {"kappa_ci95": "every resample gives 0"}
    assert got.ac1_ci95 is not None and got.ci95 is not None


def test_pair_figures_takes_its_draws():
    from medrcube_desktop.review.agreement.intervals import Draws

    assert pair_figures(A, B, Draws(20, 400, 9)) == binary_figures(A, B, 400, 9)
    assert pair_figures(A, B, None) == binary_figures(A, B, 0, 9)


def test_rounded():
    assert rounded(None) is None
    assert rounded(0.1234567891) == 0.123457
    assert rounded(0.1234567891, 2) == 0.12
    assert math.copysign(1, rounded(-1e-9)) == 1.0  # no -0.0
    assert rounded_interval(None) is None
    assert rounded_interval((0.12345678, 0.98765432)) == [0.123457, 0.987654]
    low, high = rounded_interval((-1e-9, -2e-9))
    assert math.copysign(1, low) == 1.0 and math.copysign(1, high) == 1.0


def test_to_dict_names_and_undefined():
    figures = PairFigures(
        agreement=0.5,
        ci95=(0.1, 0.9),
        cohen_kappa=0.2,
        gwet_ac1=0.3,
        pabak=0.0,
        confusion=[[1, 1], [1, 1]],
        mcnemar_p=1.0,
        kappa_ci95=(-0.1, 0.4),
        ac1_ci95=(0.0, 0.6),
        wilson_ci95=(0.2, 0.8),
    )
    assert figures.to_dict() == {
        "agreement": 0.5,
        "ci95": [0.1, 0.9],
        "cohen_kappa": 0.2,
        "gwet_ac1": 0.3,
        "pabak": 0.0,
        "confusion": [[1, 1], [1, 1]],
        "mcnemar_p": 1.0,
        "cohen_kappa_ci95": [-0.1, 0.4],
        "gwet_ac1_ci95": [0.0, 0.6],
        "agreement_wilson_ci95": [0.2, 0.8],
    }
    figures.undefined = {"kappa_ci95": "x", "ac1_ci95": "y", "wilson_ci95": "z", "ci95": "w",
                         "pabak": "v"}  # fmt: skip
    assert figures.to_dict()["undefined"] == {
        "cohen_kappa_ci95": "x",
        "gwet_ac1_ci95": "y",
        "agreement_wilson_ci95": "z",
        "ci95": "w",
        "pabak": "v",
    }


def test_lists_are_taken_as_arrays():
    a, b = [1, 0, 1, 1, 0, 1], [1, 1, 1, 0, 0, 1]
    assert binary_figures(a, b, 100, 2) == binary_figures(np.array(a), np.array(b), 100, 2)
    assert binary_figures(a, np.array(b), 100, 2) == binary_figures(np.array(a), b, 100, 2)


def test_an_interval_below_zero_is_an_interval():
    # raters who mostly disagree: the kappa and AC1 intervals lie below zero, wide
    a = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0])
    b = np.array([0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1])
    got = binary_figures(a, b, bootstrap=300, seed=4)
    assert got.kappa_ci95 is not None and got.kappa_ci95[1] - got.kappa_ci95[0] > 0.1
    assert got.kappa_ci95[0] + got.kappa_ci95[1] < 0
    assert got.ac1_ci95 is not None and got.ac1_ci95[0] + got.ac1_ci95[1] < 0
    assert got.undefined == {}
