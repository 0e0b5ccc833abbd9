""" "Cannot judge" in the two-rater figures (issue 24): excluded pairwise, recomputed here
on the kept pairs with scikit-learn / statsmodels and by hand; abstention rates by hand."""

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.agreement.stats import compare, multi_rater

X = CANNOT_JUDGE
# 12 items; rows are items i00..i11, columns the rules 1.1 1.2 1.3 1.4 2.1 2.2 2.3
FIRST = [
    [1, 1, X, 1, 1, 1, 1],
    [1, 1, 0, 1, 1, 1, 1],
    [1, 0, 0, 1, 1, 1, 1],
    [1, 1, 1, 1, 0, 1, 1],
    [0, 1, 1, 1, 1, 1, 1],
    [1, 1, X, 1, 1, 1, 0],
    [1, 1, 1, 1, 1, 1, 1],
    [1, 1, 0, 1, 1, 1, 1],
    [1, 1, 1, 0, 1, 1, 1],
    [1, 1, 1, 1, 1, 0, 1],
    [1, 1, 0, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1],
]
SECOND = [
    [1, 1, 0, 1, 1, 1, 1],
    [1, 1, 0, 1, 1, 1, 1],
    [1, 1, 1, 1, X, 1, 1],
    [1, 1, 1, 1, 0, 1, 1],
    [0, 1, 0, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 0],
    [1, 1, X, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 0, 1],
    [1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 1, 1, 1],
]
ITEMS = [f"i{k:02d}" for k in range(12)]


def raters(rows):
    return {
        item: dict(zip(RULE_IDS, row, strict=True)) for item, row in zip(ITEMS, rows, strict=True)
    }


def kept_pairs(rule):
    k = RULE_IDS.index(rule)
    return [(a[k], b[k]) for a, b in zip(FIRST, SECOND, strict=True) if X not in (a[k], b[k])]


def ac1_by_hand(pairs):
    n = len(pairs)
    po = sum(a == b for a, b in pairs) / n
    pi = (sum(a for a, _ in pairs) / n + sum(b for _, b in pairs) / n) / 2
    pe = 2 * pi * (1 - pi)
    return (po - pe) / (1 - pe)


def test_each_rule_counts_only_the_pairs_neither_rater_abstained_on():
    result = compare(raters(FIRST), raters(SECOND), bootstrap=0)
    assert len(result.items) == 12 and result.excluded == []
    for rule in RULE_IDS:
        pairs = kept_pairs(rule)
        figures = result.rules[rule]
        assert sum(map(sum, figures.confusion)) == len(pairs)
        assert figures.agreement == pytest.approx(sum(a == b for a, b in pairs) / len(pairs))
        assert figures.gwet_ac1 == pytest.approx(ac1_by_hand(pairs))
        a, b = zip(*pairs, strict=True)
        if len(set(a)) > 1 or len(set(b)) > 1:  # kappa is defined (p_e < 1)
            assert figures.cohen_kappa == pytest.approx(cohen_kappa_score(a, b))
    # 1.3: i00 and i05 (first) and i07 (second) abstained → 9 pairs:
    # (0,0) i01 · (0,1) i02 i10 · (1,0) i04 · (1,1) i03 i06 i08 i09 i11
    r13 = result.rules["1.3"]
    assert r13.confusion == [[1, 2], [1, 5]]
    assert r13.agreement == pytest.approx(6 / 9)
    # p_e = (3/9)(2/9) + (6/9)(7/9) = 48/81; kappa = (54/81 - 48/81) / (33/81) = 6/33
    assert r13.cohen_kappa == pytest.approx(6 / 33)
    assert result.rules["2.1"].confusion == [[1, 0], [0, 10]]  # i02 left out
    assert result.rules["1.1"].confusion == [[1, 0], [0, 11]]  # nobody abstained: all 12


def test_principles_and_the_all_seven_match_leave_out_an_item_with_any_abstention():
    result = compare(raters(FIRST), raters(SECOND), bootstrap=0)
    # P1 (1.1-1.4): i00, i05, i07 abstained there; P2 (2.1-2.3): i02
    p1_items = [i for i in range(12) if i not in (0, 5, 7)]
    p1_a = [int(all(FIRST[i][k] == 1 for k in range(4))) for i in p1_items]
    p1_b = [int(all(SECOND[i][k] == 1 for k in range(4))) for i in p1_items]
    verdict = result.principles["1"]["verdict"]
    assert sum(map(sum, verdict.confusion)) == 9
    assert verdict.cohen_kappa == pytest.approx(cohen_kappa_score(p1_a, p1_b))
    matches = [all(FIRST[i][k] == SECOND[i][k] for k in range(4)) for i in p1_items]
    assert result.principles["1"]["all_match"] == pytest.approx(sum(matches) / 9)
    assert sum(map(sum, result.principles["2"]["verdict"].confusion)) == 11
    # the sample level: i00 i02 i05 i07 out; all seven match on 4 of the 8 left
    left = [i for i in range(12) if i not in (0, 2, 5, 7)]
    same = [i for i in left if FIRST[i] == SECOND[i]]
    assert [ITEMS[i] for i in same] == ["i01", "i03", "i09", "i11"]
    assert result.sample_level == pytest.approx(4 / 8)
    assert result.items_in_cell("1.3", 1, 0) == ["i04"]
    assert "i00" not in result.items_in_cell("P1", 1, 1)


