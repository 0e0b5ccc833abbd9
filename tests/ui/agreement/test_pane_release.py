"""Review › Agreement study with the window open on a corrected release: the release's
retired items drop out, as with ``agreement --release``, and the summary says so."""

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests import release_fixture as rf
from tests.ui.review.test_review_binding_window import open_window

ALL_PASS = dict.fromkeys(RULE_IDS, 1)


def test_on_a_release_its_retired_items_drop_out(qtbot, tmp_path):
    source = rf.write_source(tmp_path / "source", images=True)
    release = rf.write_release(tmp_path / "release", source, images=True)
    db = tmp_path / "s.db"
    store = StudyStore(db)
    for item_id in ("k1", "rt", "u1"):  # reviewed before the release; they differ on rt
        other = {**ALL_PASS, "1.1": 0} if item_id == "rt" else ALL_PASS
        store.save_review(Review("dr-a", item_id, ALL_PASS, "", utc_now(), utc_now()))
        store.save_review(Review("dr-b", item_id, other, "", utc_now(), utc_now()))
    store.close()
    counts = {}
    for root in (source, release):
        window, _ = open_window(qtbot, root, db)
        pane = window.open_agreement_pane()
        texts = [pane.second.itemText(i) for i in range(pane.second.count())]
        pane.second.setCurrentIndex(texts.index("Reviewer: dr-b"))
        pane.bootstrap.setValue(0)
        with qtbot.waitSignal(pane.computed, timeout=30000):
            pane.compute_button.click()
        assert pane.run is not None, pane.summary.text()
        counts[root] = (len(pane.run.result.items), pane.run.result.sample_level)
        if root == release:
            assert pane.run.meta["release"]["version"] == "v2"
            assert "On release <b>v2</b>" in pane.summary.text()
        else:
            assert "release" not in pane.run.meta
        pane.close()
        window.close()
    assert counts == {source: (3, 2 / 3), release: (2, 1.0)}
