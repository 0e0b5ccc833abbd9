"""The leaderboard's Wilson intervals and the paired-difference bootstrap of
``evaluation.compare.leaderboard`` against the Wilson closed form and a textbook
cluster bootstrap loop over the same seeded draws (issue 26 item 2)."""

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.leaderboard import (
    leaderboard,
    paired_difference,
    wilson_interval,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix

Z = stats.norm.ppf(0.975)


def _matrix(n_items=120, per_image=3, seed=0):
    rng = np.random.default_rng(seed)
    items = tuple(
        Item(id=f"i{n}", question="q", options={"A": "a", "B": "b"}, answer="A",
             task=TASKS[n % len(TASKS)], raw_task=TASKS[n % len(TASKS)].name, modality="CT",
             region="Chest", dataset="d", image_path=Path(f"/x/{n // per_image}.png"),
             source_file=Path("t"))
        for n in range(n_items)
    )  # fmt: skip
    correct = (rng.random((n_items, 2)) < [0.7, 0.55]).astype(float)
    correct[rng.random(correct.shape) < 0.1] = np.nan  # unanswered
    return RunMatrix(items, ("a", "b"), correct, np.zeros(correct.shape, bool))


def _wilson(k, n):
    p = k / n
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z / (1 + Z**2 / n) * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    return centre - half, centre + half


def test_wilson_interval_elementwise_equals_the_closed_form():
    correct, n = np.array([0, 3, 45, 50, 0]), np.array([7, 10, 50, 50, 0])
    low, high = wilson_interval(correct, n)
    for k in range(4):
        assert (low[k], high[k]) == pytest.approx(_wilson(correct[k], n[k]), abs=1e-12)
    assert math.isnan(low[4]) and math.isnan(high[4])


def test_leaderboard_overall_interval_is_wilson_of_the_answered_items():
    m = _matrix()
    board = leaderboard(m)
    for run in range(2):
        answered = ~np.isnan(m.correct[:, run])
        k, n = int(np.nansum(m.correct[:, run])), int(answered.sum())
        assert (board.n[run, 0], board.correct[run, 0]) == (n, k)
        assert (board.low[run, 0], board.high[run, 0]) == pytest.approx(_wilson(k, n))


def _reference_paired(m, n_boot, seed):
    """Items both runs answered; images in order of first appearance; each replicate
    draws as many images as there are, uniformly with replacement (one
    ``default_rng(seed).integers(0, K, (B, K))``), and takes the difference of the
    accuracies over every item of the drawn images; 2.5 and 97.5 percentiles."""
    both = ~np.isnan(m.correct[:, 0]) & ~np.isnan(m.correct[:, 1])
    images = list(
        dict.fromkeys(str(item.image_path) for item, b in zip(m.items, both, strict=True) if b)
    )
    d_on = {image: [] for image in images}
    for item, b, row in zip(m.items, both, m.correct, strict=True):
        if b:
            d_on[str(item.image_path)].append(row[0] - row[1])
    drawn = np.random.default_rng(seed).integers(0, len(images), size=(n_boot, len(images)))
    replicates = []
    for row in drawn:
        values = [x for k in row for x in d_on[images[k]]]
        replicates.append(sum(values) / len(values))
    diff = float(np.mean([x for v in d_on.values() for x in v]))
    return (diff, *np.percentile(replicates, [2.5, 97.5]))


def test_paired_difference_is_a_95_percent_cluster_bootstrap_over_the_images():
    # mutant: the paired-difference bootstrap at 90 % while labelled 95 %
    m = _matrix()
    got = paired_difference(m, "a", "b", n_boot=500, seed=9)
    assert got == pytest.approx(_reference_paired(m, 500, 9))
    assert got[1] <= got[0] <= got[2]
