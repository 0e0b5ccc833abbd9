"""A command started with stdout or stderr closed (``>&-``, ``2>&-``): every writer
works (a guard over the null device stands in), the job finishes, and what was printed
to a closed stdout is said lost (status 1) on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import dicom_file, item, write_benchmark

EXIT_BOUND_S = 60  # a bound on a hang, not a timing


@pytest.fixture
def bench(tmp_path):
    records = [item(f"q{n:02d}") for n in range(3)]
    return write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def run_with_closed(fd: int, args: list[str]) -> subprocess.CompletedProcess:
    """Run the CLI with descriptor ``fd`` closed before Python starts (``>&-`` for 1,
    ``2>&-`` for 2), the other one captured."""
    captured = {"stdout": subprocess.PIPE} if fd == 2 else {"stderr": subprocess.PIPE}
    try:
        return subprocess.run(
            [sys.executable, "-m", "medrcube_desktop", *args],
            stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(fd),  # noqa: PLW1509
            timeout=EXIT_BOUND_S, text=True, check=False, **captured,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[0]} with descriptor {fd} closed did not exit (a hang)")


def test_render_batch_with_stderr_closed_finishes_and_writes_its_files(bench, tmp_path):
    out = tmp_path / "out"
    done = run_with_closed(2, ["render-batch", str(bench), "--out", str(out)])
    assert done.returncode == 0
    assert "NoneType" not in done.stdout
    assert done.stdout.strip() == f"3 items rendered to {out}, 0 failed"
    assert sorted(p.name for p in (out / "ds1").iterdir()) == ["q00.png", "q01.png", "q02.png"]


def test_deep_validate_with_stderr_closed_finishes(bench):
    done = run_with_closed(2, ["validate", str(bench), "--deep"])
    assert done.returncode == 0
    assert "NoneType" not in done.stdout
    assert done.stdout.startswith("3 loadable items, 0 problems")


def test_validate_json_with_stdout_closed_says_the_output_was_lost(bench):
    done = run_with_closed(1, ["validate", str(bench), "--json"])
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "medrcube-desktop: stdout is closed: the output was lost"
    )


def test_the_same_command_with_stdout_open_prints_its_json(bench):
    done = subprocess.run(
        [sys.executable, "-m", "medrcube_desktop", "validate", str(bench), "--json"],
        capture_output=True, text=True, timeout=EXIT_BOUND_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert isinstance(json.loads(done.stdout), dict)  # the output the closed case loses
