"""The Agreement pane shows the "cannot judge" rates beside the figures (issue 24), the
same lines the ``agreement`` command prints, and leaves the abstained pairs out."""

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.agreement import run_study
from medrcube_desktop.review.agreement.table import abstention_lines
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment
from tests.ui.review.test_review_binding_window import open_window

ALL_PASS = dict.fromkeys(RULE_IDS, 1)


def test_the_pane_reports_abstention_rates_as_the_command_does(qtbot, ct_benchmark, tmp_path):
    db = tmp_path / "s.db"
    store = StudyStore(db)
    for item_id in ("ct-1", "ct-2"):
        store.save_judgment(
            Judgment(item_id, "gpt-5.1", {**ALL_PASS, "1.3": 0}, created_at=utc_now())
        )
    store.save_review(
        Review("dr-b", "ct-1", {**ALL_PASS, "1.4": CANNOT_JUDGE}, "", utc_now(), utc_now())
    )
    store.save_review(Review("dr-b", "ct-2", ALL_PASS, "", utc_now(), utc_now()))
    for item_id in ("ct-1", "ct-2"):  # the window's reviewer has committed both
        store.save_review(Review("dr-a", item_id, ALL_PASS, "", utc_now(), utc_now()))
    expected = abstention_lines(run_study(store, "dr-b", "gpt-5.1", bootstrap=50))
    store.close()
    assert expected[0] == "Cannot judge, dr-b (of 2 compared items): 1.4 1 (50 %)."
    window, _ = open_window(qtbot, ct_benchmark, db)
    pane = window.open_agreement_pane()
    pane.first.setCurrentIndex(pane.first.findData("dr-b"))
    pane.bootstrap.setValue(50)
    with qtbot.waitSignal(pane.computed, timeout=30000):
        pane.compute_button.click()
    for line in expected:  # the command's lines, as the pane shows them
        assert line in pane.summary.text()
    labels = [pane.table.item(r, 0).text() for r in range(pane.table.rowCount())]
    row = next(r for r, label in enumerate(labels) if label.startswith("1.4 "))
    assert [pane.table.item(row, c).text() for c in (6, 7, 8, 9)] == ["0", "0", "0", "1"]
    pane.close()
