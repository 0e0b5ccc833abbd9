"""``--screenshot`` goes through the guarded writer: never over the study database or a
benchmark's file (issue 21: `--screenshot study.db` replaced the database, exit 0)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

import pytest


def _window(ct_benchmark, db, shot):
    return subprocess.run(
        [sys.executable, "-m", "medrcube_desktop", "--dataset", str(ct_benchmark), "--db",
         str(db), "--reviewer", "dr-a", "--screenshot", str(shot), "--quit-after-ms", "200"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("target", ["study", "test.json", "image"])
def test_a_screenshot_never_replaces_the_study_or_the_benchmark(ct_benchmark, tmp_path, target):
    db = tmp_path / "study.db"
    with sqlite3.connect(db) as con:
        con.execute("create table keep (x)")
    shot = {
        "study": db,
        "test.json": ct_benchmark / "ds1" / "test.json",
        "image": ct_benchmark / "ds1" / "images" / "ct.dcm",
    }[target]
    before = shot.read_bytes()[:16]
    result = _window(ct_benchmark, db, shot)
    assert result.returncode != 0
    assert str(shot) in result.stderr and "not written over" in result.stderr
    assert shot.read_bytes()[:16] == before
    assert db.read_bytes()[:16] == b"SQLite format 3\x00"
