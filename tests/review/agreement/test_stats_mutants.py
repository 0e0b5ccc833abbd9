"""The agreement figures' JSON form and the multi-rater guards that survived mutation
(issue 26, ``python -m tests.mutation.run --modules agreement.stats``): every key of
``agreement --json``, its rounding to 6 digits without "-0.0", each "undefined" reason
under its JSON name, and the multi-rater table's degenerate cases. The expected objects
are written out by hand from the figures given."""

import math

import numpy as np

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement import intervals, stats
from medrcube_desktop.review.agreement.stats import AgreementResult, PairFigures, compare


def _positive_zero(value):
    return value == 0.0 and math.copysign(1.0, value) == 1.0


def _figures(**undefined):
    return PairFigures(
        agreement=0.123456789,
        ci95=(0.12345678, 0.87654321),
        cohen_kappa=-1e-9,  # rounds to -0.0: printed as 0.0
        gwet_ac1=0.5,
        pabak=0.25,
        confusion=[[1, 2], [3, 4]],
        mcnemar_p=0.0001234567,
        kappa_ci95=(-1e-9, 0.87654321),
        ac1_ci95=(-0.5, -1e-9),
        wilson_ci95=(0.01, 0.99),
        undefined=undefined,
    )


EXPECTED_FIGURES = {
    "agreement": 0.123457,
    "ci95": [0.123457, 0.876543],
    "cohen_kappa": 0.0,
    "gwet_ac1": 0.5,
    "pabak": 0.25,
    "confusion": [[1, 2], [3, 4]],
    "mcnemar_p": 0.000123,
    "cohen_kappa_ci95": [0.0, 0.876543],
    "gwet_ac1_ci95": [-0.5, 0.0],
    "agreement_wilson_ci95": [0.01, 0.99],
}


def test_a_rules_figures_in_json_are_named_and_rounded_to_six_digits():
    # PairFigures.to_dict 25-53, _interval 2-19, _round 5
    out = _figures().to_dict()
    assert out == EXPECTED_FIGURES
    assert list(out) == list(EXPECTED_FIGURES)  # no "undefined" without a reason (55)
    assert _positive_zero(out["cohen_kappa"])
    assert _positive_zero(out["cohen_kappa_ci95"][0]) and _positive_zero(out["gwet_ac1_ci95"][1])


def test_each_undefined_reason_is_given_under_its_json_name():
    # PairFigures.to_dict 4, 5, 14-17 (the names mapped), 22-24 (the others kept)
    out = _figures(
        ci95="c", kappa_ci95="k", ac1_ci95="g", wilson_ci95="w", pabak="p", mcnemar_p="m"
    ).to_dict()
    assert out["undefined"] == {
        "ci95": "c",
        "cohen_kappa_ci95": "k",
        "gwet_ac1_ci95": "g",
        "agreement_wilson_ci95": "w",
        "pabak": "p",
        "mcnemar_p": "m",
    }


def _result(principle_undefined, verdict_undefined, sample_undefined):
    return AgreementResult(
        items=["a", "b", "c"],
        excluded=["z"],
        sample_level=0.66666667,
        sample_ci95=(0.33333333, 1.0),
        rules={"1.1": _figures()},
        principles={
            "1": {
                "all_match": 0.5,
                "all_match_ci95": (0.25, 0.7500004),
                "verdict": _figures(**verdict_undefined),
                **({"undefined": principle_undefined} if principle_undefined else {}),
            }
        },
        bootstrap=123,
        seed=7,
        sample_undefined=sample_undefined,
    )


def test_the_agreement_json_object_has_every_figure_under_its_name():
    # AgreementResult.to_dict 6-8, 11-30, 37, 51, 53, 60-65
    out = _result({}, {}, {}).to_dict()
    verdict = {k: v for k, v in EXPECTED_FIGURES.items() if k != "agreement"}
    assert out == {
        "n_samples": 3,
        "n_excluded": 1,
        "sample_level": {"agreement": 0.666667, "ci95": [0.333333, 1.0]},
        "rules": {"1.1": EXPECTED_FIGURES},
        "principles": {
            "1": {
                "all_match": 0.5,
                "all_match_ci95": [0.25, 0.75],
                "verdict_agreement": 0.123457,
                **verdict,
            }
        },
        "bootstrap": {"draws": 123, "seed": 7},
    }


