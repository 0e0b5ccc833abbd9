"""Pairs of every run at once, bootstrap intervals clustered by image and the exact
permutation p (issue 14 item 3), against hand counts, scipy and simulations."""

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.credibility_models import (
    credibility_table,
    permutation_p,
)
from medrcube_desktop.evaluation.compare.credibility_stats import (
    bootstrap_intervals,
    figures_of,
    permutation_p_exact,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.credibility import credibility, pair_outcomes
from medrcube_desktop.evaluation.metrics import Outcome


def _matrix(n_items=240, n_runs=4, per_image=4, seed=0):
    rng = np.random.default_rng(seed)
    tasks = [TASKS[k] for k in rng.integers(0, len(TASKS), n_items)]
    items = tuple(
        Item(id=f"i{n}", question="q", options={"A": "a", "B": "b"}, answer="A",
             task=task, raw_task=task.name, modality="CT", region="Chest", dataset="d",
             image_path=Path(f"/x/{n // per_image}.png"), source_file=Path("t"))
        for n, task in enumerate(tasks)
    )  # fmt: skip
    correct = (rng.random((n_items, n_runs)) < 0.6).astype(float)
    correct[rng.random(correct.shape) < 0.05] = np.nan
    return RunMatrix(items, tuple(f"r{c}" for c in range(n_runs)), correct,
                     np.zeros(correct.shape, bool))  # fmt: skip


@pytest.mark.parametrize("preset", ["paper", "official"])
def test_vectorised_pairs_count_as_pair_outcomes_does_run_by_run(preset):
    m = _matrix()
    figures, _ = credibility_table(m, preset, n_boot=0)
    for c, figure in enumerate(figures):
        outcomes = [
            Outcome(item, "A" if value == 1.0 else None)
            for item, value in zip(m.items, m.correct[:, c], strict=True)
            if not math.isnan(value)
        ]
        expected = credibility(pair_outcomes(outcomes, preset)[0])
        got = (figure.a, figure.b, figure.c, figure.d)
        assert got == tuple(expected[f"group_{g}"] for g in "abcd")


def test_figures_of_a_hand_computed_table():
    got = figures_of(np.array([40, 10, 30, 20]))
    assert got["acc_h"] == pytest.approx(0.6)
    assert got["rationality"] == pytest.approx(1 - 20 / 60)
    assert got["shortcut_prob"] == pytest.approx(20 / 50)
    assert got["log_or"] == pytest.approx(math.log(40 * 30 / (10 * 20)))
    haldane = figures_of(np.array([5, 0, 3, 2]))["log_or"]
    assert haldane == pytest.approx(math.log(5.5 * 3.5 / (0.5 * 2.5)))


def test_exact_permutation_p_is_fishers_test_and_what_shuffling_estimates():
    counts = np.array([[30, 10, 25, 15], [10, 10, 10, 10], [0, 0, 0, 0]])
    p = permutation_p_exact(counts)
    for row, value in zip(counts[:2], p[:2], strict=True):
        a, b, c, d = row
        assert value == pytest.approx(stats.fisher_exact([[a, b], [d, c]], "greater")[1])
    assert math.isnan(p[2])
    a, b, c, d = counts[0]
    low = np.array([True] * (a + b) + [False] * (c + d))
    high = np.array([True] * a + [False] * b + [False] * c + [True] * d)
    mc = permutation_p(low, high, n_permutations=20000, seed=1)
    assert mc == pytest.approx(p[0], abs=3 * math.sqrt(p[0] * (1 - p[0]) / 20000) + 1e-3)


def test_identical_pairs_give_a_zero_width_interval():
    per_cluster = np.zeros((50, 1, 4))
    per_cluster[:, 0, 0] = 2  # every pair in group A
    bounds = bootstrap_intervals(per_cluster, n_boot=200, seed=3)
    assert bounds["acc_h"][:, 0].tolist() == [1.0, 1.0]
    assert bounds["rationality"][:, 0].tolist() == [1.0, 1.0]
    assert np.isnan(bounds["shortcut_prob"][:, 0]).all()  # C + D is 0 in every replicate


def test_the_interval_covers_the_true_acc_h_about_95_percent_of_the_time():
    n_pairs, trials, covered = 200, 200, 0
    for seed in range(trials):
        rng = np.random.default_rng(seed)
        low, high = rng.random(n_pairs) < 0.6, rng.random(n_pairs) < 0.5  # independent
        cells = np.stack([low & high, low & ~high, ~low & ~high, ~low & high], axis=-1)
        bounds = bootstrap_intervals(cells[:, None, :].astype(float), n_boot=400, seed=seed)
        lo, hi = bounds["acc_h"][:, 0]
        covered += lo <= 0.5 <= hi
    # Binomial(200, 0.95): mean 190, sd 3.1; the percentile bootstrap undercovers a little
    assert 175 <= covered <= 199


def test_clustering_by_image_widens_the_interval_when_an_image_is_answered_alike():
    rng = np.random.default_rng(0)
    n_images, per_image = 100, 6
    group = rng.integers(0, 4, n_images)  # every pair on an image in the same group
    per_image_cells = np.zeros((n_images, 1, 4))
    per_image_cells[np.arange(n_images), 0, group] = per_image
    pairs = np.repeat(np.eye(4)[group], per_image, axis=0)[:, None, :]
    clustered = bootstrap_intervals(per_image_cells, n_boot=1000, seed=1)
    unclustered = bootstrap_intervals(pairs, n_boot=1000, seed=1)
    for name in ("acc_h", "rationality", "shortcut_prob"):
        wide = np.diff(clustered[name][:, 0])[0]
        narrow = np.diff(unclustered[name][:, 0])[0]
        assert wide > 1.8 * narrow  # sqrt(6) = 2.4 in theory


def test_credibility_table_names_a_run_without_pairs_and_fills_intervals():
    m = _matrix(n_runs=3)
    correct = m.correct.copy()
    correct[:, 2] = np.nan
    m = RunMatrix(m.items, m.runs, correct, m.unparsed, text_only=(False, False, True))
    figures, warnings = credibility_table(m, "paper", n_boot=200, seed=0)
    assert any("run 'r2' has no (prerequisite, high-level) pair" in w for w in warnings)
    assert figures[2].acc_h_low is None and figures[2].p_permutation is None
    assert figures[2].text_only is True and figures[0].preset == "paper"
    f = figures[0]
    assert f.acc_h_low <= f.acc_h <= f.acc_h_high and f.n_boot == 200
    assert 0 < f.p_permutation <= 1
    again, _ = credibility_table(m, "paper", n_boot=200, seed=0)
    assert again == figures  # seeded


def test_counts_per_image_equal_the_listed_pairs_without_listing_them():
    """A–D per image from per-image sums equal the counts of every listed pair."""
    from medrcube_desktop.evaluation.compare.credibility_stats import (
        cluster_counts,
        image_counts,
        pair_cells,
        pair_index,
    )

    matrix = _matrix(n_items=300, per_image=25, seed=5)  # 12 images, many pairs each
    for preset in ("paper", "official"):
        index = pair_index(matrix, preset)
        listed = cluster_counts(pair_cells(matrix, index), index.image, index.n_images)
        factored = image_counts(matrix, preset)
        assert index.low.size > 100  # many pairs, several images
        np.testing.assert_array_equal(factored.counts, listed)
        np.testing.assert_array_equal(factored.totals, listed.sum(axis=0))
