import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.review.session import ItemFilter, ReviewIncomplete, ReviewSessionState
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import StudyStore


@pytest.fixture
def session(ct_benchmark, tmp_path):
    items = load_benchmark(ct_benchmark).items
    return ReviewSessionState(items, StudyStore(tmp_path / "s.db"), "dr-a")


def test_a_fresh_item_starts_unscored_and_cannot_be_committed_unscored(session):
    session.select("ct-1")
    assert set(session.draft.scores.values()) == {None}
    with pytest.raises(
        ReviewIncomplete, match="score rules 1.1, 1.2, 1.3, 1.4, 2.1, 2.2, 2.3 first"
    ):
        session.commit()
    assert session.store.latest_reviews("dr-a") == {}


def test_toggle_goes_unscored_fail_pass_fail_and_p_passes_the_rest(session):
    session.select("ct-1")
    assert [session.toggle("2.2") for _ in range(3)] == [0, 1, 0]
    assert session.pass_unscored() == ["1.1", "1.2", "1.3", "1.4", "2.1", "2.3"]
    assert session.draft.scores == {
        "1.1": 1,
        "1.2": 1,
        "1.3": 1,
        "1.4": 1,
        "2.1": 1,
        "2.2": 0,
        "2.3": 1,
    }
    assert session.pass_unscored() == []


def test_a_failed_rule_needs_a_comment_unless_configured_off(session, ct_benchmark, tmp_path):
    session.select("ct-1")
    session.toggle("1.4")
    session.pass_unscored()
    with pytest.raises(ReviewIncomplete, match="rule 1.4 failed: say why in the comment"):
        session.commit()
    relaxed = ReviewSessionState(
        session.items, session.store, "dr-b", StudySettings(require_comment_on_fail=False)
    )
    relaxed.select("ct-1")
    relaxed.toggle("1.4")
    relaxed.pass_unscored()
    assert relaxed.commit().review.scores["1.4"] == 0


def test_unsaved_draft_survives_moving_to_another_item(session):
    session.select("ct-1")
    session.toggle("1.3")
    session.set_comment("typo in the stem")
    session.select("ct-2")
    assert session.has_unsaved_changes("ct-1") and not session.has_unsaved_changes("ct-2")
    session.select("ct-1")
    assert session.draft.scores["1.3"] == 0 and session.draft.comment == "typo in the stem"


def test_filter_commit_progress_and_resume(session, tmp_path):
    items = session.items
    assert [i.id for i in session.set_filter(ItemFilter(task="VR"))] == ["ct-2"]
    session.set_filter(ItemFilter())
    assert session.resume_item_id() == "ct-1"
    session.select("ct-1")
    session.remember_position()
    session.toggle("1.4")
    session.pass_unscored()
    session.set_comment("  answerable without the image  ")
    review = session.commit().review
    assert review.scores["1.4"] == 0 and review.comment == "answerable without the image"
    assert not session.has_unsaved_changes("ct-1")
    assert session.progress() == (1, 2)
    assert session.next_item_id() == "ct-2"
    assert [i.id for i in session.set_filter(ItemFilter(status="unreviewed"))] == ["ct-2"]
    assert [i.id for i in session.set_filter(ItemFilter(status="reviewed"))] == ["ct-1"]

    again = ReviewSessionState(items, StudyStore(tmp_path / "s.db"), "dr-a")
    assert again.resume_item_id() == "ct-1"  # the item the reviewer was on
    again.select("ct-1")
    assert again.draft.scores["1.4"] == 0 and again.draft.comment == "answerable without the image"
    other = ReviewSessionState(items, StudyStore(tmp_path / "s.db"), "dr-b")
    assert other.progress() == (0, 2)
