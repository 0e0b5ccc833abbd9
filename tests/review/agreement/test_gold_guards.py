"""Each branch that picks a gold value, tried with the input it exists for (issue 26 item
3): an adjudication overrules the experts' agreement, one expert alone or two who
disagree give no gold, an item short of one rule is left out and counted, an item nobody
judged is not counted, a universe narrows the items, the sources split by adjudicator.
Expected gold values written out by hand for each case."""

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.gold import (
    GoldSources,
    expert_note,
    gold_sources,
    gold_standard,
)
from medrcube_desktop.store.adjudications import VERDICT, Adjudication

PASS = dict.fromkeys(RULE_IDS, 1)


def _with(**changes):
    """All seven pass but the rules named (``r1_1=0`` for rule 1.1)."""
    return {**PASS, **{k[1:].replace("_", "."): v for k, v in changes.items()}}


def _adj(item, target, value, by="dr-c"):
    return Adjudication(item, target, value, "reason", by)


def test_an_adjudicated_rule_overrules_the_experts_agreement():
    experts = {"a": {"i1": dict(PASS)}, "b": {"i1": dict(PASS)}}
    gold = gold_standard(experts, {"i1": {"1.2": _adj("i1", "1.2", 0)}})
    assert gold.scores == {"i1": _with(r1_2=0)}
    assert gold.adjudicated == {"i1"} and gold.verdicts == {} and gold.left_out == []


def test_one_expert_alone_is_no_gold():
    gold = gold_standard({"a": {"i1": dict(PASS)}, "b": {}}, {})
    assert gold.scores == {} and gold.left_out == ["i1"] and gold.adjudicated == set()


def test_two_experts_who_disagree_on_a_rule_leave_the_item_out_unless_it_is_adjudicated():
    experts = {
        "a": {"i1": dict(PASS), "i2": dict(PASS)},
        "b": {"i1": _with(r2_1=0), "i2": _with(r2_1=0)},
    }
    gold = gold_standard(experts, {"i2": {"2.1": _adj("i2", "2.1", 1)}})
    assert gold.left_out == ["i1"]
    assert gold.scores == {"i2": dict(PASS)} and gold.adjudicated == {"i2"}


def test_the_shared_value_is_gold_where_it_is_a_fail():
    experts = {name: {"i1": _with(r1_4=0)} for name in ("a", "b", "c")}
    assert gold_standard(experts, {}).scores == {"i1": _with(r1_4=0)}


def test_an_item_adjudicated_but_short_of_a_rule_is_left_out_and_still_adjudicated():
    experts = {"a": {"i1": dict(PASS)}, "b": {"i1": _with(r1_1=0)}}
    gold = gold_standard(experts, {"i1": {VERDICT: _adj("i1", VERDICT, 0)}})
    assert gold.left_out == ["i1"] and gold.scores == {} and gold.verdicts == {}
    assert gold.adjudicated == {"i1"}


def test_an_item_only_adjudicated_needs_every_rule_adjudicated():
    settled = {r: _adj("i9", r, 1) for r in RULE_IDS}
    gold = gold_standard({"a": {}, "b": {}}, {"i9": settled})
    assert gold.scores == {"i9": dict(PASS)} and gold.left_out == []


def test_an_item_of_the_universe_nobody_judged_is_not_counted_and_the_universe_narrows():
    experts = {name: {"i1": dict(PASS), "i2": dict(PASS)} for name in ("a", "b")}
    gold = gold_standard(experts, {}, universe=["i2", "i3"])
    assert gold.scores == {"i2": dict(PASS)} and gold.left_out == []
    # an unjudged item before the judged ones: skipped, the rest still read
    gold = gold_standard(experts, {}, universe=["i0", "i1", "i2"])
    assert gold.scores == {"i1": dict(PASS), "i2": dict(PASS)} and gold.left_out == []


def test_the_sources_split_by_who_adjudicated():
    experts = {name: {i: dict(PASS) for i in ("i1", "i2", "i3")} for name in ("a", "b")}
    experts["a"]["i2"] = _with(r1_1=0)  # a's first judgment differs from gold on i2
    adjudications = {
        "i2": {"1.1": _adj("i2", "1.1", 1, by="a")},
        "i3": {"1.3": _adj("i3", "1.3", 1, by="c")},
    }
    gold = gold_standard(experts, adjudications)
    sources = gold_sources("a", experts["a"], gold, adjudications)
    assert sources == GoldSources(consensus=["i1"], own=["i2"], others=["i3"], own_matching=0)
    assert sources.to_dict() == {
        "n_items": 3, "consensus": 1, "own": 1, "others": 1, "own_matching_first": 0,
    }  # fmt: skip
    b = gold_sources("b", experts["b"], gold, adjudications)
    assert b == GoldSources(consensus=["i1"], own=[], others=["i2", "i3"], own_matching=0)
    assert expert_note("b", b, "b vs gold (others)") == (
        "b, 3 gold items judged: on the 1 consensus item gold is the experts' shared verdict,"
        " b's included (agreement 1.00 by construction); the 2 items adjudicated by someone"
        " else are the informative comparison ('b vs gold (others)')"
    )
    assert expert_note("a", sources, "col") == (
        "a, 3 gold items judged: on the 1 consensus item gold is the experts' shared verdict,"
        " a's included (agreement 1.00 by construction); on the 1 item a adjudicated, gold is"
        " a's own later decision (a's first judgment matches it on all seven rules on 0 of"
        " them); the 1 item adjudicated by someone else is the informative comparison ('col')"
    )
    alone = GoldSources(consensus=["i1", "i2"], own=[], others=[])
    assert expert_note("a", alone, None).endswith(
        "no item was adjudicated by someone else: a has no independent comparison with gold"
    )
