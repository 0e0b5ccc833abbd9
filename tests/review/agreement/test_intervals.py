"""The bootstrap draws and the intervals (agreement/intervals.py) against a second
implementation: numpy's generator read at once, the percentile of means computed in the
test, the Wilson formula written out, Cohen's kappa and AC1 of each resampled table."""

import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement import intervals
from medrcube_desktop.review.agreement.coefficients import cohen_kappa, confusion, gwet_ac1
from medrcube_desktop.review.agreement.intervals import (
    ALIKE,
    CHUNK_INDICES,
    DEFAULT_BOOTSTRAP,
    DEFAULT_SEED,
    Draws,
    TooManyDraws,
    alike_text,
    bootstrap_statistics,
    draw_statistics,
    draws_of,
    interval_undefined,
    nan_percentile_ci,
    percentile_ci,
    wilson_ci,
)


def test_the_constants():
    assert (DEFAULT_BOOTSTRAP, DEFAULT_SEED) == (2000, 0)
    assert CHUNK_INDICES == 2**20
    assert ALIKE == 1e-12
    assert issubclass(TooManyDraws, MedRCubeError) and issubclass(TooManyDraws, ValueError)


def test_alike_text_rounds_to_twelve_digits_and_three_figures():
    assert alike_text(0.123456789) == "every resample gives 0.123"
    assert alike_text(1.2e-13) == "every resample gives 0"
    assert alike_text(-3e-17) == "every resample gives 0"  # no "-0"
    assert alike_text(1) == "every resample gives 1"
    assert alike_text(-0.5) == "every resample gives -0.5"


def test_draws_of():
    assert draws_of(0, 100, 1) is None
    assert draws_of(5, 0, 1) is None
    assert draws_of(5, -1, 1) is None
    assert draws_of(5, 1, 3) == Draws(5, 1, 3)
    assert draws_of(7, 100, 2) == Draws(7, 100, 2)


