"""Review › Compare models: runs chosen, the leaderboard, the items × runs grid, its
filters, the item detail and the CSV export (issue 14, item 4).

Every expected outcome is computed here from the answers the test stores, never from
the pane's own filter functions.
"""

import csv
import json
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.evaluation.compare.item_filters import FILTERS
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from medrcube_desktop.store.judgments import Judgment
from medrcube_desktop.ui.actions import keymap_conflicts
from medrcube_desktop.ui.compare.grid import CELL_COLOURS, ITEM_COLUMNS, CompareGridModel, GridView
from medrcube_desktop.ui.widgets.themes import THEMES
from tests.conftest import dicom_file, item, write_benchmark
from tests.evaluation.compare.test_item_filters import make_item
from tests.ui.review.test_review_binding_window import open_window
from tests.ui.widgets.test_themes import WCAG_AA, contrast

RUNS = {  # name: (model, text only)
    "iv8": ("OpenGVLab/InternVL3_5-8B", False),
    "iv2": ("OpenGVLab/InternVL3_5-2B", False),
    "ls": ("lingshu-medical-mllm/Lingshu-7B", False),
    "iv8-text": ("OpenGVLab/InternVL3_5-8B", True),
}
R, W, U, N = "B", "A", None, "none"  # right (the answer is CT, B), wrong, unparsed, no answer
ANSWERS = {  # item: answer of iv8, iv2, ls, iv8-text
    "c0": (R, R, R, N),
    "c1": (W, U, W, W),
    "c2": (R, R, W, W),
    "c3": (R, W, R, N),
    "c4": (N, N, N, N),
    "c5": (W, N, R, R),
    "c6": (N, R, N, R),
}


