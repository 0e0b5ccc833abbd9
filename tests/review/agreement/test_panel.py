"""Several experts: the ceiling beside expert–LLM, and each rater against the gold
standard, against hand computations and statsmodels."""

from itertools import combinations

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement.gold import gold_standard
from medrcube_desktop.review.agreement.panel import group_columns, rater_matrix
from medrcube_desktop.review.agreement.panel_run import run_gold, run_panel
from medrcube_desktop.review.agreement.stats import compare
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import Adjudication
from tests.review.experts_fixture import ITEMS, fill, scores_of

EXPERTS = ["dr-a", "dr-b", "dr-c"]


def hand_agreement(a: str, b: str, rule: str, items=ITEMS) -> float:
    return sum(scores_of(a, i)[rule] == scores_of(b, i)[rule] for i in items) / len(items)


def hand_kappa(a: str, b: str, rule: str, items=ITEMS) -> float:
    table = np.zeros((2, 2))
    for i in items:
        table[scores_of(a, i)[rule], scores_of(b, i)[rule]] += 1
    return cohens_kappa(table).kappa


@pytest.fixture
def store():
    return fill(StudyStore(None))


def test_ceiling_is_the_mean_of_pairwise_agreement_and_kappa(store):
    run = run_panel(store, EXPERTS, "gpt-5.1", bootstrap=300, seed=2)
    ceiling, llm = run.column("ceiling"), run.column("llm")
    for rule in ("1.1", "2.3"):
        pairs = list(combinations(EXPERTS, 2))
        assert ceiling.rows[rule].agreement == pytest.approx(
            np.mean([hand_agreement(a, b, rule) for a, b in pairs])
        )
        assert ceiling.rows[rule].cohen_kappa == pytest.approx(
            np.mean([hand_kappa(a, b, rule) for a, b in pairs])
        )
        assert llm.rows[rule].agreement == pytest.approx(
            np.mean([hand_agreement(e, "LLM", rule) for e in EXPERTS])
        )
        assert llm.rows[rule].cohen_kappa == pytest.approx(
            np.mean([hand_kappa(e, "LLM", rule) for e in EXPERTS])
        )
        low, high = ceiling.rows[rule].ci95
        assert low <= ceiling.rows[rule].agreement <= high
    # sample level: all seven match; dr-a vs dr-b differ on i2, i3 (1.1) and i6 (2.3)
    pair = next(c for c in run.columns if c.name == "dr-a vs dr-b")
    assert pair.rows["sample"].agreement == pytest.approx(9 / 12)
    assert pair.rows["sample"].cohen_kappa is None
    assert [c.kind for c in run.columns] == ["ceiling", "llm"] + ["pair"] * 6
    assert run.raters == {"dr-a": 12, "dr-b": 12, "dr-c": 12, "LLM gpt-5.1": 12}


def test_one_pair_equals_the_two_rater_comparison_intervals_included(store):
    a = {i: scores_of("dr-a", i) for i in ITEMS}
    b = {i: scores_of("dr-b", i) for i in ITEMS}
    two = compare(a, b, bootstrap=400, seed=5)
    rows = sorted(ITEMS)  # the row order compare() resamples
    matrices = {"a": rater_matrix(a, rows), "b": rater_matrix(b, rows)}
    (column,) = group_columns(matrices, [("a vs b", "pair", [("a", "b")])], 400, 5)
    assert column.rows["sample"].ci95 == pytest.approx(two.sample_ci95)
    for rule in RULE_IDS:
        assert column.rows[rule].agreement == pytest.approx(two.rules[rule].agreement)
        assert column.rows[rule].ci95 == pytest.approx(two.rules[rule].ci95)
        if two.rules[rule].kappa_ci95 is not None:
            assert column.rows[rule].kappa_ci95 == pytest.approx(two.rules[rule].kappa_ci95)
        assert column.rows[rule].ac1_ci95 == pytest.approx(two.rules[rule].ac1_ci95)
    assert column.rows["P2"].agreement == pytest.approx(two.verdict("2").agreement)


