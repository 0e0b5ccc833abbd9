"""Which rules an item is disputed on, against whom, and what an adjudication records
(issue 26 item 3, ``python -m tests.mutation.run --modules review.adjudication``): the
experts' disagreement, the LLM's, or either; one expert alone disputes nothing among
experts; the refusals of an adjudication without a name, a value, a reason or (blind)
the adjudicator's own review; and each resolved judgment's value recorded, the
verdict's for the verdict. Expected disputes listed by hand from the scores below."""

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review import adjudication
from medrcube_desktop.review.adjudication import QueueEntry, RaterJudgment, adjudicate, llm_comment

PASS = dict.fromkeys(RULE_IDS, 1)


def _j(rater, kind="review", **fails):
    scores = {**PASS, **{k[1:].replace("_", "."): 0 for k in fails}}
    return RaterJudgment(rater, kind, scores, "", f"uid-{rater}", 1)


# dr-a fails 1.1; dr-b fails 1.1 and 2.2; the LLM fails 1.3
A, B, LLM = _j("dr-a", r1_1=1), _j("dr-b", r1_1=1, r2_2=1), _j("gpt", "llm", r1_3=1)


@pytest.mark.parametrize(
    "judgments, against, rules, verdict",
    [
        ([A, B, LLM], "experts", ["2.2"], False),  # both fail overall: verdicts agree
        ([A, B, LLM], "llm", ["1.1", "1.3", "2.2"], False),  # all three fail overall
        ([A, B, LLM], "any", ["1.1", "1.3", "2.2"], False),
        ([A, _j("dr-c"), LLM], "experts", ["1.1"], True),  # dr-c passes all
        ([_j("dr-c"), LLM], "llm", ["1.3"], True),
        ([_j("dr-c"), LLM], "experts", [], False),  # one expert: no dispute among experts
        ([_j("dr-c"), LLM], "any", ["1.3"], True),
        ([A, B], "llm", [], False),  # no LLM judgment
        ([LLM], "llm", [], False),  # no expert
        ([A, B], "any", ["2.2"], False),
    ],
)
def test_an_item_is_disputed_on_the_rules_the_compared_raters_differ_on(
    judgments, against, rules, verdict
):
    assert adjudication._differing(judgments, against) == (rules, verdict)


def test_the_llms_scores_are_said_in_words_with_the_rubric_names():
    assert llm_comment(PASS) == "passes all seven rules (the LLM gives scores only, no reasons)"
    said = llm_comment({**PASS, "1.1": 0, "2.3": 0})
    assert said.startswith("fails 1.1 ") and "; 2.3 " in said
    assert said.endswith(" (the LLM gives scores only, no reasons)") and said.count(";") == 1


class _Store:
    """The two calls adjudicate makes: whose first reviews exist, and the save."""

    def __init__(self, reviewed):
        self.reviewed, self.saved = reviewed, None

    def first_reviews(self, reviewer):
        return {"i1": object()} if reviewer in self.reviewed else {}

    def save_adjudications(self, records):
        self.saved = records
        return records


ENTRY = QueueEntry("i1", (A, LLM), ("1.1", "1.3"), False)


@pytest.mark.parametrize(
    "adjudicator, values, reasons, message",
    [
        ("  ", {"1.1": 1}, {"1.1": "r"}, "say who adjudicates (the reviewer's name)"),
        ("dr-c", {}, {}, "item i1: choose a value to adjudicate"),
        ("dr-c", {"1.1": 1, "1.3": 0}, {"1.1": "r", "1.3": "  "}, "item i1: give a reason for 1.3"),
        ("dr-c", {"1.1": 1, "1.3": 0}, {}, "item i1: give a reason for 1.1, 1.3"),
    ],
)
def test_an_adjudication_without_a_name_a_value_or_a_reason_is_refused(
    adjudicator, values, reasons, message
):
    store = _Store({"dr-c"})
    with pytest.raises(MedRCubeError) as refused:
        adjudicate(store, ENTRY, adjudicator, values, reasons)
    assert str(refused.value) == message and store.saved is None


