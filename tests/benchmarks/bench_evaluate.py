"""Benchmark: the ``openai`` evaluation engine's throughput against a fixed latency.

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_evaluate.py [--items 320] [--latency 0.5]
        [--concurrency 16]

Starts the test suite's OpenAI-compatible server in its own process, answering every
request after ``--latency`` seconds, and runs the engine text-only over ``--items``
items (so the engine, not image rendering, is measured). Issue 7 asks for at least 80%
of concurrency / latency requests per second. Exits 1 when slower.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine  # noqa: E402
from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record  # noqa: E402
from medrcube_desktop.store import ReviewStore  # noqa: E402
from tests.benchmarks.bench_judge import setup  # noqa: E402

TARGET_SHARE = 0.8


def main() -> int:
    args, benchmark_items, server, base_url = setup(__doc__.splitlines()[0])
    with tempfile.TemporaryDirectory() as tmp:
        store = ReviewStore(Path(tmp) / "bench.db")
        engine = OpenAIEngine("bench", [base_url], "not-needed", concurrency=args.concurrency)
        images = ImageOptions(text_only=True)
        record = run_record("bench", engine, "bench", images, "bench")
        start = time.perf_counter()
        state = run_evaluation(benchmark_items, store, record, engine, images)
        elapsed = time.perf_counter() - start
        store.close()
    server.terminate()
    rate = state.answered / elapsed
    ideal = args.concurrency / args.latency
    print(
        f"{state.answered} items at concurrency {args.concurrency}, {args.latency:g} s latency: "
        f"{rate:.1f} requests/s, {rate / ideal:.0%} of {ideal:.1f} (target >= {TARGET_SHARE:.0%})"
    )
    return 0 if state.answered == args.items and rate >= TARGET_SHARE * ideal else 1


if __name__ == "__main__":
    sys.exit(main())