def test_pairs_over_different_items_each_use_their_own(store):
    """An overlap design: dr-c reviewed only i0..i3; the pairs with dr-c count 4 items."""
    other = fill(StudyStore(None), experts=("dr-a", "dr-b"))
    fill(other, items=ITEMS[:4], experts=("dr-c",), model="unused")
    run = run_panel(other, EXPERTS, bootstrap=0)
    ceiling = run.column("ceiling")
    assert ceiling.rows["1.1"].n_items == [12, 4, 4]
    expected = np.mean(
        [
            hand_agreement("dr-a", "dr-b", "1.1"),
            hand_agreement("dr-a", "dr-c", "1.1", ITEMS[:4]),
            hand_agreement("dr-b", "dr-c", "1.1", ITEMS[:4]),
        ]  # fmt: skip
    )
    assert ceiling.rows["1.1"].agreement == pytest.approx(expected)
    assert ceiling.rows["1.1"].ci95 is None


def test_a_panel_needs_two_distinct_reviewers(store):
    with pytest.raises(MedRCubeError, match="at least two"):
        run_panel(store, ["dr-a"], "gpt-5.1")
    with pytest.raises(MedRCubeError, match="twice"):
        run_panel(store, ["dr-a", "dr-a"])
    with pytest.raises(MedRCubeError, match="no first judgments by 'nobody'"):
        run_panel(store, ["dr-a", "nobody"])


def test_gold_is_adjudicated_else_agreed_and_the_rest_is_left_out_and_counted():
    experts = {
        "a": {"x": {r: 1 for r in RULE_IDS}, "y": {**{r: 1 for r in RULE_IDS}, "1.2": 0}},
        "b": {
            "x": {r: 1 for r in RULE_IDS},
            "y": {r: 1 for r in RULE_IDS},
            "z": {r: 1 for r in RULE_IDS},
        },  # fmt: skip
    }
    gold = gold_standard(experts, {})
    assert sorted(gold.scores) == ["x"]
    assert gold.left_out == ["y", "z"]  # y: 1.2 disputed; z: one expert only
    settled = {"y": {"1.2": Adjudication("y", "1.2", 0, "wording", "c")}}
    gold = gold_standard(experts, settled)
    assert gold.scores["y"]["1.2"] == 0 and gold.left_out == ["z"]
    assert gold.adjudicated == {"y"}


def test_agreement_with_the_adjudicated_gold_for_the_llm_and_each_expert(store):
    two = ["dr-a", "dr-b"]
    # dr-a and dr-b disagree on 1.1 of i2, i3 and 2.3 of i6: adjudicate i2 and i6 only
    store.save_adjudications([
        Adjudication("i2", "1.1", 0, "the laterality is wrong", "dr-c"),
        Adjudication("i6", "2.3", 1, "distractors are plausible", "dr-c"),
    ])  # fmt: skip
    run = run_gold(store, two, "gpt-5.1", bootstrap=200, seed=1)
    assert run.gold["n_items"] == 11 and run.gold["left_out"] == ["i3"]
    assert run.gold["n_adjudicated"] == 2
    gold_items = [i for i in ITEMS if i != "i3"]
    gold = {i: scores_of("dr-a", i) for i in gold_items}
    gold["i6"]["2.3"] = 1
    for column in (c for c in run.columns if c.kind == "gold"):
        rater = column.pairs[0][0]
        key = "LLM" if rater.startswith("LLM") else rater
        for rule in ("1.1", "2.3"):
            expected = sum(scores_of(key, i)[rule] == gold[i][rule] for i in gold_items) / 11
            assert column.rows[rule].agreement == pytest.approx(expected), (rater, rule)
    assert [c.name for c in run.columns if c.kind == "gold"] == [
        "LLM gpt-5.1 vs gold",
        "dr-a vs gold",
        "dr-b vs gold",
    ]
    # dr-c adjudicated: the LLM over i2, i6 (it fails 1.1 of i2 as gold does; passes 2.3
    # of i6 as gold does); dr-a differs on i6 (fails 2.3), dr-b on i2 (passes 1.1)
    adjudicated = {c.name: c for c in run.columns if c.kind != "gold"}
    assert adjudicated["LLM gpt-5.1 vs gold, adjudicated items"].rows["sample"].agreement == 1.0
    assert adjudicated["dr-a vs gold, adjudicated by others"].rows["sample"].agreement == 0.5
    assert adjudicated["dr-b vs gold, adjudicated by others"].rows["sample"].agreement == 0.5


