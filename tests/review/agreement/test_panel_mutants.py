"""The panel's guards and reasons, each by the input it exists for (issue 26, the
survivors of ``python -m tests.mutation.run --modules agreement.panel``): the matrix of
a rater (abstentions, bad values, an adjudicated verdict), the edges of the bootstrap
(one draw, one item, no item, the draws limit), the p_e = 1 tolerance of a point
estimate over many items, and the words of every undefined interval."""

import warnings

import numpy as np
import pytest

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.agreement import panel
from medrcube_desktop.review.agreement.coefficients import cohen_kappa
from medrcube_desktop.review.agreement.panel import (
    _ci,
    _interval_why,
    group_columns,
    rater_matrix,
)
from medrcube_desktop.review.agreement.stats import TooManyDraws

PASS = dict.fromkeys(RULE_IDS, 1)


def _one_pair(a, b, universe, bootstrap=50, seed=3):
    raters = {"a": rater_matrix(a, universe), "b": rater_matrix(b, universe)}
    (column,) = group_columns(raters, [("a vs b", "pair", [("a", "b")])], bootstrap, seed)
    return column


def test_an_abstention_leaves_out_its_rule_and_the_next_items_are_read():
    """ "Cannot judge" on 1.2 leaves out 1.2, principle 1, the verdict and the all-seven
    match of that item (``valid``), never the item's other rules (issue 24)."""
    scores = {
        "i0": {**PASS, "1.2": CANNOT_JUDGE},
        "i1": {**PASS, "2.1": 0},
        "i2": dict(PASS),
    }
    m = rater_matrix(scores, ["i0", "i1", "i2", "i3"])
    assert m.judged.tolist() == [True, True, True, False]
    assert m.values.dtype.kind == "i"
    # i1: rules, P1 (passes), P2 (2.1 fails), verdict (fails)
    assert m.values[1].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 0, 0]
    assert m.values[2].tolist() == [1] * 10
    # i0: the abstained 1.2 is held as 0 but left out, with what it belongs to
    assert m.values[0].tolist() == [1, 0, 1, 1, 1, 1, 1, 0, 1, 0]
    assert m.valid[0].tolist() == [True, False, True, True, True, True, True,
                                   False, True, False, False]  # fmt: skip
    assert m.valid[1].all() and m.valid[2].all() and not m.valid[3].any()
    assert m.abstained[0].tolist() == [False, True] + [False] * 5
    assert m.abstained.dtype == bool and m.abstained[1:].sum() == 0


def test_a_matrix_given_no_abstentions_has_none():
    values = np.ones((3, len(panel.JUDGMENTS)), dtype=int)
    m = panel.RaterMatrix(values, np.array([True, False, True]))
    assert m.abstained.dtype == bool and m.abstained.shape == (3, len(RULE_IDS))
    assert not m.abstained.any()
    assert m.valid.tolist() == [[True] * 11, [False] * 11, [True] * 11]


def test_one_raters_abstention_leaves_the_item_out_of_both_raters_margins():
    """Kappa and AC1 of 1.2 over the items neither rater abstained on (pairwise, as
    :func:`.stats.compare`): each rater's marginal p_a, p_b and its count are those of
    rule 1.2's own items, not of another column's (here 1.1, judged on all 7)."""
    from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

    a12 = [1, 1, 0, 1, 0, 1, CANNOT_JUDGE]
    b12 = [CANNOT_JUDGE, 1, 0, 0, 0, 1, 1]
    universe = [f"i{k}" for k in range(7)]
    a = {item: {**PASS, "1.2": v} for item, v in zip(universe, a12, strict=True)}
    b = {item: {**PASS, "1.2": v} for item, v in zip(universe, b12, strict=True)}
    row = _one_pair(a, b, universe, bootstrap=0).rows["1.2"]
    # over i1..i5: a = 1 0 1 0 1, b = 1 0 0 0 1: p_o 4/5, p_a 3/5, p_b 2/5, p_e 0.48
    assert row.n_items == [5]
    assert row.agreement == pytest.approx(0.8)
    table = [[2, 1], [0, 2]]  # rows a = 1, 0; columns b = 1, 0
    assert row.cohen_kappa == pytest.approx(sm_kappa(table).kappa) == pytest.approx(0.32 / 0.52)
    assert row.gwet_ac1 == pytest.approx((0.8 - 0.5) / 0.5)  # pi = 1/2, p_e = 2 pi (1 - pi)


@pytest.mark.parametrize("bad", [2, True, -1, "1", None])
def test_a_score_that_is_not_0_or_1_is_refused(bad):
    scores = {"i0": dict(PASS), "i1": {**PASS, "1.3": bad}}
    with pytest.raises(ValueError) as caught:
        rater_matrix(scores, ["i0", "i1"])
    values = [1, 1, bad, 1, 1, 1, 1]
    assert str(caught.value) == f"item i1: every rule must be 0 or 1, got {values!r}"