@pytest.mark.parametrize("chunk", [7 * 3, 7 * 64, 7 * 101, 2**20, 5])
def test_the_chunks_are_the_generator_read_at_once(monkeypatch, chunk):
    monkeypatch.setattr(intervals, "CHUNK_INDICES", chunk)
    whole = np.random.default_rng(11).integers(0, 7, size=(100, 7))
    parts = list(Draws(7, 100, 11).chunks())
    rows = max(1, chunk // 7)
    assert [len(p) for p in parts] == [min(rows, 100 - s) for s in range(0, 100, rows)]
    assert np.array_equal(np.concatenate(parts), whole)


def test_the_default_chunk_holds_a_million_indices():
    parts = list(Draws(1000, 2500, 4).chunks())
    assert [p.shape for p in parts] == [(1048, 1000), (1048, 1000), (404, 1000)]


def test_per_draw_applies_the_statistic_to_every_draw():
    values = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    draws = np.random.default_rng(3).integers(0, 5, size=(40, 5))
    got = Draws(5, 40, 3).per_draw(lambda chunk: values[chunk].sum(axis=1))
    assert np.array_equal(got, values[draws].sum(axis=1))


def test_interval_undefined():
    assert interval_undefined(np.array([True, True])) == (
        "every item gives 1 (no variation to resample)"
    )
    assert interval_undefined(np.array([True, False])) is None
    assert interval_undefined([]) == "no items"
    assert interval_undefined([0.0]) == "one item: every resample is that item"
    assert interval_undefined([1.0, 1.0]) == "every item gives 1 (no variation to resample)"
    assert interval_undefined([0, 0, 0]) == "every item gives 0 (no variation to resample)"
    assert interval_undefined([0.5, 0.5]) == "every item gives 0.5 (no variation to resample)"
    assert interval_undefined([0.0, 1.0]) is None
    assert interval_undefined(np.array([1, 1, 0])) is None


def test_percentile_ci_is_the_percentile_of_the_resampled_means():
    values = np.random.default_rng(12).random(12)  # continuous: every percentile differs
    draws = np.random.default_rng(5).integers(0, 12, size=(999, 12))
    means = np.sort(values[draws].mean(axis=1))
    # numpy's default (linear) percentile of 999 values: the 2.5 % point is at rank
    # 0.025 * 998 = 24.95, the 97.5 % at 973.05
    low = means[24] + 0.95 * (means[25] - means[24])
    high = means[973] + 0.05 * (means[974] - means[973])
    got = percentile_ci(values, Draws(12, 999, 5))
    assert got == pytest.approx((low, high), abs=1e-12)
    assert isinstance(got[0], float) and isinstance(got[1], float)
    assert percentile_ci(values, None) is None
    assert percentile_ci(np.ones(12), Draws(12, 999, 5)) is None
    binary = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    binary_means = binary[draws].mean(axis=1)
    assert percentile_ci(binary, Draws(12, 999, 5)) == tuple(
        float(x) for x in np.percentile(binary_means, [2.5, 97.5])
    )
    assert percentile_ci(np.ones(1), Draws(1, 999, 5)) is None


def test_nan_percentile_ci_leaves_undefined_draws_out():
    values = np.array([np.nan, 0.0, 1.0, np.nan, 2.0, 3.0, 4.0, np.inf])
    assert nan_percentile_ci(values) == pytest.approx((0.1, 3.9))
    assert nan_percentile_ci(np.array([np.nan, 0.5, np.nan])) == (0.5, 0.5)
    assert nan_percentile_ci(np.array([np.nan, np.nan])) is None
    got = nan_percentile_ci(np.arange(101.0))
    assert got == (2.5, 97.5) and isinstance(got[0], float)


def test_draw_statistics_are_the_2x2_formulas_of_each_resample():
    rng = np.random.default_rng(8)
    a, b = rng.integers(0, 2, 9), rng.integers(0, 2, 9)
    a[:2], b[:2] = 1, 1
    chunk = rng.integers(0, 9, size=(300, 9))
    chunk[0] = 0  # a resample of one item: both raters pass throughout, p_e = 1
    got = draw_statistics(a, b, chunk)
    for k, rows in enumerate(chunk):
        table = confusion(a[rows], b[rows])
        kappa = cohen_kappa(table)
        if kappa is None:
            assert math.isnan(got["kappa"][k])
        else:
            assert got["kappa"][k] == pytest.approx(kappa, abs=1e-12)
        assert got["ac1"][k] == pytest.approx(gwet_ac1(table), abs=1e-12)
    assert math.isnan(got["kappa"][0]) and got["ac1"][0] == pytest.approx(1.0)


def test_bootstrap_statistics_join_the_chunks_in_order(monkeypatch):
    rng = np.random.default_rng(9)
    a, b = rng.integers(0, 2, 6), rng.integers(0, 2, 6)
    whole = draw_statistics(a, b, np.random.default_rng(2).integers(0, 6, size=(50, 6)))
    monkeypatch.setattr(intervals, "CHUNK_INDICES", 6 * 7)  # 7 draws a chunk
    got = bootstrap_statistics(a, b, Draws(6, 50, 2))
    assert set(got) == {"kappa", "ac1"}
    for key in ("kappa", "ac1"):
        assert got[key].shape == (50,)
        assert np.allclose(got[key], whole[key], equal_nan=True)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (50, 50), (37, 63), (1, 1)])
def test_wilson_ci_is_the_score_formula(k, n):
    z = norm.ppf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = wilson_ci(k, n)
    assert (low, high) == pytest.approx((centre - half, centre + half), abs=1e-12)
    assert isinstance(low, float) and isinstance(high, float)


def test_wilson_ci_of_nothing_is_none():
    assert wilson_ci(0, 0) is None
    assert wilson_ci(50, 50)[0] == pytest.approx(0.9287, abs=1e-4)  # the docstring's example


def test_draws_take_p_e_within_numpys_tolerance_of_one_as_undefined():
    # 300,000 items, one failed by both raters: 1 - p_e ≈ 6.7e-6, within np.isclose's
    # default tolerance, so a resample of them all has no kappa (the draws' rule, which
    # panel.py shares); AC1 is 1
    n = 300_000
    a = np.ones(n, dtype=int)
    a[0] = 0
    got = draw_statistics(a, a.copy(), np.arange(n)[None, :])
    assert math.isnan(got["kappa"][0])
    assert got["ac1"][0] == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value")
def test_draw_statistics_of_one_item_and_of_none():
    got = draw_statistics(np.array([1]), np.array([0]), np.zeros((3, 1), dtype=int))
    assert got["kappa"].tolist() == [0.0, 0.0, 0.0] and got["ac1"].tolist() == [-1.0] * 3
    with pytest.raises(AssertionError):
        draw_statistics(np.array([], dtype=int), np.array([], dtype=int), np.zeros((2, 0), int))


def test_an_undefined_kappa_in_a_draw_prints_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = draw_statistics(np.ones(4, dtype=int), np.ones(4, dtype=int), np.zeros((2, 4), int))
    assert np.isnan(got["kappa"]).all() and (got["ac1"] == 1.0).all()