@pytest.fixture
def bench(tmp_path):
    return write_benchmark(
        tmp_path / "bench",
        {"ds1": [item(i, question=f"Modality <b>{i}</b>?") for i in ANSWERS]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )


def store_runs(db):
    store = StudyStore(db)
    for n, (name, (model, text)) in enumerate(RUNS.items()):
        store.save_run(RunRecord(name=name, engine="openai", model=model, params={},
                                 prompt_sha256="x", app_version="t", text_only=text,
                                 created_at=f"2026-01-0{n + 1}T00:00:00+00:00"))  # fmt: skip
    for item_id, letters in ANSWERS.items():
        for run, letter in zip(RUNS, letters, strict=True):
            if letter == N:
                continue
            store.save_response(ResponseRecord(
                run=run, item_id=item_id, response=f"{run} says <i>{letter}</i> on {item_id}",
                parsed_answer=letter, parse_method="letter" if letter else "none",
                correct=letter == R, official_answer=letter, official_correct=letter == R,
                created_at=utc_now(),
            ))  # fmt: skip
    scores = {**dict.fromkeys(RULE_IDS, 1), "2.1": 0}
    store.save_review(Review("dr-a", "c1", scores, "Two <right> answers", utc_now(), utc_now()))
    store.save_review(Review("dr-b", "c1", dict.fromkeys(RULE_IDS, 1), "", utc_now(), utc_now()))
    store.save_review(Review("dr-b", "c2", dict.fromkeys(RULE_IDS, 1), "ok", utc_now(), utc_now()))
    store.save_judgment(Judgment("c1", "gpt-5.1", dict.fromkeys(RULE_IDS, 1), created_at=utc_now()))
    store.close()


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def expected_mark(letter):
    return {R: "✓", W: "✗", U: "?", N: ""}[letter]


def expected_ids(kind):
    """Each filter, from the stored answers (text-only run last, InternVL = iv8 + iv2).
    Text-only runs are baselines, not models: only the image runs (the first three)
    count, but for "no_image" and "unparsed"."""
    found = []
    for item_id, letters in ANSWERS.items():
        given = [x for x in letters[:3] if x != N]
        right = [x == R for x in given]
        image = dict(zip(("iv8", "iv2", "ls"), letters[:3], strict=True))
        wrong_letters = [x for x in given if x not in (R, U)]
        most = max((wrong_letters.count(x) for x in wrong_letters), default=0)

        def family(runs, image=image):
            said = [image[r] for r in runs if image[r] != N]
            if len(said) < 2:  # a series counts with 2 answering runs or more
                return None
            return (
                "right"
                if all(x == R for x in said)
                else "wrong"
                if all(x != R for x in said)
                else None
            )

        outcome = {
            "all_wrong": bool(given) and not any(right),
            "all_right": bool(given) and all(right),
            "disagree": any(right) and not all(right),
            "same_wrong": len(given) >= 2 and most >= 2 and 2 * most >= len(given),
            "families": {family(["iv8", "iv2"]), family(["ls"])} == {"right", "wrong"},
            "no_image": letters[3] == R,
            "unparsed": U in letters,
            "all": True,
        }[kind]
        if outcome:
            found.append(item_id)
    return found


def open_compared(qtbot, bench, db, runs=tuple(RUNS)):
    window, _ = open_window(qtbot, bench, db)
    pane = window.open_compare_pane()
    pane.set_checked(list(runs))
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compare_button.click()
    pane.tabs.setCurrentIndex(1)
    return window, pane


def test_the_grid_shows_every_stored_outcome_and_each_filter_its_items(qtbot, bench, tmp_path):
    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    model = pane.grid_model
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())] == [
        *ITEM_COLUMNS, "1 iv8", "2 iv2", "3 ls", "4 iv8-text (text)"]  # fmt: skip
    tip = model.headerData(len(ITEM_COLUMNS) + 3, Qt.Orientation.Horizontal,
                           Qt.ItemDataRole.ToolTipRole)  # fmt: skip
    assert "iv8-text" in tip and "Text only" in tip
    for row in range(model.rowCount()):
        item_id = model.cell_text(row, 0)
        letters = ANSWERS[item_id]
        marks = [model.cell_text(row, len(ITEM_COLUMNS) + c) for c in range(len(RUNS))]
        assert marks == [expected_mark(x) for x in letters], item_id
        answered = [x for x in letters[:3] if x != N]  # image runs only
        assert model.cell_text(row, 4) == f"{answered.count(R)}/{len(answered)}"
    assert model.cell_text(0, 1) == "MR" and model.cell_text(0, 3) == "Chest"
    keys = ("all", "all_wrong", "all_right", "disagree", "same_wrong", "families", "no_image",
            "unparsed")  # fmt: skip
    assert set(keys) == set(FILTERS)
    for key in keys:
        pane.filter.setCurrentIndex(pane.filter.findData(key))
        assert pane.shown_item_ids() == expected_ids(key), key
        assert pane.count.text() == f"{len(expected_ids(key))} of {len(ANSWERS)} items"
        tip = pane.filter.itemData(pane.filter.currentIndex(), Qt.ItemDataRole.ToolTipRole)
        assert tip, key
    # the test's own reading, spelled out: c1 is iv8's and ls's A; Lingshu has one run,
    # so no item splits two series of two runs each
    assert expected_ids("same_wrong") == ["c1"] and expected_ids("families") == []
    assert expected_ids("all_right") == ["c0", "c6"]
    pane.filter.setCurrentIndex(0)
    pane.search.setText("c5")
    pane.apply_filter()  # (the box waits for typing to pause)
    assert pane.shown_item_ids() == ["c5"] and pane.count.text() == "1 of 7 items"
    window.close()


