"""In the real window (ui/main_window.py with ui/corrections): Propose correction… is
enabled only after the reviewer's own commit in a blind study; a proposal submitted is
in the store at once and counted under the question; another expert accepts it in the
queue and the line follows."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.ui.main_window import MainWindow
from tests.ui.review.test_review_binding_window import open_window


def _commit(window, item_id):
    window.show_item(item_id)
    window.session.pass_unscored()
    window.session.commit()
    window.show_item(item_id)


def test_propose_after_ones_own_commit_then_accepted_by_another(qtbot, ct_benchmark, tmp_path):
    db = tmp_path / "study.db"
    window, store = open_window(qtbot, ct_benchmark, db)  # a blind study (the default)
    action = window.qactions["review.propose"]
    assert window.session.current.id == "ct-1" and not action.isEnabled()
    assert "commit your review" in window.corrections.propose()
    _commit(window, "ct-1")
    assert action.isEnabled()
    action.trigger()
    dialog = window.corrections.dialog
    assert dialog is not None and dialog.isVisible() and dialog.item.id == "ct-1"
    dialog.answer.setCurrentIndex(dialog.answer.findData("C"))
    dialog.rule.setCurrentIndex(dialog.rule.findData("1.3"))
    dialog.reason.setPlainText("A radiograph, not a CT.")
    with qtbot.waitSignal(dialog.submitted, timeout=10000):
        dialog.submit()
    [stored] = store.proposals("ct-1")
    assert (stored.author, stored.change, stored.kind) == ("dr-a", {"answer": "C"}, "answer_key")
    assert stored.record_before["id"] == "ct-1"
    line = window.item_pane.proposals
    assert line.isVisible() and "1 open proposal" in line.text()
    assert "Proposal saved" in window.statusBar().currentMessage()
    window.show_item("ct-2")
    assert not window.item_pane.proposals.isVisible()  # none on ct-2

    # another expert, in their own window, sees it only after committing the item
    benchmark = load_benchmark(ct_benchmark)
    other = MainWindow(ReviewSessionState(benchmark.items, store, "dr-b"), benchmark)
    qtbot.addWidget(other)
    with qtbot.waitSignal(other.first_item_shown, timeout=10000):
        other.show()
    pane = other.open_proposals_pane()
    assert pane.rows == [] and "1 hidden" in pane.count.text()
    _commit(other, "ct-1")
    assert "1 open proposal" in other.item_pane.proposals.text()
    other.show_item("ct-2")
    pane.hide()
    other.show_item("ct-1")
    other.item_pane.proposals.linkActivated.emit("proposals")  # the line's link
    assert pane.isVisible() and pane.selected().uid == stored.uid  # refreshed, selected
    assert [p.uid for p, _status in pane.rows] == [stored.uid]
    assert pane.accept_button.isEnabled()
    pane.reason.setText("Agreed.")
    with qtbot.waitSignal(pane.decided, timeout=10000):
        pane.accept_button.click()
    assert store.proposal_status(stored.uid) == "accepted"
    QApplication.processEvents()
    assert "1 decided" in other.item_pane.proposals.text()
    # the author's queue: their own, accepted, not theirs to accept again
    mine = window.open_proposals_pane()
    mine.status_filter.setCurrentIndex(mine.status_filter.findData("accepted"))
    assert [p.uid for p, _s in mine.rows] == [stored.uid]
    assert not mine.accept_button.isEnabled() and not mine.withdraw_button.isEnabled()


def test_the_form_opens_on_the_rule_the_reviewer_failed(qtbot, ct_benchmark, tmp_path):
    window, _store = open_window(qtbot, ct_benchmark, tmp_path / "study.db")
    session = window.session
    window.show_item("ct-1")
    session.toggle("2.2")
    session.toggle("1.3")
    session.set_comment("The options overlap; the question is ambiguous.")
    session.pass_unscored()
    session.commit()
    window.show_item("ct-1")
    window.corrections.propose()
    assert window.corrections.dialog.rule.currentData() == "1.3"  # the first failed
    window.corrections.dialog.reject()
    _commit(window, "ct-2")  # every rule passed: the reviewer chooses
    window.corrections.propose()
    assert window.corrections.dialog.item.id == "ct-2"
    assert window.corrections.dialog.rule.currentData() == ""
