"""The window's "Answerable without the image" queue in a blind study (issue 24 item
3): while the reviewer has committed none of the answerable items the queue is empty,
and the window says why (they are hidden until committed), not only that no item
matches; once one is committed it is listed."""

from PySide6.QtWidgets import QComboBox

from medrcube_desktop.review.queues import STATUS_ANSWERABLE
from medrcube_desktop.ui.main_window import BLIND_ANSWERABLE_NONE
from medrcube_desktop.ui.widgets.text import esc
from tests.ui.agreement.test_pane_evidence import _runs
from tests.ui.review.test_review_binding_window import open_window


def _choose_answerable(qtbot, window) -> None:
    queue = window.list_pane.findChild(QComboBox, "queue")
    queue.setCurrentIndex(queue.findData(STATUS_ANSWERABLE))
    qtbot.waitUntil(lambda: not window.session.evidence_pending, timeout=10000)


def test_the_empty_blind_queue_says_its_items_come_after_the_commit(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    session = window.session
    assert session.study.blind  # the default protocol
    _runs(store, session.items)  # a blank run right on every item: all answerable
    session.set_evidence_source(None)
    window.binding.bind(session)
    first = session.current.id
    _choose_answerable(qtbot, window)
    qtbot.waitUntil(lambda: window.item_pane.meta.text() == esc(BLIND_ANSWERABLE_NONE))
    assert session.visible == [] and "once you have committed" in BLIND_ANSWERABLE_NONE
    # commit the first item (back on the full queue): it is then listed
    queue = window.list_pane.findChild(QComboBox, "queue")
    queue.setCurrentIndex(queue.findData(""))
    window.show_item(first)
    session.pass_unscored()
    session.commit()
    _choose_answerable(qtbot, window)
    qtbot.waitUntil(lambda: [i.id for i in session.visible] == [first])
    assert window.item_pane.meta.text() != esc(BLIND_ANSWERABLE_NONE)