def test_a_revised_adjudication_wins_and_the_first_stays_in_the_history(store):
    store.save_adjudication(Adjudication("i3", "1.1", 1, "first look", "dr-c"))
    store.save_adjudication(Adjudication("i3", "1.1", 0, "second look: wrong organ", "dr-c"))
    assert store.adjudications()["i3"]["1.1"].value == 0
    history = store.adjudication_history("i3")
    assert [(a.revision, a.value) for a in history] == [(1, 1), (2, 0)]
    gold = run_gold(store, ["dr-a", "dr-b"], bootstrap=0)
    assert "i3" not in gold.gold["left_out"]


def test_items_in_common_count_the_items_a_pair_judged_abstentions_or_not():
    # two raters judged the same 3 items; "a" cannot judge 1.4 on all of them: the
    # header's "n = 3" and no "(0) items in common" warning (the sample row has none)
    from types import SimpleNamespace

    from medrcube_desktop.review.agreement.panel import JUDGMENTS, RaterMatrix
    from medrcube_desktop.review.agreement.panel_report import pair_counts, small_overlaps

    judged = np.ones(3, dtype=bool)
    abstained = np.zeros((3, len(RULE_IDS)), dtype=bool)
    abstained[:, RULE_IDS.index("1.4")] = True
    valid = np.ones((3, len(JUDGMENTS) + 1), dtype=bool)
    for key in ("1.4", "P1", "verdict"):
        valid[:, JUDGMENTS.index(key)] = False
    valid[:, -1] = False  # the sample level: an abstention leaves it out
    values = np.ones((3, len(JUDGMENTS)), dtype=int)
    raters = {"a": RaterMatrix(values, judged, valid, abstained), "b": RaterMatrix(values, judged)}
    (column,) = group_columns(raters, [("a vs b", "pair", [("a", "b")])], 0, 0)
    assert column.rows["sample"].n_items == [0] and column.rows["1.1"].n_items == [3]
    assert column.common == [3] and pair_counts(column) == "n = 3"
    warning = small_overlaps(SimpleNamespace(columns=[column]))
    assert warning and "a vs b (3)" in warning[0]


def test_a_row_every_common_item_abstained_on_says_so_not_no_item():
    from medrcube_desktop.review.agreement.panel import ALL_ABSTAINED, JUDGMENTS, RaterMatrix

    judged = np.ones(2, dtype=bool)
    valid = np.ones((2, len(JUDGMENTS) + 1), dtype=bool)
    for key in ("1.4", "P1", "verdict"):
        valid[:, JUDGMENTS.index(key)] = False
    valid[:, -1] = False
    values = np.ones((2, len(JUDGMENTS)), dtype=int)
    raters = {"a": RaterMatrix(values, judged, valid), "b": RaterMatrix(values, judged)}
    (column,) = group_columns(raters, [("a vs b", "pair", [("a", "b")])], 0, 0)
    rule = column.rows["1.4"]
    assert rule.agreement is None and rule.cohen_kappa is None
    assert rule.undefined["agreement"] == ALL_ABSTAINED == rule.undefined["cohen_kappa"]
    assert rule.gwet_ac1 is None and rule.undefined["gwet_ac1"] == ALL_ABSTAINED
    assert column.rows["sample"].undefined["agreement"] == ALL_ABSTAINED
    assert column.rows["1.1"].agreement == 1.0
