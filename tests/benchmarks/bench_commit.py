"""Benchmark: time to commit one review on a study database holding 100,000 reviews.

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_commit.py [--reviews 100000] [--commits 1000]
        [--db PATH]

Fills a database file (WAL, synchronous=FULL, as the app uses it) with ``--reviews``
reviews by 20 reviewers, then times ``ReviewSessionState.commit`` — the whole commit of
the review window: checks, the insert of the next revision and the removal of the draft
in one transaction, durable on disk — for ``--commits`` items, each after a draft edit
(which is saved too but not timed). Prints the median, 95th and 99th percentile in ms
and exits 1 when the 99th percentile is 10 ms or more (issue 4's target).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import RULE_IDS, score_column
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import StudyStore

TARGET_P99_MS = 10.0


def fill(store: StudyStore, count: int) -> None:
    """Insert ``count`` reviews fast (one transaction), spread over 20 reviewers."""
    columns = ["uid", "reviewer", "item_id", "revision", *map(score_column, RULE_IDS)]
    columns += ["comment", "started_at", "committed_at", "rubric_version", "app_version"]
    rows = (
        (
            f"bench-{n}",
            f"reviewer-{n % 20}",
            f"filled-{n // 20}",
            1,
            *(1,) * len(RULE_IDS),
            "",
            "2026-11-29T10:00:00+00:00",
            "2026-11-29T10:01:00+00:00",
            "nbme-medrcube-1",
            "bench",
        )
        for n in range(count)
    )
    marks = ", ".join("?" * len(columns))
    with store.conn:
        store.conn.execute("BEGIN")
        store.conn.executemany(f"INSERT INTO reviews ({', '.join(columns)}) VALUES ({marks})", rows)


def items(count: int) -> list[Item]:
    task = canonical_task("Modality Recognition")
    assert task is not None
    return [
        Item(
            id=f"bench-item-{n}",
            question="What is the imaging modality of this image?",
            options={"A": "CT", "B": "MRI", "C": "X-ray", "D": "Ultrasound"},
            answer="A",
            image_path=Path("none.dcm"),
            task=task,
            raw_task="Modality Recognition",
            modality="CT",
            region="Chest",
            dataset="bench",
            source_file=Path("test.json"),
        )
        for n in range(count)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reviews", type=int, default=100_000)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--db", type=Path, help="database file (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.db or Path(tmp) / "bench.db"
        store = StudyStore(path)
        fill(store, args.reviews)
        session = ReviewSessionState(
            items(args.commits), store, "reviewer-bench", StudySettings(repeat_share=0)
        )
        times = []
        for item in session.items:
            session.select(item.id)
            session.pass_unscored()  # a draft, saved at once (not timed)
            start = time.perf_counter()
            session.commit()
            times.append((time.perf_counter() - start) * 1000)
        total = store.conn.execute("SELECT COUNT(*) FROM reviews").fetchone()[0]
        store.close()
    times.sort()
    p95 = times[int(0.95 * (len(times) - 1))]
    p99 = times[int(0.99 * (len(times) - 1))]
    print(
        f"{len(times)} commits on {total - len(times):,} reviews: median "
        f"{statistics.median(times):.2f} ms, p95 {p95:.2f} ms, p99 {p99:.2f} ms "
        f"(target p99 < {TARGET_P99_MS:g} ms)"
    )
    return 0 if p99 < TARGET_P99_MS else 1


if __name__ == "__main__":
    sys.exit(main())