def test_a_blind_adjudicator_must_have_reviewed_the_item_first():
    store = _Store(set())
    with pytest.raises(MedRCubeError) as refused:
        adjudicate(store, ENTRY, "dr-c", {"1.1": 1}, {"1.1": "r"})
    assert str(refused.value) == (
        "dr-c has not committed a review of item i1: in a blind study the adjudicator "
        "reviews the item first"
    )
    adjudicate(store, ENTRY, "dr-c", {"1.1": 1}, {"1.1": "r"}, blind=False)  # not blind: allowed
    assert store.saved is not None


def test_each_resolved_judgment_is_recorded_with_its_value_for_the_target():
    store = _Store({"dr-c"})
    saved = adjudicate(
        store, ENTRY, " dr-c ", {"1.1": 1, "verdict": 0}, {"1.1": " why ", "verdict": "v"}
    )
    by_target = {a.target: a for a in saved}
    one = by_target["1.1"]
    assert (one.item_id, one.value, one.reason, one.adjudicator) == ("i1", 1, "why", "dr-c")
    assert one.resolves == [
        {"rater": "dr-a", "kind": "review", "uid": "uid-dr-a", "revision": 1, "value": 0},
        {"rater": "gpt", "kind": "llm", "uid": "uid-gpt", "revision": 1, "value": 1},
    ]
    # the verdict: each rater's overall verdict (dr-a fails 1.1, the LLM fails 1.3: both 0)
    assert [r["value"] for r in by_target["verdict"].resolves] == [0, 0]
    passing = QueueEntry("i1", (_j("dr-d"), LLM), ("1.3",), True)
    verdicts = adjudicate(store, passing, "dr-c", {"verdict": 1}, {"verdict": "v"})[0].resolves
    assert [r["value"] for r in verdicts] == [1, 0]


def test_the_queue_in_json_names_every_field():
    from medrcube_desktop.review.adjudication import AdjudicationQueue
    from medrcube_desktop.store.adjudications import Adjudication

    done = Adjudication(
        "i1", "1.1", 1, "why", "dr-c", [], revision=2, created_at="2026-01-01T00:00:00Z"
    )
    entry = QueueEntry("i1", (A, LLM), ("1.1", "1.3"), True, {"1.1": done})
    assert entry.open_targets == ["1.3"]
    assert entry.to_dict() == {
        "item_id": "i1",
        "rules": ["1.1", "1.3"],
        "verdict_differs": True,
        "open": ["1.3"],
        "judgments": [
            {
                "rater": "dr-a",
                "kind": "review",
                "scores": A.scores,
                "comment": "",
                "uid": "uid-dr-a",
                "revision": 1,
            },
            {
                "rater": "gpt",
                "kind": "llm",
                "scores": LLM.scores,
                "comment": "",
                "uid": "uid-gpt",
                "revision": 1,
            },
        ],
        "adjudicated": {
            "1.1": {
                "value": 1,
                "reason": "why",
                "adjudicator": "dr-c",
                "revision": 2,
                "created_at": "2026-01-01T00:00:00Z",
            }
        },
    }
    settled = QueueEntry("i2", (A, LLM), ("1.1",), False, {"1.1": done})
    queue = AdjudicationQueue([entry, settled], ["i7", "i9"], ["dr-a"], "gpt")
    out = queue.to_dict()
    assert {k: v for k, v in out.items() if k != "items"} == {
        "reviewers": ["dr-a"],
        "model": "gpt",
        "n_items": 2,
        "n_open": 1,
        "hidden_by_blinding": 2,
        "hidden_items": ["i7", "i9"],
    }
    assert [i["item_id"] for i in out["items"]] == ["i1", "i2"]


@pytest.mark.parametrize(
    "against, on",
    [("bogus", "rules"), ("experts", "bogus"), ("bogus", "bogus")],
)
def test_a_queue_against_or_on_something_unknown_is_refused(tmp_path, against, on):
    from medrcube_desktop.review.adjudication import AGAINST, ON, build_queue
    from medrcube_desktop.store import StudyStore

    store = StudyStore(tmp_path / "s.db")
    with pytest.raises(MedRCubeError) as refused:
        build_queue(store, against=against, on=on)
    assert str(refused.value) == f"against must be one of {AGAINST}, on one of {ON}"
    with pytest.raises(MedRCubeError) as refused:
        build_queue(store, against="llm")
    assert str(refused.value) == "comparing with the LLM needs a model (--model)"
    store.close()
