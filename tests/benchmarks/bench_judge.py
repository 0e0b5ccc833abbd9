"""Benchmark: judging throughput against a local endpoint with a fixed latency.

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_judge.py [--items 320] [--latency 0.5]
        [--concurrency 16]

Starts the test suite's OpenAI-compatible server (tests/llm/fake_openai.py), which
answers every request after ``--latency`` seconds, and judges ``--items`` items with the
real openai client. The ideal time is items × latency / concurrency; issue 5 asks for no
more than 1.25 × that at concurrency 16. Exits 1 when the run is slower.
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from medrcube_desktop.llm.judge import JudgeConfig, run_judge  # noqa: E402
from medrcube_desktop.store import StudyStore  # noqa: E402
from tests.benchmarks.bench_commit import items  # noqa: E402
from tests.llm.fake_openai import FakeOpenAI  # noqa: E402

TARGET_RATIO = 1.25


def _serve(latency: float, ready) -> None:
    with FakeOpenAI(latency_s=latency) as fake:
        ready.put(fake.base_url)
        fake.thread.join()


def setup(description: str):
    """Parse ``--items --latency --concurrency``; start the server in its own process (in
    this one it would compete for the GIL with the client being measured) and import
    openai (about 0.4 s of start-up, not of the work measured).

    Returns (args, items with distinct questions, server process, base URL).
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--items", type=int, default=320)
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per reply")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    benchmark_items = [  # distinct questions, as in a real benchmark
        dataclasses.replace(item, question=f"{item.question} (#{n})")
        for n, item in enumerate(items(args.items))
    ]
    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    server = context.Process(target=_serve, args=(args.latency, ready), daemon=True)
    server.start()
    base_url = ready.get(timeout=30)
    import openai  # noqa: F401

    return args, benchmark_items, server, base_url


def main() -> int:
    args, benchmark_items, server, base_url = setup(__doc__.splitlines()[0])

    with tempfile.TemporaryDirectory() as tmp:
        store = StudyStore(Path(tmp) / "bench.db")
        config = JudgeConfig(model="bench", base_url=base_url, concurrency=args.concurrency)
        start = time.perf_counter()
        summary = run_judge(benchmark_items, store, config, "not-needed")
        elapsed = time.perf_counter() - start
        store.close()
    server.terminate()
    ideal = args.items * args.latency / args.concurrency
    ratio = elapsed / ideal
    print(
        f"{summary.judged} items judged at concurrency {args.concurrency} with "
        f"{args.latency:g} s latency: {elapsed:.2f} s, ideal {ideal:.2f} s, "
        f"ratio {ratio:.3f} (target <= {TARGET_RATIO})"
    )
    return 0 if summary.judged == args.items and ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
