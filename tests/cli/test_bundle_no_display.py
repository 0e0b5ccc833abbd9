"""``self-test`` with no display (the clinician trial: Qt aborted, status 134, naming
xcb-cursor0) and run again into the folder such a run left (it blamed "the demo")."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The self-test with its checks replaced by one that creates the QApplication the window
# check creates and says which platform Qt chose: the display handling is all that runs.
SELF_TEST_CREATING_QT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from medrcube_desktop.cli import bundle, main

def checks(out):
    from PySide6.QtWidgets import QApplication
    app = QApplication(["medrcube-desktop"])
    return {{"pixels": {{}}, "problems": [], "platform": app.platformName()}}

bundle._run_checks = checks
sys.exit(main())
"""


def _no_display_env(tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}  # fmt: skip
    return {**env, "HOME": str(tmp_path / "home")}


def test_without_a_display_the_self_test_opens_the_window_offscreen_and_says_so(tmp_path):
    out = tmp_path / "check"
    done = subprocess.run(
        [sys.executable, "-c", SELF_TEST_CREATING_QT, "self-test", "--out", str(out)],
        capture_output=True, text=True, env=_no_display_env(tmp_path), timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        "self-test: no display (DISPLAY and WAYLAND_DISPLAY are not set): "
        "the window opens offscreen" in done.stderr
    )
    report = json.loads((out / "self-test.json").read_text(encoding="utf-8"))
    assert report["platform"] == "offscreen" and report["passed"] is True


def test_a_folder_a_previous_self_test_left_is_named_as_such(tmp_path):
    out = tmp_path / "check"
    (out / "demo").mkdir(parents=True)  # what a self-test that stopped half-way leaves
    done = subprocess.run(
        [sys.executable, "-m", "medrcube_desktop", "self-test", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, env=_no_display_env(tmp_path), timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().endswith(
        f"self-test needs a new or empty --out folder ({out} holds a previous self-test: "
        "remove it or choose another)"
    )


def test_a_folder_of_other_files_is_refused_as_not_empty(tmp_path):
    from medrcube_desktop.cli.bundle import check_self_test_folder
    from medrcube_desktop.errors import MedRCubeError

    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("x", encoding="utf-8")
    try:
        check_self_test_folder(out)
    except MedRCubeError as exc:
        assert (
            str(exc)
            == f"self-test needs a new or empty --out folder ({out} is not empty: choose another)"
        )
    else:
        raise AssertionError("a folder of other files was accepted")
    check_self_test_folder(tmp_path / "new")  # missing: fine
