"""Benchmark: time of the cross-model leaderboard at the paper's size (issue 14, "Speed").

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_compare.py [--runs 33] [--items 7626] [--per-image 3]

Builds a :class:`RunMatrix` of ``--runs`` runs over ``--items`` items (the 8 tasks, 4
modalities, 5 regions, 2 to 6 options, ``--per-image`` items per image, 1 % unanswered),
and times (best of 3) the leaderboard with its frame, one paired difference with 2,000
clustered bootstrap replicates, and one text-only drop. Exits 1 when the three together
take over 1 s (the issue's budget also holds the voxel matrix and credibility).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.leaderboard import (
    leaderboard,
    paired_difference,
    text_only_drop,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix

TARGET_S = 1.0
MODALITIES = ("CT", "X-Ray", "MRI", "US")
REGIONS = ("Brain", "Chest", "Heart", "Lungs", "Breast")


def matrix(n_runs: int, n_items: int, per_image: int, seed: int = 0) -> RunMatrix:
    """A random matrix of the paper's shape (accuracies 30–70 % per run)."""
    rng = np.random.default_rng(seed)
    items = []
    for n in range(n_items):
        k = int(rng.integers(2, 7))
        items.append(
            Item(
                id=f"item-{n}", question="q", options={x: x for x in "ABCDEF"[:k]}, answer="A",
                task=TASKS[n % 8], raw_task=TASKS[n % 8].name, modality=MODALITIES[n % 4],
                region=REGIONS[n % 5], dataset="bench", image_path=Path(f"{n // per_image}.png"),
                source_file=Path("test.json"),
            )
        )  # fmt: skip
    skill = rng.uniform(0.3, 0.7, n_runs)
    correct = (rng.random((n_items, n_runs)) < skill).astype(np.float64)
    correct[rng.random(correct.shape) < 0.01] = np.nan
    return RunMatrix(tuple(items), tuple(f"run-{r}" for r in range(n_runs)), correct,
                     np.zeros(correct.shape, dtype=bool))  # fmt: skip


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=33)
    parser.add_argument("--items", type=int, default=7626)
    parser.add_argument("--per-image", type=int, default=3)
    args = parser.parse_args()
    m = matrix(args.runs, args.items, args.per_image)
    leaderboard(m).to_frame()  # first call imports statsmodels and pandas
    times = {
        "leaderboard + frame": best_of(lambda: leaderboard(m).to_frame()),
        "paired difference (2,000 replicates)": best_of(
            lambda: paired_difference(m, "run-0", "run-1")
        ),
        "text-only drop": best_of(lambda: text_only_drop(m, "run-0", "run-1")),
    }
    for name, seconds in times.items():
        print(f"{name:>38}: {seconds * 1000:8.1f} ms")
    total = sum(times.values())
    print(f"{'total':>38}: {total * 1000:8.1f} ms (target {TARGET_S * 1000:.0f} ms)")
    return 0 if total <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