def test_a_principles_undefined_reasons_join_its_verdicts():
    out = _result({"all_match_ci95": "why a"}, {"kappa_ci95": "why k"}, {"ci95": "why s"}).to_dict()
    assert out["principles"]["1"]["undefined"] == {
        "all_match_ci95": "why a",
        "cohen_kappa_ci95": "why k",
    }
    assert out["sample_level"]["undefined"] == {"ci95": "why s"}
    only_verdict = _result({}, {"pabak": "why p"}, {}).to_dict()["principles"]["1"]
    assert only_verdict["undefined"] == {"pabak": "why p"}


def test_no_item_agreeing_is_said_so():
    # _agrees 13-16: "every item gives 0" read as "no item agrees"
    first = {i: dict.fromkeys(RULE_IDS, 1) for i in "abcd"}
    second = {i: {**dict.fromkeys(RULE_IDS, 1), "1.1": 0} for i in "abcd"}
    result = compare(first, second, bootstrap=50)
    assert result.rules["1.1"].agreement == 0.0
    assert result.rules["1.1"].undefined["ci95"] == "no item agrees (no variation to resample)"


def test_a_resample_value_is_printed_after_rounding_to_12_digits():
    # _alike_text 3, 5, 7
    assert stats.alike_text(0.123456789) == "every resample gives 0.123"
    assert stats.alike_text(1.2e-13) == "every resample gives 0"
    assert stats.alike_text(-1e-17) == "every resample gives 0"


def test_an_interval_of_one_finite_draw_is_that_draw():
    # _nan_percentile_ci 4
    assert intervals.nan_percentile_ci(np.array([np.nan, 0.5, np.nan])) == (0.5, 0.5)
    assert intervals.nan_percentile_ci(np.array([np.nan, np.nan])) is None


def _raters(values):
    """rater → item → rule → value, every rule given ``values[rater][item]``."""
    return {
        name: {item: dict.fromkeys(RULE_IDS, v) for item, v in per_item.items()}
        for name, per_item in values.items()
    }


def test_multi_rater_says_why_a_figure_is_undefined():
    # _multi_rater 23, 25, 26: no item judged by every rater
    disjoint = _raters({"a": {"i1": 1}, "b": {"i2": 1}, "c": {"i3": 0}})
    out = stats.multi_rater(disjoint)
    assert out["raters"] == ["a", "b", "c"] and out["n_samples"] == 0  # 85, 86
    assert out["rules"]["1.1"] == {
        "fleiss_kappa": None,
        "krippendorff_alpha": None,
        "undefined": "no item judged by every rater",
    }
    # 37, 39, 40: every rater passing every item
    passing = _raters({r: {"i1": 1, "i2": 1} for r in "abc"})
    assert stats.multi_rater(passing)["rules"]["2.3"]["undefined"] == (
        "every rater gave 'pass' to every item"
    )


def test_multi_rater_over_a_sample_counts_only_the_sample():
    # _multi_rater 5, 7. Three raters over i1..i4, the sample i1..i3:
    # values per item (a, b, c): i1 (1,1,1), i2 (0,0,1), i3 (0,0,0); i4 (1,0,1) left out.
    raters = _raters(
        {
            "a": {"i1": 1, "i2": 0, "i3": 0, "i4": 1},
            "b": {"i1": 1, "i2": 0, "i3": 0, "i4": 0},
            "c": {"i1": 1, "i2": 1, "i3": 0, "i4": 1},
        }
    )
    out = stats.multi_rater(raters, sample=["i1", "i2", "i3"])
    assert out["n_samples"] == 3
    # Fleiss by hand: P_i = 1, 1/3, 1 -> mean 7/9; p(1) = 4/9, p(0) = 5/9,
    # P_e = 41/81; kappa = (7/9 - 41/81) / (1 - 41/81) = 22/40 = 0.55
    assert out["rules"]["1.1"]["fleiss_kappa"] == 0.55
