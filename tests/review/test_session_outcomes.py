"""What Enter does, decided by the session (no Qt): the commit outcomes, the observers,
and the one blinding rule the panes share."""

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import StoreError
from medrcube_desktop.review import blinding
from medrcube_desktop.review.session import (
    Aspect,
    Change,
    CommitKind,
    ReviewIncomplete,
    ReviewSessionState,
)
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests.conftest import dicom_file, item, write_benchmark
from tests.review.test_session_flow import ALL_PASS, QUESTIONS, judge


@pytest.fixture
def items(tmp_path):
    records = [item(f"q{n}", question=q, dataset="ds1") for n, q in enumerate(QUESTIONS)]
    root = write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return load_benchmark(root).items


@pytest.fixture
def store(tmp_path):
    store = StudyStore(tmp_path / "study.db")
    yield store
    store.close()


def scored(session, item_id, failed=(), comment=""):
    session.select(item_id)
    for rule in failed:
        session.toggle(rule)
    session.pass_unscored()
    if comment:
        session.set_comment(comment)


def test_without_anything_hidden_enter_commits_and_goes_on(items, store):
    session = ReviewSessionState(items, store, "dr-a")
    scored(session, "q0")
    outcome = session.commit()
    assert outcome.kind is CommitKind.COMMITTED and outcome.goes_on
    assert outcome.review.revision == 1 and outcome.review.blind
    assert session.next_target() == ("q1", False)


def test_a_blind_commit_that_reveals_an_agreeing_judgment_stays_to_show_it(items, store):
    judge(store, "q0")
    session = ReviewSessionState(items, store, "dr-a")
    scored(session, "q0")
    outcome = session.commit()
    assert outcome.kind is CommitKind.REVEALED and not outcome.goes_on
    assert session.reveal("q0").llm == ALL_PASS
    again = session.commit()  # Enter again: nothing new, go on
    assert again.kind is CommitKind.UNCHANGED and again.goes_on and again.review is None
    assert [r.revision for r in store.review_history("dr-a", "q0")] == [1]


def test_another_reviewers_scores_are_a_reveal_too(items, store):
    store.save_review(Review("dr-b", "q0", ALL_PASS, "", utc_now(), utc_now()))
    session = ReviewSessionState(items, store, "dr-a")
    scored(session, "q0")
    assert session.commit().kind is CommitKind.REVEALED


def test_a_disagreement_asks_for_a_note_which_enter_then_stores(items, store):
    judge(store, "q1", failed=["2.3"])
    session = ReviewSessionState(items, store, "dr-a")
    scored(session, "q1")
    outcome = session.commit()
    assert outcome.kind is CommitKind.NOTE_PENDING and outcome.note_rules == ("2.3",)
    assert not outcome.goes_on
    with pytest.raises(ReviewIncomplete):
        session.commit(note="  ")  # an empty note is refused
    saved = session.commit(note="distractors fit")
    assert saved.kind is CommitKind.NOTE_SAVED and saved.goes_on
    assert store.disagreement_notes("dr-a") == {"q1": "distractors fit"}
    assert session.commit().kind is CommitKind.UNCHANGED  # no note pending any more


def test_changed_scores_while_a_note_is_pending_commit_a_revision_instead(items, store):
    judge(store, "q1", failed=["2.3"])
    session = ReviewSessionState(items, store, "dr-a")
    scored(session, "q1")
    session.commit()
    session.toggle("2.3")  # agrees with the LLM now
    session.set_comment("B is implausible")
    outcome = session.commit(note="ignored: the scores changed")
    assert outcome.kind is CommitKind.COMMITTED and outcome.review.revision == 2
    assert not outcome.review.blind and store.disagreement_notes("dr-a") == {}


def test_a_repeat_commits_and_goes_on_without_a_reveal(items, store):
    judge(store, "q0", failed=["1.1"])
    session = ReviewSessionState(items, store, "dr-a", StudySettings(repeat_share=1.0))
    scored(session, "q0")
    session.commit(note="standard term")
    session.select("q0", repeat=True)
    session.pass_unscored()
    outcome = session.commit()
    assert outcome.kind is CommitKind.COMMITTED and outcome.review.repeat


def test_enter_without_an_item_does_nothing(items, store):
    session = ReviewSessionState(items, store, "dr-a")
    outcome = session.commit()
    assert outcome.kind is CommitKind.NO_ITEM and outcome.review is None and not outcome.goes_on


def test_an_incomplete_review_raises_and_saves_nothing(items, store):
    session = ReviewSessionState(items, store, "dr-a")
    session.select("q0")
    with pytest.raises(ReviewIncomplete, match="first"):
        session.commit()
    assert store.latest_reviews("dr-a") == {}


def test_observers_hear_every_change_in_order_and_can_leave(items, store):
    judge(store, "q1", failed=["2.3"])
    session = ReviewSessionState(items, store, "dr-a")
    heard: list[Change] = []
    session.subscribe(heard.append)
    session.select("q1")
    session.toggle("1.1")
    session.set_comment("x")
    session.undo()
    session.toggle("1.1")  # fail → pass
    session.pass_unscored()
    session.toggle_flag()
    session.commit()  # a note is pending
    session.commit(note="fine")
    session.set_filter(session.filter)
    session.reload_judgments()
    session.clear_current()
    assert [(c.aspect, c.item_id) for c in heard] == [
        (Aspect.CURRENT, "q1"),
        *[(Aspect.DRAFT, "q1")] * 5,
        (Aspect.FLAG, "q1"),
        (Aspect.SAVED, "q1"),
        (Aspect.NOTE, "q1"),
        (Aspect.VISIBLE, None),
        (Aspect.JUDGMENTS, None),
        (Aspect.CURRENT, None),
    ]
    session.unsubscribe(heard.append)
    session.select("q2")
    assert len(heard) == 12


def test_an_edit_whose_save_fails_is_still_told(items, store, monkeypatch):
    session = ReviewSessionState(items, store, "dr-a")
    session.select("q0")
    heard = []
    session.subscribe(heard.append)

    def refuse(*args, **kwargs):
        raise StoreError("disk full")

    monkeypatch.setattr(store, "save_draft", refuse)
    with pytest.raises(StoreError):
        session.toggle("1.1")
    assert heard == [Change(Aspect.DRAFT, "q0")] and session.draft.scores["1.1"] == 0


def test_the_blinding_rule_is_one_rule_for_the_window_and_the_agreement_pane(items, store):
    assert blinding.may_reveal(blind=False, committed=False)
    assert not blinding.may_reveal(blind=True, committed=False)
    assert blinding.may_reveal(blind=True, committed=True)
    assert not blinding.may_reveal(blind=False, committed=True, repeat_open=True)
    assert blinding.counted_items(False, {"a"}) is None
    assert blinding.counted_items(True, {"a"}) == {"a"}
    assert blinding.visible_items(True, {"b"}, ["a", "b", "c"]) == ["b"]
    assert blinding.visible_items(False, set(), ["a", "b"]) == ["a", "b"]
    session = ReviewSessionState(items, store, "dr-a")
    scored(session, "q2")
    session.commit()
    assert session.agreement_items() == {"q2"}
    assert session.shown_item_ids(["q1", "q2"]) == ["q2"]
    curation = ReviewSessionState(items, store, "dr-a", StudySettings(blind=False))
    assert curation.agreement_items() is None
    assert curation.shown_item_ids(["q1", "q2"]) == ["q1", "q2"]
