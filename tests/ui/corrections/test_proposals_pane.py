"""The proposals queue on the real store: it lists and filters; one's own proposal
cannot be accepted or rejected (only withdrawn); a decision needs a reason, is stored
and shows in the history; a blind study hides proposals on uncommitted items."""

from __future__ import annotations

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.review.corrections import Proposal
from medrcube_desktop.review.proposing import build_proposal
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.corrections.proposals_pane import ProposalsPane


def _study(ct_benchmark, tmp_path, blind=False):
    benchmark = load_benchmark(ct_benchmark)
    store = StudyStore(tmp_path / "study.db")
    StudySettings(blind=blind).save(store)
    items = {i.id: i for i in benchmark.items}

    def propose(item_id, author, kind, change, reason="Because.", rule="1.1") -> Proposal:
        p = build_proposal(items[item_id], kind, rule, reason, author, change)
        return store.save_proposal(p)

    return benchmark, store, propose


def _pane(qtbot, session):
    pane = ProposalsPane(None, lambda: session)
    qtbot.addWidget(pane)
    pane.show()
    qtbot.waitExposed(pane)
    return pane


def _column(pane, column: int) -> list[str]:
    return [pane.table.item(row, column).text() for row in range(pane.table.rowCount())]


def test_the_queue_lists_and_filters(qtbot, ct_benchmark, tmp_path):
    benchmark, store, propose = _study(ct_benchmark, tmp_path)
    first = propose("ct-1", "dr-b", "answer_key", {"answer": "C"}, "It is a radiograph.", "1.3")
    propose("ct-2", "dr-b", "retire", {}, "Duplicate.", "2.1")
    propose("ct-2", "dr-c", "question_text", {"text": "Which plane?"}, "Shorter.", "1.2")
    store.save_decision(build_decision(first.uid, "rejected", "No: CT.", "dr-c"))
    pane = _pane(qtbot, ReviewSessionState(benchmark.items, store, "dr-a"))
    assert _column(pane, 0) == ["ct-2", "ct-2"]  # the open ones
    assert _column(pane, 1) == ["retire", "question text"]
    assert _column(pane, 3) == ["dr-b", "dr-c"] and _column(pane, 2) == ["2.1", "1.2"]
    assert pane.count.text() == "2 listed of 3"
    pane.status_filter.setCurrentIndex(pane.status_filter.findData("rejected"))
    assert _column(pane, 0) == ["ct-1"] and _column(pane, 6) == ["rejected"]
    assert "It is a radiograph." in _column(pane, 4)[0]
    assert "1. <b>rejected</b> by dr-c" in pane.detail.text()
    # one notation on both sides, the words of proposals list (was "gt_answer CT / C. X-ray")
    assert "Now: B. CT → Proposed: C. X-ray" in pane.detail.text()
    pane.status_filter.setCurrentIndex(pane.status_filter.findData(""))
    pane.kind_filter.setCurrentIndex(pane.kind_filter.findData("retire"))
    assert _column(pane, 0) == ["ct-2"]
    pane.kind_filter.setCurrentIndex(0)
    pane.search.setText("shorter")
    assert _column(pane, 3) == ["dr-c"]
    with qtbot.waitSignal(pane.open_item) as opened:
        pane.open_button.click()
    assert opened.args == ["ct-2"]


def build_decision(uid, decision, reason, decider):
    from medrcube_desktop.review.corrections import Decision

    return Decision(uid, decision, reason, decider)


def test_ones_own_proposal_cannot_be_accepted_only_withdrawn(qtbot, ct_benchmark, tmp_path):
    benchmark, store, propose = _study(ct_benchmark, tmp_path)
    own = propose("ct-1", "dr-a", "retire", {}, "Blurred image.")
    pane = _pane(qtbot, ReviewSessionState(benchmark.items, store, "dr-a"))
    assert pane.selected().uid == own.uid
    assert not pane.accept_button.isEnabled() and not pane.reject_button.isEnabled()
    assert "Your own proposal" in pane.accept_button.toolTip()
    assert pane.withdraw_button.isEnabled()
    pane.decide("accepted")  # the button is off; called anyway, the store refuses it
    qtbot.waitUntil(lambda: not pane.writer.busy(), timeout=10000)
    assert store.decisions(own.uid) == []
    pane.reason.setText("Taken back.")
    pane.decide("accepted")
    qtbot.waitUntil(lambda: "Not saved" in pane.message.text(), timeout=10000)
    assert "own" in pane.message.text() or "author" in pane.message.text()
    assert store.proposal_status(own.uid) == "open"
    with qtbot.waitSignal(pane.decided, timeout=10000):
        pane.withdraw_button.click()
    assert store.proposal_status(own.uid) == "withdrawn"
    assert pane.rows == []  # no longer open


