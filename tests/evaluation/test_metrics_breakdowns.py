"""Every breakdown of a run's accuracy keyed by its own field and sorted by value (issue 26,
``python -m tests.mutation.run --modules evaluation.metrics``), against counts made by hand.

The seven hand-made items of ``test_metrics_credibility`` given regions and datasets of
their own, so that a breakdown keyed by the wrong field, or an item counted in the wrong
group, gives different counts."""

import dataclasses

import pytest

from medrcube_desktop.evaluation.metrics import GROUPINGS, Cell, Outcome, grouped, summarize
from tests.evaluation.test_metrics_credibility import outcomes  # noqa: F401 (fixture)

# id → (region, dataset); the model is right on m1, d1, o2, s2, x2 and wrong on v1, a1
PLACES = {
    "m1": ("Head", "ds2"),
    "v1": ("Chest", "ds1"),
    "d1": ("Chest", "ds2"),
    "a1": ("Abdomen", "ds1"),
    "o2": ("Head", "ds1"),
    "s2": ("Abdomen", "ds1"),
    "x2": ("Chest", "ds1"),
}


@pytest.fixture
def placed(outcomes):  # noqa: F811
    return [
        Outcome(
            dataclasses.replace(o.item, region=PLACES[o.item.id][0], dataset=PLACES[o.item.id][1]),
            o.letter,
        )
        for o in outcomes
    ]


def test_each_breakdown_counts_its_own_field_by_hand(placed):
    summary = summarize(placed)
    # Abdomen: a1 (wrong), s2 (right); Chest: v1 (wrong), d1, x2 (right); Head: m1, o2 (right)
    assert summary["by_region"] == {
        "Abdomen": {"n": 2, "correct": 1, "accuracy": 0.5},
        "Chest": {"n": 3, "correct": 2, "accuracy": pytest.approx(2 / 3)},
        "Head": {"n": 2, "correct": 2, "accuracy": 1.0},
    }
    # ds1: v1, a1 (wrong), o2, s2, x2 (right); ds2: m1, d1 (right)
    assert summary["by_dataset"] == {
        "ds1": {"n": 5, "correct": 3, "accuracy": 0.6},
        "ds2": {"n": 2, "correct": 2, "accuracy": 1.0},
    }
    # CT: m1, d1 right, v1, a1 wrong; MR: o2, s2, x2 right
    assert summary["by_modality"] == {
        "CT": {"n": 4, "correct": 2, "accuracy": 0.5},
        "MR": {"n": 3, "correct": 3, "accuracy": 1.0},
    }
    # AD: a1 (wrong) then x2 (right, "Abnormality Diagnosis"): one of two, whichever first
    assert summary["by_task"] == {
        "AD": {"n": 2, "correct": 1, "accuracy": 0.5},
        "DD": {"n": 1, "correct": 1, "accuracy": 1.0},
        "MR": {"n": 1, "correct": 1, "accuracy": 1.0},
        "OR": {"n": 1, "correct": 1, "accuracy": 1.0},
        "SG": {"n": 1, "correct": 1, "accuracy": 1.0},
        "VR": {"n": 1, "correct": 0, "accuracy": 0.0},
    }
    assert summary["by_voxel"]["AD|CT|Abdomen"] == {"n": 1, "correct": 0, "accuracy": 0.0}
    assert summary["by_voxel"]["AD|MR|Chest"] == {"n": 1, "correct": 1, "accuracy": 1.0}
    assert len(summary["by_voxel"]) == 7  # no two items share a voxel here
    assert set(summary) == {
        "n", "correct", "accuracy", "unparsed", "unparsed_rate", "random_baseline",
        "by_task", "by_modality", "by_region", "by_dataset", "by_voxel",
    }  # fmt: skip


def test_groups_are_listed_in_sorted_order_of_their_value(placed):
    # the items come Head, Chest, Chest, Abdomen, ...: the groups are not in first-seen order
    summary = summarize(placed)
    assert list(summary["by_region"]) == ["Abdomen", "Chest", "Head"]
    assert list(summary["by_dataset"]) == ["ds1", "ds2"]
    assert list(summary["by_task"]) == ["AD", "DD", "MR", "OR", "SG", "VR"]
    assert list(grouped(placed, GROUPINGS["region"])) == ["Abdomen", "Chest", "Head"]


def test_a_group_counts_every_right_answer_not_only_the_last(placed):
    # Chest: v1 wrong first, then d1 and x2 right: 2, not 1 (the last) nor 3 (the count)
    chest = grouped(placed, GROUPINGS["region"])["Chest"]
    assert chest == Cell(3, 2)
    assert Cell(0, 0).accuracy is None and Cell(0, 0).to_dict()["accuracy"] is None
