"""The review window as a reviewer uses it: blinding, every shortcut, undo, flags, tags,
queues, intra-rater repeats, themes, remapped keys and the saved window layout."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QPlainTextEdit,
    QTableWidget,
)

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment
from medrcube_desktop.ui.actions import keymap_conflicts
from tests.ui.review.test_review_binding_window import open_window

MODEL = "gpt-5.1-blindtest"


def prepare(db, study=None, judged=("ct-1",), other=True):
    """A study database with an LLM judgment failing 1.3 and another reviewer's scores."""
    store = StudyStore(db)
    for item_id in judged:
        scores = {r: 0 if r == "1.3" else 1 for r in RULE_IDS}
        store.save_judgment(Judgment(item_id, MODEL, scores, created_at=utc_now()))
    if other:
        scores = {r: 0 if r == "2.2" else 1 for r in RULE_IDS}
        store.save_review(Review("dr-other", "ct-1", scores, "overlap", utc_now(), utc_now()))
    if study is not None:
        study.save(store)
    store.close()


def visible_texts(window) -> str:
    """Every text a widget of the window holds, shown or not (labels, buttons, boxes,
    list entries and their tooltips, table cells and headers, the title)."""
    texts = [window.windowTitle(), window.statusBar().currentMessage()]

    def own(kind):  # widgets of the review window itself, not of its dialogs
        return [w for w in window.findChildren(kind) if w.window() is window]

    for widget in own(QLabel):
        texts += [widget.text(), widget.toolTip()]
    for widget in own(QAbstractButton):
        texts += [widget.text(), widget.toolTip()]
    for widget in own(QLineEdit):
        texts.append(widget.text())
    for widget in own(QPlainTextEdit):
        texts.append(widget.toPlainText())
    for widget in own(QListWidget):
        for row in range(widget.count()):
            texts += [widget.item(row).text(), widget.item(row).toolTip()]
    for view in own(QListView):  # model-based lists (the item list)
        model = view.model()
        for row in range(model.rowCount()):
            index = model.index(row, 0)
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                texts.append(str(index.data(role) or ""))
    for table in own(QTableWidget):
        for column in range(table.columnCount()):
            header = table.horizontalHeaderItem(column)
            texts.append(header.text() if header else "")
            for row in range(table.rowCount()):
                cell = table.item(row, column)
                texts.append(cell.text() if cell else "")
    return "\n".join(t for t in texts if t)


