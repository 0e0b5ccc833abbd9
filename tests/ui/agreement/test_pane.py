"""Review › Agreement study in the window: table, items behind a cell, blinding kept."""

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment
from tests.ui.review.test_review_binding_window import open_window

ALL_PASS = dict.fromkeys(RULE_IDS, 1)


def prepare(db):
    store = StudyStore(db)
    for item_id in ("ct-1", "ct-2"):
        store.save_judgment(
            Judgment(item_id, "gpt-5.1", {**ALL_PASS, "1.3": 0}, created_at=utc_now())
        )
    store.save_review(Review("dr-a", "ct-1", ALL_PASS, "", utc_now(), utc_now()))
    store.save_review(Review("dr-b", "ct-1", ALL_PASS, "", utc_now(), utc_now()))
    store.save_review(Review("dr-b", "ct-2", ALL_PASS, "", utc_now(), utc_now()))
    store.close()


def test_the_table_and_the_items_behind_a_cell(qtbot, ct_benchmark, tmp_path):
    prepare(tmp_path / "s.db")
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    pane = window.open_agreement_pane()
    pane.first.setCurrentIndex(pane.first.findData("dr-b"))
    pane.bootstrap.setValue(50)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    table = pane.table
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    row = labels.index("1.3 Unambiguous Phrasing")
    assert table.item(row, 1).text().startswith("0.00")  # dr-b passes, the LLM fails
    # blind study: dr-a (this window) has committed ct-1 only, so ct-2 is not counted
    assert [table.item(row, c).text() for c in (6, 7, 8, 9)] == ["0", "0", "1", "0"]
    assert "1 item both judged" in pane.summary.text() and "Blind study" in pane.summary.text()
    pane._cell_clicked(row, 8)  # dr-b passes, LLM fails
    assert [pane.items.item(i).text() for i in range(pane.items.count())] == ["ct-1"]
    with qtbot.waitSignal(pane.open_item):
        pane.items.itemDoubleClicked.emit(pane.items.item(0))
    assert window.session.current.id == "ct-1"
    pane.close()


def test_a_new_study_becomes_a_filter_of_the_item_list(qtbot, ct_benchmark, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    prepare(tmp_path / "s.db")
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    pane = window.open_agreement_pane()
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("pilot", True))
    monkeypatch.setattr(QInputDialog, "getInt", lambda *a, **k: (1, True))
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("none", True))
    pane.new_study()
    record = store.study("pilot")
    assert record is not None and len(record.item_ids) == 1
    combo = window.list_pane.combos["study"]
    combo.setCurrentIndex(combo.findData("pilot"))
    assert [i.id for i in window.session.visible] == list(record.item_ids)
    assert window.list_pane.count() == 1
    pane.close()


def test_judged_by_one_only_is_the_count_the_cli_gives(qtbot, ct_benchmark, tmp_path, monkeypatch):
    from medrcube_desktop.review.agreement import run_study
    from medrcube_desktop.ui.agreement import pane as agreement_pane

    prepare(tmp_path / "s.db")  # the LLM judged ct-1 and ct-2; dr-a reviewed ct-1 only
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    cli = run_study(store, "dr-a", model="gpt-5.1", bootstrap=0)
    assert len(cli.result.excluded) == 1
    pane = window.open_agreement_pane()
    pane.bootstrap.setValue(0)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    # before: "0 judged by one only" (the blind restriction had dropped ct-2 first)
    assert "1 item both judged, 1 judged by one only" in pane.summary.text()
    monkeypatch.setattr(agreement_pane, "choose_folder", lambda *a, **k: tmp_path / "x")
    pane.export()
    report = (tmp_path / "x" / "report.html").read_text(encoding="utf-8")
    assert "1 judged by only one of them" in report
    pane.close()


def test_a_reviewer_is_not_compared_with_themself(qtbot, ct_benchmark, tmp_path):
    import pytest

    from medrcube_desktop.errors import MedRCubeError
    from medrcube_desktop.review.agreement import run_study

    prepare(tmp_path / "s.db")
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    pane = window.open_agreement_pane()
    pane.first.setCurrentIndex(pane.first.findData("dr-b"))
    titles = [pane.second.itemText(i) for i in range(pane.second.count())]
    pane.second.setCurrentIndex(titles.index("Reviewer: dr-b"))
    with qtbot.waitSignal(pane.computed, timeout=5000):
        pane.compute_button.click()
    # before: every figure 1.00
    assert "themself" in pane.summary.text() and not pane.runner.is_running()
    assert pane.table.rowCount() == 0
    with pytest.raises(MedRCubeError, match="themself"):
        run_study(store, "dr-b", reviewer2="dr-b")
    pane.close()


