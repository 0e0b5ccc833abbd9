"""The panel's figures where they are undefined, and why (issue 26 item 3,
``python -m tests.mutation.run --modules agreement.panel``): raters who share no item,
raters who give one value throughout, one shared item, and no bootstrap. Expected
figures worked out by hand from the scores below."""

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.panel import (
    GroupFigures,
    _say_undefined,
    group_columns,
    rater_matrix,
)
from medrcube_desktop.review.agreement.stats import TooManyDraws

PASS = dict.fromkeys(RULE_IDS, 1)
UNIVERSE = ["i1", "i2", "i3", "i4"]


def _column(scores_a, scores_b, bootstrap=50):
    raters = {"a": rater_matrix(scores_a, UNIVERSE), "b": rater_matrix(scores_b, UNIVERSE)}
    (column,) = group_columns(raters, [("a vs b", "pair", [("a", "b")])], bootstrap, 3)
    return column


def test_raters_who_share_no_item_have_no_figure_and_say_why():
    column = _column({"i1": PASS, "i2": PASS}, {"i3": PASS, "i4": PASS})
    rule = column.rows["1.1"]
    assert rule.n_items == [0]
    assert (rule.agreement, rule.ci95, rule.cohen_kappa, rule.gwet_ac1) == (None, None, None, None)
    assert rule.undefined["agreement"] == "no item judged by both raters of any pair"
    assert rule.undefined["gwet_ac1"] == "no item judged by both raters of any pair"
    assert column.rows["sample"].agreement is None


def test_raters_who_pass_everything_agree_fully_and_kappa_is_undefined():
    both = {i: dict(PASS) for i in UNIVERSE}
    rule = _column(both, {i: dict(PASS) for i in UNIVERSE}).rows["2.3"]
    assert rule.n_items == [4] and rule.agreement == 1.0
    assert rule.cohen_kappa is None and rule.gwet_ac1 == 1.0  # AC1: p_e = 0 here
    assert rule.undefined["cohen_kappa"] == (
        "p_e = 1 for every pair (both raters gave one and the same value throughout)"
    )


def test_without_a_bootstrap_the_figures_stand_without_intervals():
    a = {i: dict(PASS) for i in UNIVERSE}
    b = {**{i: dict(PASS) for i in UNIVERSE}, "i4": {**PASS, "1.1": 0}}
    rule = _column(a, b, bootstrap=0).rows["1.1"]
    assert rule.agreement == 0.75 and rule.ci95 is None and rule.kappa_ci95 is None
    with_draws = _column(a, b, bootstrap=200).rows["1.1"]
    assert with_draws.agreement == 0.75 and with_draws.ci95 is not None
    low, high = with_draws.ci95
    assert 0.0 <= low <= 0.75 <= high <= 1.0


def test_more_draws_than_allowed_are_refused():
    from medrcube_desktop.review.agreement_options import MAX_BOOTSTRAP

    with pytest.raises(TooManyDraws, match="at most"):
        _column({"i1": PASS}, {"i1": PASS}, bootstrap=MAX_BOOTSTRAP + 1)


def test_only_the_missing_figures_get_a_reason_and_a_given_one_is_kept():
    figures = GroupFigures(
        None, None, cohen_kappa=0.5, gwet_ac1=None, undefined={"gwet_ac1": "mine"}
    )
    _say_undefined(figures)
    assert figures.undefined == {
        "agreement": "no item judged by both raters of any pair",
        "gwet_ac1": "mine",
    }
    whole = GroupFigures(1.0, None, cohen_kappa=0.2, gwet_ac1=0.3)
    _say_undefined(whole)
    assert whole.undefined == {}
