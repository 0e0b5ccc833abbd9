"""tune_malloc keeps the pages a render frees in the process: the minor page faults of
a render-like allocation pattern (three arrays of 1-1.5 MiB, written, freed) counted by
the kernel (getrusage) in a fresh interpreter, with and without it. Counts, not times."""

import os
import subprocess
import sys

import pytest

from medrcube_desktop.core import malloc_tuning

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not malloc_tuning._is_glibc(),
    reason="glibc's allocator only",
)

STEPS = """
import resource, sys
import numpy as np
from medrcube_desktop.core.malloc_tuning import tune_malloc, tuned as now_tuned
assert not now_tuned()
tuned = tune_malloc() if sys.argv[1] == "tune" else None
assert now_tuned() is (tuned is True)
def step():  # a 512x512 render's sizes: pixels, RGBA, temporaries, each written
    a = np.ones(1 << 20, np.uint8)
    b = np.ones(1 << 20, np.uint8)
    c = np.ones(3 << 19, np.uint8)
    del a, b, c
for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    step()
print(tuned, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 20)
"""


def _run(arg: str, **env: str) -> tuple[str, float]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    environ.pop("GLIBC_TUNABLES", None)
    environ.update(env)
    done = subprocess.run(
        [sys.executable, "-c", STEPS, arg], capture_output=True, text=True, env=environ,
        check=True, timeout=120,
    )  # fmt: skip
    tuned, faults = done.stdout.split()
    return tuned, float(faults)


def test_without_tuning_the_freed_pages_go_back_and_fault_again():
    # the behaviour the tuning exists for: 3.5 MiB freed at the heap's top passes glibc's
    # dynamic trim threshold (2 x 1.5 MiB), so each step takes its ~900 pages again
    tuned, faults = _run("plain")
    assert tuned == "None" and faults > 500


def test_tuned_the_pages_stay_and_nothing_faults():
    tuned, faults = _run("tune")
    assert tuned == "True" and faults < 20


def test_the_users_own_glibc_setting_stands():
    tuned, faults = _run("tune", MALLOC_TRIM_THRESHOLD_="1000000")
    assert tuned == "False" and faults > 500  # theirs (1 MB) still trims
    tuned, _ = _run("tune", GLIBC_TUNABLES="glibc.malloc.trim_threshold=1000000")
    assert tuned == "False"


def test_the_app_entry_point_tunes_first(monkeypatch):
    from medrcube_desktop.cli import app

    calls = []
    monkeypatch.setattr(app, "tune_malloc", lambda: calls.append("tuned"))
    monkeypatch.setattr(app, "_main", lambda argv: calls.append("main") or 0)
    assert app.main(["--version"]) == 0
    assert calls == ["tuned", "main"]