def test_ones_own_proposal_in_another_case_cannot_be_accepted(qtbot, ct_benchmark, tmp_path):
    benchmark, store, propose = _study(ct_benchmark, tmp_path)
    own = propose("ct-1", "DR-A", "retire", {}, "Blurred image.")
    pane = _pane(qtbot, ReviewSessionState(benchmark.items, store, "dr-a"))
    assert pane.selected().uid == own.uid
    assert not pane.accept_button.isEnabled() and not pane.reject_button.isEnabled()
    assert "Your own proposal" in pane.accept_button.toolTip()
    assert "Your own proposal" in pane.detail.text() and pane.withdraw_button.isEnabled()


def test_another_experts_accept_needs_a_reason_and_shows_in_the_history(
    qtbot, ct_benchmark, tmp_path
):
    benchmark, store, propose = _study(ct_benchmark, tmp_path)
    theirs = propose("ct-1", "dr-b", "answer_key", {"answer": "C"})
    pane = _pane(qtbot, ReviewSessionState(benchmark.items, store, "dr-a"))
    assert pane.accept_button.isEnabled() and not pane.withdraw_button.isEnabled()
    pane.accept_button.click()
    assert "field reason: a decision needs a reason" in pane.message.text()
    assert store.decisions(theirs.uid) == []
    pane.reason.setText("Agreed: the film is a radiograph.")
    with qtbot.waitSignal(pane.decided, timeout=10000) as decided:
        pane.accept_button.click()
    assert decided.args == ["ct-1"]
    [decision] = store.decisions(theirs.uid)
    assert (decision.decision, decision.decider, decision.revision) == ("accepted", "dr-a", 1)
    pane.status_filter.setCurrentIndex(pane.status_filter.findData("accepted"))
    assert _column(pane, 0) == ["ct-1"]
    assert "1. <b>accepted</b> by dr-a" in pane.detail.text()
    assert "Agreed: the film is a radiograph." in pane.detail.text()


def test_a_blind_study_hides_proposals_on_items_not_committed(qtbot, ct_benchmark, tmp_path):
    benchmark, store, propose = _study(ct_benchmark, tmp_path, blind=True)
    propose("ct-1", "dr-b", "retire", {}, "Blurred.")
    propose("ct-2", "dr-b", "retire", {}, "Cropped.")
    session = ReviewSessionState(benchmark.items, store, "dr-a")
    session.select("ct-2")
    session.pass_unscored()
    session.commit()
    pane = _pane(qtbot, session)
    assert _column(pane, 0) == ["ct-2"]
    assert "1 hidden until you commit their items (blind study)" in pane.count.text()


def test_enter_never_decides_the_reason_has_the_focus_and_the_date_shows(
    qtbot, ct_benchmark, tmp_path
):
    """A reviewer typing a reason and pressing Enter stores nothing: no button is the
    dialog's default (Accept was, and Enter accepted); the reason field has the first
    focus. The Date column is as wide as its header with nothing listed."""
    from PySide6.QtCore import Qt

    benchmark, store, propose = _study(ct_benchmark, tmp_path)
    empty = _pane(qtbot, ReviewSessionState(benchmark.items, store, "dr-a"))
    header = empty.table.horizontalHeader()
    title = header.fontMetrics().horizontalAdvance("Date")
    assert header.sectionSize(5) >= title + 12 and empty.table.rowCount() == 0
    propose("ct-1", "dr-b", "answer_key", {"answer": "C"}, "It is a radiograph.", "1.3")
    pane = _pane(qtbot, ReviewSessionState(benchmark.items, store, "dr-a"))
    pane.activateWindow()
    qtbot.waitUntil(lambda: pane.focusWidget() is pane.reason)
    buttons = (pane.accept_button, pane.reject_button, pane.withdraw_button, pane.open_button)
    assert not any(b.isDefault() or b.autoDefault() for b in buttons)
    assert pane.accept_button.isEnabled()
    qtbot.keyClicks(pane.reason, "Agreed.")
    qtbot.keyClick(pane.reason, Qt.Key.Key_Return)
    assert store.decisions(store.proposals()[0].uid) == []