def test_the_intervals_of_a_rule_resample_its_kept_pairs():
    result = compare(raters(FIRST), raters(SECOND), bootstrap=300, seed=5)
    kept = [i for i in range(12) if i not in (0, 5, 7)]
    only = compare(
        {ITEMS[i]: {"1.3": FIRST[i][2], **{r: 1 for r in RULE_IDS if r != "1.3"}} for i in kept},
        {ITEMS[i]: {"1.3": SECOND[i][2], **{r: 1 for r in RULE_IDS if r != "1.3"}} for i in kept},
        bootstrap=300,
        seed=5,
    )
    assert result.rules["1.3"].ci95 == only.rules["1.3"].ci95
    assert result.rules["1.3"].kappa_ci95 == only.rules["1.3"].kappa_ci95
    assert result.rules["1.3"].ci95 is not None


def test_abstention_rates_per_rater_and_rule_by_hand():
    result = compare(raters(FIRST), raters(SECOND), bootstrap=0)
    found = result.abstentions
    assert found["first"]["counts"] == {**dict.fromkeys(RULE_IDS, 0), "1.3": 2}
    assert found["first"]["rates"]["1.3"] == pytest.approx(2 / 12, abs=1e-6)
    assert found["second"]["counts"] == {**dict.fromkeys(RULE_IDS, 0), "1.3": 1, "2.1": 1}
    assert found["second"]["rates"]["2.1"] == pytest.approx(1 / 12, abs=1e-6)
    assert found["first"]["items_with_any"] == 2 and found["second"]["items_with_any"] == 2
    assert found["pairs_left_out"] == {**dict.fromkeys(RULE_IDS, 0), "1.3": 3, "2.1": 1}
    assert found["principles_left_out"] == {"1": 3, "2": 1}
    assert found["sample_level_left_out"] == 4
    assert result.to_dict()["abstentions"] == found
    assert result.first["i00"]["1.3"] == CANNOT_JUDGE  # kept as it is, never 0 or 1


def test_without_an_abstention_there_is_no_abstention_entry():
    plain = [[1 if v == X else v for v in row] for row in FIRST]
    result = compare(raters(plain), raters(plain), bootstrap=0)
    assert result.abstentions is None and "abstentions" not in result.to_dict()


def test_multi_rater_leaves_out_of_a_rule_the_items_a_rater_cannot_judge():
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    third = [[1 if v == X else v for v in row] for row in FIRST]
    third[3][2] = 0
    out = multi_rater({"a": raters(FIRST), "b": raters(SECOND), "c": raters(third)})
    kept = [i for i in range(12) if i not in (0, 5, 7)]
    data = np.array([[FIRST[i][2], SECOND[i][2], third[i][2]] for i in kept])
    expected = fleiss_kappa(aggregate_raters(data, n_cat=2)[0], method="fleiss")
    assert out["rules"]["1.3"]["fleiss_kappa"] == pytest.approx(expected, abs=1e-6)
    assert out["rules"]["1.3"]["n_samples"] == 9 and out["n_samples"] == 12
    assert "n_samples" not in out["rules"]["1.1"]


def test_a_figure_every_common_item_abstained_on_says_so_not_no_item():
    # two items in common, "cannot judge" 1.4 on both by one rater: 1.4, P1 and the
    # sample level are undefined because of the abstentions, not for want of items
    passes = dict.fromkeys(RULE_IDS, 1)
    first = {i: {**passes, "1.4": X} for i in ("a", "b")}
    second = {i: dict(passes) for i in ("a", "b")}
    result = compare(first, second, bootstrap=0)
    said = "every item both raters judged has a 'cannot judge' of either here"
    assert result.rules["1.4"].agreement is None
    assert result.rules["1.4"].undefined["agreement"] == said
    assert result.principles["1"]["verdict"].undefined["agreement"] == said
    assert result.principles["1"]["undefined"]["all_match"] == said
    assert result.sample_undefined["agreement"] == said
    assert result.rules["1.1"].agreement == 1.0
    none = compare({"a": passes}, {"b": passes}, bootstrap=0)  # nothing in common
    assert none.rules["1.4"].undefined["agreement"] == "no item judged by both raters"


def test_a_rater_without_an_item_has_no_abstention_rate():
    # a panel rater who judged none of the items: counts 0, no rate (not 0/0), no item
    from medrcube_desktop.review.agreement.stats import rater_abstentions

    found = rater_abstentions(np.zeros((0, len(RULE_IDS)), dtype=bool))
    assert found == {
        "n_items": 0,
        "counts": dict.fromkeys(RULE_IDS, 0),
        "rates": dict.fromkeys(RULE_IDS),
        "items_with_any": 0,
    }
    assert all(type(count) is int for count in found["counts"].values())
