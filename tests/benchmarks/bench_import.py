"""Benchmark: ``import-run`` of many public ``results.json`` files (issue 25 item 1).

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_import.py [--runs 8] [--items 1215]

Writes a benchmark of ``--items`` items (the public ``test.json`` layout, no pictures:
``import-run`` never opens them) and ``--runs`` results files in the public evaluator's
layout (each item record with ``model_response`` and ``correct``), the answers a mix of
what models give (a bare letter for most; "B. MRI", "The answer is (C).", a reasoning
paragraph, an empty answer, a repeated record and an id not in the benchmark now and
then). Then it runs the ``import-run`` command itself (``medrcube_desktop.cli``, in this
process: the benchmark load, every file read, matched, re-parsed and stored) and prints
its wall and CPU seconds against the floor, ``json.load`` of the same files, measured in
the same run. Target (issue 25): the paper's 33 runs x 7,626 items in <= 10 s, i.e. a
record in <= 10 s / 251,658; exit 1 above it (the rate at ``--runs x --items``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

PAPER_RECORDS = 33 * 7626
TARGET_S = 10.0
TASKS = ("Modality Recognition", "View Identification", "Organ Recognition",
         "Abnormity Diagnosis", "Disease Diagnosis", "Severity Grading")  # fmt: skip


def build_benchmark(root: Path, n_items: int) -> list[dict]:
    """``n_items`` items in 3 dataset folders; the records (as test.json holds them)."""
    records = []
    for n in range(n_items):
        k = 2 + n % 3
        record = {"id": f"ds{n % 3}-{n}", "question": f"Which finding is shown in image {n}?"}
        for letter in "ABCD"[:k]:
            record[f"option_{letter}"] = f"finding {letter.lower()} of {n}"
        record.update(gt_answer=record[f"option_{'ABCD'[n % k]}"],
                      image_path=f"images/{n}.png", task=TASKS[n % len(TASKS)],
                      modality="CT", parts="Chest", dataset=f"ds{n % 3}")  # fmt: skip
        records.append(record)
    for d in range(3):
        folder = root / "bench" / f"ds{d}"
        folder.mkdir(parents=True)
        (folder / "test.json").write_text(
            json.dumps([r for r in records if r["dataset"] == f"ds{d}"])
        )
    return records


def answer(rng: random.Random, record: dict) -> str:
    letters = [k[-1] for k in record if k.startswith("option_")]
    letter = rng.choice(letters)
    roll = rng.random()
    if roll < 0.70:
        return letter
    if roll < 0.80:
        return f"{letter}. {record['option_' + letter]}"
    if roll < 0.88:
        return f"The answer is ({letter})."
    if roll < 0.98:
        return (f"Looking at the image, the {record['modality']} slice of the "
                f"{record['parts'].lower()} shows {record['option_' + letter]}; the other "
                f"findings are not seen. Answer: {letter}")  # fmt: skip
    return ""


def write_results(root: Path, records: list[dict], n_runs: int) -> list[Path]:
    paths = []
    for r in range(n_runs):
        rng = random.Random(r)
        out = []
        for record in records:
            response = answer(rng, record)
            out.append({**record, "image_path": f"/data/{record['image_path']}",
                        "model_response": response,
                        "correct": response[:1] == "ABCD"[0]})  # fmt: skip
        out.append({**out[0]})  # a repeated record (same answer: stored once)
        out.append({**out[1], "id": "not-in-this-benchmark"})
        path = root / "results" / f"model-{r}" / "results.json"
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(out, indent=2))
        paths.append(path)
    return paths


def _children_cpu() -> float:
    """User and system seconds of this process's finished child processes."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8, help="results files (%(default)s)")
    parser.add_argument("--items", type=int, default=1215, help="items a file (%(default)s)")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the import here")
    args = parser.parse_args()
    from medrcube_desktop.cli.app import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        records = build_benchmark(root, args.items)
        paths = write_results(root, records, args.runs)
        start, cpu = time.perf_counter(), time.process_time()
        for path in paths:
            with path.open("rb") as f:
                json.load(f)
        floor, floor_cpu = time.perf_counter() - start, time.process_time() - cpu
        argv = ["import-run", "--db", str(root / "s.db"), "--dataset", str(root / "bench"),
                "--json", str(root / "results")]  # fmt: skip
        out = io.StringIO()
        profiler = None
        if args.profile:
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        start, cpu, workers = time.perf_counter(), time.process_time(), _children_cpu()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            status = cli(argv)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        workers = _children_cpu() - workers  # the processes reading files ahead
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        summary = json.loads(out.getvalue())
    n = args.runs * (args.items + 2)
    assert status == 1 and summary["stored"] == args.runs * args.items, (status, summary["stored"])
    per_record = seconds / n
    paper = per_record * PAPER_RECORDS
    print(f"import-run, {args.runs} public results.json x {args.items} items ({n:,} records): "
          f"{seconds:.2f} s ({cpu + workers:.2f} s CPU: {cpu:.2f} s this process, {workers:.2f} s "
          f"its workers), {seconds / args.runs:.3f} s a file; "
          f"floor (json.load of the files) {floor:.3f} s ({floor_cpu:.3f} s CPU), "
          f"{seconds / floor:.0f}x the floor")  # fmt: skip
    verdict = "ok" if paper <= TARGET_S else "ABOVE TARGET"
    print(
        f"at this rate the paper's 33 runs x 7,626 items: {paper:.1f} s "
        f"(target <= {TARGET_S:g} s: {verdict})"
    )
    return 0 if paper <= TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
