"""The adjudication pane lists an item an expert cannot judge (issue 24) as needing a
decision, shows the abstention as "cannot judge" and records the decision."""

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests.ui.review.test_review_binding_window import open_window

ALL_PASS = dict.fromkeys(RULE_IDS, 1)


def test_an_abstention_is_queued_shown_and_decided(qtbot, ct_benchmark, tmp_path):
    store = StudyStore(tmp_path / "s.db")
    store.save_review(Review("dr-a", "ct-1", ALL_PASS, "", utc_now(), utc_now()))
    abstained = {**ALL_PASS, "1.4": CANNOT_JUDGE}
    store.save_review(Review("dr-b", "ct-1", abstained, "text only", utc_now(), utc_now()))
    store.close()
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")  # dr-a
    pane = window.open_adjudication_pane()
    assert [e.item_id for e in pane.entries] == ["ct-1"]
    assert pane.queue.item(0).text() == "ct-1  ·  1.4  ·  open  ·  cannot judge"
    table = pane.judgments
    row = RULE_IDS.index("1.4")
    assert [table.item(row, c).text() for c in (0, 1)] == ["✓ pass", "? cannot judge"]
    verdict = len(RULE_IDS)  # dr-b has no all-pass verdict
    assert [table.item(verdict, c).text() for c in (0, 1)] == ["✓ pass", "? cannot judge"]
    choice, reason = pane.choices["1.4"]
    choice.setCurrentIndex(choice.findData("1"))
    reason.setText("the image shows the finding")
    assert pane.save()
    stored = store.adjudications()["ct-1"]["1.4"]
    assert stored.value == 1 and stored.resolves[1]["value"] == CANNOT_JUDGE
    assert store.first_reviews("dr-b")["ct-1"].scores["1.4"] == CANNOT_JUDGE  # kept
    pane.close()
