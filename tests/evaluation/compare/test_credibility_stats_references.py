"""The credibility intervals and p of ``evaluation.compare.credibility_stats`` against
second implementations (issue 26 item 2): the cluster bootstrap redone as a textbook
loop over the same seeded draws, the exact permutation p by enumerating every
arrangement of a small table and by scipy's Fisher test, and a seeded simulation of the
cluster bootstrap's coverage (2,000 simulated studies at once: one run each)."""

import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS, Level
from medrcube_desktop.evaluation.compare.credibility_models import credibility_table
from medrcube_desktop.evaluation.compare.credibility_stats import (
    bootstrap_intervals,
    permutation_p_exact,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix


def _hand_figures(a, b, c, d):
    """Acc_H, Rationality, SP, log OR (Haldane 0.5 on a zero cell, NaN on an empty
    margin) of one table, written out (paper eqs. 5–6, Woolf 1955, Haldane 1956)."""
    n = a + b + c + d
    acc = (a + d) / n if n else math.nan
    rat = 1 - d / (a + d) if a + d else math.nan
    sp = d / (c + d) if c + d else math.nan
    if min(a + b, c + d, a + d, b + c) == 0:
        log_or = math.nan
    else:
        if min(a, b, c, d) == 0:
            a, b, c, d = a + 0.5, b + 0.5, c + 0.5, d + 0.5
        log_or = math.log(a * c / (b * d))
    return {"acc_h": acc, "rationality": rat, "shortcut_prob": sp, "log_or": log_or}


def _reference_cluster_bootstrap(per_cluster, n_boot, seed, level=0.95):
    """Each replicate: n_clusters clusters drawn uniformly with replacement (one
    ``default_rng(seed).integers(0, K, (B, K))``), their A–D summed, figures by hand;
    the (1−level)/2 and (1+level)/2 percentiles of the replicates that define it."""
    k, n_runs, _ = per_cluster.shape
    drawn = np.random.default_rng(seed).integers(0, k, size=(n_boot, k))
    out = {}
    for name in ("acc_h", "rationality", "shortcut_prob", "log_or"):
        bounds = np.full((2, n_runs), np.nan)
        for run in range(n_runs):
            values = []
            for row in drawn:
                total = per_cluster[row, run].sum(axis=0)
                values.append(_hand_figures(*total)[name])
            values = np.array(values)
            values = values[np.isfinite(values)]
            if values.size:
                tail = (1 - level) / 2 * 100
                bounds[:, run] = np.percentile(values, [tail, 100 - tail])
        out[name] = bounds
    return out


def _per_cluster(n_clusters=30, n_runs=2, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 4, size=(n_clusters, n_runs, 4)).astype(float)


def test_cluster_bootstrap_equals_a_textbook_loop_over_the_same_draws():
    # mutants: drawing from n − 1 clusters, a 90 % interval, percentiles not of the draws
    per_cluster = _per_cluster()
    got = bootstrap_intervals(per_cluster, n_boot=300, seed=5)
    expected = _reference_cluster_bootstrap(per_cluster, 300, 5)
    for name in expected:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-10, err_msg=name)


def test_cluster_bootstrap_level_is_the_one_asked_for():
    per_cluster = _per_cluster(seed=1)
    got = bootstrap_intervals(per_cluster, n_boot=300, seed=2, level=0.8)
    expected = _reference_cluster_bootstrap(per_cluster, 300, 2, level=0.8)
    np.testing.assert_allclose(got["acc_h"], expected["acc_h"], rtol=1e-10)


def _matrix(n_images=25, n_runs=2, seed=0):
    """Items on ``n_images`` images (1–4 items each, random tasks), 60 % right."""
    rng = np.random.default_rng(seed)
    items, n = [], 0
    for image in range(n_images):
        for _ in range(int(rng.integers(1, 5))):
            task = TASKS[int(rng.integers(0, len(TASKS)))]
            items.append(
                Item(id=f"i{n}", question="q", options={"A": "a", "B": "b"}, answer="A",
                     task=task, raw_task=task.name, modality="CT", region="Chest",
                     dataset="d", image_path=Path(f"/x/{image}.png"), source_file=Path("t"))
            )  # fmt: skip
            n += 1
    correct = (rng.random((n, n_runs)) < 0.6).astype(float)
    return RunMatrix(tuple(items), tuple(f"r{c}" for c in range(n_runs)), correct,
                     np.zeros(correct.shape, bool))  # fmt: skip


