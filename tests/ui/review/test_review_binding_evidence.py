"""The window gives its session rule 1.4's evidence (issue 24 item 3): the runs of its
study, computed by ``store_evidence`` (the review layer cannot call the evaluation one),
and the reveal after a commit carries it."""

from medrcube_desktop.evaluation.compare.necessity import store_evidence
from tests.ui.agreement.test_pane_evidence import _runs
from tests.ui.review.test_review_binding_window import open_window


def test_the_window_s_session_reads_the_evidence_of_its_study(qtbot, ct_benchmark, tmp_path):
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    session = window.session
    _runs(store, session.items)  # an image run and a blank run right on every item
    session.set_evidence_source(None)  # read again (the runs came after the window)
    assert session.necessity_evidence() == {}
    window.binding.bind(session)  # what the window does with every session
    expected = store_evidence(store, [*session.items, *session.restricted])
    assert session.necessity_evidence() == {} and session.evidence_pending  # on a worker
    qtbot.waitUntil(lambda: not session.evidence_pending, timeout=10000)
    assert session.necessity_evidence() == expected and expected
    item_id = session.current.id
    assert session.reveal(item_id) is None  # blind, not committed
    session.pass_unscored()
    session.commit()
    assert session.reveal(item_id).evidence == expected[item_id]
    assert "Without the image: right by 1 of 1 models" in window.reveal_pane.title.text()