def test_the_export_never_writes_over_the_study_database(
    qtbot, ct_benchmark, tmp_path, monkeypatch
):
    import os

    from PySide6.QtWidgets import QMessageBox

    from medrcube_desktop.ui.agreement import pane as agreement_pane

    prepare(tmp_path / "s.db")
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    pane = window.open_agreement_pane()
    pane.bootstrap.setValue(0)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    folder = tmp_path / "out"
    folder.mkdir()
    os.link(tmp_path / "s.db", folder / "agreement.json")  # the database by another name
    before = (tmp_path / "s.db").read_bytes()
    shown = []
    monkeypatch.setattr(agreement_pane, "choose_folder", lambda *a, **k: folder)
    monkeypatch.setattr(QMessageBox, "critical", lambda *a, **k: shown.append(a[2]))
    pane.export()
    assert shown and "is the input" in shown[0]
    assert (tmp_path / "s.db").read_bytes() == before
    assert not (folder / "report.html").exists()
    pane.close()


def test_all_reviewers_shows_the_ceiling_beside_expert_llm(qtbot, ct_benchmark, tmp_path):
    from pathlib import Path

    prepare(tmp_path / "s.db")
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    pane = window.open_agreement_pane()
    pane.second.setCurrentIndex(pane.second.findData("panel"))
    pane.bootstrap.setValue(50)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    table = pane.table
    headers = [table.horizontalHeaderItem(c).text().split("\n") for c in range(table.columnCount())]
    assert [h[0] for h in headers[1:3]] == ["expert–expert (ceiling)", "expert–LLM"], (
        pane.summary.text()
    )
    assert headers[1][1] == "n = 1"  # items each pair judged in common
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    row = labels.index("1.3 Unambiguous Phrasing")
    assert table.item(row, 1).text().startswith("1.00")  # dr-a and dr-b pass ct-1
    assert table.item(row, 2).text().startswith("0.00")  # the LLM fails it
    assert "Blind study" in pane.summary.text() and "1 items" not in pane.summary.text()
    if Path("/work/scratch/experts").is_dir():
        pane.resize(1100, 700)
        pane.grab().save("/work/scratch/experts/agreement_pane_ceiling.png")
    assert pane.lower.isHidden() and pane.table.height() > 300  # no empty figures area
    pane.second.setCurrentIndex(0)  # LLM: gpt-5.1
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    assert table.columnCount() == 10  # back to the two-rater layout
    assert not pane.lower.isHidden() and pane.notes.isHidden()
    pane.close()


def test_against_the_adjudicated_gold_standard(qtbot, ct_benchmark, tmp_path):
    from medrcube_desktop.store.adjudications import Adjudication

    prepare(tmp_path / "s.db")
    store = StudyStore(tmp_path / "s.db")  # dr-a and dr-b pass ct-1; gold on 1.3: fail
    store.save_adjudication(Adjudication("ct-1", "1.3", 0, "two readings", "dr-c"))
    store.close()
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    pane = window.open_agreement_pane()
    pane.show()
    pane.second.setCurrentIndex(pane.second.findData("gold"))
    pane.bootstrap.setValue(0)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    table = pane.table
    headers = [table.horizontalHeaderItem(c).text() for c in range(1, table.columnCount())]
    assert headers[0] == "LLM gpt-5.1 vs gold\nn = 1", pane.summary.text()
    assert headers[2] == "dr-a vs gold\nn = 1"
    labels = [table.item(r, 0).text() for r in range(table.rowCount())]
    row = labels.index("1.3 Unambiguous Phrasing")
    assert table.item(row, 1).text().startswith("1.00")  # the LLM fails 1.3 of ct-1 too
    assert table.item(row, 3).text().startswith("0.00")  # dr-a passed it
    assert "Against the adjudicated gold standard" in pane.summary.text()
    assert "by construction" not in pane.notes.text()  # no consensus item here
    assert "adjudicated by someone else" in pane.notes.text() and pane.notes.isVisible()
    pane.close()


def test_a_blind_reviewer_with_nothing_committed_is_told_so(qtbot, ct_benchmark, tmp_path):
    # dr-c (this window, a third reviewer or an adjudicator) has committed nothing: the
    # blind study counts none of their items, for any comparison (it said "no item has a
    # gold standard" and "no item was judged by two of the raters compared")
    prepare(tmp_path / "s.db")
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db", reviewer="dr-c")
    pane = window.open_agreement_pane()
    pane.first.setCurrentIndex(pane.first.findData("dr-b"))
    for choice in range(pane.second.count()):
        pane.second.setCurrentIndex(choice)
        with qtbot.waitSignal(pane.computed, timeout=30000):
            pane.compute_button.click()
        assert "you have committed none yet" in pane.summary.text(), pane.second.currentText()
    pane.close()
