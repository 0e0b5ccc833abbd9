"""A recovered draft keeps its intra-rater "repeat" flag (issue 26): a repeat drafted
before a crash comes back as a repeat, blind, and commits as one, never as a revision
of the first judgment."""

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore


def test_a_repeat_draft_read_back_after_a_restart_is_still_a_repeat(ct_benchmark, tmp_path):
    # mutants: the stored draft's repeat read as False (store.drafts, review.draft)
    items = load_benchmark(ct_benchmark).items
    store = StudyStore(tmp_path / "s.db")
    first = ReviewSessionState(items, store, "dr-a")
    first.select("ct-1")
    first.toggle("1.3")
    first.pass_unscored()
    first.set_comment("stem names the answer")
    committed = first.commit().review
    assert committed.scores["1.3"] == 0 and not committed.repeat
    first.select("ct-1", repeat=True)
    first.toggle("2.1")  # 2.1 fails this time: a draft is written, then the app stops
    store.close()

    store = StudyStore(tmp_path / "s.db")
    assert store.drafts("dr-a")["ct-1"].repeat is True
    again = ReviewSessionState(items, store, "dr-a")
    again.select("ct-1")
    draft = again.draft
    assert draft.repeat is True
    assert draft.scores == {**dict.fromkeys(RULE_IDS), "2.1": 0}  # not the first scores
    assert again.reveal("ct-1") is None  # still blind to the first judgment
    again.pass_unscored()
    again.set_comment("distractor too close")
    repeat = again.commit().review
    assert repeat.repeat
    assert store.repeat_reviews("dr-a")["ct-1"].scores["2.1"] == 0
    first_judgment = store.latest_reviews("dr-a")["ct-1"]
    assert first_judgment.revision == 1 and first_judgment.scores["1.3"] == 0
    assert first_judgment.scores["2.1"] == 1
    store.close()
