"""Review › Adjudicate disagreements: the queue, judgments side by side (escaped), a
reason required, blinding kept, and an assignment narrowing the item list."""

from pathlib import Path

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests.ui.review.test_review_binding_window import open_window

ALL_PASS = dict.fromkeys(RULE_IDS, 1)
SHOTS = Path("/work/scratch/experts")


def prepare(db):
    store = StudyStore(db)
    for name, item_id, scores, comment in (
        ("dr-a", "ct-1", ALL_PASS, "fine"),
        ("dr-b", "ct-1", {**ALL_PASS, "1.3": 0}, "<b>ambiguous</b> wording"),
        ("dr-b", "ct-2", {**ALL_PASS, "2.2": 0}, "overlap"),
        ("dr-c", "ct-2", ALL_PASS, ""),
    ):
        store.save_review(Review(name, item_id, scores, comment, utc_now(), utc_now()))
    store.close()


def shot(widget, name):
    if SHOTS.is_dir():
        widget.grab().save(str(SHOTS / name))


def test_the_queue_shows_committed_items_side_by_side_and_saves_with_a_reason(
    qtbot, ct_benchmark, tmp_path
):
    prepare(tmp_path / "s.db")
    window, store = open_window(qtbot, ct_benchmark, tmp_path / "s.db")  # dr-a
    pane = window.open_adjudication_pane()
    # blind: dr-a committed ct-1 only; ct-2 (dr-b vs dr-c) stays hidden
    assert [e.item_id for e in pane.entries] == ["ct-1"]
    assert "1 more listed greyed: their judgments stay hidden" in pane.queue_label.text()
    rows = [pane.queue.item(r).text() for r in range(pane.queue.count())]
    assert rows[1] == "ct-2  ·  review it first"  # its id only: no rule, no score
    pane.queue.setCurrentRow(1)
    assert "stay hidden until you commit" in pane.item_text.text()
    assert pane.judgments.rowCount() == 0 and "overlap" not in pane.comments.text()
    assert not pane.save_button.isEnabled() and pane.open_button.isEnabled()
    with qtbot.waitSignal(pane.open_item) as opened:
        pane.open_button.click()
    assert opened.args == ["ct-2"]
    pane.queue.setCurrentRow(0)
    table = pane.judgments
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers == ["dr-a", "dr-b", "adjudicated"]
    row = RULE_IDS.index("1.3")
    assert [table.item(row, c).text() for c in (0, 1)] == ["✓ pass", "✗ fail"]
    assert "&lt;b&gt;ambiguous&lt;/b&gt;" in pane.comments.text()
    choice, reason = pane.choices["1.3"]
    choice.setCurrentIndex(choice.findData("0"))
    assert not pane.save()  # no reason
    assert "reason" in pane.status.text() and store.adjudications() == {}
    assert choice.currentData() == "0"  # nothing typed is lost
    reason.setText("two readings of 'lesion'")
    pane.resize(1000, 700)
    shot(pane, "adjudication_pane_before_save.png")
    assert pane.save()
    stored = store.adjudications()["ct-1"]["1.3"]
    assert (stored.value, stored.adjudicator, stored.revision) == (0, "dr-a", 1)
    assert pane.entries[0].open_targets == []
    assert table.item(row, 2).text() == "✗ fail (rev 1)"
    assert pane.choices["1.3"][0].currentData() == "0"  # the saved value, to revise
    qtbot.wait(50)  # Qt shows the new form rows on the next event loop pass
    assert store.first_reviews("dr-b")["ct-1"].scores["1.3"] == 0  # first judgments kept
    shot(pane, "adjudication_pane_saved.png")
    pane.close()


def test_the_shortcut_opens_it_and_not_blind_shows_every_item(qtbot, ct_benchmark, tmp_path):
    from medrcube_desktop.review.study import StudySettings

    prepare(tmp_path / "s.db")
    store = StudyStore(tmp_path / "s.db")
    StudySettings(blind=False).save(store)
    store.close()
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db", reviewer="dr-z")
    window.qactions["review.adjudicate"].trigger()
    pane = window.panes.get("adjudication")
    assert [e.item_id for e in pane.entries] == ["ct-1", "ct-2"]
    pane.close()


def test_an_assignment_lists_only_the_reviewers_items(qtbot, ct_benchmark, tmp_path):
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.review.assignment import assign

    ids = [i.id for i in load_benchmark(ct_benchmark).items]
    store = StudyStore(tmp_path / "s.db")
    record = assign(store, ids, ["dr-a", "dr-b"], 0.0, 1)
    store.close()
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    assert [i.id for i in window.session.visible] == list(record.items["dr-a"])
    assert "assigned to you" in window.progress_label.text()
    assert f"of {len(record.items['dr-a'])} reviewed" in window.progress_label.text()
