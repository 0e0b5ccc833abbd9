"""The several-experts sentence of the agreement pane says an expert's agreement with a
gold standard they adjudicated is not independent."""

from medrcube_desktop.review.agreement.panel_run import run_gold
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.agreement_panel import panel_summary
from tests.review.experts_fixture import fill
from tests.review.test_gold_self_adjudicated import NOTE, adjudicated


def test_the_summary_carries_the_note_escaped():
    store = adjudicated(fill(StudyStore(None), experts=("dr-a", "dr-b")))
    text = panel_summary(run_gold(store, ["dr-a", "dr-b"], bootstrap=0), None)
    assert f"<br>ⓘ {NOTE.replace(chr(39), '&#x27;')}." in text
