"""The several-experts view of the agreement pane: the gold standard's headline above the
table, and below it, escaped, where each expert's agreement with gold comes from."""

from medrcube_desktop.review.agreement.panel_run import run_gold
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.agreement.experts_panel import panel_notes, panel_summary
from tests.review.agreement.test_gold_self_adjudicated import NOTE, adjudicated
from tests.review.experts_fixture import fill


def test_the_notes_carry_where_gold_comes_from_escaped():
    store = adjudicated(fill(StudyStore(None), experts=("dr-a", "dr-b")))
    run = run_gold(store, ["dr-a", "dr-b"], bootstrap=0)
    assert f"<b>Note:</b> {NOTE.replace(chr(39), '&#x27;')}." in panel_notes(run)
    summary = panel_summary(run, None)
    assert "Against the adjudicated gold standard</b> on 12 items (3 adjudicated, 9 by " in summary
    assert "Note:" not in summary
