"""The rubric's third state (issue 24) in a real window: Alt+1–7 or a right-click say
"cannot judge", the same key again unscores, P passes around it, Enter commits it as its
own value (no all-pass verdict, said under the commit button), and a closed window's
draft comes back with it."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from tests.ui.review.test_review_binding_window import open_window

ALT = Qt.KeyboardModifier.AltModifier


def test_alt_4_says_cannot_judge_and_enter_commits_it_as_its_own_value(
    qtbot, ct_benchmark, tmp_path
):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert "Alt+1–7 or right-click: cannot judge" in window.rubric_pane.keys_hint.text()
    qtbot.keyClick(window.image_view, Qt.Key.Key_4, ALT)
    assert window.session.draft.scores["1.4"] == CANNOT_JUDGE
    assert window.rubric_pane.buttons["1.4"].text().endswith("CANNOT JUDGE")
    qtbot.keyClick(window.image_view, Qt.Key.Key_4, ALT)  # again: unscored
    assert window.session.draft.scores["1.4"] is None
    assert window.rubric_pane.buttons["1.4"].text().endswith("not scored")
    qtbot.keyClick(window.image_view, Qt.Key.Key_4, ALT)
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)  # passes the six others, not 1.4
    assert window.session.draft.scores == {
        "1.1": 1, "1.2": 1, "1.3": 1, "1.4": CANNOT_JUDGE, "2.1": 1, "2.2": 1, "2.3": 1
    }  # fmt: skip
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-2"
    saved = store.latest_reviews("dr-a")["ct-1"]
    assert saved.scores["1.4"] == CANNOT_JUDGE and saved.scores["1.1"] == 1
    assert store.conn.execute("SELECT abstained FROM reviews").fetchone() == ('["1.4"]',)
    window.show_item("ct-1")
    assert "Cannot judge 1.4: no all-pass verdict." in window.rubric_pane.saved_label.text()
    assert window.rubric_pane.buttons["1.4"].text().endswith("CANNOT JUDGE")


def test_a_right_click_on_a_rule_says_cannot_judge(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    button = window.rubric_pane.buttons["2.2"]
    centre = button.rect().center()
    event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, centre, button.mapToGlobal(centre))
    QApplication.sendEvent(button, event)
    assert window.session.draft.scores["2.2"] == CANNOT_JUDGE
    qtbot.keyClick(window.image_view, Qt.Key.Key_5)  # the rule's own key: fail, then pass
    assert window.session.draft.scores["2.1"] == 0 and button.text().endswith("CANNOT JUDGE")


def test_a_closed_windows_draft_comes_back_with_cannot_judge(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    window.show_item("ct-2")
    qtbot.keyClick(window.image_view, Qt.Key.Key_7, ALT)
    qtbot.keyClick(window.image_view, Qt.Key.Key_1)
    window.close()
    store.close()
    again, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert again.session.current.id == "ct-2"
    assert again.session.draft.scores["2.3"] == CANNOT_JUDGE
    assert again.session.draft.scores["1.1"] == 0 and again.session.draft.scores["1.2"] is None
    assert again.rubric_pane.buttons["2.3"].text().endswith("CANNOT JUDGE")


def test_the_reveal_after_commit_shows_cannot_judge_and_counts_no_disagreement_on_it(
    qtbot, ct_benchmark, tmp_path
):
    from tests.ui.review.test_review_binding import MODEL, prepare

    prepare(tmp_path / "s.db")  # the LLM fails 1.3, dr-other fails 2.2
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    qtbot.keyClick(window.image_view, Qt.Key.Key_3, ALT)
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    table = window.reveal_pane.table
    columns = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert columns == ["", "You", MODEL, "dr-other"]
    row = list(RULE_IDS).index("1.3")
    assert [table.item(row, c).text() for c in range(4)] == ["", "CANNOT JUDGE", "FAIL", "PASS"]
    other_row = list(RULE_IDS).index("2.2")  # a real difference is still marked
    assert [table.item(other_row, c).text() for c in range(4)] == ["", "PASS", "PASS", "≠ FAIL"]
    assert window.session.note_needed is None  # no disagreement with the LLM: no note asked
    assert not window.reveal_pane.note.isVisible()
    assert store.first_reviews("dr-a")["ct-1"].scores["1.3"] == CANNOT_JUDGE
