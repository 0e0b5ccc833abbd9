"""A blank, swapped or noise run is marked as an ablation on every surface of
``compare``, as a text-only run is (issue 24 trial): the text table, ``--json``, the
Compare pane (leaderboard, run list, grid header), ``report.html``, ``leaderboard.csv``
and the workbook, all from one mark (:func:`~.image_modes.mode_mark`)."""

from __future__ import annotations

import csv
import json
import re

import openpyxl
from PySide6.QtCore import Qt

from medrcube_desktop.cli import main
from tests import parity_bench as pb
from tests.seams.test_necessity_parity import _add_ablations
from tests.seams.test_pane_cli_parity import cli_json, compared, open_study


def test_every_surface_marks_the_blank_and_noise_runs(qtbot, tmp_path, capsys):
    root, db = pb.build(tmp_path)
    _add_ablations(db)  # iv8-blank (blank), ls-noise (noise), beside the text-only run
    families = cli_json(capsys, "compare", "--db", db, "--dataset", root)["families"]
    assert families["iv8-blank"]["image_mode"] == "blank"
    assert families["ls-noise"]["image_mode"] == "noise"
    assert families[pb.TEXT_RUN]["image_mode"] == "text-only"
    assert families["iv8"]["image_mode"] == "image"
    doc = cli_json(capsys, "compare", "--db", db, "--dataset", root)
    modes = {m["run"]: m["image_mode"] for m in doc["credibility"]["models"]}
    assert modes["iv8-blank"] == "blank" and modes["iv8"] == "image"
    out = tmp_path / "out"
    assert main(["compare", "--db", str(db), "--dataset", str(root), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    line = next(row for row in text.splitlines() if row.startswith("iv8-blank "))
    assert " blank " in line  # the image_mode column of the table
    assert "image_mode" in text
    # image_mode says text-only too: the table has no text_only column beside it (the
    # CSV keeps both); "text_only_drop.csv" in a later line is not a column
    table = text.split("\nCredibility")[0]
    assert re.search(r"\btext_only\b", table) is None
    text_line = next(row for row in table.splitlines() if row.startswith(f"{pb.TEXT_RUN} "))
    assert " text-only " in text_line
    with open(out / "credibility.csv", newline="", encoding="utf-8-sig") as f:
        cred_rows = {row["run"]: row for row in csv.DictReader(f)}
    assert cred_rows["iv8-blank"]["image_mode"] == "blank"
    assert cred_rows["ls-noise"]["image_mode"] == "noise"
    assert "iv8-blank (blank ablation) " in text  # the credibility table's row
    assert "ls-noise (noise ablation) " in text
    with open(out / "leaderboard.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    by_run = {row["run"]: row for row in rows}
    assert by_run["iv8-blank"]["image_mode"] == "blank"
    assert by_run["ls-noise"]["image_mode"] == "noise"
    assert by_run["iv8"]["image_mode"] == "image"
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "(blank ablation)" in page and "(noise ablation)" in page
    assert page.count("(blank ablation)") == 2  # Table 3 and the footer's run list
    # intervals as the command prints them: "[-100.0, -100.0]", never "[-100.0–-100.0]"
    spans = re.findall(r"<span class='ci'>\[([^]]*)\]</span>", page)
    assert spans and all(re.fullmatch(r"-?[\d.]+, -?[\d.]+", s) for s in spans), spans
    assert "–-" not in page
    book = openpyxl.load_workbook(out / "compare.xlsx")
    sheet = list(book["leaderboard"].iter_rows(values_only=True))
    column = sheet[0].index("image_mode")
    assert {row[column] for row in sheet[1:] if row[0] == "ls-noise"} == {"noise"}
    window = open_study(qtbot, root, db)
    pane = compared(qtbot, window)
    board = pane.board_model
    rows = {board.data(board.index(r, 0)): r for r in range(1, board.rowCount())}
    assert "iv8-blank (blank ablation)" in rows and "ls-noise (noise ablation)" in rows
    assert f"{pb.TEXT_RUN} (text only)" in rows and "iv8" in rows  # an image run: no mark
    row = rows["iv8-blank (blank ablation)"]
    assert board.data(board.index(row, 0), Qt.ItemDataRole.FontRole).italic()
    assert board.data(board.index(row, 0), Qt.ItemDataRole.ToolTipRole).startswith("Blank: ")
    assert any(h.endswith("ls-noise (noise)") for h in pane.grid_model.headers)
    listed = [pane.runs.item(r).text() for r in range(pane.runs.count())]
    assert any(t.startswith("iv8-blank\n") and " · BLANK · " in t for t in listed)
    assert any(t.startswith("iv8\n") and "·" in t and "BLANK" not in t for t in listed)
    cred = pane.credibility.credibility  # the credibility tab's table, in italics too
    names = [cred.item(r, 0).text() for r in range(cred.rowCount())]
    assert "iv8-blank (blank ablation)" in names
    assert cred.item(names.index("iv8-blank (blank ablation)"), 0).font().italic()
    window.close()
    json.dumps(families)  # the document is JSON as printed
