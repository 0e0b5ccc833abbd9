"""The seam between a speed benchmark (tests/benchmarks/bench_import.py) and whoever reads
its output: the figure is printed with its target and a verdict word (``ok`` or ``ABOVE
TARGET``, as every other benchmark prints it) that agrees with the figure and with the
exit status, so a run above target does not end in a bare exit 1. Not timed: either
verdict passes, only their agreement is checked."""

from __future__ import annotations

import re
import sys

from tests.benchmarks import bench_import


def test_bench_import_prints_a_verdict_that_agrees_with_its_figure(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_import.py", "--runs", "1", "--items", "12"])
    status = bench_import.main()
    last = capsys.readouterr().out.strip().splitlines()[-1]
    found = re.fullmatch(
        r"at this rate the paper's 33 runs x 7,626 items: ([0-9.]+) s "
        r"\(target <= 10 s: (ok|ABOVE TARGET)\)",
        last,
    )
    assert found, last
    within = float(found.group(1)) <= bench_import.TARGET_S
    assert found.group(2) == ("ok" if within else "ABOVE TARGET")
    assert status == (0 if within else 1)
