"""Benchmark: a whole evaluation run with pictures against an endpoint with a fixed
latency, beside the public MedRCube evaluator's way of doing it (issue 11).

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_evaluate.py [--items 400] [--latency 0.25]
        [--concurrency 16 32] [--items-per-image 1] [--text-only]
        [--ablation blank swapped noise]

Builds ``--items`` items on PNGs of 512², 768² and 1024² pixels, 8- and 16-bit in
turn (a synthetic phantom: ellipses, a gradient and noise; 16-bit ones are windowed,
8-bit ones can be sent as stored), and starts the test suite's OpenAI-compatible server
in its own process, answering every request after ``--latency`` seconds. Then, each from
the same start (the image cache empty, nothing imported that the run needs):

- **ours**: ``run_evaluation`` with the ``openai`` engine at each ``--concurrency``,
  timed from the call to the last stored answer, which includes starting the image
  workers; then again with the cache the first run left (a second model on the same
  benchmark);
- **public**: what the public ``run_eval.py`` does, as issue 11 describes it: 10
  threads, batches of 20 items (each batch waits for its slowest), every image opened
  with Pillow, converted to RGB and sent as a JPEG of quality 95, temperature 0.1 and
  1024 new tokens, with the openai client.

``--ablation MODE...`` (issue 24): at the largest concurrency, each ablation run of the
same items, once after the image run (its cache, the usual order) and once from an empty
cache, against the image run from an empty cache.

Targets (issue 11): ours at least 60% of concurrency / latency, start-up included, and
at least 3x faster than the public way; issue 24: an ablation run costs no more than its
image run (at most :data:`ABLATION_SLACK` of it, for timing noise). It prints prepare time, queue wait and endpoint
time apart; exits 1 when a target is missed at the largest concurrency.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import io
import json
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TARGET_SHARE = 0.6
ABLATION_SLACK = 1.1
TARGET_SPEEDUP = 3.0
SIDES = (512, 768, 1024)


def phantom(side: int, sixteen_bit: bool, seed: int):
    """A CT-like phantom: nested ellipses with a gradient and Gaussian noise (1% of
    range), 12 bits stored in 16 or scaled to 8."""
    import numpy as np

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[-1 : 1 : side * 1j, -1 : 1 : side * 1j]
    image = np.zeros((side, side))
    for _ in range(6):
        cx, cy, ax, ay = rng.uniform(-0.5, 0.5, 2).tolist() + rng.uniform(0.1, 0.6, 2).tolist()
        image += rng.uniform(0.1, 0.4) * (((x - cx) / ax) ** 2 + ((y - cy) / ay) ** 2 <= 1)
    image += 0.2 * (x + 1) + rng.normal(0, 0.01, image.shape)
    image = np.clip(image / image.max(), 0, 1)
    return (image * 4095).astype(np.uint16) if sixteen_bit else (image * 255).astype(np.uint8)


def build_benchmark(root: Path, items: int, per_image: int) -> Path:
    from PIL import Image

    folder = root / "bench" / "ds"
    (folder / "images").mkdir(parents=True)
    records = []
    for n in range(items):
        number = n // per_image
        path = folder / "images" / f"{number}.png"
        if not path.exists():
            Image.fromarray(phantom(SIDES[number % 3], number % 2 == 1, number)).save(path)
        records.append(
            {
                "id": f"b{n}",
                "question": f"What is the imaging modality of image {number}? (#{n})",
                "option_A": "CT", "option_B": "MRI", "option_C": "X-ray", "option_D": "US",
                "gt_answer": "CT",
                "image_path": f"images/{number}.png",
                "task": "Modality Recognition", "modality": "CT", "parts": "Abdomen",
                "dataset": "ds",
            }
        )  # fmt: skip
    (folder / "test.json").write_text(json.dumps(records))
    return root / "bench"


def _serve(latency: float, ready) -> None:
    from tests.llm.fake_openai import FakeOpenAI

    with FakeOpenAI(latency_s=latency) as fake:
        ready.put(fake.base_url)
        fake.thread.join()


def ours(
    items, base_url: str, concurrency: int, cache: Path, text_only: bool, mode: str = "image"
) -> dict:
    """One run of ours (``mode``: the image mode); seconds and where the time went."""
    os.environ["MEDRCUBE_IMAGE_CACHE"] = str(cache)
    from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
    from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record
    from medrcube_desktop.store import StudyStore

    with tempfile.TemporaryDirectory() as tmp:
        store = StudyStore(Path(tmp) / "bench.db")
        engine = OpenAIEngine("bench", [base_url], "not-needed", concurrency=concurrency)
        images = ImageOptions(text_only=text_only, mode="text-only" if text_only else mode)
        record = run_record("bench", engine, "bench", images, "bench")
        start, cpu = time.perf_counter(), time.process_time()
        state = run_evaluation(items, store, record, engine, images)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        store.close()
    assert state.answered == len(items) and not state.failed, state.failed[:3]
    stats = state.images
    return {
        "seconds": elapsed,
        "client_cpu_s": cpu,
        "prepare_s": stats.prepare_s,
        "wait_s": stats.wait_s,
        "endpoint_s": state.endpoint_s,
        "images": (stats.original, stats.rendered, stats.cached),
    }


def public(items, base_url: str) -> float:
    """The public evaluator's way (issue 11): 10 threads, batches of 20, JPEG q95."""
    from openai import OpenAI
    from PIL import Image

    client = OpenAI(api_key="not-needed", base_url=base_url)

    def ask(item) -> str:
        with Image.open(item.image_path) as image:
            rgb = image.convert("RGB")
        buffer = io.BytesIO()
        rgb.save(buffer, format="JPEG", quality=95)
        data = base64.b64encode(buffer.getvalue()).decode()
        reply = client.chat.completions.create(
            model="bench",
            messages=[{"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": f"data:image/jpeg;base64,{data}"}},
                {"type": "text", "text": item.question},
            ]}],
            temperature=0.1,
            max_tokens=1024,
        )  # fmt: skip
        return reply.choices[0].message.content or ""

    start = time.perf_counter()
    with ThreadPoolExecutor(10) as pool:
        for first in range(0, len(items), 20):
            list(pool.map(ask, items[first : first + 20]))
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.25, help="seconds per reply")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--items-per-image", type=int, default=1)
    parser.add_argument("--text-only", action="store_true")
    parser.add_argument("--ablation", nargs="*", default=[], choices=("blank", "swapped", "noise"))
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    ready = context.Queue()
    server = context.Process(target=_serve, args=(args.latency, ready), daemon=True)
    server.start()
    base_url = ready.get(timeout=30)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        from medrcube_desktop.core.dataset import load_benchmark

        items = load_benchmark(build_benchmark(root, args.items, args.items_per_image)).items
        items = [dataclasses.replace(item) for item in items]
        images = len({item.image_path for item in items})
        print(f"{len(items)} items on {images} images (512²-1024², 8- and 16-bit PNG), "
              f"endpoint latency {args.latency:g} s, {os.cpu_count()} CPU cores")  # fmt: skip
        results = []
        for concurrency in args.concurrency:
            cache = root / f"cache-{concurrency}"
            cold = ours(items, base_url, concurrency, cache, args.text_only)
            warm = ours(items, base_url, concurrency, cache, args.text_only)
            ideal = len(items) * args.latency / concurrency
            for label, run in (("cold cache", cold), ("warm cache", warm)):
                original, rendered, cached = run["images"]
                print(
                    f"ours, concurrency {concurrency}, {label}: {run['seconds']:.2f} s "
                    f"({ideal / run['seconds']:.0%} of concurrency/latency, ideal {ideal:.2f} s); "
                    f"images {original} as stored, {rendered} rendered, {cached} cached; "
                    f"prepare {run['prepare_s']:.2f} s of worker time, queue wait "
                    f"{run['wait_s']:.2f} s, endpoint {run['endpoint_s']:.1f} s summed; "
                    f"client process {run['client_cpu_s']:.2f} s of CPU"
                )
            results.append((concurrency, cold, ideal))
        ablation_ok = True
        concurrency, cold, _ = results[-1]
        for mode in args.ablation:
            after = ours(items, base_url, concurrency, root / f"cache-{concurrency}", False, mode)
            alone = ours(items, base_url, concurrency, root / f"cache-{mode}", False, mode)
            for label, run in (("after the image run", after), ("empty cache", alone)):
                ratio = run["seconds"] / cold["seconds"]
                ablation_ok &= ratio <= ABLATION_SLACK
                print(
                    f"{mode}, concurrency {concurrency}, {label}: {run['seconds']:.2f} s, "
                    f"{ratio:.2f}x the image run's {cold['seconds']:.2f} s (target <= "
                    f"{ABLATION_SLACK:g}x); prepare {run['prepare_s']:.2f} s of worker time, "
                    f"queue wait {run['wait_s']:.2f} s; client {run['client_cpu_s']:.2f} s CPU"
                )
        baseline = public(items, base_url)
        print(f"public evaluator's way (10 threads, batches of 20, JPEG q95): {baseline:.2f} s")
    server.terminate()
    concurrency, cold, ideal = results[-1]
    share, speedup = ideal / cold["seconds"], baseline / cold["seconds"]
    print(
        f"at concurrency {concurrency}, cold cache: {share:.0%} of concurrency/latency "
        f"(target >= {TARGET_SHARE:.0%}), {speedup:.1f}x the public way "
        f"(target >= {TARGET_SPEEDUP:g}x)"
    )
    return 0 if share >= TARGET_SHARE and speedup >= TARGET_SPEEDUP and ablation_ok else 1


if __name__ == "__main__":
    sys.exit(main())
