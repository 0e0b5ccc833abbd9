"""Benchmark: several endpoints routed by image against the servers in turn (issue 25
item 5), with servers that model a prefix cache.

Run by hand or from report.py (not collected by pytest):

    .venv/bin/python tests/benchmarks/bench_routing.py [--servers 3] [--images 120]
        [--questions 3] [--concurrency 24] [--cache 16]

Each stub server (the test suite's OpenAI-compatible server, one per ``--base-url``)
keeps the last ``--cache`` images it was sent (an LRU, as vLLM's automatic prefix
caching keeps the KV blocks of recent prompts) and answers after ``--hit`` seconds when
the image's tokens are in its cache, ``--miss`` seconds when it must prefill them (the
image's tokens dominate a MedRCube prompt). The ``openai`` engine answers ``--images`` x
``--questions`` requests (an image's questions one after another, as the runner hands
them over after the image's one preparation) at ``--concurrency``: once routed by image (the default), once with the
servers in turn (routing switched off), each from cold caches. It prints wall seconds,
prefix-cache hit rate and the gain; exit 1 when routing is not faster.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def cache_server(capacity: int, hit_s: float, miss_s: float):
    """A FakeOpenAI whose reply delay is ``hit_s`` for an image in its LRU, else ``miss_s``."""
    from tests.llm.fake_openai import FakeOpenAI, Reply

    class PrefixCacheServer(FakeOpenAI):
        def __init__(self) -> None:
            super().__init__()
            self.cache: OrderedDict[str, None] = OrderedDict()
            self.hits = self.misses = 0

        def _reply_for(self, body: dict):
            _, user = super()._reply_for(body)
            image = body["messages"][0]["content"][0]["image_url"]["url"]
            with self.lock:
                hit = image in self.cache
                self.cache[image] = None
                self.cache.move_to_end(image)
                while len(self.cache) > capacity:
                    self.cache.popitem(last=False)
                self.hits += hit
                self.misses += not hit
            return Reply(content="B", delay_s=hit_s if hit else miss_s), user

    return PrefixCacheServer()


def _serve(n: int, capacity: int, hit_s: float, miss_s: float, urls, stop, hits) -> None:
    """In a process of its own (the client's CPU and GIL are the client's): ``n`` servers;
    their base URLs put on ``urls``; once ``stop`` is set, their hit count on ``hits``."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    servers = [cache_server(capacity, hit_s, miss_s) for _ in range(n)]
    for server in servers:
        server.__enter__()
    urls.put([server.base_url for server in servers])
    stop.wait()
    hits.put(sum(server.hits for server in servers))
    for server in servers:
        server.__exit__(None, None, None)


def one_run(args, routed: bool) -> tuple[float, float]:
    """Wall seconds and hit rate of one run from cold caches."""
    import multiprocessing

    from medrcube_desktop.evaluation.engines import openai_engine
    from medrcube_desktop.evaluation.engines.base import EvalRequest
    from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine

    requests = [
        EvalRequest(f"i{i}-q{q}", f"Question {q} on image {i}?", b"\x89PNG" + i.to_bytes(4, "big"))
        for i in range(args.images)
        for q in range(args.questions)
    ]  # an image's questions together, as the runner hands them over (one preparation)
    context = multiprocessing.get_context("spawn")
    urls, hits, stop = context.Queue(), context.Queue(), context.Event()
    server = context.Process(
        target=_serve,
        args=(args.servers, args.cache, args.hit, args.miss, urls, stop, hits),
        daemon=True,
    )
    server.start()
    saved = openai_engine.image_affinity
    if not routed:
        openai_engine.image_affinity = lambda request: None  # the servers in turn
    try:
        engine = OpenAIEngine("m", urls.get(timeout=60), "k", concurrency=args.concurrency)
        answers: list = []
        start = time.perf_counter()
        engine.run(requests, answers.append, threading.Event())
        seconds = time.perf_counter() - start
    finally:
        openai_engine.image_affinity = saved
        stop.set()
    rate = hits.get(timeout=60) / len(requests)
    server.join(10)
    assert len(answers) == len(requests) and not any(a.error for a in answers)
    return seconds, rate


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--images", type=int, default=120)
    parser.add_argument("--questions", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=24)
    parser.add_argument("--cache", type=int, default=16, help="images in a server's cache")
    parser.add_argument("--hit", type=float, default=0.05, help="seconds, image cached")
    parser.add_argument("--miss", type=float, default=0.25, help="seconds, image prefilled")
    args = parser.parse_args()
    n = args.images * args.questions
    # the best possible: each image prefilled once (its first question), the rest hits
    ideal_hits = 1 - args.images / n
    print(f"{args.servers} servers, {args.images} images x {args.questions} questions, "
          f"concurrency {args.concurrency}, each server's prefix cache {args.cache} images, "
          f"{args.hit:g} s a hit, {args.miss:g} s a miss")  # fmt: skip
    figures = {}
    for label, routed in (("routed by image", True), ("servers in turn", False)):
        seconds, rate = one_run(args, routed)
        figures[label] = seconds
        print(f"  {label:16s}: {seconds:6.2f} s, prefix-cache hits {rate:.0%} "
              f"(at most {ideal_hits:.0%})")  # fmt: skip
    gain = figures["servers in turn"] / figures["routed by image"]
    print(f"  routing by image: {gain:.2f}x faster than the servers in turn (target > 1)")
    return 0 if gain > 1 else 1


if __name__ == "__main__":
    sys.exit(main())
