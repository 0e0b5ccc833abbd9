"""File › Open benchmark / study database, Study info, Import / Export reviews."""

import csv
import shutil

import pytest
from PySide6.QtWidgets import QInputDialog, QMessageBox

from medrcube_desktop import settings
from medrcube_desktop.ui import file_actions
from tests.ui.review.test_review_binding_window import open_window


@pytest.fixture
def quiet_dialogs(monkeypatch):
    """Message boxes are recorded, not shown."""
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(
        QMessageBox, "critical", lambda parent, title, text, *a: shown.append((title, text))
    )
    yield shown
    file_actions._OPEN_WINDOWS.clear()


def commit_one(window) -> str:
    item_id = window.session.current.id
    window.scoring.pass_unscored()
    window.scoring.commit()
    return item_id


def test_the_window_says_where_the_database_is(qtbot, ct_benchmark, tmp_path, monkeypatch):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "study.db")
    assert window.files.db_label.text() == "Database: study.db"
    assert window.files.db_label.toolTip() == str(tmp_path / "study.db")
    monkeypatch.setattr(window.files, "_run_dialog", lambda box: True)
    window.files.show_study_info()
    assert f"Study database: {tmp_path / 'study.db'}" in window.files.study_info_text
    assert "File" in [a.text().replace("&", "") for a in window.menuBar().actions()]
    assert "Study info (where the reviews are saved)…" in [
        a.text() for a in window.qactions.values()
    ]


def test_export_and_import_reviews_from_the_window(
    qtbot, ct_benchmark, tmp_path, monkeypatch, quiet_dialogs
):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    committed = commit_one(window)
    out = tmp_path / "out.csv"
    monkeypatch.setattr(
        QInputDialog, "getItem", lambda *a, **k: ("the latest revision of each item", True)
    )
    monkeypatch.setattr(file_actions, "get_save_file_name", lambda *a, **k: (str(out), ""))
    window.files.export_reviews_csv()
    rows = list(csv.DictReader(out.open(encoding="utf-8-sig")))  # with a BOM, for Excel
    assert [r["item_id"] for r in rows] == [committed]
    assert "1 reviews by dr-a written" in window.statusBar().currentMessage()
    # the database itself (or a link to it) is never the output
    link = tmp_path / "link.db"
    link.hardlink_to(tmp_path / "s.db")
    monkeypatch.setattr(file_actions, "get_save_file_name", lambda *a, **k: (str(link), ""))
    window.files.export_reviews_csv()
    assert quiet_dialogs[-1][0] == "Not exported"
    assert store.latest_reviews("dr-a")[committed]  # still a database
    window.close()

    other, store_b = open_window(qtbot, ct_benchmark, tmp_path / "s.db", reviewer="dr-b")
    monkeypatch.setattr(file_actions, "get_open_file_name", lambda *a, **k: (str(out), ""))
    monkeypatch.setattr(other.files, "_run_dialog", lambda box: True)
    other.files.import_reviews_csv()
    assert "1 reviews imported as dr-b" in other.statusBar().currentMessage()
    assert list(store_b.latest_reviews("dr-b")) == [committed]
    assert other.session.saved.keys() == {committed}  # the window shows them now


def test_open_a_benchmark_and_a_database(qtbot, ct_benchmark, tmp_path, monkeypatch, quiet_dialogs):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    second = tmp_path / "second"
    shutil.copytree(ct_benchmark, second)
    monkeypatch.setattr(file_actions, "get_existing_directory", lambda *a, **k: str(second))
    with qtbot.waitSignal(window.first_item_shown, timeout=1, raising=False):
        window.files.open_benchmark()
    opened = window.files.opened_window
    qtbot.addWidget(opened)
    assert opened.benchmark.root == second.resolve() or opened.benchmark.root == second
    assert opened.session.store.path == settings.default_db_path(opened.benchmark.root)
    assert opened.session.reviewer == "dr-a" and not window.isVisible()
    other_db = tmp_path / "other.sqlite"
    monkeypatch.setattr(file_actions, "get_open_file_name", lambda *a, **k: (str(other_db), ""))
    opened.files.open_database()
    newest = opened.files.opened_window
    qtbot.addWidget(newest)
    assert newest.session.store.path == other_db and newest.files.db_label.text().endswith(
        "other.sqlite"
    )
    monkeypatch.setattr(file_actions, "get_existing_directory", lambda *a, **k: str(tmp_path))
    newest.files.open_benchmark()  # no test.json there: said, and the window stays
    assert quiet_dialogs and quiet_dialogs[-1][0] == "Benchmark not opened"
    assert newest.isVisible()
