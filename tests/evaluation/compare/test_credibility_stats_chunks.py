"""The cluster bootstrap drawn in several chunks, the replicate count's guard and the
figures of one-pair denominators (issue 26, ``python -m tests.mutation.run --modules
compare.credibility_stats``). The reference bootstrap here draws every replicate at once
with the same seeded generator and sums the drawn clusters' counts directly (paper
Section 6, Appendix H: images resampled with replacement, percentile interval)."""

import numpy as np
import pytest

from medrcube_desktop.evaluation.compare.credibility_stats import (
    STATS,
    bootstrap_intervals,
    figures_of,
)


def _reference(per_cluster, n_boot, seed, level=0.95):
    """One (n_boot, n_clusters) draw of cluster numbers, each replicate's counts the sum
    of its drawn clusters' counts, then the figures and their percentiles."""
    n_clusters = per_cluster.shape[0]
    drawn = np.random.default_rng(seed).integers(0, n_clusters, size=(n_boot, n_clusters))
    totals = np.stack([per_cluster[row].sum(axis=0) for row in drawn])  # (n_boot, n_runs, 4)
    a, b, c, d = np.moveaxis(totals, -1, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        figures = {
            "acc_h": (a + d) / (a + b + c + d),
            "rationality": 1 - d / (a + d),
            "shortcut_prob": d / (c + d),
        }
    tail = (1 - level) / 2 * 100
    return {k: np.nanpercentile(v, [tail, 100 - tail], axis=0) for k, v in figures.items()}


def test_a_bootstrap_drawn_in_two_chunks_is_the_one_drawn_at_once():
    # 4,200 images: chunks of 2**22 // 4200 = 998 replicates, so 1,000 replicates take two
    # chunks (a second chunk of the wrong size does not fit the replicates left)
    rng = np.random.default_rng(7)
    per_cluster = rng.integers(0, 3, size=(4200, 2, 4)).astype(np.float64)
    got = bootstrap_intervals(per_cluster, n_boot=1000, seed=11)
    want = _reference(per_cluster, 1000, 11)
    assert set(got) == set(STATS)
    for name, bounds in want.items():
        np.testing.assert_allclose(got[name], bounds, rtol=1e-12)
        assert got[name].shape == (2, 2)


def test_one_replicate_is_enough_and_none_is_refused():
    per_cluster = np.array([[[3.0, 1.0, 2.0, 1.0]], [[1.0, 2.0, 0.0, 2.0]]])
    one = bootstrap_intervals(per_cluster, n_boot=1, seed=3)
    want = _reference(per_cluster, 1, 3)
    for name, bounds in want.items():
        np.testing.assert_allclose(one[name], bounds)
        assert one[name][0] == one[name][1]  # one replicate: both bounds are its value
    with pytest.raises(ValueError, match=r"^n_boot must be at least 1, got 0$"):
        bootstrap_intervals(per_cluster, n_boot=0)


def test_a_denominator_of_one_pair_is_a_figure_not_nan():
    # (A, B, C, D) = (3, 2, 1, 0): C + D = 1 pair, SP = 0/1 = 0; (1, 0, 0, 0): N = 1,
    # Acc_H = 1/1, A + D = 1, Rationality = 1 - 0/1 = 1, SP = 0/0 undefined
    figures = figures_of(np.array([[3, 2, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0]]))
    np.testing.assert_array_equal(figures["acc_h"], [0.5, 1.0, 0.0])
    np.testing.assert_array_equal(figures["rationality"], [1.0, 1.0, np.nan])
    np.testing.assert_array_equal(figures["shortcut_prob"], [0.0, np.nan, 0.0])


def test_one_pair_with_l_wrong_still_defines_the_odds_ratio():
    # (A, B, C, D) = (2, 1, 1, 0): every margin holds a pair (C + D = 1), D is empty, so
    # 0.5 is added: ln(2.5 * 1.5 / (1.5 * 0.5)) = ln 5. The exact one-sided p: N = 4,
    # K = A + B = 3 with L right, M = A + D = 2 with H right; P(A* >= 2) = C(3,2)C(1,0) /
    # C(4,2) = 3/6 (A* = 2 is the largest A the margins allow)
    from medrcube_desktop.evaluation.compare.credibility_stats import (
        log_odds_ratio_of,
        odds_ratio_cells,
        permutation_p_exact,
    )

    table = np.array([[2, 1, 1, 0]])
    used, corrected, defined = odds_ratio_cells(table)
    assert defined.tolist() == [True] and corrected.tolist() == [True]
    np.testing.assert_array_equal(used, [[2.5, 1.5, 1.5, 0.5]])
    np.testing.assert_allclose(log_odds_ratio_of(table), [np.log(5.0)])
    np.testing.assert_allclose(permutation_p_exact(table), [0.5])


def test_every_empty_margin_and_only_one_leaves_the_odds_ratio_undefined():
    # all 81 tables of 0-2 pairs per cell: odds_ratio_cells' `defined` is exactly "no
    # margin empty" (A+B, C+D, A+D, B+C each > 0), and odds_ratio_reason names a reason
    # for exactly the tables it leaves undefined: the two rules agree
    import itertools

    from medrcube_desktop.evaluation.compare.credibility_stats import (
        odds_ratio_cells,
        odds_ratio_reason,
    )

    tables = np.array(list(itertools.product(range(3), repeat=4)))
    _, corrected, defined = odds_ratio_cells(tables)
    for (a, b, c, d), ok, fixed in zip(tables.tolist(), defined, corrected, strict=True):
        margins = (a + b, c + d, a + d, b + c)
        assert ok == all(m > 0 for m in margins), (a, b, c, d)
        assert fixed == (ok and min(a, b, c, d) == 0), (a, b, c, d)
        assert (odds_ratio_reason((a, b, c, d)) is None) == ok, (a, b, c, d)
    assert odds_ratio_reason((3, 2, 0, 0)) == "L right on every pair (C+D = 0)"
    assert not odds_ratio_cells(np.array([3, 2, 0, 0]))[2]
