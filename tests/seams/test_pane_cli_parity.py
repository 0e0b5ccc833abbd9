"""Every pane shows what its command prints (issue 21, "one computation per figure").

On one study (:mod:`tests.parity_bench`: restricted items, a text-only run that answers
them, missing and unparsed answers), each pane's figures are read off the screen (or
the object the pane shows) and compared with the ``--json`` of the command, and the
figures that can be counted by hand are counted from the stored answers.
"""

from __future__ import annotations

import csv
import html
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from medrcube_desktop import settings
from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.agreement.experts_panel import PANEL
from medrcube_desktop.ui.compare.grid import ITEM_COLUMNS
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.window_factory import build_window, load_for_review
from tests import parity_bench as pb


@pytest.fixture
def study(tmp_path):
    return pb.build(tmp_path)


def open_study(qtbot, root, db):
    """The window as ``medrcube-desktop --dataset root --db db`` opens it (restricted
    items listed apart, as the app loads them)."""
    benchmark = load_for_review(root)
    window = build_window(MainWindow, benchmark, StudyStore(db), "dr-a", settings.Settings())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.first_item_shown, timeout=10000):
        window.show()
    return window


def cli_json(capsys, *args) -> dict:
    capsys.readouterr()
    assert main([*map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


PANE_ONLY = {"created_at", "restricted_to_committed_by_viewer"}
"""What the pane's agreement records besides the command's: when, and that a blind
study counts only the viewer's committed items (dr-a committed every reviewed one)."""


def same_figures(got: dict, expected: dict) -> bool:
    """``got == expected`` but for :data:`PANE_ONLY` in ``meta``."""
    meta = {k: v for k, v in got.pop("meta").items() if k not in PANE_ONLY}
    return {**got, "meta": meta} == {
        **expected,
        "meta": {k: v for k, v in expected["meta"].items() if k not in PANE_ONLY},
    }


def compared(qtbot, window, min_items=None):
    pane = window.open_compare_pane()
    pane.check_all(True)
    if min_items is not None:
        pane.min_items.setValue(min_items)
    with qtbot.waitSignal(pane.computed, timeout=60000):
        pane.compare_button.click()
    assert pane.comparison is not None, pane.status.text()
    return pane


def test_the_compare_pane_shows_what_compare_prints(qtbot, study, capsys):
    root, db = study
    window = open_study(qtbot, root, db)
    pane = compared(qtbot, window)
    expected = cli_json(capsys, "compare", "--db", db, "--dataset", root)
    assert pane.comparison.result.to_dict() == expected  # every figure of compare.json
    # on screen: each run's Overall cell and its counts, in the command's order
    board = pane.board_model
    assert board.run_order() == expected["order"]
    for row, run in enumerate(board.run_order(), start=1):
        cell = expected["leaderboard"]["runs"][run]["overall"]["Overall"]
        assert board.data(board.index(row, 3)) == f"{cell['accuracy'] * 100:.1f}", run
        tip = board.data(board.index(row, 3), Qt.ItemDataRole.ToolTipRole)
        assert f"({cell['correct']} of {cell['n']} right)" in tip, run
    # by hand: the text-only run over every item it answered, the restricted ones too
    right, n = pb.accuracy_by_hand(pb.TEXT_RUN)
    cell = expected["leaderboard"]["runs"][pb.TEXT_RUN]["overall"]["Overall"]
    assert (cell["correct"], cell["n"]) == (right, n) == (9, 21)
    row = board.run_order().index(pb.TEXT_RUN) + 1
    assert board.data(board.index(row, 3)) == "42.9"  # 9 of 21 (over its 15 imaged: 5, 33.3)
    assert board.data(board.index(row, 0)) == f"{pb.TEXT_RUN} (text only)"  # marked
    assert board.data(board.index(row, 0), Qt.ItemDataRole.FontRole).italic()
    assert pane.count.text() == f"{len(pb.ITEMS)} of {len(pb.ITEMS)} items"
    # a restricted item's cell opens with the text-only run's answer and the release's note
    row = pane.shown_item_ids().index(pb.RESTRICTED[0])
    detail = pane.open_cell(pane.grid_model.index(row, len(ITEM_COLUMNS)))
    assert detail.image.text().startswith("Image not redistributed: obtain it from the source")
    assert f"{pb.TEXT_RUN}" in detail.text.toPlainText()
    window.close()


def test_fig3_can_be_drawn_in_the_pane_and_its_hint_names_the_panes_field(qtbot, study, capsys):
    root, db = study
    window = open_study(qtbot, root, db)
    pane = compared(qtbot, window)  # 8 voxels of 3 items: none of the default 5
    assert pane.comparison.result.rho is None
    labels = [label.text() for label in pane.findChildren(QLabel)]
    field = "Min. items per voxel"
    assert f"{field}:" in labels and pane.min_items.value() == 5  # the command's default
    assert f"“{field}”" in pane.figures.status.text()  # the hint names what the pane has
    pane = compared(qtbot, window, min_items=3)
    result = pane.comparison.result
    assert result.rho is not None and len(result.voxels.voxels) == 8
    assert pane.figures.figures.count() == 4
    expected = cli_json(capsys, "compare", "--db", db, "--dataset", root, "--min-items", 3)
    assert result.to_dict() == expected
    window.close()


def test_the_credibility_view_shows_compares_figures_in_leaderboard_order(qtbot, study, capsys):
    root, db = study
    window = open_study(qtbot, root, db)
    pane = compared(qtbot, window)
    expected = cli_json(capsys, "compare", "--db", db, "--dataset", root)
    models = {m["run"]: m for m in expected["credibility"]["models"]}
    table = pane.credibility.credibility

    def shown() -> list[list[str]]:
        return [[table.item(r, c).text() for c in range(6)] for r in range(table.rowCount())]

    def wanted(order) -> list[list[str]]:
        rows = []
        for run in order:
            m = models[run]
            acc_h = f"{m['acc_h']:.3f} [{m['acc_h_low']:.3f}, {m['acc_h_high']:.3f}]"
            name = run + (" (text only)" if m["text_only"] else "")
            rows.append([name, *(str(m[k]) for k in "abcd"), acc_h])
        return rows

    assert shown() == wanted(expected["order"])  # the leaderboard's order, as printed
    pane.tabs.setCurrentIndex(0)
    pane.board.horizontalHeader().sectionClicked.emit(3)  # sort by Overall
    order = pane.board_model.run_order()
    assert order != expected["order"] and shown() == wanted(order)  # follows the board
    # the text-only run against its model's image run: the JSON's Overall row
    drops = pane.credibility.drops
    (pair,) = expected["text_only"]
    overall = pair["rows"][0]
    assert overall["voxel"] == "Overall"
    assert [drops.item(0, c).text() for c in range(6)] == [
        pair["image_run"], pair["text_run"], str(overall["n"]),
        f"{overall['with_image'] * 100:.1f}", f"{overall['without_image'] * 100:.1f}",
        f"{overall['drop'] * 100:.1f}",
    ]  # fmt: skip
    right = sum(a == pb.RIGHT for a in pb.ANSWERS[pb.TEXT_RUN].values())  # by hand: 9
    assert pane.credibility.leakage.text().startswith(
        f"{right} items right in at least one text-only run"
    )
    leaked = cli_json(capsys, "compare", "--db", db, "--dataset", root, "--leakage",
                      "--bootstrap", 0, "--stability", 0)["leakage"]  # fmt: skip
    assert len({row["item"] for row in leaked}) == right
    # the command's text says which text-only run, not "right without the image" (the
    # necessity figure's words)
    capsys.readouterr()
    assert main(["compare", "--db", str(db), "--dataset", str(root), "--leakage",
                 "--bootstrap", "0", "--stability", "0"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    listed = [line for line in text.splitlines() if line.startswith("right in text-only run ")]
    assert len(listed) == len(leaked) and "right without the image" not in text
    assert listed[0].startswith(f"right in text-only run {leaked[0]['text_run']}: ")
    # the command's text lists them in the same order
    capsys.readouterr()
    assert main(["compare", "--db", str(db), "--dataset", str(root)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("Credibility"))
    printed = [line.split()[0] for line in lines[start + 2 : start + 2 + len(models)]]
    assert printed == expected["order"]
    # and the command that counts one run's pairs counts what compare counts
    for run in pb.RUNS:
        one = cli_json(capsys, "credibility", "--db", db, "--dataset", root, "--run", run)
        assert [one[f"group_{g}"] for g in "abcd"] == [models[run][g] for g in "abcd"], run
    window.close()


def test_the_evaluate_pane_and_paired_outcomes_show_what_the_commands_print(qtbot, study, capsys):
    root, db = study
    window = open_study(qtbot, root, db)
    board = cli_json(capsys, "compare", "--db", db, "--dataset", root, "--bootstrap", 0,
                     "--stability", 0)["leaderboard"]["runs"]  # fmt: skip
    pane = window.open_evaluate_pane()
    view = pane.pairs_view
    for run in (pb.TEXT_RUN, "iv8"):
        pane.run_name.setEditText(run)
        qtbot.waitUntil(lambda run=run: f"<b>{run}</b>" in pane.summary.text(), timeout=5000)
        overall = board[run]["overall"]["Overall"]
        right, n = pb.accuracy_by_hand(run)
        assert (overall["correct"], overall["n"]) == (right, n)
        assert f"· {n} answered." in pane.summary.text(), run
        assert f"Accuracy <b>{right / n:.1%}</b>" in pane.summary.text(), run
        for preset in ("paper", "official"):
            view.preset.setCurrentIndex(view.preset.findData(preset))
            expected = cli_json(capsys, "credibility", "--db", db, "--dataset", root,
                                "--run", run, "--preset", preset)  # fmt: skip
            assert view.figures == expected, (run, preset)
            a, b, c, d = (expected[f"group_{g}"] for g in "abcd")
            assert f"Pairs {a + b + c + d}: A {a} · B {b} · C {c} · D {d}." in (
                view.credibility_label.text()
            )
    window.close()


def test_a_text_only_run_from_the_pane_is_sent_the_restricted_items_as_evaluate_does(
    qtbot, study, capsys
):
    from tests.llm.fake_openai import FakeOpenAI, text

    root, db = study
    window = open_study(qtbot, root, db)
    pane = window.open_evaluate_pane()
    replies = {f"Question {t}": [text("B" if t % 2 else "A")] * 50 for t in range(4)}
    with FakeOpenAI(replies) as server:
        pane.engine.setCurrentText("openai")
        pane.model.setText("text-model")
        pane.base_urls.setText(server.base_url)
        pane.image_mode.setCurrentIndex(pane.image_mode.findData("text-only"))
        pane.run_name.setEditText("fresh-text")
        with qtbot.waitSignal(pane.run_finished, timeout=60000):
            pane.start_button.click()
        answered = StudyStore(db).responses("fresh-text")
        assert set(answered) == set(pb.ITEMS)  # the 8 restricted items too (their text ships)
        # the command resumes the same run (nothing left to ask) and prints its summary
        summary = cli_json(capsys, "evaluate", "--dataset", root, "--db", db, "--engine",
                           "openai", "--model", "text-model", "--base-url", server.base_url,
                           "--text-only", "--run", "fresh-text")  # fmt: skip
    assert (summary["n"], summary["correct"]) == (24, 12)  # tasks 1 and 3 answered B: right
    assert f"· {summary['n']} answered." in pane.summary.text()
    assert f"Accuracy <b>{summary['accuracy']:.1%}</b>" in pane.summary.text()
    assert f"unparsed {summary['unparsed']}" in pane.summary.text()
    pane.grouping.setCurrentIndex(pane.grouping.findData("task"))
    rows = {pane.results.item(r, 0).text(): [pane.results.item(r, c).text() for c in (1, 2, 3)]
            for r in range(pane.results.rowCount())}  # fmt: skip
    assert rows == {
        task: [str(cell["n"]), str(cell["correct"]), f"{cell['accuracy']:.1%}"]
        for task, cell in summary["by_task"].items()
    }
    window.close()


def test_the_agreement_pane_shows_what_agreement_prints(qtbot, study, capsys):
    root, db = study
    window = open_study(qtbot, root, db)
    pane = window.open_agreement_pane()
    pane.first.setCurrentIndex(pane.first.findData("dr-a"))
    pane.second.setCurrentIndex(pane.second.findText("LLM: gpt-5.1"))
    with qtbot.waitSignal(pane.computed, timeout=60000):
        pane.compute_button.click()
    expected = cli_json(capsys, "agreement", "--db", db, "--reviewer", "dr-a", "--model",
                        "gpt-5.1")  # fmt: skip
    assert pane.run is not None, pane.summary.text()
    assert same_figures(pane.run.to_dict(), expected)
    kappas = [v["fleiss_kappa"] for v in expected["multi_rater"]["rules"].values()]
    spread = f"Fleiss' κ per rule from {min(kappas):.2f} to {max(kappas):.2f}"
    assert spread in html.unescape(pane.summary.text())  # dr-a, dr-b and the LLM
    assert main(["agreement", "--db", str(db), "--reviewer", "dr-a", "--model", "gpt-5.1"]) == 0
    assert spread in capsys.readouterr().out  # the command says it too
    assert expected["n_samples"] == len(pb.REVIEWED)  # the restricted ones reviewed too
    table = pane.table
    rows = {table.item(r, 0).data(Qt.ItemDataRole.UserRole): r for r in range(table.rowCount())}
    sample = expected["sample_level"]
    assert table.item(rows["sample"], 1).text() == agreement_cell(sample)
    for rule, figures in expected["rules"].items():
        assert table.item(rows[rule], 1).text() == agreement_cell(figures), rule
        cells = [int(table.item(rows[rule], c).text()) for c in range(6, 10)]
        assert cells == [n for line in figures["confusion"] for n in line], rule
    # every expert beside the LLM: the panel the command computes
    pane.second.setCurrentIndex(pane.second.findData(PANEL))  # "All reviewers (ceiling …)"
    with qtbot.waitSignal(pane.computed, timeout=60000):
        pane.compute_button.click()
    expected = cli_json(capsys, "agreement", "--db", db, "--reviewer", "dr-a", "--reviewer",
                        "dr-b", "--model", "gpt-5.1")  # fmt: skip
    assert same_figures(pane.panel_run.to_dict(), expected)
    window.close()


def agreement_cell(figures: dict) -> str:
    """The agreement cell the command's --json figures give: "0.75 [0.55, 0.90]", or
    "[undefined]" for an interval the JSON says is undefined (a zero-width bootstrap)."""
    if figures["ci95"] is None:
        assert "ci95" in figures.get("undefined", {}), figures  # said why, not just absent
        return f"{figures['agreement']:.2f} [undefined]"
    low, high = figures["ci95"]
    return f"{figures['agreement']:.2f} [{low:.2f}, {high:.2f}]"


def reproduce_command(report: Path) -> list[str]:
    """The command of a report.html's "Reproduce" footer, as a list of arguments."""
    page = report.read_text(encoding="utf-8")
    found = re.search(r"<b>Reproduce\.</b>.*?<pre><code>(.*?)</code></pre>", page, re.S)
    assert found, "report.html has no Reproduce command"
    return shlex.split(html.unescape(found.group(1)))


def run_cli(args: list[str]) -> dict:
    """``python -m medrcube_desktop ARGS --json`` in a fresh process, as a terminal runs
    the printed command (this checkout's code)."""
    done = subprocess.run(
        [sys.executable, "-m", "medrcube_desktop", *args, "--json"], cwd=REPO,
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_panes_report_reproduce_command_gives_the_reports_figures(qtbot, study, tmp_path):
    root, db = study
    window = open_study(qtbot, root, db)
    pane = compared(qtbot, window, min_items=3)  # a setting of the pane's own
    out = tmp_path / "report"
    with qtbot.waitSignal(pane.figures.exported, timeout=120000) as written:
        assert pane.export_report(out)
    assert written.args[0], pane.figures.status.text()
    command = reproduce_command(out / "report.html")
    assert command[:2] == ["medrcube-desktop", "compare"]
    assert command[command.index("--min-items") + 1] == "3"
    assert command[-2:] == ["--out", str(out.resolve())]  # it writes the report again
    report = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    again = tmp_path / "again"
    assert run_cli([*command[1:-1], str(again)]) == report  # every figure of the report
    assert json.loads((again / "compare.json").read_text(encoding="utf-8")) == report
    for name in ("leaderboard.csv", "credibility.csv", "text_only_drop.csv"):
        assert (again / name).read_bytes() == (out / name).read_bytes(), name
    window.close()


@pytest.mark.slow
def test_the_commands_report_reproduce_command_gives_the_reports_figures(study, tmp_path, capsys):
    root, db = study
    out = tmp_path / "cli-report"
    args = ["compare", "--db", str(db), "--dataset", str(root), "--min-items", "3",
            "--preset", "both", "--bootstrap", "200", "--seed", "7", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    command = reproduce_command(out / "report.html")
    assert command[-2:] == ["--out", str(out.resolve())]
    report = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    assert report["credibility_by_preset"]  # both presets: the settings were carried
    with open(out / "credibility.csv", encoding="utf-8-sig", newline="") as f:
        rows = [(row["preset"], row["run"]) for row in csv.DictReader(f)]
    assert rows == [(p, run) for p in ("paper", "official") for run in report["order"]]
    book = openpyxl.load_workbook(out / "compare.xlsx", read_only=True)
    sheet = [row[0] for row in book["credibility"].iter_rows(min_row=2, values_only=True)]
    assert sheet[: len(report["order"])] == report["order"]  # the leaderboard's order
    assert run_cli(command[1:-2]) == report  # the same figures, printed


def test_an_ablation_chosen_on_an_image_run_is_the_run_evaluate_makes(qtbot, study, capsys):
    """Image switched to an ablation on the pane's image run: the Run box follows to the
    name ``evaluate --image MODE`` gives (never the image run's own, which Start would
    resume under the ablation), the Image run box is that image run, and the run Start
    stores is the one the command resumes with the same flags (the seed at 2**32 − 1)."""
    from medrcube_desktop.evaluation.engine_options import default_run_name
    from tests.llm.fake_openai import FakeOpenAI, text

    root, db = study
    window = open_study(qtbot, root, db)
    pane = window.open_evaluate_pane()
    replies = {f"Question {t}": [text("B" if t % 2 else "A")] * 100 for t in range(4)}
    seed = 2**32 - 1
    with FakeOpenAI(replies) as server:
        pane.engine.setCurrentText("openai")
        pane.model.setText("m")
        pane.base_urls.setText(server.base_url)
        pane.run_name.setEditText("")
        with qtbot.waitSignal(pane.run_finished, timeout=60000):
            pane.start_button.click()
        assert pane.run_name.currentText() == "m-openai" == default_run_name("m", "openai")
        pane.image_mode.setCurrentIndex(pane.image_mode.findData("noise"))
        assert pane.run_name.currentText() == default_run_name("m", "openai", "noise")
        assert pane.image_run.currentText() == "m-openai" and pane.image_run.isEnabled()
        qtbot.waitUntil(lambda: "No such run yet" in pane.summary.text(), timeout=5000)
        pane.image_seed.setValue(seed)
        with qtbot.waitSignal(pane.run_finished, timeout=60000):
            pane.start_button.click()
        names = StudyStore(db).eval_run_names()
        summary = cli_json(capsys, "evaluate", "--dataset", root, "--db", db, "--engine",
                           "openai", "--model", "m", "--base-url", server.base_url,
                           "--image", "noise", "--image-seed", seed)  # fmt: skip
    assert StudyStore(db).eval_run_names() == names  # the command resumed the pane's run
    assert summary["answered_before"] == summary["n"] > 0 and summary["image_mode"] == "noise"
    stored = StudyStore(db).eval_run("m-openai-noise")
    assert (stored.image_mode, stored.image_run, stored.params["image"]["seed"]) == (
        "noise", "m-openai", seed,
    )  # fmt: skip
    # a name the user typed stays whatever the mode
    pane.run_name.lineEdit().selectAll()
    qtbot.keyClicks(pane.run_name.lineEdit(), "my-run")
    pane.image_mode.setCurrentIndex(pane.image_mode.findData("blank"))
    assert pane.run_name.currentText() == "my-run"
    pane.image_mode.setCurrentIndex(pane.image_mode.findData("image"))
    assert pane.run_name.currentText() == "my-run" and not pane.image_run.isEnabled()
    # typed, but the name of a stored run of another mode: never resumed under this one
    pane.run_name.lineEdit().selectAll()
    qtbot.keyClicks(pane.run_name.lineEdit(), "m-openai")
    qtbot.waitUntil(lambda: pane.image_mode.currentData() == "image", timeout=5000)
    pane.image_mode.setCurrentIndex(pane.image_mode.findData("blank"))
    assert pane.run_name.currentText() == default_run_name("m", "openai", "blank")
    window.close()
