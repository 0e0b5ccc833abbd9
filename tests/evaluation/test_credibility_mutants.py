"""Credibility's guards and presets that survived mutation (issue 26,
``python -m tests.mutation.run --modules evaluation.credibility``): each figure's
zero-denominator guard, the preset's choice of high-level, prerequisite or left-out for
each task spelling, the pair limit and image, and the texts the command prints. Values
worked out by hand from the counts given."""

from pathlib import Path

import pytest

from medrcube_desktop.core.degenerate import undefined_text
from medrcube_desktop.evaluation.credibility import (
    figure_text,
    figures_from_counts,
    pair_outcomes,
    pair_role,
    undefined_figures,
)
from tests.evaluation.test_metrics_credibility import outcomes  # noqa: F401 (fixture)


def _counts(a, b, c, d):
    return {"A": a, "B": b, "C": c, "D": d}


@pytest.mark.parametrize(
    "counts, luck, shortcut, acc_h",
    [
        # each guard's sum made 0 by a mutant ("a - d", "a + b + c - d", ...) is not 0 here
        (_counts(1, 0, 0, 1), 0.5, 1.0, 1.0),
        (_counts(0, 0, 1, 1), 1.0, 0.5, 0.5),
        (_counts(0, 1, 0, 1), 1.0, 1.0, 0.5),
        (_counts(2, 1, 1, 0), 0.0, 0.0, 0.5),
    ],
)
def test_each_figure_is_its_ratio_when_its_denominator_is_not_zero(counts, luck, shortcut, acc_h):
    figures = figures_from_counts(counts)
    assert figures["luck_rate"] == luck and figures["rationality"] == 1 - luck
    assert figures["shortcut_prob"] == shortcut and figures["acc_h"] == acc_h


def test_a_zero_denominator_makes_its_figures_undefined_and_says_why():
    # _figures_from_counts 6, 28, 42: the guards kept (a ZeroDivisionError otherwise)
    none = figures_from_counts(_counts(0, 0, 0, 0))
    assert [none[k] for k in ("luck_rate", "rationality", "shortcut_prob", "acc_h")] == [None] * 4
    assert undefined_figures(none) == {
        "luck_rate": "no pair with H right (A+D = 0)",
        "rationality": "no pair with H right (A+D = 0)",
        "shortcut_prob": "no pair with L wrong (C+D = 0)",
        "acc_h": "no pairs",
    }
    only_b = figures_from_counts(_counts(0, 3, 0, 0))
    assert only_b["acc_h"] == 0.0 and only_b["rationality"] is None
    assert undefined_figures(only_b) == {
        "luck_rate": "no pair with H right (A+D = 0)",
        "rationality": "no pair with H right (A+D = 0)",
        "shortcut_prob": "no pair with L wrong (C+D = 0)",
    }
    assert undefined_figures(figures_from_counts(_counts(1, 1, 1, 1))) == {}


def test_a_figure_is_written_with_three_digits_a_count_whole_and_undefined_with_its_reason():
    figures = figures_from_counts(_counts(5, 1, 2, 2))  # luck 2/7, shortcut 2/4
    assert figure_text(figures, "luck_rate") == "0.286"
    assert figure_text(figures, "shortcut_prob", digits=1) == "0.5"
    assert figure_text(figures, "group_a") == "5"
    assert figure_text(figures_from_counts(_counts(0, 1, 0, 0)), "luck_rate") == undefined_text(
        "no pair with H right (A+D = 0)"
    )


def test_each_preset_picks_high_prerequisite_or_none_by_the_task_spelling(outcomes):  # noqa: F811
    by_id = {o.item.id: o.item for o in outcomes}
    roles = {
        preset: {i: pair_role(by_id[i], preset, set()) for i in by_id}
        for preset in ("paper", "official")
    }
    # paper: by the task's level; View Identification (VR, low level) is a prerequisite
    assert roles["paper"] == {
        "m1": "low", "v1": "low", "d1": "high", "a1": "high", "o2": "low", "s2": "high",
        "x2": "high",
    }  # fmt: skip
    # official: the official script's spellings; View Identification left out, the
    # paper's "Abnormality Diagnosis" read as a prerequisite, with a warning
    assert roles["official"] == {
        "m1": "low", "v1": None, "d1": "high", "a1": "high", "o2": "low", "s2": "high",
        "x2": "low",
    }  # fmt: skip
    warnings: set[str] = set()
    pair_role(by_id["x2"], "official", warnings)
    assert warnings == {
        "task 'Abnormality Diagnosis' (AD, high level in the paper) is not spelled as the "
        "official script expects (Disease Diagnosis, Abnormity Diagnosis, Severity Grading): "
        "the official preset counts it as a prerequisite"
    }
    pair_role(by_id["d1"], "official", warnings := set())
    assert warnings == set()


def test_the_pairs_are_limited_and_name_their_image(outcomes):  # noqa: F811
    # _pair_outcomes 8, 21, 35
    every, _ = pair_outcomes(outcomes, "paper")
    first, _ = pair_outcomes(outcomes, "paper", limit=2)
    assert len(every) == 6 and first == every[:2]
    ct = str(Path(outcomes[0].item.image_path).resolve())
    assert first[0].image == ct
    grouped, _ = pair_outcomes(outcomes, "paper", group="A")
    assert len(grouped) == 3 and grouped[0].image == ct


def test_an_unknown_preset_is_refused_naming_the_presets(outcomes):  # noqa: F811
    from medrcube_desktop.errors import MedRCubeError

    with pytest.raises(MedRCubeError) as refused:
        pair_outcomes(outcomes, "both")
    assert str(refused.value) == "preset must be one of paper, official, got 'both'"


def test_a_figure_without_a_known_denominator_is_undefined_with_no_value():
    assert figure_text({"other": None}, "other") == undefined_text("no value")
