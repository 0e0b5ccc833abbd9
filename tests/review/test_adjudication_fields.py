"""What the adjudication queue carries and when it lists an item (issue 26 item 3,
``python -m tests.mutation.run --modules review.adjudication``): ``on="verdict"`` leaves
out an item whose experts differ on rules but agree on the verdict; an expert's
abstention stays a rule and a verdict to decide next to the experts' differences; each
judgment's uid, revision and blind flag as stored; the queue's model; the
``abstained`` key of the JSON form; and a viewer's queue blind unless told otherwise.
Expected values worked out by hand from the scores below."""

import pytest

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review import adjudication
from medrcube_desktop.review.adjudication import (
    AdjudicationQueue,
    QueueEntry,
    RaterJudgment,
    build_queue,
)
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.judgments import Judgment
from medrcube_desktop.store.review_queries import Review

PASS = dict.fromkeys(RULE_IDS, 1)
AT = "2026-01-01T00:00:00Z"


def _scores(**values):
    return {**PASS, **{k[1:].replace("_", "."): v for k, v in values.items()}}


@pytest.fixture
def store():
    """x1: dr-a fails 1.1, dr-b fails 2.2 (both fail overall: verdicts agree), dr-b's
    review not blind; x2: dr-a fails 1.1, dr-b passes (verdicts differ); x3: both pass.
    The LLM "gpt" fails 1.1 on every item."""
    s = StudyStore(None)
    reviews = {
        ("dr-a", "x1"): _scores(r1_1=0),
        ("dr-b", "x1"): _scores(r2_2=0),
        ("dr-a", "x2"): _scores(r1_1=0),
        ("dr-b", "x2"): _scores(),
        ("dr-a", "x3"): _scores(),
        ("dr-b", "x3"): _scores(),
    }
    for (name, item_id), scores in reviews.items():
        blind = (name, item_id) != ("dr-b", "x1")
        s.save_review(Review(name, item_id, scores, "", AT, AT, blind=blind))
    for item_id in ("x1", "x2", "x3"):
        s.save_judgment(Judgment(item_id, "gpt", _scores(r1_1=0)))
    return s


def test_on_the_verdict_an_item_whose_experts_agree_on_the_verdict_is_left_out(store):
    rules = build_queue(store, ["dr-a", "dr-b"], against="experts", on="rules")
    assert [(e.item_id, e.rules, e.verdict_differs) for e in rules.entries] == [
        ("x1", ("1.1", "2.2"), False),
        ("x2", ("1.1",), True),
    ]
    verdict = build_queue(store, ["dr-a", "dr-b"], against="experts", on="verdict")
    assert [(e.item_id, e.rules) for e in verdict.entries] == [("x2", ("1.1",))]


def test_each_judgment_carries_its_uid_revision_and_blind_flag_as_stored(store):
    (entry, _) = build_queue(store, ["dr-a", "dr-b"], "gpt").entries
    stored = [store.first_reviews(n)["x1"].uid for n in ("dr-a", "dr-b")]
    stored.append(store.judgments("gpt")["x1"].uid)
    assert all(stored) and len(set(stored)) == 3  # three distinct, non-empty uids
    assert [j.uid for j in entry.judgments] == stored
    assert [j.revision for j in entry.judgments] == [1, 1, 1]
    # dr-b reviewed x1 not blind; an LLM's judgment sees no other rater: blind
    assert [j.blind for j in entry.judgments] == [True, False, True]
    assert RaterJudgment("r", "llm", PASS, "", "u", 1).blind is True


def test_the_queue_names_its_model_or_none(store):
    assert build_queue(store, ["dr-a", "dr-b"], "gpt").model == "gpt"
    assert build_queue(store, ["dr-a", "dr-b"]).model == ""
    assert AdjudicationQueue([]).model == ""
    assert AdjudicationQueue([]).to_dict()["model"] == ""


def test_a_viewers_queue_is_blind_unless_told_otherwise(store):
    store.save_review(Review("dr-c", "x2", _scores(), "", AT, AT))
    queue = build_queue(store, ["dr-a", "dr-b"], viewer="dr-c")
    assert [e.item_id for e in queue.entries] == ["x2"] and queue.hidden_items == ["x1"]
    seen = build_queue(store, ["dr-a", "dr-b"], viewer="dr-c", blind=False)
    assert [e.item_id for e in seen.entries] == ["x1", "x2"] and seen.hidden_items == []


def test_the_json_form_names_who_abstained_on_which_rule():
    judgments = (
        RaterJudgment("dr-a", "review", _scores(r2_2=CANNOT_JUDGE), "", "ua", 1),
        RaterJudgment("dr-b", "review", _scores(), "", "ub", 1),
    )
    entry = QueueEntry("x1", judgments, ("2.2",), True)
    assert entry.to_dict()["abstained"] == {"dr-a": ["2.2"]}
    assert "abstained" not in QueueEntry("x1", judgments[1:], (), False).to_dict()


def _j(rater, kind="review", **values):
    return RaterJudgment(rater, kind, _scores(**values), "", f"uid-{rater}", 1)


@pytest.mark.parametrize(
    "judgments, rules, verdict",
    [
        # both abstain on 2.2 (they "agree"), differ on 1.1: the abstention stays a rule,
        # and dr-b's verdict (cannot judge) next to dr-a's fail (0) differs
        ([_j("dr-a", r1_1=0, r2_2=CANNOT_JUDGE), _j("dr-b", r2_2=CANNOT_JUDGE)],
         ["1.1", "2.2"], True),
        # both abstain on 2.2 and pass the rest: verdicts agree (both cannot judge),
        # yet an abstention is a verdict to decide
        ([_j("dr-a", r2_2=CANNOT_JUDGE), _j("dr-b", r2_2=CANNOT_JUDGE)], ["2.2"], True),
    ],
)  # fmt: skip
def test_an_abstention_is_decided_besides_what_the_experts_differ_on(judgments, rules, verdict):
    assert adjudication._differing(judgments, "experts") == (rules, verdict)
