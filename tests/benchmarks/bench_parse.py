"""Benchmark: time to read the chosen option out of a long answer.

Run by hand (not collected by pytest; speed targets live here, not in unit tests):

    .venv/bin/python tests/benchmarks/bench_parse.py [--chars 128000] [--baseline 1000]

Builds a model answer of ``--chars`` characters (reasoning prose full of the letters
a-d and option names, the letter B alone at the end, the shape of a runaway answer) and one
of ``--baseline`` characters the same way, times ``parse_answer`` on each (best of 3),
and prints both and their ratio against the ratio of lengths. Linear parsing makes the
two ratios about equal; exits 1 when the long answer takes over 1 s (the quadratic
parser took 63 s on 128,000 characters, on the engine's event loop).
"""

from __future__ import annotations

import argparse
import sys
import time

from medrcube_desktop.evaluation.parse import parse_answer

OPTIONS = {"A": "Axial", "B": "Coronal", "C": "Sagittal", "D": "Oblique"}
TARGET_S = 1.0

PROSE = (
    "Looking at the image, a bright band runs across the abdomen and the liver lies to "
    "the left of the screen; the vertebral body is cut across, so it could be an axial "
    "slice, but the kidneys and the aorta appear side by side, which is typical of a "
    "coronal view. A round cross-section would be seen on the other planes. "
)
"""Reasoning without an answer phrase: every rule up to the letter standing alone reads
the whole text (the slowest path, where the quadratic parser spent its minute)."""


def answer(chars: int) -> str:
    """A reasoning answer of about ``chars`` characters ending in its choice."""
    body = (PROSE * (chars // len(PROSE) + 1))[: max(0, chars - 12)]
    return body + "\nB"


def best_of(text: str, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        parse_answer(text, OPTIONS)
        times.append(time.perf_counter() - started)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=128_000)
    parser.add_argument("--baseline", type=int, default=1_000)
    args = parser.parse_args(argv)
    base_s = best_of(answer(args.baseline))
    long_s = best_of(answer(args.chars))
    print(f"{args.baseline:>9,} characters: {base_s * 1000:9.2f} ms")
    print(f"{args.chars:>9,} characters: {long_s * 1000:9.2f} ms")
    print(
        f"time ratio {long_s / base_s:.1f} for a length ratio of {args.chars / args.baseline:.1f} "
        f"(linear: about equal); target under {TARGET_S:g} s"
    )
    return 0 if long_s < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