def _hand_image_counts(matrix):
    """(n_images, n_runs, 4): A–D per image holding a pair (paper preset: H the
    high-level tasks, L every other), images in order of first appearance."""
    order = list(dict.fromkeys(str(item.image_path) for item in matrix.items))
    rows = []
    for image in order:
        on = [k for k, item in enumerate(matrix.items) if str(item.image_path) == image]
        high = [k for k in on if matrix.items[k].task.level == Level.HIGH]
        low = [k for k in on if matrix.items[k].task.level != Level.HIGH]
        if not high or not low:
            continue
        cells = np.zeros((len(matrix.runs), 4))
        for run in range(len(matrix.runs)):
            for h in high:
                for lo in low:
                    l_right, h_right = matrix.correct[lo, run] == 1, matrix.correct[h, run] == 1
                    group = {(1, 1): 0, (1, 0): 1, (0, 0): 2, (0, 1): 3}[(l_right, h_right)]
                    cells[run, group] += 1
        rows.append(cells)
    return np.array(rows)


def test_credibility_tables_intervals_are_95_percent_cluster_bootstrap_of_the_images():
    # mutant: the credibility bootstrap intervals at 90 % while labelled 95 %
    matrix = _matrix()
    per_image = _hand_image_counts(matrix)
    figures, _ = credibility_table(matrix, "paper", n_boot=200, seed=3)
    expected = _reference_cluster_bootstrap(per_image, 200, 3, level=0.95)
    for run, figure in enumerate(figures):
        totals = per_image[:, run].sum(axis=0)
        assert (figure.a, figure.b, figure.c, figure.d) == tuple(int(x) for x in totals)
        for name in ("acc_h", "rationality", "shortcut_prob"):
            got = (getattr(figure, f"{name}_low"), getattr(figure, f"{name}_high"))
            assert got == pytest.approx(tuple(expected[name][:, run])), name
        got = (figure.log_or_boot_low, figure.log_or_boot_high)
        assert got == pytest.approx(tuple(expected["log_or"][:, run]))


def test_the_cluster_bootstrap_covers_the_truth_95_percent_of_2000_simulated_studies():
    """2,000 independent studies (each a run), 100 images each of 2 prerequisites and 3
    high-level items, answered alike on an image (its own chance of being right, drawn
    from Beta(3, 2): mean 0.6, the truth of Acc_H and, L and H independent, of SP)."""
    rng = np.random.default_rng(2026)
    studies, images = 2000, 100
    p_high = rng.beta(3, 2, size=(images, studies))
    p_low = rng.beta(2, 2, size=(images, studies))
    hr = rng.binomial(3, p_high).astype(float)
    lr = rng.binomial(2, p_low).astype(float)
    hw, lw = 3 - hr, 2 - lr
    per_cluster = np.stack([lr * hr, lr * hw, lw * hw, lw * hr], axis=-1)
    bounds = bootstrap_intervals(per_cluster, n_boot=400, seed=7)
    for name in ("acc_h", "shortcut_prob"):
        low, high = bounds[name]
        coverage = np.mean((low <= 0.6) & (high >= 0.6))
        assert 0.93 <= coverage <= 0.97, (name, coverage)


# ---------------------------------------------------------------- permutation p


def _enumerated_p(a, b, c, d):
    """P(A* ≥ A) over every equally likely placement of the K = A+B "L right" among
    the N pairs (H fixed): the permutation distribution, enumerated."""
    n, k = a + b + c + d, a + b
    h_right = [True] * (a + d) + [False] * (b + c)
    at_least = total = 0
    for placed in combinations(range(n), k):
        total += 1
        at_least += sum(h_right[i] for i in placed) >= a
    return at_least / total


@pytest.mark.parametrize(
    "counts",
    [(3, 2, 3, 2), (4, 1, 4, 1), (2, 3, 1, 4), (5, 1, 2, 2), (1, 1, 1, 1), (6, 2, 3, 1)],
)
def test_exact_permutation_p_equals_enumerating_every_arrangement(counts):
    # mutant: counting > instead of >= (an exact tie never extreme): sf(A) for sf(A − 1)
    (p,) = permutation_p_exact(np.array([counts]))
    assert p == pytest.approx(_enumerated_p(*counts), abs=1e-12)
    a, b, c, d = counts
    assert p == pytest.approx(stats.fisher_exact([[a, b], [d, c]], "greater")[1])


@settings(max_examples=40, deadline=None)
@given(st.tuples(*[st.integers(0, 4)] * 4))
def test_exact_permutation_p_is_enumeration_or_undefined_for_any_small_table(counts):
    (p,) = permutation_p_exact(np.array([counts]))
    a, b, c, d = counts
    if min(a + b, c + d, a + d, b + c) == 0:
        assert math.isnan(p)
    else:
        assert p == pytest.approx(_enumerated_p(*counts), abs=1e-12)