def test_an_adjudicated_verdict_replaces_the_derived_one():
    scores = {"i0": dict(PASS), "i1": {**PASS, "1.1": 0}, "i2": dict(PASS)}
    m = rater_matrix(scores, ["i0", "i1", "i2"], verdicts={"i0": 0, "i1": 1})
    assert m.values[:, 9].tolist() == [0, 1, 1]  # i2 not adjudicated: derived
    assert m.values[:, 7].tolist() == [1, 0, 1]  # P1 stays derived


def test_no_rater_no_column():
    assert group_columns({}, [], 100, 0) == []


def test_the_draws_limit_is_max_bootstrap_itself(monkeypatch):
    monkeypatch.setattr(panel, "MAX_BOOTSTRAP", 10)
    universe = ["i0", "i1"]
    a, b = {"i0": dict(PASS), "i1": {**PASS, "1.1": 0}}, {"i0": dict(PASS), "i1": dict(PASS)}
    column = _one_pair(a, b, universe, bootstrap=10)
    assert column.rows["1.1"].agreement == 0.5
    with pytest.raises(TooManyDraws) as caught:
        _one_pair(a, b, universe, bootstrap=11)
    assert str(caught.value) == "--bootstrap 11: at most 10 draws"


def test_a_universe_without_items():
    column = _one_pair({}, {}, [], bootstrap=50)
    sample = column.rows["sample"]
    assert sample.agreement is None and sample.ci95 is None
    assert sample.undefined == {"agreement": "no item judged by both raters of any pair"}
    assert column.rows["1.1"].n_items == [0]


def test_one_draw_gives_no_interval_and_says_its_value():
    universe = ["i0", "i1", "i2", "i3"]
    a = {i: dict(PASS) for i in universe}
    b = {**{i: dict(PASS) for i in universe}, "i1": {**PASS, "1.1": 0}}
    column = _one_pair(a, b, universe, bootstrap=1, seed=0)
    draw = np.random.default_rng(0).integers(0, 4, size=(1, 4))[0]
    share = float(np.mean([1.0 if i != 1 else 0.0 for i in draw]))
    rule = column.rows["1.1"]
    assert rule.ci95 is None
    assert rule.undefined["ci95"] == f"every resample gives {share:.3g}"
    sample = column.rows["sample"]
    assert sample.ci95 is None
    assert sample.undefined == {"ci95": f"every resample gives {share:.3g}"}


def test_one_item_every_interval_says_why():
    universe = ["i0"]
    a = {"i0": {**PASS, "2.2": 0}}
    b = {"i0": dict(PASS)}
    column = _one_pair(a, b, universe, bootstrap=20)
    agree = column.rows["1.1"]  # both pass: agreement 1, kappa undefined, AC1 1
    assert (agree.agreement, agree.cohen_kappa, agree.gwet_ac1) == (1.0, None, 1.0)
    assert agree.ci95 is None and agree.kappa_ci95 is None and agree.ac1_ci95 is None
    assert agree.undefined == {
        "cohen_kappa": "p_e = 1 for every pair (both raters gave one and the same value "
        "throughout)",
        "ci95": "every resample gives 1",
        "kappa_ci95": "undefined in every resample",
        "ac1_ci95": "every resample gives 1",
    }
    differ = column.rows["2.2"]  # a fails, b passes: agreement 0, kappa 0, AC1 -1
    assert differ.agreement == 0.0 and differ.cohen_kappa == pytest.approx(0.0)
    assert differ.undefined == {
        "ci95": "every resample gives 0",
        "kappa_ci95": "every resample gives 0",
        "ac1_ci95": "every resample gives -1",
    }
    sample = column.rows["sample"]
    assert sample.agreement == 0.0
    assert sample.undefined == {"ci95": "every resample gives 0"}


def test_defined_figures_say_nothing():
    universe = [f"i{k}" for k in range(12)]
    rng = np.random.default_rng(4)
    a = {i: {r: int(rng.random() < 0.6) for r in RULE_IDS} for i in universe}
    b = {i: {r: int(rng.random() < 0.6) for r in RULE_IDS} for i in universe}
    column = _one_pair(a, b, universe, bootstrap=200)
    assert column.rows["1.1"].undefined == {}
    assert column.rows["sample"].agreement is not None
    assert "agreement" not in column.rows["sample"].undefined


