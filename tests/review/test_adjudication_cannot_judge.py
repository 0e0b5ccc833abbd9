""" "Cannot judge" in the adjudication queue (issue 24): an item an expert abstained on
is listed with the abstained rules to decide, whatever is compared; its verdict is
"cannot judge" unless a rule fails; the gold standard of such a rule comes only from an
adjudication."""

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.adjudication import RaterJudgment, adjudicate, build_queue
from medrcube_desktop.review.agreement.gold import gold_standard
from medrcube_desktop.store import Review, StudyStore

T0 = "2026-03-01T10:00:00+00:00"
PASS = dict.fromkeys(RULE_IDS, 1)


def test_the_verdict_of_an_abstention_is_cannot_judge_unless_a_rule_fails():
    def verdict(scores):
        return RaterJudgment("dr-a", "review", scores, "", "u", 1).verdict

    assert verdict(PASS) == 1
    assert verdict({**PASS, "1.4": CANNOT_JUDGE}) == CANNOT_JUDGE
    assert verdict({**PASS, "1.4": CANNOT_JUDGE, "2.1": 0}) == 0


def store_with_abstentions():
    store = StudyStore(None)
    store.save_review(Review("dr-a", "i1", {**PASS, "1.4": CANNOT_JUDGE}, "", T0, T0))
    store.save_review(Review("dr-b", "i1", PASS, "", T0, T0))
    store.save_review(Review("dr-a", "i2", PASS, "", T0, T0))
    store.save_review(Review("dr-b", "i2", PASS, "", T0, T0))
    store.save_review(Review("dr-a", "i3", {**PASS, "2.2": CANNOT_JUDGE}, "", T0, T0))
    store.save_review(Review("dr-b", "i3", {**PASS, "2.2": CANNOT_JUDGE}, "", T0, T0))
    return store


def test_abstained_items_are_queued_with_the_rules_to_decide():
    store = store_with_abstentions()
    for on in ("rules", "verdict"):
        queue = build_queue(store, ["dr-a", "dr-b"], on=on)
        assert [(e.item_id, e.rules) for e in queue.entries] == [("i1", ("1.4",)), ("i3", ("2.2",))]
    entry = build_queue(store, ["dr-a", "dr-b"]).entries[1]
    # both abstained on 2.2 (they "agree"): still a decision to make
    assert entry.abstained == {"dr-a": ["2.2"], "dr-b": ["2.2"]}
    assert entry.open_targets == ["2.2"] and entry.verdict_differs
    assert build_queue(store, ["dr-b"]).entries[0].item_id == "i3"  # one expert too


def test_the_gold_standard_of_an_abstained_rule_is_its_adjudication():
    store = store_with_abstentions()
    experts = {name: {i: dict(r.scores) for i, r in store.first_reviews(name).items()}
               for name in ("dr-a", "dr-b")}  # fmt: skip
    gold = gold_standard(experts, store.adjudications())
    assert sorted(gold.scores) == ["i2"] and sorted(gold.left_out) == ["i1", "i3"]
    entry = build_queue(store, ["dr-a", "dr-b"]).entries[1]
    stored = adjudicate(store, entry, "dr-c", {"2.2": 0}, {"2.2": "overlap"}, blind=False)
    assert stored[0].resolves[0]["value"] == CANNOT_JUDGE  # what was resolved, as it was
    gold = gold_standard(experts, store.adjudications())
    assert gold.scores["i3"] == {**PASS, "2.2": 0}
    assert build_queue(store, ["dr-a", "dr-b"]).entries[1].open_targets == []
