"""Rule 1.4's evidence computed off the GUI thread (issue 24; about 1 s at 33 runs): with
a computation that holds until the test lets it go, the GUI thread keeps processing
events, the reveal and the "answerable without the image" queue say "computing…", and
the result arrives in both; it is computed once per study until the runs change."""

import threading

from PySide6.QtCore import QTimer

from medrcube_desktop.evaluation.compare.necessity import store_evidence
from medrcube_desktop.review.necessity_evidence import evidence_text
from medrcube_desktop.review.queues import STATUS_ANSWERABLE
from medrcube_desktop.ui.review import evidence_worker
from tests.ui.agreement.test_pane_evidence import _runs
from tests.ui.review.test_review_binding_window import open_window


class HeldComputation:
    """``store_evidence`` that waits for :meth:`release` (at most 20 s: on the GUI
    thread it would freeze the window that long) and counts its calls and threads."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.calls, self.threads = 0, []

    def __call__(self, store, items):
        self.calls += 1
        self.threads.append(threading.current_thread())
        self.go.wait(20)
        return store_evidence(store, list(items))

    def release(self) -> None:
        self.go.set()


def ticking(window) -> list[int]:
    """A counter the GUI thread's event loop increments every 5 ms."""
    ticks = [0]
    timer = QTimer(window)
    timer.timeout.connect(lambda: ticks.__setitem__(0, ticks[0] + 1))
    timer.start(5)
    return ticks


def test_the_evidence_arrives_from_a_worker_while_the_window_keeps_working(
    qtbot, ct_benchmark, tmp_path, monkeypatch
):
    held = HeldComputation()
    monkeypatch.setattr(evidence_worker, "store_evidence", held)
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    session = window.session
    _runs(store, session.items)  # an image run and a blank run right on every item
    session.reload_evidence()  # the runs came after the window: what Evaluate's end does
    expected = store_evidence(store, [*session.items, *session.restricted])
    item_id = session.current.id
    ticks = ticking(window)
    session.pass_unscored()
    session.commit()  # the first reveal: the evidence is asked for
    title = window.reveal_pane.title
    assert session.evidence_pending
    qtbot.waitUntil(lambda: held.calls == 1, timeout=5000)  # started on its thread
    assert "Image-necessity evidence (rule 1.4): computing…" in title.text()
    before = ticks[0]
    qtbot.waitUntil(lambda: ticks[0] > before + 3, timeout=5000)  # events while it computes
    assert session.evidence_pending  # still held
    assert held.threads[0] is not threading.main_thread()
    held.release()
    qtbot.waitUntil(lambda: not session.evidence_pending, timeout=10000)
    assert session.reveal(item_id).evidence == expected[item_id]
    assert evidence_text(expected[item_id]) in title.text() and "computing" not in title.text()
    # the queue: computed once per study, again once the runs change
    queue = window.list_pane.combos["status"]
    queue.setCurrentIndex(queue.findData(STATUS_ANSWERABLE))
    assert held.calls == 1  # cached: nothing computed again
    assert [i.id for i in session.visible] == [item_id]  # the one item committed (blind)
    held.go.clear()
    session.reload_evidence()  # what the Evaluate pane's run_finished does
    window._apply_filter(session.filter)
    qtbot.waitUntil(lambda: held.calls == 2, timeout=5000)
    assert session.visible == []
    assert window.list_pane.count_label.text() == "Computing the image-necessity evidence…"
    held.release()
    qtbot.waitUntil(lambda: [i.id for i in session.visible] == [item_id], timeout=10000)
    assert window.session.current.id == item_id  # the queue's first item is shown
    assert window.list_pane.count_label.text() == "1 item shown"
    window.close()


def test_a_start_while_one_computes_runs_next_and_a_stopped_worker_delivers_nothing(
    qtbot, tmp_path
):
    from medrcube_desktop.store import StudyStore
    from medrcube_desktop.ui.review.evidence_worker import EvidenceWorker

    StudyStore(tmp_path / "s.db").close()
    go, calls, delivered = threading.Event(), [], []

    def compute(store, items):
        calls.append(len(calls) + 1)
        go.wait(20)
        return {"call": {"n": len(calls)}}

    worker = EvidenceWorker(tmp_path / "s.db", [], lambda *a: delivered.append(a), compute)
    worker.start(1)
    qtbot.waitUntil(lambda: calls == [1], timeout=5000)
    worker.start(2)  # the runs changed while it computed: run next, not at once
    assert calls == [1] and worker.is_running()
    go.set()
    qtbot.waitUntil(lambda: len(delivered) == 2, timeout=10000)
    assert delivered == [(1, {"call": {"n": 1}}, ""), (2, {"call": {"n": 2}}, "")]
    go.clear()
    worker.start(3)
    qtbot.waitUntil(lambda: calls == [1, 2, 3], timeout=5000)
    go.set()
    worker.stop()  # the window closes: waited for, its result dropped
    qtbot.wait(50)
    assert len(delivered) == 2
