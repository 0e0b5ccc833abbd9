"""A closed stdout (``… | head``) ends a command quietly (Python's SIGPIPE note)."""

from __future__ import annotations

import json
import subprocess
import sys


def test_a_reader_that_leaves_early_gets_no_traceback_nor_error_line(tmp_path):
    folder = tmp_path / "bench" / "ds1"
    folder.mkdir(parents=True)
    items = [
        {"id": f"i{k}", "question": "q?", "option_A": "a", "option_B": "b", "gt_answer": "zz",
         "image_path": f"images/missing-{k}-with-a-long-name.png", "task": "Modality Recognition",
         "modality": "CT", "parts": "Chest", "dataset": "ds1"}
        for k in range(3000)
    ]  # fmt: skip
    (folder / "test.json").write_text(json.dumps(items))
    command = [sys.executable, "-m", "medrcube_desktop", "validate", str(tmp_path / "bench")]
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.close()  # the reader is gone before the first line (over 64 kB follow)
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 1
    assert "Broken pipe" not in err and "Traceback" not in err and "Exception ignored" not in err