def test_a_point_kappa_uses_the_exact_tolerance_over_many_items():
    # 300,000 items, one failed by both raters: 1 - p_e = 2 (n-1)/n² ≈ 6.7e-6, within
    # numpy's default isclose tolerance of 1 but not math.isclose's: kappa is 1, as
    # stats.cohen_kappa says, not undefined
    n = 300_000
    universe = np.arange(n)
    values = np.ones((n, len(panel.JUDGMENTS)), dtype=int)
    values[0, 0] = values[0, 7] = values[0, 9] = 0
    judged = np.ones(n, dtype=bool)
    raters = {"a": panel.RaterMatrix(values, judged), "b": panel.RaterMatrix(values.copy(), judged)}
    (column,) = group_columns(raters, [("a vs b", "pair", [("a", "b")])], 0, 0)
    assert len(universe) == n
    assert cohen_kappa([[1, 0], [0, n - 1]]) == 1.0
    assert column.rows["1.1"].cohen_kappa == pytest.approx(1.0)
    assert "cohen_kappa" not in column.rows["1.1"].undefined


def test_raters_without_a_shared_item_print_no_warning():
    universe = ["i0", "i1", "i2"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        column = _one_pair({"i0": dict(PASS)}, {"i1": dict(PASS), "i2": dict(PASS)}, universe)
    assert column.rows["1.1"].agreement is None


def test_interval_why_and_ci_at_the_alike_edge():
    assert _interval_why(np.array([np.nan, np.nan])) == "undefined in every resample"
    assert _interval_why(np.array([0.0, 1e-12])) == "every resample gives 0"
    assert _ci(np.array([0.0, 1e-12])) is None
    assert _interval_why(np.array([0.0, 2e-12])) is None
    assert _interval_why(np.array([np.nan, 0.25])) == "every resample gives 0.25"
    assert _ci(np.array([np.nan, 0.0, 1.0])) == (0.025, 0.975)


def _many_items_one_failed_by_both(n=300_000):
    values = np.ones((n, len(panel.JUDGMENTS)), dtype=int)
    values[0, 0] = values[0, 7] = values[0, 9] = 0  # rule 1.1, P1, the verdict
    judged = np.ones(n, dtype=bool)
    return panel.RaterMatrix(values, judged), panel.RaterMatrix(values.copy(), judged)


def test_the_draws_take_p_e_within_numpys_tolerance_of_one_as_undefined():
    # 1 - p_e ≈ 6.7e-6: the point estimate (exact) has kappa 1, a draw (numpy's default
    # isclose, as stats' draws) has none
    a, b = _many_items_one_failed_by_both()
    weights = np.ones((1, len(a.judged)))
    exact = panel._pair_statistics(a, b, weights, True)
    drawn = panel._pair_statistics(a, b, weights, False)
    assert exact["kappa"][0, 0] == pytest.approx(1.0)
    assert np.isnan(drawn["kappa"][0, 0])
    assert drawn["ac1"][0, 0] == pytest.approx(1.0)
    # through group_columns: one draw (seed 1) that draws the failed item once
    (column,) = group_columns({"a": a, "b": b}, [("a vs b", "pair", [("a", "b")])], 1, 1)
    draw = np.random.default_rng(1).integers(0, len(a.judged), size=(1, len(a.judged)))
    assert int((draw == 0).sum()) == 1
    assert column.rows["1.1"].cohen_kappa == pytest.approx(1.0)
    assert column.rows["1.1"].kappa_ci95 is None
    assert column.rows["1.1"].undefined["kappa_ci95"] == "undefined in every resample"


def test_the_json_of_a_row_and_a_column():
    figures = panel.GroupFigures(
        0.1234567891,
        (-1e-9, 0.98765432),
        cohen_kappa=-0.25,
        kappa_ci95=(-0.5, 0.125),
        gwet_ac1=0.3333333333,
        ac1_ci95=(0.1, 0.9),
        n_items=[4, 5],
    )
    assert figures.to_dict() == {
        "agreement": 0.123457,
        "ci95": [0.0, 0.987654],
        "cohen_kappa": -0.25,
        "cohen_kappa_ci95": [-0.5, 0.125],
        "gwet_ac1": 0.333333,
        "gwet_ac1_ci95": [0.1, 0.9],
        "n_items": [4, 5],
    }
    assert str(figures.to_dict()["ci95"][0]) == "0.0"  # no "-0.0"
    empty = panel.GroupFigures(None, None, undefined={"agreement": "why"})
    assert empty.to_dict() == {
        "agreement": None,
        "ci95": None,
        "cohen_kappa": None,
        "cohen_kappa_ci95": None,
        "gwet_ac1": None,
        "gwet_ac1_ci95": None,
        "n_items": [],
        "undefined": {"agreement": "why"},
    }
    assert empty.to_dict()["undefined"] is not empty.undefined  # a copy
    column = panel.Column("a vs b", "pair", [("a", "b")], {"sample": empty, "1.1": figures})
    assert column.to_dict() == {
        "name": "a vs b",
        "kind": "pair",
        "pairs": [["a", "b"]],
        "rows": {"sample": empty.to_dict(), "1.1": figures.to_dict()},
    }
