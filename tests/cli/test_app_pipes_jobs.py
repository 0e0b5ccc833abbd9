"""A reader of a job's output that leaves (``… 2>&1 | head -1``) cancels the job like
Ctrl+C: the command exits 1 soon, what was answered stays stored and resumes.

Before, the first write after the reader left raised ``BrokenPipeError`` in the job's
thread, inside tqdm's ``refresh`` (which holds its write lock without ``try``), and the
main thread waited for that lock for ever (``judge``, ``evaluate``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI

EXIT_BOUND_S = 60
"""Generous: the command stops at its next check; before the fix it never exited."""

N_ITEMS = 12
LATENCY_S = 0.3
"""Per request, so that the run is still going when the reader leaves (12 × 0.3 s)."""


@pytest.fixture
def bench(tmp_path):
    """Twelve items on a real CT slice, and one whose image is missing: the line it
    gets on stderr ("cannot be loaded") comes before the job starts."""
    records = [item(f"q{n:02d}", question=f"Modality of scan {n}?") for n in range(N_ITEMS)]
    records.append(item("zz-missing", image="images/missing.dcm"))
    return write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def run_piped_to_head(args: list[str]) -> tuple[int, str]:
    """Run the CLI with stdout and stderr on one pipe, read its first line and close
    the pipe (``2>&1 | head -1``); the exit status and that line.

    Fails the test when the command has not exited within :data:`EXIT_BOUND_S`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as in a shell
    env["OPENAI_API_KEY"] = "sk-test"
    child = subprocess.Popen(
        [sys.executable, "-m", "medrcube_desktop", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    first = child.stdout.readline().decode()
    child.stdout.close()
    try:
        status = child.wait(timeout=EXIT_BOUND_S)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        pytest.fail(f"{args[0]} did not exit within {EXIT_BOUND_S} s of its reader leaving")
    return status, first


def _evaluate(bench, db, url, *extra):
    return ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "openai",
            "--model", "m", "--base-url", url, "--run", "r", "--concurrency", "1",
            "--max-attempts", "1", *extra]  # fmt: skip


@pytest.mark.parametrize(
    "mode", [["--image-workers", "2"], ["--text-only"]], ids=["image-workers", "text-only"]
)
def test_evaluate_stops_when_its_reader_leaves_and_keeps_what_was_answered(bench, tmp_path, mode):
    db = tmp_path / "e.db"
    with FakeOpenAI(latency_s=LATENCY_S) as server:
        status, first = run_piped_to_head(_evaluate(bench, db, server.base_url, *mode))
        asked = len(server.requests)
    assert status == 1
    assert "cannot be loaded" in first
    store = StudyStore(db)
    try:
        stored = store.responses("r")
    finally:
        store.close()
    assert len(stored) < N_ITEMS  # cancelled, not run to the end with nobody reading
    assert len(stored) <= asked  # every stored answer is one the endpoint gave
    assert set(stored) <= {f"q{n:02d}" for n in range(N_ITEMS)}
    # resumable: a second run (read to the end) answers only what the first did not
    with FakeOpenAI() as server:
        done = subprocess.run(
            [sys.executable, "-m", "medrcube_desktop",
             *_evaluate(bench, db, server.base_url, *mode), "--json"],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "OPENAI_API_KEY": "sk-test"},
        )  # fmt: skip
        assert len(server.requests) == N_ITEMS - len(stored)
    summary = json.loads(done.stdout)
    assert (summary["n"], summary["skipped"]) == (N_ITEMS, len(stored))


def test_judge_stops_when_its_reader_leaves_and_keeps_what_was_judged(bench, tmp_path):
    db = tmp_path / "j.db"
    with FakeOpenAI(latency_s=LATENCY_S) as server:
        args = ["judge", "--dataset", str(bench), "--db", str(db), "--model", "jm"]
        args += ["--base-url", server.base_url, "--concurrency", "1", "--max-attempts", "1"]
        status, first = run_piped_to_head(args)
        asked = len(server.requests)
    assert status == 1
    assert first.strip()
    store = StudyStore(db)
    try:
        judged = store.judgments("jm")
    finally:
        store.close()
    assert len(judged) < N_ITEMS
    assert len(judged) <= asked
    assert all(j.error == "" or j.error is None for j in judged.values())


def test_validate_piped_to_head_with_stderr_on_the_same_pipe_exits_1(tmp_path):
    items = [
        item(f"i{k}", image=f"images/missing-{k}-with-a-long-name.png", gt_answer="zz")
        for k in range(3000)
    ]  # over 64 kB of problems: the pipe fills and the writes after the close fail
    root = write_benchmark(tmp_path / "bench", {"ds1": items})
    status, first = run_piped_to_head(["validate", str(root)])
    assert status == 1
    assert first.strip()
