"""Enter in the comment box before the review can be committed: the status bar says why."""

from PySide6.QtCore import Qt

from tests.ui.review.test_review_binding_window import open_window


def test_enter_in_the_comment_box_with_rules_unscored_says_why(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    box = window.rubric_pane.comment
    box.setFocus()
    qtbot.keyClicks(box, "first line")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    message = window.statusBar().currentMessage()
    assert message == "Score every rule to commit (7 left); Shift+Enter for a new line"
    assert box.hasFocus()
    qtbot.keyClicks(box, "second")
    assert box.toPlainText() == "first linesecond"  # Enter wrote nothing: it was a commit
    window.image_view.setFocus()  # scored in part: the count says what is left
    qtbot.keyClick(window.image_view, Qt.Key.Key_1)
    qtbot.keyClick(window.image_view, Qt.Key.Key_2)
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Enter)
    assert window.statusBar().currentMessage() == (
        "Score every rule to commit (5 left); Shift+Enter for a new line"
    )
    assert window.session.current.id == "ct-1"  # nothing committed, the item stays
