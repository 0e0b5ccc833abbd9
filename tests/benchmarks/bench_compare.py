"""Benchmark: time of the cross-model leaderboard at the paper's size (issue 14, "Speed").

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_compare.py [--runs 33] [--items 7626] [--per-image 3]

Builds ``--runs`` runs over ``--items`` items (the 8 tasks, 4 modalities, 5 regions, 2 to
6 options, ``--per-image`` items per image, 1 % unanswered, the last run a text-only run
of the first one's model), stores them in a SQLite review database in a temporary folder
and reads the :class:`RunMatrix` back with ``run_matrix``, as ``compare`` does. Then it
times (best of 3):

- the issue's figure, "the leaderboard, the voxel matrix with clustering and the
  cross-model credibility together": the leaderboard with its family-sorted frame, the
  voxel matrix, Spearman correlation and average-linkage clustering, and the credibility
  of every run (pairs, counts, figures with 1,000 bootstrap replicates clustered by image,
  the exact permutation p) with the Acc_H–SP correlation; target < 1 s, with the read
  from SQLite added too (exit 1 above it);
- beside it: reading the matrix from the database, one paired difference with 2,000
  replicates and one text-only drop.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.credibility_models import (
    accuracy_shortcut_correlation,
    credibility_table,
)
from medrcube_desktop.evaluation.compare.leaderboard import leaderboard, paired_difference
from medrcube_desktop.evaluation.compare.matrix import RunMatrix, run_matrix
from medrcube_desktop.evaluation.compare.text_only import text_only_drop, text_only_pairs
from medrcube_desktop.evaluation.compare.voxels import (
    cluster_voxels,
    voxel_correlation,
    voxel_matrix,
)

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
    runs = tuple(f"run-{r}" for r in range(n_runs))
    models = runs[:-1] + runs[:1]  # the last run: run-0's model without the image
    return RunMatrix(tuple(items), runs, correct, np.zeros(correct.shape, dtype=bool),
                     models=models, text_only=(False,) * (n_runs - 1) + (True,))  # fmt: skip


def stored_matrix(m: RunMatrix, folder: Path) -> tuple[RunMatrix, float]:
    """``m``'s answers written to a review database in ``folder`` (right: the answer
    letter; wrong: another; unparsed: none), read back with ``run_matrix``; and the
    seconds that read took (best of 3)."""
    from medrcube_desktop.store import StudyStore, utc_now
    from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord

    store = StudyStore(folder / "bench.db")
    try:
        for c, run in enumerate(m.runs):
            store.save_run(
                RunRecord(name=run, engine="import", model=m.models[c], params={},
                          prompt_sha256="x", app_version="bench", created_at=utc_now(),
                          text_only=m.text_only[c])
            )  # fmt: skip
            store.save_responses(
                [
                    ResponseRecord(
                        run=run,
                        item_id=item.id,
                        response="x",
                        parsed_answer="A" if value == 1.0 else "B",
                        parse_method="bench",
                        correct=value == 1.0,
                        official_answer=None,
                        official_correct=False,
                        created_at="2026",
                    )  # fmt: skip
                    for item, value in zip(m.items, m.correct[:, c], strict=True)
                    if not np.isnan(value)
                ]
            )
        read = best_of(lambda: run_matrix(store, m.runs, m.items))
        return run_matrix(store, m.runs, m.items), read
    finally:
        store.close()


def issue_figure(m: RunMatrix) -> None:
    """What the issue's 1 s holds: leaderboard, voxel matrix with clustering, credibility."""
    leaderboard(m).to_frame(sort="family")
    voxels = voxel_matrix(m, 5)
    cluster_voxels(voxel_correlation(voxels.accuracy), 3)
    figures, _ = credibility_table(m, "paper", n_boot=1000, seed=0)
    accuracy_shortcut_correlation([f for f in figures if not f.text_only])


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
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        m, read_s = stored_matrix(matrix(args.runs, args.items, args.per_image), Path(folder))
    issue_figure(m)  # the first call imports statsmodels, pandas and scipy
    image_run, text_run = text_only_pairs(m)[0]
    parts = {
        "leaderboard + family frame": lambda: leaderboard(m).to_frame(sort="family"),
        "voxel matrix + correlation + clusters": lambda: cluster_voxels(
            voxel_correlation(voxel_matrix(m, 5).accuracy), 3
        ),
        "credibility (1,000 boot) + correlation": lambda: accuracy_shortcut_correlation(
            credibility_table(m, "paper", n_boot=1000)[0]
        ),
    }
    for name, fn in parts.items():
        print(f"{name:>40}: {best_of(fn) * 1000:8.1f} ms")
    total = best_of(lambda: issue_figure(m))
    print(f"{'together (the issue figure)':>40}: {total * 1000:8.1f} ms "
          f"(target {TARGET_S * 1000:.0f} ms)")  # fmt: skip
    print(f"{'run_matrix from SQLite':>40}: {read_s * 1000:8.1f} ms")
    print(f"{'read from SQLite + the issue figure':>40}: {(read_s + total) * 1000:8.1f} ms "
          f"(target {TARGET_S * 1000:.0f} ms)")  # fmt: skip
    others = {
        "paired difference (2,000 replicates)": lambda: paired_difference(m, "run-0", "run-1"),
        "text-only drop": lambda: text_only_drop(m, image_run, text_run),
    }
    for name, fn in others.items():
        print(f"{name:>40}: {best_of(fn) * 1000:8.1f} ms")
    return 0 if read_s + total <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