def test_llm_judgment_and_other_reviewers_are_in_no_widget_before_commit(
    qtbot, ct_benchmark, tmp_path
):
    prepare(tmp_path / "s.db")
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert window.session.current.id == "ct-1"
    before = visible_texts(window)
    assert MODEL not in before and "dr-other" not in before and "≠" not in before
    assert "hidden until you commit" in window.reveal_pane.title.text()
    assert window.reveal_pane.table.rowCount() == 0
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    assert MODEL not in visible_texts(window)  # scored is not committed
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-1"  # stays to show what was hidden
    after = visible_texts(window)
    assert MODEL in after and "dr-other" in after
    table = window.reveal_pane.table
    columns = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert columns == ["", "You", MODEL, "dr-other"]
    row = list(RULE_IDS).index("1.3")
    assert [table.item(row, c).text() for c in range(4)] == ["≠", "PASS", "≠ FAIL", "PASS"]
    other_row = list(RULE_IDS).index("2.2")  # the other reviewer differs, the LLM does not
    assert [table.item(other_row, c).text() for c in range(4)] == ["", "PASS", "PASS", "≠ FAIL"]
    assert table.item(0, 0).text() == ""  # 1.1: everyone agrees
    assert window.reveal_pane.note.isVisible()  # the disagreement needs a reason
    qtbot.keyClick(window.reveal_pane.note, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-1"  # an empty note is refused
    qtbot.keyClicks(window.reveal_pane.note, "1.3 reads fine to a radiologist")
    qtbot.keyClick(window.reveal_pane.note, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-2"
    assert store.disagreement_notes("dr-a") == {"ct-1": "1.3 reads fine to a radiologist"}
    assert store.first_reviews("dr-a")["ct-1"].scores == dict.fromkeys(RULE_IDS, 1)


def test_a_curation_study_without_blinding_shows_the_judgment_at_once(
    qtbot, ct_benchmark, tmp_path
):
    prepare(tmp_path / "s.db", StudySettings(blind=False))
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert MODEL in visible_texts(window)
    table = window.reveal_pane.table
    assert [table.item(2, c).text() for c in range(4)] == ["", "—", "FAIL", "PASS"]  # rule 1.3
    assert "Not blind" in window.reveal_pane.title.text()  # no "agree" before scoring
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    assert [table.item(2, c).text() for c in range(4)] == ["≠", "PASS", "≠ FAIL", "PASS"]
    assert "differ on <b>1.3" in window.reveal_pane.title.text()


def press(window, key_text: str) -> None:
    combination = QKeySequence(key_text)[0]
    QTest.keyClick(window.image_view, combination.key(), combination.keyboardModifiers())


def test_every_shortcut_of_the_action_table_runs_its_action(
    qtbot, monkeypatch, ct_benchmark, tmp_path
):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    for owner, name in (
        (window.shortcuts, "show_shortcuts"),
        (window.tools, "show_problems"),
        (window.shortcuts, "edit_shortcuts"),
        (window.tools, "edit_study_settings"),
        (window, "ask_reviewer"),
        (window.panes, "open"),  # the judge, agreement, evaluate and compare panes
        (window.files, "open_benchmark"),
        (window.files, "open_database"),
        (window.files, "show_study_info"),
        (window, "close"),  # restored before qtbot closes the window
        (window.corrections, "propose"),  # the proposal form
    ):
        monkeypatch.setattr(owner, name, lambda *a: None)  # dialogs would wait for a click
    monkeypatch.setattr(window.corrections, "can_propose", lambda: True)  # as if committed
    window._refresh_actions()
    checked = []
    for spec in window.actions_table:
        if not spec.shortcuts:
            continue
        if spec.id == "review.undo":
            window.scoring.toggle_rule("1.1")
        if spec.id == "review.redo":
            window.scoring.undo()
        window.image_view.setFocus()
        window.fired_actions.clear()  # (it keeps the last 50 only)
        press(window, spec.shortcuts[0])
        assert window.fired_actions == [spec.id], spec.shortcuts[0]
        checked.append(spec.id)
    assert len(checked) >= 45 and "review.flag" in checked and "help.shortcuts" in checked
    for opened in ("review.llm", "review.agreement", "review.evaluate", "review.compare",
                   "app.open_benchmark"):  # fmt: skip
        assert opened in checked


def test_remapped_keys_replace_the_defaults_and_conflicts_are_named(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    window.shortcuts.apply_shortcuts({"review.flag": ["G"]})
    press(window, "F")
    assert "ct-1" not in window.session.flagged
    press(window, "G")
    assert window.session.flagged == {"ct-1"} and window.prefs.shortcuts == {"review.flag": ["G"]}
    conflicts = keymap_conflicts(window.actions_table, {"review.flag": ["p"]})
    assert conflicts == ["P: Pass every unscored rule and Flag / unflag the item"]


def test_ctrl_z_and_ctrl_shift_z_undo_and_redo_scores_and_comment(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    qtbot.keyClick(window.image_view, Qt.Key.Key_3)
    window.rubric_pane.comment.setFocus()
    qtbot.keyClicks(window.rubric_pane.comment, "stem is ambiguous")
    qtbot.keyClick(window.rubric_pane.comment, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.rubric_pane.comment.toPlainText() == ""  # the typing, as one step
    assert window.rubric_pane.buttons["1.3"].text().endswith("FAIL")
    window.image_view.setFocus()
    qtbot.keyClick(window.image_view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.rubric_pane.buttons["1.3"].text().endswith("not scored")
    assert not window.qactions["review.undo"].isEnabled()
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(window.image_view, Qt.Key.Key_Z, shift_ctrl)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Z, shift_ctrl)
    assert window.rubric_pane.buttons["1.3"].text().endswith("FAIL")
    assert window.rubric_pane.comment.toPlainText() == "stem is ambiguous"


def test_flag_tags_and_queue_filters_in_the_window(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    qtbot.keyClick(window.image_view, Qt.Key.Key_F)
    assert "⚑" in window.list_pane.row_text(0)
    assert store.flags("dr-a") == {"ct-1"}
    qtbot.keyClick(window.image_view, Qt.Key.Key_6)  # fail 2.2: its tags are offered
    assert window.rubric_pane.tag_items() == {
        "overlapping options": False,
        "duplicate option": False,
    }
    window.rubric_pane.tags_row.item(0).setCheckState(Qt.CheckState.Checked)
    assert window.session.draft.tags == ["overlapping options"]
    queue = window.list_pane.combos["status"]
    queue.setCurrentIndex(queue.findData("flagged"))
    assert window.list_pane.count() == 1
    queue.setCurrentIndex(queue.findData(""))
    window.list_pane.search.setText("plane")
    assert [window.list_pane.row_text(r).split()[1] for r in range(1)] == ["ct-2"]
    assert window.list_pane.count() == 1


def test_intra_rater_repeat_comes_back_unscored_with_a_banner(qtbot, ct_benchmark, tmp_path):
    prepare(
        tmp_path / "s.db", StudySettings(repeat_share=1.0, repeat_gap=1), judged=(), other=False
    )
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    for _ in range(2):
        qtbot.keyClick(window.image_view, Qt.Key.Key_P)
        qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert window.session.current.id == "ct-1" and window.session.draft.repeat
    assert "Repeat" in window.reveal_pane.title.text()
    assert all(b.text().endswith("not scored") for b in window.rubric_pane.buttons.values())
    qtbot.keyClick(window.image_view, Qt.Key.Key_4)
    window.rubric_pane.comment.setPlainText("needs the image? not really")
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    repeat = store.repeat_reviews("dr-a")["ct-1"]
    assert repeat.scores["1.4"] == 0 and store.latest_reviews("dr-a")["ct-1"].scores["1.4"] == 1


def test_themes_font_scale_and_window_layout_are_applied_and_restored(
    qtbot, ct_benchmark, tmp_path
):
    from medrcube_desktop.ui.window_tools import restore_window_state, save_window_state

    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    app = QApplication.instance()
    base = app.font().pointSizeF()
    window.tools.set_theme("dark")
    assert app.palette().window().color().name() == "#22272e"
    window.tools.set_theme("high-contrast")
    assert app.palette().window().color().name() == "#000000"
    window.tools.scale_font(1)
    assert window.prefs.font_scale == pytest.approx(1.15)
    assert app.font().pointSizeF() == pytest.approx(base * 1.15, rel=0.02)
    window.tools.set_theme("light")
    window.tools.scale_font(-1)
    assert not restore_window_state(window)  # nothing stored yet
    window.splitter.setSizes([200, 600, 500])
    sizes = window.splitter.sizes()
    save_window_state(window)
    window.splitter.setSizes([300, 500, 500])
    assert restore_window_state(window)
    assert window.splitter.sizes() == sizes


def test_typing_on_the_image_never_writes_the_comment(qtbot, ct_benchmark, tmp_path):
    """Issue 21: a letter no shortcut uses does nothing on the image (it used to start
    the comment, so "poor terminology" left "r terminology" after P and O had acted);
    tests/ui/widgets/test_text_keys.py checks what each shortcut letter did."""
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert QApplication.focusWidget() is window.image_view  # not the Task filter
    qtbot.keyClick(window.image_view, Qt.Key.Key_2)
    for char in "the stem":  # each key to whatever has the focus
        qtbot.keyClicks(QApplication.focusWidget(), char)
    assert QApplication.focusWidget() is window.image_view
    assert window.rubric_pane.comment.toPlainText() == ""
    scores = window.session.draft.scores
    assert scores["1.2"] == 0 and sum(v is None for v in scores.values()) == 6  # no P pressed
    assert window.image.show_overlay is False  # the m of "stem" is key M


def test_enter_in_the_search_box_gives_the_keys_back(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    press(window, "Ctrl+F")
    qtbot.keyClicks(window.list_pane.search, "plane")
    qtbot.keyClick(window.list_pane.search, Qt.Key.Key_Return)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_1)
    assert window.list_pane.search.text() == "plane"
    assert window.session.current.id == "ct-2" and window.session.draft.scores["1.1"] == 0


def test_a_pending_note_comes_back_and_changed_scores_commit_instead(qtbot, ct_benchmark, tmp_path):
    prepare(tmp_path / "s.db", other=False)
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    assert window.reveal_pane.note.isVisible()
    press(window, "Ctrl+Down")  # skipped the note
    assert QApplication.focusWidget() is window.image_view
    window.show_item("ct-1")
    assert window.reveal_pane.note.isVisible()  # still asked for
    window.image_view.setFocus()
    qtbot.keyClick(window.image_view, Qt.Key.Key_3)  # changed mind: fail 1.3 like the LLM
    window.rubric_pane.comment.setPlainText("1.3: 'outlined' is ambiguous")
    qtbot.keyClick(window.image_view, Qt.Key.Key_Return)
    history = store.review_history("dr-a", "ct-1")
    assert [(r.revision, r.blind, r.scores["1.3"]) for r in history] == [
        (1, True, 1),
        (2, False, 0),
    ]
    assert window.session.current.id == "ct-2"


def test_remapped_rule_keys_are_named_on_the_rubric(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    window.shortcuts.apply_shortcuts({"rule.1.1": ["Q"], "review.commit": ["Space"]})
    assert window.rubric_pane.buttons["1.1"].text().startswith("Q ")
    assert window.rubric_pane.commit_button.text() == "Commit and next  (Space)"
    assert "Keys Q 2 3 4 5 6 7" in window.rubric_pane.keys_hint.text()
