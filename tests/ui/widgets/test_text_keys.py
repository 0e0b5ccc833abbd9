"""Keys never act where text is typed (issue 21, part 4): a sentence typed with the focus
in each place of the review window, and what it changed."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit, QPlainTextEdit, QSpinBox

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.ui.widgets.text_keys import takes_text
from tests.ui.review.test_review_binding_window import open_window

# Every single-key shortcut of the review is in it: digits 1-7, P, D, M, O, I, F, V, W,
# 0, + - = [ ], ?, and Backspace (previous item) through the typo fixed at the end.
SENTENCE = "poor terminology; dim 1-7 P [W] 0+= ? fix vague wordz"


def _state(window):
    """What a stray shortcut would change: scores, flag, overlay, outline, invert,
    caliper, opacity, item."""
    draft = window.session.draft
    return {
        "scores": dict(draft.scores) if draft else None,
        "flagged": set(window.session.flagged),
        "overlay": window.image.show_overlay,
        "outline": window.image.mask_outline,
        "invert": window.image.invert,
        "caliper": window.image_view.measuring,
        "opacity": window.image.mask_alpha,
        "item": window.session.current.id if window.session.current else None,
    }


def _type(qtbot, widget, text):
    widget.setFocus()
    assert widget.hasFocus()
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Backspace)  # the typo: "wordz" -> "word"
    qtbot.keyClick(widget, Qt.Key.Key_S)


@pytest.fixture
def window(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    yield window
    window.close()
    store.close()


def test_a_sentence_in_the_comment_box_is_the_comment_and_scores_nothing(qtbot, window):
    before = _state(window)
    window.fired_actions.clear()
    _type(qtbot, window.rubric_pane.comment, SENTENCE)
    typed = SENTENCE[:-1] + "s"
    assert window.rubric_pane.comment.toPlainText() == typed
    assert window.session.draft.comment == typed
    assert window.fired_actions == []
    assert _state(window) == before
    assert all(window.session.draft.scores[r] is None for r in RULE_IDS)


def test_a_sentence_in_the_search_box_searches_and_scores_nothing(qtbot, window):
    before = _state(window)
    window.fired_actions.clear()
    _type(qtbot, window.list_pane.search, SENTENCE)
    assert window.list_pane.search.text() == SENTENCE[:-1] + "s"
    assert window.fired_actions == []
    assert window.rubric_pane.comment.toPlainText() == ""
    window.list_pane.search.clear()  # the list comes back: ct-1 as it was
    window.show_item("ct-1")
    assert _state(window) == before


def test_enter_in_the_search_box_goes_back_to_the_image_without_committing(qtbot, window):
    window.image_view.setFocus()
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)  # every rule passed: Enter would commit
    window.list_pane.search.setFocus()
    qtbot.keyClick(window.list_pane.search, Qt.Key.Key_Return)
    assert window.image_view.hasFocus()
    assert window.session.current.id == "ct-1"
    assert "review.commit" not in window.fired_actions
    assert window.session.store.latest_reviews("dr-a") == {}


def test_a_sentence_in_the_note_box_is_the_note(qtbot, window):
    note = window.reveal_pane.note  # shown when a blind reviewer must say why
    note.setVisible(True)
    before = _state(window)
    window.fired_actions.clear()
    _type(qtbot, note, SENTENCE)
    assert note.text() == SENTENCE[:-1] + "s"
    assert window.fired_actions == []
    assert _state(window) == before
    assert window.rubric_pane.comment.toPlainText() == ""


@pytest.mark.parametrize("kind", ["line", "plain", "spin", "double", "combo"])
def test_any_editor_placed_in_the_window_keeps_its_keys(qtbot, window, kind):
    """The guard is one mechanism for every editor, not a list of the window's boxes."""
    editor = {
        "line": QLineEdit,
        "plain": QPlainTextEdit,
        "spin": QSpinBox,
        "double": QDoubleSpinBox,
        "combo": QComboBox,
    }[kind]()
    if kind == "combo":
        editor.setEditable(True)
    window.rubric_pane.layout().addWidget(editor)
    editor.show()
    if kind in ("spin", "double"):
        editor.clear()  # its "0" gone: "17" is typed as 17
    qtbot.keyClick(window.image_view, Qt.Key.Key_P)  # every rule scored: Enter would commit
    before = _state(window)
    before = _state(window)
    window.fired_actions.clear()
    text = "12 dip 7" if kind not in ("spin", "double") else "17"
    _type(qtbot, editor, text)
    if kind != "plain":  # Enter is the editor's too: it never commits the review
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        qtbot.keyClick(editor, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert window.fired_actions == []
    assert _state(window) == before
    assert window.rubric_pane.comment.toPlainText() == ""
    assert window.session.store.latest_reviews("dr-a") == {}
    typed = text[:-1] + "s"
    if kind == "line":
        assert editor.text() == typed
    elif kind == "plain":
        assert editor.toPlainText() == typed
    elif kind == "combo":
        assert editor.currentText() == typed
    else:  # Backspace took the 7 away; "s" is refused by the validator
        assert editor.value() == 1


def test_on_the_image_only_the_shortcut_letters_act_and_nothing_is_written(qtbot, window):
    """The issue's trial: "poor terminology" typed on the image. P passes the six
    unscored rules (2 was failed first), O toggles the outline at each of its four o's
    (back to filled), M hides the overlay, I inverts; r, t, e, n, l, g, y do nothing and
    nothing reaches the comment (it said "r terminology")."""
    view = window.image_view
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_2)  # 1.2 failed
    assert window.statusBar().currentMessage() == "Rule 1.2 failed (key 2)"
    outline = window.image.mask_outline
    window.fired_actions.clear()
    qtbot.keyClicks(view, "poor terminology")
    assert view.hasFocus()  # the keys stayed on the image
    assert window.rubric_pane.comment.toPlainText() == ""
    assert window.session.draft.comment == ""
    scores = window.session.draft.scores
    assert scores == {r: 0 if r == "1.2" else 1 for r in RULE_IDS}
    assert window.fired_actions == [
        "review.pass_rest",
        "view.outline",
        "view.outline",
        "view.overlay",
        "view.invert",
        "view.outline",
        "view.outline",
    ]
    assert window.image.mask_outline == outline and window.image.show_overlay is False
    assert window.image.invert is True and view.measuring is False
    assert window.statusBar().currentMessage() == (
        "“y” is not a key of the review: click the comment box to write."
    )


