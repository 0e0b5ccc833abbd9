"""SIGKILL in the middle of scoring: committed reviews and the last saved draft survive."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ui.review.test_review_binding_window import open_window

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")
def test_sigkill_mid_scoring_loses_at_most_the_keystroke_in_flight(qtbot, ct_benchmark, tmp_path):
    db = tmp_path / "study.db"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.ui.crash_session", str(ct_benchmark), str(db)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    steps = []
    try:
        for line in child.stdout:
            if line.startswith("STEP "):
                _, number, kind, payload = line.split(" ", 3)
                steps.append((int(number), kind, json.loads(payload)))
            if len(steps) >= 25:
                break
        os.kill(child.pid, signal.SIGKILL)  # mid-sequence: it is still toggling
    finally:
        child.kill()
        child.wait(10)
    assert child.returncode == -signal.SIGKILL
    assert steps[0][1:] == ("committed", ["ct-1"])

    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert raw.execute("SELECT item_id, revision FROM reviews").fetchall() == [("ct-1", 1)]
    (stored,) = raw.execute("SELECT scores FROM drafts WHERE item_id = 'ct-2'").fetchone()
    stored = json.loads(stored)
    last = steps[-1][2]["scores"]
    # The draft is the last reported one, or one keystroke later (in flight at the kill).
    differing = [rule for rule in last if last[rule] != stored[rule]]
    assert len(differing) <= 1, (last, stored)
    raw.close()

    window, _ = open_window(qtbot, ct_benchmark, db, reviewer="dr-k")
    assert window.session.current.id == "ct-2"  # back on the item it was scoring
    shown = {rule: window.session.draft.scores[rule] for rule in stored}
    assert shown == stored
    assert window.progress_label.text().startswith("1 of 2 reviewed")
