"""Every speed figure an issue names, printed in one run: what CI's second command ends
with, so each submission shows them (issue 15: "benchmarks ... run as part of CI's second
command or printed by it").

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/report.py

Each benchmark runs in its own process (its own Qt application, its own temporary
folders) and prints its figures against its target and baseline. This script then
prints one line per benchmark, "ok" or "ABOVE TARGET", and exits 0 either way: a figure
above its target is a finding to read, reported where it is seen; the gate of a
submission is the test suite. It exits 1 only when a benchmark could not run at all
(crashed or timed out), since then no figure was seen.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

BENCHMARKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("bench_open.py", ("--repeat", "2")),  # issue 15 item 1: opening a benchmark
    ("bench_next_item.py", ()),  # issue 15 item 2: next item, render against decode
    ("bench_render.py", ()),  # issue 3/15: render time per format
    ("bench_compare.py", ()),  # issue 14: 33 runs x 7,626 items
    ("bench_parse.py", ()),  # issue 13: answer parsing linear in the answer's length
    ("bench_release.py", ()),  # issue 23: a release of 7,626 items, 300 corrections
    ("bench_import.py", ("--runs", "33", "--items", "7626")),  # issue 25 item 1: import-run
    ("bench_first_paint.py", ()),  # issue 25 item 4: launch -> window -> first image
    ("bench_evaluate.py", ("--concurrency", "32")),  # issues 11/25 item 2: a run with pictures
    ("bench_routing.py", ()),  # issue 25 item 5: several endpoints routed by image
    ("bench_rescore.py", ()),  # issue 23: rescoring 33 runs x 7,626 items on a release
)
"""Each benchmark script and its arguments."""

TIMEOUT_S = 600
"""A benchmark that runs longer than this is stopped and counted as not run."""


def main() -> int:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(HERE.parents[1]), os.environ.get("PYTHONPATH", "")])
    )
    summary, broken = [], 0
    for script, args in BENCHMARKS:
        print(f"\n=== {script} {' '.join(args)}", flush=True)
        started = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, str(HERE / script), *args], env=env, timeout=TIMEOUT_S
            )
            outcome = {0: "ok", 1: "ABOVE TARGET"}.get(done.returncode)
            if outcome is None:
                outcome, broken = f"did not run (exit status {done.returncode})", broken + 1
        except subprocess.TimeoutExpired:
            outcome, broken = f"did not run (over {TIMEOUT_S} s)", broken + 1
        summary.append(f"  {script:22s} {outcome}  ({time.monotonic() - started:.0f} s)")
    print("\n=== benchmark summary", *summary, sep="\n")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
