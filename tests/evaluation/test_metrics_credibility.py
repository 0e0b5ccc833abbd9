"""Accuracy over the cube and the credibility groups, against a fixture computed by hand."""

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation import credibility as credibility_module
from medrcube_desktop.evaluation.credibility import (
    credibility,
    figures_from_counts,
    image_group_counts,
    pair_outcomes,
)
from medrcube_desktop.evaluation.metrics import Outcome, random_baseline, summarize
from tests.conftest import dicom_file, item, write_benchmark

# (id, image, task as written, modality, model right?)
FIXTURE = [
    ("m1", "ct", "Modality Recognition", "CT", True),
    ("v1", "ct", "View Identification", "CT", False),
    ("d1", "ct", "Disease Diagnosis", "CT", True),
    ("a1", "ct", "Abnormity Diagnosis", "CT", False),
    ("o2", "mr", "Organ Recognition", "MR", True),
    ("s2", "mr", "Severity Grading", "MR", True),
    ("x2", "mr", "Abnormality Diagnosis", "MR", True),  # the paper's spelling
]


@pytest.fixture
def outcomes(tmp_path):
    records = [
        item(i, image=f"images/{img}.dcm", task=task, modality=mod, gt_answer="CT")
        for i, img, task, mod, _ in FIXTURE
    ]
    records[-1]["option_D"] = None  # one item with three options
    records[-1]["option_C"] = "Ultrasound"
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": records},
        {
            "ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
            "ds1/images/mr.dcm": dicom_file("MR_small.dcm"),
        },
    )
    items = {i.id: i for i in load_benchmark(root).items}
    right = {i: ok for i, _, _, _, ok in FIXTURE}
    # the ground truth "CT" is option B; a wrong answer picks A
    return [Outcome(items[i], "B" if right[i] else "A") for i, *_ in FIXTURE]


def test_paper_preset_groups_by_hand(outcomes):
    pairs, warnings = pair_outcomes(outcomes, "paper")
    # ct: high d1 (right), a1 (wrong) × low m1 (right), v1 (wrong): A, D, B, C
    # mr: high s2 (right), x2 (right) × low o2 (right): A, A
    assert sorted(p.group for p in pairs) == ["A", "A", "A", "B", "C", "D"]
    figures = credibility(pairs)
    assert figures == {
        "group_a": 3,
        "group_b": 1,
        "group_c": 1,
        "group_d": 1,
        "total_pairs": 6,
        "luck_rate": pytest.approx(1 / 4),
        "rationality": pytest.approx(3 / 4),
        "shortcut_prob": pytest.approx(1 / 2),
        "acc_h": pytest.approx(4 / 6),
    }
    assert warnings == []


def test_official_preset_groups_by_hand_and_warns_about_spelling(outcomes):
    pairs, warnings = pair_outcomes(outcomes, "official")
    # ct: View Identification ignored; high d1, a1 × low m1: A, B
    # mr: high s2 × low o2 and x2 ("Abnormality Diagnosis" is a prerequisite here): A, A
    assert sorted(p.group for p in pairs) == ["A", "A", "A", "B"]
    figures = credibility(pairs)
    assert (figures["group_a"], figures["group_b"], figures["total_pairs"]) == (3, 1, 4)
    assert figures["luck_rate"] == 0.0 and figures["shortcut_prob"] is None  # C + D = 0
    assert figures["acc_h"] == pytest.approx(3 / 4)
    assert len(warnings) == 1 and "'Abnormality Diagnosis'" in warnings[0]


@pytest.mark.parametrize("preset", ["paper", "official"])
def test_counting_by_image_gives_the_hand_counted_groups_without_listing_pairs(outcomes, preset):
    counts, warnings = image_group_counts(outcomes, preset)
    # the hand counts of the two tests above
    assert counts == ({"A": 3, "B": 1, "C": 1, "D": 1} if preset == "paper" else
                      {"A": 3, "B": 1, "C": 0, "D": 0})  # fmt: skip
    assert figures_from_counts(counts) == credibility(pair_outcomes(outcomes, preset)[0])
    assert warnings == pair_outcomes(outcomes, preset)[1]


def test_thousands_of_items_on_one_picture_count_without_a_pair_list(outcomes, monkeypatch):
    # 2,000 prerequisites (every fifth wrong) and 2,000 high-level items (every fourth
    # wrong) on one image: 4 M pairs, A = 1600 * 1500, B = 1600 * 500, C = 400 * 500,
    # D = 400 * 1500; counted from four tallies (Pair is never built)
    low, high = outcomes[0], outcomes[2]  # m1 (Modality Recognition), d1 (Disease Diagnosis)
    many = [Outcome(low.item, "A" if k % 5 == 0 else "B") for k in range(2000)]
    many += [Outcome(high.item, "A" if k % 4 == 0 else "B") for k in range(2000)]
    monkeypatch.setattr("medrcube_desktop.evaluation.credibility.Pair", None)
    counts, _ = image_group_counts(many)
    assert counts == {"A": 1600 * 1500, "B": 1600 * 500, "C": 400 * 500, "D": 400 * 1500}
    assert figures_from_counts(counts)["shortcut_prob"] == pytest.approx(
        400 * 1500 / (400 * 500 + 400 * 1500)
    )


def test_accuracy_over_the_cube_and_the_random_baseline(outcomes):
    summary = summarize(outcomes)
    assert (summary["n"], summary["correct"]) == (7, 5)
    assert summary["accuracy"] == pytest.approx(5 / 7)
    assert summary["by_task"]["AD"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert summary["by_modality"]["MR"]["accuracy"] == 1.0
    assert summary["by_voxel"]["VR|CT|Chest"] == {"n": 1, "correct": 0, "accuracy": 0.0}
    # six items with four options, one with three: (6/4 + 1/3) / 7
    assert summary["random_baseline"] == pytest.approx((6 / 4 + 1 / 3) / 7)
    assert random_baseline([]) is None
    assert summary["unparsed"] == 0


def test_a_group_of_pairs_is_made_without_walking_the_other_groups(outcomes, monkeypatch):
    # 2,000 prerequisites all right, 2,000 high-level items half right, one image: 4 M
    # pairs, none in C or D; asking for C makes no pair at all (the window froze for
    # minutes walking every pair of a benchmark like this for an empty group)
    low, high = outcomes[0], outcomes[2]
    many = [Outcome(low.item, "B") for _ in range(2000)]
    many += [Outcome(high.item, "A" if k % 2 else "B") for k in range(2000)]
    made = []

    def counted_pair(*args):
        made.append(args)
        return original(*args)

    original = credibility_module.Pair
    monkeypatch.setattr(credibility_module, "Pair", counted_pair)
    assert pair_outcomes(many, group="C") == ([], []) and not made
    found, _ = pair_outcomes(many, group="D", limit=3)
    assert found == [] and not made
    found, _ = pair_outcomes(many, group="B", limit=3)
    assert len(found) == 3 == len(made) and {p.group for p in found} == {"B"}
    with pytest.raises(MedRCubeError, match="group must be one of"):
        pair_outcomes(many, group="E")
