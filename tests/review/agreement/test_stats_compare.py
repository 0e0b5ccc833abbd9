"""compare() itself (agreement/stats.py, issue 26 survivors of ``--modules
agreement.stats``): the principle and sample-level intervals and their reasons against a
bootstrap drawn in the test, the sample and the excluded items, the draws limit, the
settings carried into the result, and the items behind a principle's cell."""

import numpy as np
import pytest

from medrcube_desktop.core.rubric import CANNOT_JUDGE, PRINCIPLES, RULE_IDS
from medrcube_desktop.review.agreement import stats
from medrcube_desktop.review.agreement.stats import TooManyDraws, compare

P1 = [RULE_IDS.index(r) for r in PRINCIPLES["1"]]


def _raters(n=14, seed=3):
    """Two raters, the second flipping each of the first's judgments with chance 0.1."""
    rng = np.random.default_rng(seed)
    first = {f"i{k:02d}": {r: int(rng.random() < 0.75) for r in RULE_IDS} for k in range(n)}
    second = {i: {r: v ^ int(rng.random() < 0.1) for r, v in s.items()} for i, s in first.items()}
    return first, second


def _percentile(values, draws):
    return tuple(float(x) for x in np.percentile(values[draws].mean(axis=1), [2.5, 97.5]))


def test_principle_and_sample_intervals_are_the_bootstrap_of_their_shares():
    first, second = _raters(20, seed=1)  # P1 verdict 0.85, all-match 0.6, all seven 0.4
    result = compare(first, second, bootstrap=300, seed=6)
    items = sorted(first)
    a = np.array([[first[i][r] for r in RULE_IDS] for i in items])
    b = np.array([[second[i][r] for r in RULE_IDS] for i in items])
    draws = np.random.default_rng(6).integers(0, len(items), size=(300, len(items)))
    all_match = (a[:, P1] == b[:, P1]).all(axis=1).astype(float)
    p1 = result.principles["1"]
    assert p1["all_match"] == pytest.approx(all_match.mean())
    assert p1["all_match_ci95"] == pytest.approx(_percentile(all_match, draws), abs=1e-12)
    verdict = (a[:, P1].all(axis=1) == b[:, P1].all(axis=1)).astype(float)
    assert result.verdict("1").agreement == pytest.approx(verdict.mean())
    assert result.verdict("1").ci95 == pytest.approx(_percentile(verdict, draws), abs=1e-12)
    assert result.verdict("1").kappa_ci95 is not None
    seven = (a == b).all(axis=1).astype(float)
    assert result.sample_level == pytest.approx(seven.mean())
    assert result.sample_ci95 == pytest.approx(_percentile(seven, draws), abs=1e-12)
    assert result.to_dict()["bootstrap"] == {"draws": 300, "seed": 6}
    assert (result.bootstrap, result.seed) == (300, 6)


def test_every_item_matching_says_so_for_the_principles_and_the_sample():
    first, _ = _raters(6)
    result = compare(first, {i: dict(v) for i, v in first.items()}, bootstrap=100)
    reason = "every item agrees (no variation to resample)"
    assert result.sample_undefined == {"ci95": reason}
    assert result.to_dict()["sample_level"]["undefined"] == {"ci95": reason}
    for pid in PRINCIPLES:
        assert result.principles[pid]["undefined"] == {"all_match_ci95": reason}
        assert result.principles[pid]["all_match_ci95"] is None
        assert result.to_dict()["principles"][pid]["undefined"]["all_match_ci95"] == reason
    # without draws no interval is asked for: nothing to say of it
    plain = compare(first, {i: dict(v) for i, v in first.items()}, bootstrap=0)
    assert plain.sample_undefined == {}
    assert plain.principles["1"]["undefined"] == {}


def test_no_item_in_common():
    result = compare({"i1": dict.fromkeys(RULE_IDS, 1)}, {"i2": dict.fromkeys(RULE_IDS, 1)})
    none = "no item judged by both raters"
    assert result.items == [] and result.excluded == ["i1", "i2"]
    assert result.sample_level is None and result.sample_ci95 is None
    assert result.sample_undefined == {"agreement": none, "ci95": none}
    assert result.principles["2"]["all_match"] is None
    assert result.principles["2"]["undefined"] == {"all_match": none, "all_match_ci95": none}


def test_a_principle_every_item_abstained_on_has_no_all_match():
    first, second = _raters(5)
    for scores in first.values():
        scores["2.2"] = CANNOT_JUDGE
    result = compare(first, second, bootstrap=50)
    assert result.principles["2"]["all_match"] is None
    assert result.principles["1"]["all_match"] is not None
    assert result.sample_level is None
    assert result.abstentions["first"]["n_items"] == 5
    assert result.abstentions["second"]["n_items"] == 5
    assert result.abstentions["principles_left_out"] == {"1": 0, "2": 5}


def test_the_sample_decides_the_items_and_the_excluded():
    first, second = _raters(6)
    result = compare(first, second, sample=["i01", "i03", "i99"], bootstrap=0)
    assert result.items == ["i01", "i03"]
    assert result.excluded == ["i99"]
    second.pop("i04")
    every = compare(first, second, bootstrap=0)
    assert every.excluded == ["i04"] and len(every.items) == 5


def test_the_draws_limit_is_max_bootstrap_itself(monkeypatch):
    monkeypatch.setattr(stats, "MAX_BOOTSTRAP", 20)
    first, second = _raters(4)
    assert compare(first, second, bootstrap=20).bootstrap == 20
    with pytest.raises(TooManyDraws):
        compare(first, second, bootstrap=21)


@pytest.mark.parametrize("bad", [2, True, -1, "pass", None])
def test_a_score_that_is_not_0_1_or_an_abstention_is_refused(bad):
    first, second = _raters(3)
    second["i01"]["2.1"] = bad
    with pytest.raises(ValueError) as caught:
        compare(first, second)
    assert str(caught.value) == (f"item i01: rule 2.1 must be 0, 1 or 'cannot judge', got {bad!r}")


def test_items_behind_a_principle_cell_use_its_rules_only():
    ones = dict.fromkeys(RULE_IDS, 1)
    first = {"i1": dict(ones), "i2": {**ones, "2.1": 0}, "i3": {**ones, "1.2": 0}}
    second = {"i1": dict(ones), "i2": dict(ones), "i3": {**ones, "2.3": 0}}
    result = compare(first, second, bootstrap=0)
    # P1: i2 fails only a rule of P2, so it passes P1 for both raters
    assert result.items_in_cell("P1", 1, 1) == ["i1", "i2"]
    assert result.items_in_cell("P1", 0, 1) == ["i3"]
    assert result.items_in_cell("P2", 0, 1) == ["i2"]
    assert result.items_in_cell("P2", 1, 0) == ["i3"]
    assert result.items_in_cell("2.1", 0, 1) == ["i2"]