def test_the_leaderboard_tab_holds_the_accuracy_and_its_interval(qtbot, bench, tmp_path):
    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    board = pane.board_model
    # the command's order (--sort family): Medical-specific first, then InternVL by its
    # best image run (a tie: by model name), the text-only run after its model's
    assert pane.group_by_family.isChecked()
    assert board.run_order() == ["ls", "iv2", "iv8", "iv8-text"]
    assert board.run_order() == pane.comparison.result.order
    pane.group_by_family.setChecked(False)
    assert board.run_order() == ["iv8", "iv2", "ls", "iv8-text"]  # best first; ties in run order
    rows = {board.data(board.index(r, 0)).removesuffix(" (text only)"): r
            for r in range(board.rowCount())}  # fmt: skip
    assert set(rows) == {"Random", *RUNS} and rows["Random"] == 0
    assert board.data(board.index(rows["iv8-text"], 0)) == "iv8-text (text only)"
    frame = pane.comparison.board.to_frame(percent=True)
    for run, row in rows.items():
        assert board.data(board.index(row, 3)) == f"{frame.loc[run].iloc[0]:.1f}"
    tip = board.data(board.index(rows["iv8"], 3), Qt.ItemDataRole.ToolTipRole)
    assert "(3 of 5 right)" in tip and "Wilson 95 % interval" in tip  # iv8: c0 c2 c3 right
    pane.group_by_family.setChecked(True)  # the paper's order: Medical-specific first
    assert board.run_order() == ["ls", "iv2", "iv8", "iv8-text"]
    assert [board.data(board.index(r, 1)) for r in (1, 2)] == ["Lingshu", "InternVL"]
    window.close()


def test_a_cell_opens_every_answer_and_the_review_blinding_kept(qtbot, bench, tmp_path):
    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    pane.filter.setCurrentIndex(pane.filter.findData("unparsed"))  # c1 only
    pane.grid.setFocus()
    qtbot.keyClick(pane.grid, Qt.Key.Key_Return)
    detail = pane.detail
    assert detail is not None and detail.isVisible()
    html = detail.text.toHtml()
    text = detail.text.toPlainText()
    for run, said in zip(RUNS, ANSWERS["c1"], strict=True):  # every raw answer, as written
        assert f"{run} says <i>{said}</i> on c1" in text
    assert "<i>A</i>" not in html.replace("&lt;i&gt;", "")  # never markup
    assert "Modality <b>c1</b>?" in text and "✔ right answer" in text
    assert "? unparsed" in text and "nothing read (none)" in text
    assert "Two <right> answers" in text and "fails 2.1" in text  # dr-a's own review
    assert "dr-b" in text and "LLM: gpt-5.1" in text and "passes all 7 rules" in text
    qtbot.keyClick(detail, Qt.Key.Key_Escape)
    assert not detail.isVisible()
    pane.filter.setCurrentIndex(pane.filter.findData("all"))
    row = pane.shown_item_ids().index("c2")  # reviewed by dr-b only: blind, so hidden
    pane.open_cell(pane.grid_model.index(row, len(ITEM_COLUMNS)))
    text = detail.text.toPlainText()
    assert "Hidden: this is a blind study" in text and "dr-b" not in text
    window.close()


def test_bad_input_is_said_in_the_pane(qtbot, bench, tmp_path):
    store_runs(tmp_path / "s.db")
    store = StudyStore(tmp_path / "s.db")
    store.save_run(RunRecord(name="empty", engine="openai", model="acme-vl", params={},
                             prompt_sha256="x", app_version="t",
                             created_at="2026-02-01T00:00:00+00:00"))  # fmt: skip
    store.close()
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db", runs=("iv8", "empty"))
    assert "empty has no answer to any item of this benchmark" in pane.status.text()
    (bench / "ds1" / "images" / "ct.dcm").unlink()  # the image went missing
    pane.open_cell(pane.grid_model.index(0, len(ITEM_COLUMNS)))
    assert pane.detail.image.text().startswith("Image not shown: no file at")
    pane.check_all(False)
    with qtbot.waitSignal(pane.computed):
        pane.compare()
    assert "Check at least one run" in pane.status.text()
    window.close()


def test_no_run_in_the_database(qtbot, bench, tmp_path):
    window, _ = open_window(qtbot, bench, tmp_path / "s.db")
    pane = window.open_compare_pane()
    assert "holds no evaluation run yet" in pane.status.text()
    assert not pane.compare_button.isEnabled()
    window.close()


