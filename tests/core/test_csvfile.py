"""The app's one CSV writer: every text cell formula-safe, whatever writes it."""

import csv

import pytest

from medrcube_desktop.core.csvfile import neutralise_cell, restore_cell, write_csv

FORMULAS = ['=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(1)", "\tx", "\rx", "'=1"]


@pytest.mark.parametrize("text", FORMULAS)
def test_a_formula_cell_comes_back_as_text_and_restores(tmp_path, text):
    path = write_csv(tmp_path / "x.csv", ["a", "b"], [[text, 3]])
    with open(path, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[1][0] == neutralise_cell(text) and rows[1][0].startswith("'")
    assert restore_cell(rows[1][0]) == text
    assert rows[1][1] == "3"  # numbers are numbers


def test_plain_cells_and_empty_cells_are_unchanged(tmp_path):
    path = write_csv(tmp_path / "x.csv", ["a", "b", "c"], [["ct-1", None, 0.5]])
    assert path.read_bytes() == b"\xef\xbb\xbfa,b,c\r\nct-1,,0.5\r\n"


def test_the_app_writes_csv_only_through_the_shared_writer():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "medrcube_desktop"
    writers = [
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if "csv.writer" in p.read_text() or "csv.DictWriter" in p.read_text()
    ]
    assert writers == ["core/csvfile.py"]
