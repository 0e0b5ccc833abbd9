"""Review-session behaviour without a window: blinding, drafts, undo, queues, repeats,
active time, disagreement notes."""

import sqlite3

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.queues import ItemFilter, is_repeat_candidate
from medrcube_desktop.review.session import ReviewIncomplete, ReviewSessionState
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.judgments import Judgment
from tests.conftest import dicom_file, item, write_benchmark

ALL_PASS = dict.fromkeys(RULE_IDS, 1)
QUESTIONS = [
    "Which organ is outlined in red?",
    "What is the imaging modality of this image?",
    "Which plane is shown?",
    "Is there a fracture of the left femur?",
    "Which lobe holds the nodule?",
    "What is the window setting?",
]


class FakeClock:
    """A monotonic clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def items(tmp_path):
    records = [
        item(f"q{n}", question=q, modality="CT" if n % 2 else "MR", dataset="ds1")
        for n, q in enumerate(QUESTIONS)
    ]
    root = write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return load_benchmark(root).items


@pytest.fixture
def store(tmp_path):
    store = StudyStore(tmp_path / "study.db")
    yield store
    store.close()


def judge(store, item_id, failed=(), model="gpt-5.1"):
    scores = {r: 0 if r in failed else 1 for r in RULE_IDS}
    return store.save_judgment(Judgment(item_id, model, scores, created_at=utc_now()))


def score(session, item_id, failed=(), comment=""):
    session.select(item_id)
    for rule in failed:
        session.toggle(rule)
    session.pass_unscored()
    if comment:
        session.set_comment(comment)
    return session.commit().review


def test_the_llm_judgment_is_hidden_until_the_reviewer_commits(items, store):
    judge(store, "q0", failed=["1.3"])
    store.save_review(Review("dr-b", "q0", {**ALL_PASS, "2.2": 0}, "overlap", utc_now(), utc_now()))
    session = ReviewSessionState(items, store, "dr-a")
    session.select("q0")
    assert session.llm_model == "gpt-5.1"
    assert session.reveal("q0") is None and not session.is_revealed("q0")
    session.pass_unscored()
    assert session.reveal("q0") is None  # scored but not committed: still hidden
    session.commit()
    reveal = session.reveal("q0")
    assert reveal.llm == {**ALL_PASS, "1.3": 0}
    assert reveal.mine == ALL_PASS
    assert reveal.others == {"dr-b": {**ALL_PASS, "2.2": 0}}
    assert reveal.disagreements == ["1.3"]


def test_a_blind_study_asks_for_a_note_after_the_reveal_and_stores_it(items, store):
    judge(store, "q1", failed=["2.3"])
    session = ReviewSessionState(items, store, "dr-a")
    review = score(session, "q1")
    assert session.note_needed == (review, ["2.3"])
    with pytest.raises(ReviewIncomplete):
        session.add_disagreement_note("   ")
    session.add_disagreement_note("distractors are fine for a CT item")
    assert session.note_needed is None
    assert store.disagreement_notes("dr-a") == {"q1": "distractors are fine for a CT item"}
    assert store.first_reviews("dr-a")["q1"].scores == ALL_PASS  # the judgment is untouched


def test_without_blinding_the_judgment_shows_first_and_disagreeing_needs_a_comment(items, store):
    judge(store, "q1", failed=["2.3"])
    session = ReviewSessionState(items, store, "dr-a", StudySettings(blind=False))
    session.select("q1")
    assert session.reveal("q1").llm["2.3"] == 0  # curation pass: visible at once
    session.pass_unscored()
    with pytest.raises(ReviewIncomplete, match="disagree with gpt-5.1 on 2.3") as refused:
        session.commit()
    assert refused.value.needs_comment
    session.set_comment("2.3 passes: the distractors are all CT findings")
    assert session.commit().review.comment.startswith("2.3 passes")
    relaxed = StudySettings(blind=False, require_comment_on_disagreement=False)
    assert score(ReviewSessionState(items, store, "dr-c", relaxed), "q1").comment == ""


def test_every_edit_is_a_saved_draft_that_a_new_session_resumes(items, store, tmp_path):
    session = ReviewSessionState(items, store, "dr-a")
    session.select("q2")
    session.toggle("1.2")
    session.set_comment("contradiction")
    session.toggle_tag("self-contradiction")
    raw = sqlite3.connect(tmp_path / "study.db")  # another connection sees it at once
    (scores, comment, tags) = raw.execute(
        "SELECT scores, comment, tags FROM drafts WHERE reviewer='dr-a' AND item_id='q2'"
    ).fetchone()
    assert '"1.2": 0' in scores and comment == "contradiction" and "self-contradiction" in tags
    assert raw.execute("SELECT value FROM app_state WHERE key='last_item:dr-a'").fetchone() == (
        "q2",
    )
    again = ReviewSessionState(items, StudyStore(tmp_path / "study.db"), "dr-a")
    assert again.resume_item_id() == "q2"
    again.select("q2")
    assert again.draft.scores == {**dict.fromkeys(RULE_IDS), "1.2": 0}
    assert again.draft.comment == "contradiction" and again.draft.tags == ["self-contradiction"]
    assert again.has_unsaved_changes("q2")
    again.pass_unscored()
    again.commit()  # committing removes the draft in the same transaction
    assert raw.execute("SELECT COUNT(*) FROM drafts").fetchone() == (0,)
    assert store.latest_reviews("dr-a")["q2"].tags == ("self-contradiction",)


def test_undo_and_redo_step_through_score_and_comment_edits(items, store):
    session = ReviewSessionState(items, store, "dr-a")
    session.select("q0")
    session.toggle("1.1")  # fail
    session.toggle("1.1")  # pass
    for text in ("w", "wr", "wrong"):  # typing: one undo step
        session.set_comment(text)
    assert session.undo() and session.draft.comment == "" and session.draft.scores["1.1"] == 1
    assert session.undo() and session.draft.scores["1.1"] == 0
    assert session.undo() and session.draft.scores["1.1"] is None
    assert not session.undo()
    assert not session.has_unsaved_changes("q0")  # back where it started: draft dropped
    assert store.drafts("dr-a") == {}
    assert session.redo() and session.draft.scores["1.1"] == 0
    assert session.redo() and session.redo() and session.draft.comment == "wrong"
    assert not session.redo()
    session.undo()
    session.toggle("2.1")  # a new edit forgets what could be redone
    assert not session.redo()
    assert store.drafts("dr-a")["q0"].scores["2.1"] == 0


def test_revisions_keep_the_first_judgment(items, store):
    session = ReviewSessionState(items, store, "dr-a")
    score(session, "q0")
    session.select("q0")
    session.toggle("1.4")
    session.set_comment("answerable without the image")
    session.commit()
    assert store.first_reviews("dr-a")["q0"].scores == ALL_PASS
    assert store.latest_reviews("dr-a")["q0"].scores["1.4"] == 0
    assert [r.revision for r in store.review_history("dr-a", "q0")] == [1, 2]


def test_queues_flagged_failed_disagreeing_search_and_order(items, store):
    judge(store, "q3", failed=["1.1"])
    session = ReviewSessionState(items, store, "dr-a")
    score(session, "q0", failed=["2.2"], comment="options overlap")
    score(session, "q3")  # disagrees with the LLM on 1.1
    session.add_disagreement_note("the term is standard")
    session.select("q4")
    assert session.toggle_flag()

    def ids(**kwargs):
        return [i.id for i in session.set_filter(ItemFilter(**kwargs))]

    assert ids(status="flagged") == ["q4"]
    assert ids(status="failed") == ["q0"]
    assert ids(status="failed:2.2") == ["q0"] and ids(status="failed:1.1") == []
    assert ids(status="disagrees") == ["q3"]
    assert ids(status="unreviewed") == ["q1", "q2", "q4", "q5"]
    assert ids(text="FEMUR fracture") == ["q3"]  # words, any case, in the question
    assert ids(text="coronal") == []  # options of these items are the modality ones
    assert ids(text="ultrasound", modality="MR") == ["q0", "q2", "q4"]
    shuffled = ids(order="random")
    assert sorted(shuffled) == [f"q{n}" for n in range(6)] and shuffled != ids()
    assert ids(order="random") == shuffled  # reproducible for this reviewer
    other = ReviewSessionState(items, store, "dr-b")
    other.set_filter(ItemFilter(order="random"))
    assert [i.id for i in other.visible] != shuffled  # but not the same for everyone
    with pytest.raises(ValueError):
        ids(status="nonsense")


def test_intra_rater_repeats_come_back_blind_after_the_gap(items, store):
    study = StudySettings(repeat_share=1.0, repeat_gap=2)
    session = ReviewSessionState(items, store, "dr-a", study)
    judge(store, "q0")
    session.judgments = store.judgments("gpt-5.1")
    score(session, "q0", failed=["1.3"], comment="wordy")
    score(session, "q1")
    assert session.due_repeat() is None  # only one item since q0
    score(session, "q2")
    assert session.next_target() == ("q0", True)
    session.select("q0", repeat=True)
    assert session.draft.scores == dict.fromkeys(RULE_IDS)  # the first scores are hidden
    assert session.reveal("q0") is None  # and so is the LLM
    session.pass_unscored()
    repeat = session.commit().review
    assert repeat.repeat and repeat.scores == ALL_PASS
    assert store.latest_reviews("dr-a")["q0"].scores["1.3"] == 0  # not a revision
    assert store.repeat_reviews("dr-a")["q0"].scores == ALL_PASS
    assert session.due_repeat() is None  # q1 and q2 have not had their gap yet
    assert session.next_target() == ("q3", False)  # back to where the repeat cut in (after q2)


def test_repeat_share_picks_a_fixed_subset_of_about_that_size():
    chosen = [is_repeat_candidate("dr-a", f"item-{n}", 0.1) for n in range(2000)]
    assert 150 < sum(chosen) < 250  # 10 % of 2000 is 200 (binomial sd about 13)
    assert chosen == [is_repeat_candidate("dr-a", f"item-{n}", 0.1) for n in range(2000)]
    assert not any(is_repeat_candidate("dr-a", f"item-{n}", 0.0) for n in range(100))


def test_active_time_leaves_out_idle_gaps_and_is_stored(items, store):
    clock = FakeClock()
    session = ReviewSessionState(items, store, "dr-a", StudySettings(idle_after_s=60), clock)
    session.select("q0")
    clock.now += 10
    session.toggle("1.1")  # +10 s
    clock.now += 5
    session.activity()  # +5 s
    clock.now += 600  # lunch: idle, not counted
    session.activity()
    clock.now += 20
    session.toggle("1.1")  # +20 s
    session.pause()  # window left
    clock.now += 30
    session.pass_unscored()  # first input after the pause: +0
    clock.now += 4
    review = session.commit().review  # +4 s
    assert review.active_seconds == pytest.approx(39.0)
    assert store.latest_reviews("dr-a")["q0"].active_seconds == pytest.approx(39.0)
    assert session.eta_seconds() == pytest.approx(5 * 39.0)  # 5 items left at the median


def test_study_settings_round_trip_and_bad_values_fall_back(store):
    StudySettings(blind=False, repeat_share=0.25, llm_model="m").save(store)
    loaded = StudySettings.load(store)
    assert (loaded.blind, loaded.repeat_share, loaded.llm_model) == (False, 0.25, "m")
    store.set_state("study.settings", '{"blind": "no", "repeat_share": 7, "repeat_gap": 3}')
    loaded = StudySettings.load(store)
    assert loaded.blind is True and loaded.repeat_share == 0.1 and loaded.repeat_gap == 3
    store.set_state("study.settings", "{not json")
    assert StudySettings.load(store) == StudySettings()


def test_a_note_left_out_stays_pending_until_written_and_has_its_own_queue(items, store):
    judge(store, "q1", failed=["2.3"])
    session = ReviewSessionState(items, store, "dr-a")
    score(session, "q1")
    session.select("q2")  # moved on without the note
    assert session.note_needed is None
    assert [i.id for i in session.set_filter(ItemFilter(status="note-missing"))] == ["q1"]
    again = ReviewSessionState(items, store, "dr-a")  # after a restart too
    again.select("q1")
    assert again.note_needed[1] == ["2.3"]
    again.add_disagreement_note("distractors fit")
    assert again.set_filter(ItemFilter(status="note-missing")) == []
    assert [i.id for i in again.set_filter(ItemFilter(status="disagrees"))] == ["q1"]


def test_changing_scores_after_the_reveal_is_a_new_revision_that_is_not_blind(items, store):
    judge(store, "q1", failed=["2.3"])
    session = ReviewSessionState(items, store, "dr-a")
    first = score(session, "q1")
    assert first.blind
    session.toggle("2.3")  # convinced by the LLM
    session.set_comment("distractor B is implausible")
    second = session.commit().review
    assert (second.revision, second.blind, second.scores["2.3"]) == (2, False, 0)
    assert session.note_needed is None  # now agrees: no note wanted
    assert store.first_reviews("dr-a")["q1"].blind  # the first judgment stays the blind one


def test_past_the_end_of_a_reordered_list_the_unreviewed_items_are_still_offered(items, store):
    session = ReviewSessionState(items, store, "dr-a", StudySettings(repeat_share=0))
    session.set_filter(ItemFilter(order="random"))
    order = [i.id for i in session.visible]
    score(session, order[3])  # started in the middle, after re-ordering
    for _ in range(2):
        target = session.next_target()
        score(session, target[0])
    assert session.next_target() == (order[0], False)  # wraps to the first unreviewed
    while (target := session.next_target()) is not None:
        score(session, target[0])
    assert session.progress() == (6, 6)