def test_each_single_key_says_what_it_did(qtbot, window):
    view = window.image_view
    view.setFocus()
    bar = window.statusBar()
    qtbot.keyClick(view, Qt.Key.Key_1)
    assert bar.currentMessage() == "Rule 1.1 failed (key 1)"
    qtbot.keyClick(view, Qt.Key.Key_1)
    assert bar.currentMessage() == "Rule 1.1 passed (key 1)"
    qtbot.keyClick(view, Qt.Key.Key_P)
    assert bar.currentMessage() == "Passed the unscored rules 1.2, 1.3, 1.4, 2.1, 2.2, 2.3 (key P)"
    qtbot.keyClick(view, Qt.Key.Key_P)
    assert bar.currentMessage() == "Every rule is scored already: nothing changed (key P)"
    qtbot.keyClick(view, Qt.Key.Key_O)
    assert bar.currentMessage() == "Masks drawn as outlines (key O)"
    qtbot.keyClick(view, Qt.Key.Key_I)
    assert bar.currentMessage() == "Negative (inverted) image (key I)"
    qtbot.keyClick(view, Qt.Key.Key_D)
    assert view.measuring and bar.currentMessage().startswith("Caliper")
    qtbot.keyClick(view, Qt.Key.Key_D)
    assert not view.measuring and bar.currentMessage() == "Caliper off (key D)"
    qtbot.keyClick(view, Qt.Key.Key_PageDown)
    assert bar.currentMessage() == "This image has one slice (key PgDown)"
    qtbot.keyClick(view, Qt.Key.Key_0)
    assert bar.currentMessage() == "Fit image to the window (key 0)"
    window.rubric_pane.comment.setFocus()
    qtbot.keyClick(window.rubric_pane.comment, Qt.Key.Key_Escape)  # Esc still acts
    assert view.hasFocus()
    assert bar.currentMessage() == "Back to the image: keys score again (key Esc)"


def test_what_takes_text():
    line, combo, spin = QLineEdit(), QComboBox(), QSpinBox()
    assert takes_text(line) and takes_text(spin) and not takes_text(combo)
    line.setReadOnly(True)
    spin.setReadOnly(True)
    combo.setEditable(True)
    assert not takes_text(line) and not takes_text(spin) and takes_text(combo)
    assert not takes_text(None)