def test_the_grid_exports_as_csv_and_the_key_opens_the_pane(qtbot, bench, tmp_path):
    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    assert window.qactions["review.compare"].shortcuts()[0].toString() == "Ctrl+Shift+M"
    assert keymap_conflicts(window.actions_table, {}) == []
    pane.filter.setCurrentIndex(pane.filter.findData("disagree"))
    written = pane.export_csv(tmp_path / "grid.csv")
    with open(written, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    runs = [name for run in RUNS for name in (run, f"{run} letter")]
    assert rows[0] == ["id", "task", "modality", "region", "dataset", "right", "answered", *runs]
    assert [r[0] for r in rows[1:]] == expected_ids("disagree")
    assert rows[1][:7] == ["c2", "MR", "CT", "Chest", "ds1", "2", "3"]  # image runs only
    assert rows[1][7:] == ["right", R, "right", R, "wrong", W, "wrong", W]  # c2
    pane.filter.setCurrentIndex(pane.filter.findData("unparsed"))
    rows = read_csv(pane.export_csv(tmp_path / "c1.csv"))
    assert rows[1][7:] == ["wrong", W, "unparsed", "?", "wrong", W, "wrong", W]  # c1
    pane.filter.setCurrentIndex(pane.filter.findData("all"))
    rows = read_csv(pane.export_csv(tmp_path / "all.csv"))
    assert [r[7:] for r in rows[1:] if r[0] == "c6"] == [["", "", "right", R, "", "", "right", R]]
    # never over a file the comparison reads: the database, its sidecars, the benchmark's
    test_json, image = bench / "ds1" / "test.json", bench / "ds1" / "images" / "ct.dcm"
    before = {p: p.read_bytes() for p in (test_json, image)}
    for target in (tmp_path / "s.db", tmp_path / "s.db-wal", test_json, image):
        assert pane.export_csv(target) is None, target
        assert "Export failed" in pane.status.text() and "is the input" in pane.status.text()
    assert (tmp_path / "s.db").stat().st_size > 0
    assert {p: p.read_bytes() for p in before} == before
    window.close()


def test_the_figures_tab_and_its_report_give_what_the_compare_command_gives(
    qtbot, bench, tmp_path, capsys
):
    import json

    from medrcube_desktop.cli import main
    from medrcube_desktop.evaluation.compare.report import FIGURES, OUTPUTS

    db = tmp_path / "s.db"
    store_runs(db)
    window, pane = open_compared(qtbot, bench, db)
    figures = pane.figures.figures
    assert [figures.widget(i).objectName() for i in range(figures.count())] == list(FIGURES)
    for i, name in enumerate(FIGURES):  # the figures drawn from the result, on screen
        assert figures.widget(i).figure is pane.comparison.figures[name]
    out = tmp_path / "report"
    with qtbot.waitSignal(pane.figures.exported, timeout=60000) as written:
        assert pane.export_report(out)
    assert {p.name for p in written.args[0]} >= set(OUTPUTS) - {"voxel_correlation.csv"}
    # the pane's numbers are the command's: the same JSON document
    capsys.readouterr()
    command = ["compare", "--db", str(db), "--dataset", str(bench), "--json"]
    for run in pane.comparison.matrix.runs:
        command += ["--run", run]
    assert main(command) == 0
    assert json.loads((out / "compare.json").read_text()) == json.loads(capsys.readouterr().out)
    assert "medrcube-desktop compare --db" in (out / "report.html").read_text()
    window.close()


def test_a_large_grid_builds_without_a_widget_per_cell(qtbot):
    rng = np.random.default_rng(0)
    n_items, n_runs = 2000, 20
    correct = rng.choice([0.0, 1.0, np.nan], size=(n_items, n_runs), p=[0.4, 0.5, 0.1])
    unparsed = (correct == 0.0) & (rng.random((n_items, n_runs)) < 0.1)
    matrix = RunMatrix(tuple(make_item(n) for n in range(n_items)),
                       tuple(f"run{n}" for n in range(n_runs)), correct, unparsed)  # fmt: skip
    view = GridView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    before = len(view.findChildren(QWidget))
    model = CompareGridModel(matrix, view)  # speed: tests/benchmarks (no timing here)
    view.setModel(model)
    view.scrollToBottom()
    qtbot.wait(10)
    assert model.rowCount() == n_items and model.columnCount() == len(ITEM_COLUMNS) + n_runs
    assert len(view.findChildren(QWidget)) <= before + 2  # no widget per cell
    assert view.indexWidget(model.index(n_items - 1, 6)) is None
    states = {"✓": 1.0, "✗": 0.0, "?": 0.0}
    for row in (0, 999, 1999):
        for run in range(n_runs):
            mark = model.cell_text(row, len(ITEM_COLUMNS) + run)
            value = correct[row, run]
            assert (mark == "") == np.isnan(value)
            if mark:
                assert states[mark] == value and (mark == "?") == unparsed[row, run]
    model.sort(len(ITEM_COLUMNS) - 1, Qt.SortOrder.DescendingOrder)  # by share right
    counts = [model.cell_text(r, 4).split("/") for r in range(0, n_items, 100)]
    shares = [int(right) / int(answered) for right, answered in counts]
    assert shares == sorted(shares, reverse=True)


@pytest.mark.parametrize("theme", list(THEMES))
def test_cell_and_detail_colours_are_readable_in_every_theme(qapp, theme):
    from PySide6.QtGui import QPalette
    from PySide6.QtWidgets import QApplication

    from medrcube_desktop.ui.compare.detail import MUTED_COLOURS
    from medrcube_desktop.ui.widgets.themes import ERROR_COLOURS, apply_theme

    for state, (background, text) in CELL_COLOURS[theme].items():
        assert contrast(background, text) >= WCAG_AA, (theme, state)
    app = QApplication.instance()
    apply_theme(app, theme)
    try:
        base = app.palette().color(QPalette.ColorRole.Base).name()
        window = app.palette().color(QPalette.ColorRole.Window).name()
        assert contrast(MUTED_COLOURS[theme], base) >= WCAG_AA
        assert contrast(ERROR_COLOURS[theme], window) >= WCAG_AA
    finally:
        apply_theme(app, "light")


HIGH = ("c3", "c5")  # Disease Diagnosis (high level) in bench_dd; the rest MR (prerequisites)


@pytest.fixture
def bench_dd(tmp_path):
    records = [item(i, task="Disease Diagnosis" if i in HIGH else None) for i in ANSWERS]
    for record in records:
        record.setdefault("task", "Modality Recognition")
    return write_benchmark(
        tmp_path / "bench_dd", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def expected_counts(run):
    """(A, B, C, D) of ``run`` from the stored answers: every high-level item with every
    prerequisite on its image (one image here), both answered; unparsed is wrong."""
    c = list(RUNS).index(run)
    said = {i: letters[c] for i, letters in ANSWERS.items() if letters[c] != N}
    low = [said[i] == R for i in said if i not in HIGH]
    high = [said[i] == R for i in said if i in HIGH]
    pairs = [(x, y) for y in high for x in low]
    return tuple(sum(1 for p in pairs if p == want) for want in
                 ((True, True), (True, False), (False, False), (False, True)))  # fmt: skip


def test_the_credibility_tab_holds_what_compare_prints(qtbot, bench_dd, tmp_path):
    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench_dd, tmp_path / "s.db")
    view = pane.credibility
    result = pane.comparison.result
    table = view.credibility
    header = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert header[:5] == ["Run", "A", "B", "C", "D"] and "Permutation p" in header
    names = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert names == [r + (" (text only)" if RUNS[r][1] else "") for r in result.order]
    assert table.item(names.index("iv8-text (text only)"), 0).font().italic()
    figures = {}
    for r, name in enumerate(names):
        run = name.removesuffix(" (text only)")
        a, b, c, d = expected_counts(run)
        assert [int(table.item(r, k).text()) for k in range(1, 5)] == [a, b, c, d], run
        n = a + b + c + d
        acc_h = (a + d) / n if n else None
        sp = d / (c + d) if c + d else None
        figures[run] = (acc_h, sp)
        acc_text = table.item(r, 5).text()
        assert acc_text == "—" if acc_h is None else acc_text.startswith(f"{acc_h:.3f}")
        if acc_h is not None and n > 0:
            assert "[" in acc_text  # its bootstrap interval
        sp_text = table.item(r, 7).text()
        assert sp_text == "—" if sp is None else sp_text.startswith(f"{sp:.3f}")
    assert expected_counts("iv8") == (
        2,
        2,
        1,
        1,
    )  # L: c0, c2 right, c1 wrong; H: c3 right, c5 wrong
    # Pearson r over the three image runs: three points are too few (issue 21: it was
    # r = 1.000 with an interval and p), the pane says so as compare does
    x, y = zip(*(figures[r] for r in ("iv8", "iv2", "ls")), strict=True)
    line = view.correlation.text()
    if None in y or np.std(x) == 0 or np.std(y) == 0:
        assert "undefined: zero variance" in line or "not computed" in line
    else:
        distinct = len(set(zip(x, y, strict=True)))
        assert f"r undefined: fewer than 4 distinct points (3 points, {distinct} distinct)" in line
        assert "[" not in line and "p " not in line
    # the text-only drop: iv8 against iv8-text over the items both answered
    both = [(a[0], a[3]) for a in ANSWERS.values() if a[0] != N and a[3] != N]
    with_image = sum(x == R for x, _ in both) / len(both)
    without = sum(y == R for _, y in both) / len(both)
    drops = view.drops
    assert drops.rowCount() == 1
    assert [drops.item(0, k).text() for k in range(drops.columnCount())] == [
        "iv8", "iv8-text", str(len(both)), f"{with_image * 100:.1f}", f"{without * 100:.1f}",
        f"{(with_image - without) * 100:.1f}"]  # fmt: skip
    voxels = {view.voxels.item(r, 0).text(): view.voxels.item(r, 1).text()
              for r in range(view.voxels.rowCount())}  # fmt: skip
    n_dd = sum(1 for i, a in ANSWERS.items() if i in HIGH and a[0] != N and a[3] != N)
    assert voxels == {"DD|CT|Chest": str(n_dd), "MR|CT|Chest": str(len(both) - n_dd)}
    leaked = [i for i, a in ANSWERS.items() if a[3] == R]
    # worded apart from the necessity tab's "answerable without the image" (most models)
    assert view.leakage.text().startswith(
        f"{len(leaked)} items right in at least one text-only run (a lucky guess counts"
    )
    view.leakage_button.click()
    assert pane.tabs.currentIndex() == 1 and pane.shown_item_ids() == leaked
    window.close()


def test_the_correlation_line_says_undefined_for_a_nan_r():
    from medrcube_desktop.evaluation.compare.credibility_models import Correlation
    from medrcube_desktop.evaluation.compare.summary_tables import correlation_text

    assert ": r undefined" in correlation_text(Correlation(np.nan, np.nan, np.nan, np.nan, 3))
    assert "not computed (too few)" in correlation_text(None, "too few")
    line = correlation_text(Correlation(0.5, 0.1, 0.8, 0.02, 5))
    assert line.endswith(": r = 0.500 (95% CI 0.100 to 0.800), p = 0.020, n = 5 models")


def test_closing_the_pane_while_the_report_is_written_stops_it_and_leaves_no_file(
    qtbot, bench, tmp_path
):
    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    out = tmp_path / "out" / "report"
    assert pane.export_report(out)
    assert pane.figures.runner.is_running() and not pane.figures.export_button.isEnabled()
    pane.close()  # cancels and waits: no thread outlives the pane (it aborted the app)
    assert not pane.figures.runner.is_running() and pane.figures.runner.cancelled
    qtbot.waitUntil(lambda: "Export cancelled" in pane.figures.status.text())
    # all or nothing: no file, no stage, and not the folders the writer made for it
    assert not (tmp_path / "out").exists()
    window.close()


def test_compare_is_cancelled_by_its_button_and_by_closing(qtbot, bench, tmp_path):
    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    shown = pane.comparison
    pane.set_checked(["iv8", "iv2"])
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compare_button.click()
        assert pane.runner.isVisible() and pane.runner.cancel_button.isEnabled()
        assert "Esc" in pane.status.text()
        pane.runner.cancel_button.click()
    assert "Compare cancelled" in pane.status.text() and pane.comparison is shown
    pane.compare_button.click()
    started = time.perf_counter()
    pane.close()
    assert not pane.runner.is_running() and time.perf_counter() - started < 20
    window.close()


def test_compare_again_while_the_report_is_written(qtbot, bench, tmp_path, monkeypatch):
    import threading

    from medrcube_desktop.evaluation.compare import report

    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    go_on, write = threading.Event(), report.write_compare_outputs

    def slow_write(*args, **kwargs):  # the export outlasts the second Compare
        go_on.wait(30)
        return write(*args, **kwargs)

    monkeypatch.setattr(report, "write_compare_outputs", slow_write)
    out = tmp_path / "report"
    with qtbot.waitSignal(pane.figures.exported, timeout=60000) as written:
        assert pane.export_report(out)
        pane.set_checked(["iv8", "ls"])
        with qtbot.waitSignal(pane.computed, timeout=30000):
            pane.compare_button.click()
        assert pane.comparison.matrix.runs == ("iv8", "ls")
        assert pane.figures.runner.is_running()  # the new result must not enable a second one
        assert not pane.figures.export_button.isEnabled()
        assert not pane.export_report(tmp_path / "again")
        assert "Writing the report of runs iv8, iv2, ls, iv8-text" in pane.figures.status.text()
        go_on.set()
    assert written.args[0]  # the first report, of the four runs
    text = pane.figures.status.text()
    assert "of the earlier comparison of runs iv8, iv2, ls, iv8-text written" in text
    assert text.startswith(pane.figures._notes)  # the new comparison's notes stay
    assert pane.figures.export_button.isEnabled()
    assert json.loads((out / "compare.json").read_text())["runs"] == list(RUNS)
    assert not (tmp_path / "again").exists()
    window.close()


def test_the_report_refuses_the_benchmarks_files_and_records_absolute_paths(
    qtbot, bench, tmp_path, monkeypatch
):
    import os

    from medrcube_desktop.ui.compare.figures import report_meta

    store_runs(tmp_path / "s.db")
    window, pane = open_compared(qtbot, bench, tmp_path / "s.db")
    out = tmp_path / "linked"
    out.mkdir()
    test_json = bench / "ds1" / "test.json"
    before = test_json.read_bytes()
    os.link(test_json, out / "leaderboard.csv")  # the benchmark's file under an output's name
    with qtbot.waitSignal(pane.figures.exported, timeout=60000) as written:
        pane.export_report(out)
    assert written.args[0] == [] and "is the input" in pane.figures.status.text()
    assert test_json.read_bytes() == before and (out / "leaderboard.csv").samefile(test_json)
    monkeypatch.chdir(tmp_path)
    meta = report_meta(Path("s.db"), "bench", pane.comparison.result)
    assert meta["database"] == str(tmp_path / "s.db") and Path(meta["database"]).is_absolute()
    assert f"--db {tmp_path / 's.db'} --dataset {tmp_path / 'bench'}" in meta["command"]
    window.close()


def test_run_headers_read_apart_when_names_share_a_prefix_and_suffix(qtbot, tmp_path):
    from medrcube_desktop.ui.compare.grid import run_headers

    runs = ("Qwen2.5-VL-7B-Instruct", "Qwen2.5-VL-3B-Instruct", "Qwen2.5-VL-7B-Instruct-text")
    m = RunMatrix((make_item(0),), runs, np.array([[1.0, 0.0, 1.0]]), np.zeros((1, 3), bool),
                  text_only=(False, False, True))  # fmt: skip
    headers = run_headers(m)
    assert headers == ["1 Qwen2.5-VL-7B-Instruct", "2 Qwen2.5-VL-3B-Instruct",
                       "3 Qwen2.5-VL-7B-Instruct-text (text)"]  # fmt: skip
    view = GridView()
    qtbot.addWidget(view)
    view.setModel(CompareGridModel(m, view))
    view.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideMiddle)
    metrics = view.horizontalHeader().fontMetrics()
    width = metrics.horizontalAdvance("M" * 7)  # the pane's widest run column
    shown = [metrics.elidedText(h, Qt.TextElideMode.ElideMiddle, width) for h in headers]
    assert len(set(shown)) == 3 and [s.split()[0] for s in shown] == ["1", "2", "3"]
    assert shown[2].endswith("(text)") or shown[2].endswith("xt)")
