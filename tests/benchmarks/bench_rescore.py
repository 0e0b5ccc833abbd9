"""Benchmark: rescoring every stored run on a corrected release (issue 23, "Speed":
rescoring 33 runs in under 1 s).

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_rescore.py [--runs 33] [--items 7626] [--corrections 300]

Writes, in a temporary folder, a source benchmark of ``--items`` items (8 datasets, 4
options, records only: rescoring reads no picture), its release with ``--corrections``
accepted corrections (two thirds answer-key changes, one sixth retired items, one sixth
question-text changes that need a new answer) as ``release`` writes it (release.json,
changes.json, the test.json files), and a review database of ``--runs`` runs answering
every item (answers of about 200 characters, as a model's short replies are). Then it
times what ``rescore --release DIR --db DB`` does: reading the release (its two JSON
files and its 7,626 records) and rescoring every run into ``<run>@<version>`` in one
transaction, on a fresh copy of the database each time (best of 3); and, beside it, a
second ``rescore`` that finds every run already rescored. Exit 1 above the target.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 1.0
LETTERS = "ABCD"
TEXTS = {"A": "MRI", "B": "CT", "C": "X-ray", "D": "Ultrasound"}


def _record(n: int, answer: str, question: str = "") -> dict:
    return {"id": f"item-{n}", "question": question or f"What is shown in image {n}?",
            **{f"option_{x}": TEXTS[x] for x in LETTERS}, "gt_answer": TEXTS[answer],
            "image_path": f"images/{n // 3}.png", "task": "Modality Recognition",
            "modality": "CT", "parts": "Chest", "dataset": f"ds{n % 8}"}  # fmt: skip


def write_study(folder: Path, n_items: int, n_runs: int, n_corrections: int) -> tuple[Path, Path]:
    """The source, its release and the database in ``folder``; (release, database)."""
    from medrcube_desktop.store import StudyStore
    from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord

    key = {n: LETTERS[n % 4] for n in range(n_items)}
    step = max(1, n_items // max(1, n_corrections))
    corrected = [n * step for n in range(min(n_corrections, n_items))]
    kinds = {n: ("answer_key", "answer_key", "answer_key", "answer_key", "retire",
                 "question_text")[i % 6] for i, n in enumerate(corrected)}  # fmt: skip
    source, release = folder / "source", folder / "release"
    entries = []
    for root, corrected_copy in ((source, False), (release, True)):
        folders: dict[str, list[dict]] = {}
        for n in range(n_items):
            kind = kinds.get(n) if corrected_copy else None
            if kind == "retire":
                continue
            answer = LETTERS[(LETTERS.index(key[n]) + 1) % 4] if kind == "answer_key" else key[n]
            question = f"Which modality shows image {n}?" if kind == "question_text" else ""
            folders.setdefault(f"ds{n % 8}", []).append(_record(n, answer, question))
        for name, records in folders.items():
            (root / name).mkdir(parents=True)
            (root / name / "test.json").write_text(json.dumps(records, indent=2))
    for n, kind in kinds.items():
        after = None if kind == "retire" else (
            LETTERS[(LETTERS.index(key[n]) + 1) % 4] if kind == "answer_key" else key[n])  # fmt: skip
        entries.append({"item_id": f"item-{n}", "file": f"ds{n % 8}/test.json",
                        "task": "Modality Recognition", "dataset": f"ds{n % 8}",
                        "status": "retired" if kind == "retire" else "changed",
                        "needs_new_answer": kind == "question_text", "answer_before": key[n],
                        "answer_after": after,
                        "changes": [{"kind": kind, "rule": "1.3", "reason": "bench"}]})  # fmt: skip
    (release / "release.json").write_text(json.dumps(
        {"format": "medrcube-release", "format_version": 1, "version": "v2",
         "source": str(source), "items": n_items - sum(k == "retire" for k in kinds.values())}))  # fmt: skip
    (release / "changes.json").write_text(json.dumps(
        {"format": "medrcube-release-changes", "format_version": 1, "version": "v2",
         "items": entries, "counts": {}}))  # fmt: skip
    db = folder / "bench.db"
    store = StudyStore(db)
    reply = "After looking at the image, the modality is clearly visible. " * 3
    try:
        for r in range(n_runs):
            run = f"model-{r}"
            store.save_run(RunRecord(name=run, engine="openai", model=run, params={},
                                     prompt_sha256="x", app_version="bench", created_at=f"{r:04d}",
                                     benchmark=str(source)))  # fmt: skip
            store.save_responses([
                ResponseRecord(run=run, item_id=f"item-{n}", response=f"{reply}Answer: {letter}",
                               parsed_answer=letter, parse_method="answer_phrase",
                               correct=letter == key[n], official_answer=letter,
                               official_correct=letter == key[n], created_at="2026",
                               latency_s=0.8, prompt_tokens=420, completion_tokens=40,
                               image={"sent": "original"})
                for n in range(n_items)
                for letter in [LETTERS[(n * (r + 3)) % 4]]
            ])  # fmt: skip
    finally:
        store.close()
    return release, db


def rescore_once(release_dir: Path, db: Path) -> tuple[float, float, object]:
    """Seconds (wall clock, then this process's CPU) of reading the release and
    rescoring every run of ``db``; the summary."""
    from medrcube_desktop.evaluation.release_read import read_release
    from medrcube_desktop.evaluation.rescore import rescore_runs
    from medrcube_desktop.store import StudyStore

    store = StudyStore(db)
    try:
        start, cpu = time.perf_counter(), time.process_time()
        summary = rescore_runs(store, read_release(release_dir, check_files=False))
        return time.perf_counter() - start, time.process_time() - cpu, summary
    finally:
        store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=33)
    parser.add_argument("--items", type=int, default=7626)
    parser.add_argument("--corrections", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        release, db = write_study(folder, args.items, args.runs, args.corrections)
        times, cpus = [], []
        for n in range(3):
            copy = folder / f"copy-{n}.db"
            shutil.copy(db, copy)
            seconds, cpu, summary = rescore_once(release, copy)
            times.append(seconds)
            cpus.append(cpu)
        again, _, _ = rescore_once(release, copy)  # every run already rescored: kept
    runs = summary.runs  # type: ignore[attr-defined]
    scored = sum(r.scored for r in runs)
    print(f"{args.runs} runs x {args.items:,} items, {args.corrections} corrections: "
          f"{len(runs)} runs rescored, {scored:,} answers scored, "
          f"{sum(r.key_changed for r in runs):,} key changes, {sum(r.retired for r in runs):,} "
          f"retired answers dropped, {sum(len(r.needs_new_answer) for r in runs):,} waiting")  # fmt: skip
    best = min(times)
    print(f"{'read the release + rescore every run':>40}: {best * 1000:8.1f} ms "
          f"(target {TARGET_S * 1000:.0f} ms)")  # fmt: skip
    print(f"{'of which this process on a CPU':>40}: {min(cpus) * 1000:8.1f} ms (the rest: "
          "waiting for the disk and for a core)")  # fmt: skip
    print(f"{'rescore again (every run kept)':>40}: {again * 1000:8.1f} ms")
    return 0 if best <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
