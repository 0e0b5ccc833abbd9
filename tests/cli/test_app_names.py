"""Names with hidden characters (issue 21): refused where they enter (runs, models,
reviewers), and shown visibly by every writer when an older database holds them
(terminal lines, ``compare --out`` and ``agreement --out`` workbooks)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from openpyxl import load_workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.names import check_name, spreadsheet_text, visible
from medrcube_desktop.evaluation.results_json import item_record
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests.conftest import dicom_file, item, write_benchmark
from tests.evaluation.compare.test_matrix import _run
from tests.review.experts_fixture import ITEMS, fill, scores_of

TITLE = "run\x1b]0;pwned\x07"  # sets a terminal's window title when printed raw
TITLE_SHOWN = r"run\x1b]0;pwned\x07"
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_check_name_refuses_hidden_characters_and_keeps_words():
    for bad in (TITLE, "a\tb", "dr\u202eevil", "x\u2028y", "nul\x00", "del\x7f", "c1\x9b"):
        with pytest.raises(ValueError, match=r"U\+[0-9A-F]{4}"):
            check_name(bad, "run name")
    for good in ("  Lingshu-7B ", "Dr. Müller", "山田", "👩\u200d⚕️ team", "gpt-5.1 (2025)"):
        assert check_name(good) == good.strip()
    with pytest.raises(ValueError, match="blank"):
        check_name(" \n ")


def test_visible_and_spreadsheet_text_escape_what_is_hidden():
    assert visible(TITLE) == TITLE_SHOWN
    assert visible("two\nlines\tok") == "two\nlines\tok"
    assert visible("a\u202eb") == r"a\u202eb"
    every = "".join(map(chr, range(0x20))) + "\x7f\u202e"
    assert not ILLEGAL_CHARACTERS_RE.search(spreadsheet_text(every))
    assert spreadsheet_text("a\x01b\r\nc") == "a\\x01b\r\nc"


def _status(args) -> int:
    """``main``'s exit status, a usage error (argparse's SystemExit) included."""
    try:
        return main(args)
    except SystemExit as exc:
        return int(exc.code)


@pytest.fixture
def bench(tmp_path):
    tasks = ("Modality Recognition", "View Identification", "Disease Diagnosis",
             "Organ Recognition")  # fmt: skip
    records = [item(f"i{n}", task=tasks[n % 4], question=f"question {n}?") for n in range(16)]
    return write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def test_new_run_model_and_reviewer_names_are_refused_at_entry(bench, tmp_path, capsys):
    db = tmp_path / "s.db"
    base = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "openai"]
    base += ["--base-url", "http://127.0.0.1:9/v1"]
    for args in (["--model", "m", "--run", TITLE], ["--model", TITLE]):
        assert _status([*base, *args]) == 2
        err = capsys.readouterr().err
        assert "\x1b" not in err and "U+001B" in err
    items = load_benchmark(bench).items
    path = tmp_path / f"{TITLE}.json"  # a run named after the file's stem
    path.write_text(json.dumps([{**item_record(i), "model_response": "B"} for i in items]))
    imp = ["import-run", "--db", str(db), "--dataset", str(bench)]
    assert main([*imp, str(path)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "U+001B" in err and "--run NAME" in err
    assert main([*imp, "--run", "fine", str(path)]) == 0  # named on the command line: taken
    capsys.readouterr()
    assign = ["assign", "--db", str(db), "--dataset", str(bench), "--reviewer", "dr-a"]
    assert _status([*assign, "--reviewer", "dr\x1b[2Jb"]) == 2
    assert "\x1b" not in capsys.readouterr().err
    store = StudyStore(db)
    try:
        assert store.eval_run_names() == ["fine"]
    finally:
        store.close()


def test_compare_out_and_terminal_cope_with_names_an_older_database_holds(bench, tmp_path, capsys):
    items = load_benchmark(bench).items
    db = tmp_path / "old.db"
    store = StudyStore(db)  # the store itself takes any name: what older versions stored
    rng = np.random.default_rng(1)
    for run in ("plain", TITLE, "tab\trun"):
        _run(store, run, {i.id: ("B" if rng.random() < 0.7 else "A") for i in items})
    store.close()
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(bench), "--min-items", "1"]
    args += ["--bootstrap", "0"]
    assert main([*args, "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert not CONTROLS.search(captured.out + captured.err)
    assert TITLE_SHOWN in captured.out
    book = load_workbook(out / "compare.xlsx")
    cells = [str(c.value) for sheet in book for row in sheet.iter_rows() for c in row]
    assert TITLE_SHOWN in cells and "tab\trun" in cells  # a tab is a cell's own
    assert not any(CONTROLS.search(c) for c in cells)
    assert main([*args, "--json"]) == 0  # JSON keeps the name, escaped by json itself
    assert TITLE in json.loads(capsys.readouterr().out)["leaderboard"]["runs"]


def test_agreement_out_copes_with_a_reviewer_name_an_older_database_holds(tmp_path, capsys):
    bad = "dr\x1b]0;x\x07-b"
    db = tmp_path / "s.db"
    store = fill(StudyStore(db), experts=("dr-a",))
    for item_id in ITEMS:  # the store takes any name: what an older version stored
        store.save_review(Review(bad, item_id, scores_of("dr-b", item_id), "c", utc_now(),
                                 utc_now()))  # fmt: skip
    store.close()
    out = tmp_path / "out"
    args = ["agreement", "--db", str(db), "--reviewer", "dr-a", "--reviewer", bad,
            "--model", "gpt-5.1", "--bootstrap", "0", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    assert not CONTROLS.search(captured.out + captured.err)
    book = load_workbook(out / "agreement.xlsx")
    cells = [str(c.value) for sheet in book for row in sheet.iter_rows() for c in row]
    assert any(r"dr\x1b]0;x\x07-b" in c for c in cells)
    assert not any(CONTROLS.search(c) for c in cells)
    two = tmp_path / "two"
    args = ["agreement", "--db", str(db), "--reviewer", bad, "--reviewer2", "dr-a",
            "--bootstrap", "0", "--out", str(two)]  # fmt: skip
    assert main(args) == 0
    assert not CONTROLS.search("".join(capsys.readouterr()))
    assert (two / "agreement.xlsx").is_file()


def test_the_judge_refuses_a_model_name_from_any_caller_and_logs_are_made_visible():
    import logging

    from medrcube_desktop.core.names import VisibleFormatter
    from medrcube_desktop.errors import JudgeError
    from medrcube_desktop.llm.config import JudgeConfig
    from medrcube_desktop.llm.judge import run_judge

    with pytest.raises(JudgeError, match=r"U\+001B"):  # the Judge dialog calls this too
        run_judge([], StudyStore(None), JudgeConfig(model="gpt\x1b[8m"), "not-needed")
    record = logging.LogRecord("x", logging.WARNING, "f", 1, "run %s done", (TITLE,), None)
    assert VisibleFormatter("%(message)s").format(record) == f"run {TITLE_SHOWN} done"
