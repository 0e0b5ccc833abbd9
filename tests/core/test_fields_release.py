"""The public release's own fields, items built as its dataset card describes them."""

import json

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from tests.conftest import dicom_file, write_benchmark


def card_item(item_id, **overrides):
    """A record with exactly the dataset card's fields."""
    record = {
        "id": item_id,
        "question": "Which organ is inside the red mask area?",
        "option_A": "Liver",
        "option_B": "Spleen",
        "option_C": "Kidney",
        "option_D": "Pancreas",
        "gt_answer": "Spleen",
        "correct_index": 1,
        "image_path": "images/ct.dcm",
        "task": "Organ Recognition",
        "original_task": "organ segmentation",
        "modality": "CT",
        "parts": "Abdomen",
        "dataset": "ds1",
        "restricted": False,
    }
    record.update(overrides)
    return {k: v for k, v in record.items() if v is not None}


def load(tmp_path, records, check_files=True):
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return load_benchmark(root, check_files=check_files)


def test_dataset_card_items_load_with_their_fields_kept(tmp_path):
    bench = load(tmp_path, [card_item("a"), card_item("b", original_task=None)])
    first, second = bench.items
    assert (first.answer, first.original_task, first.restricted) == (
        "B",
        "organ segmentation",
        False,
    )
    assert second.original_task is None
    assert "correct_index" not in first.extra and "restricted" not in first.extra
    assert bench.problems == [] and bench.restricted == []


@pytest.mark.parametrize("check_files", [True, False])
def test_restricted_items_without_image_are_listed_apart_never_as_problems(tmp_path, check_files):
    records = [
        card_item("open"),
        card_item("r1", restricted=True, image_path="images/not-shipped.png"),
        card_item("r2", restricted=True, image_path="images/ct.dcm"),  # obtained: ordinary
        card_item("bad", restricted=True, image_path="images/x.png", gt_answer="Heart"),
    ]
    bench = load(tmp_path, records, check_files)
    assert [i.id for i in bench.items] == ["open", "r2"]
    assert [i.id for i in bench.restricted] == ["r1"]
    assert bench.items[1].restricted
    assert [(p.item, p.field) for p in bench.problems] == [("bad", "gt_answer")]
    assert list(bench.check_files()) == []


def test_restricted_items_are_kept_for_text_only_work(tmp_path):
    records = [card_item("r1", restricted=True, image_path="images/not-shipped.png")]
    root = write_benchmark(tmp_path / "b", {"ds1": records})
    bench = load_benchmark(root, images=False)
    assert [i.id for i in bench.items] == [i.id for i in bench.restricted] == ["r1"]


@pytest.mark.parametrize(
    ("correct_index", "message"),
    [
        (1, None),  # 0-based B
        (2, None),  # 1-based B
        ("2", None),
        (3, "correct_index 3 is option D (0-based) or C (1-based), gt_answer is B"),
        (4, "correct_index 4 is no option (0-based) or D (1-based), gt_answer is B"),
        (9, "correct_index 9 names no option (the item has 4), gt_answer is B"),
        ("two", "expected an integer, found str"),
        (True, "expected an integer, found bool"),
        ("²", "expected an integer, found str"),  # str.isdigit() says yes: int() fails
        ("١", "expected an integer, found str"),  # an Arabic-Indic digit
    ],
)
def test_correct_index_is_cross_checked_in_both_conventions(tmp_path, correct_index, message):
    bench = load(tmp_path, [card_item("a", correct_index=correct_index)])
    found = [p.message for p in bench.problems if p.field == "correct_index"]
    assert found == ([message] if message else [])


def test_two_to_six_options(tmp_path):
    two = card_item("two", option_C=None, option_D=None, correct_index=1)
    six = card_item("six", option_E="Heart", option_F="Lung", gt_answer="Lung", correct_index=5)
    one = card_item("one", option_B=None, option_C=None, option_D=None, gt_answer="Liver")
    bench = load(tmp_path, [two, six, one])
    assert {i.id: len(i.options) for i in bench.items} == {"two": 2, "six": 6}
    assert [(p.item, p.field) for p in bench.problems] == [("one", "option_B")]


def test_restricted_must_be_a_boolean(tmp_path):
    bench = load(tmp_path, [card_item("a", restricted="yes")])
    assert [(p.field, p.message) for p in bench.problems] == [
        ("restricted", "expected true or false, found str")
    ]


def test_validate_lists_restricted_items_apart(tmp_path, capsys):
    from medrcube_desktop.cli.app import main

    records = [card_item("open"), card_item("r1", restricted=True, image_path="images/n.png")]
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    assert main(["validate", str(root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["problems"] == [] and out["items"] == 1
    assert out["restricted"] == [
        {
            "file": "ds1/test.json",
            "item": "r1",
            "image_path": "ds1/images/n.png",
            "message": "image not redistributed: obtain it from the source dataset",
        }
    ]
    assert main(["validate", str(root)]) == 0
    text = capsys.readouterr().out
    assert "1 restricted item without its image" in text and "ds1/test.json item r1" in text


def test_a_file_mixing_zero_and_one_based_indices_is_a_problem(tmp_path):
    """Each index alone names the answer in one convention; together they cannot both
    be right: one group is off by one."""
    bench = load(tmp_path, [card_item("a", correct_index=1), card_item("b", correct_index=2),
                            card_item("c", correct_index=1)])  # fmt: skip
    (problem,) = [p for p in bench.problems if p.field == "correct_index"]
    assert problem.item is None and "mixes conventions" in problem.message
    assert "2 item(s) read only 0-based (first a), 1 only 1-based (first b)" in problem.message
    assert len(bench.items) == 3  # the items themselves stay
    same = load(
        tmp_path / "same", [card_item("a", correct_index=1), card_item("c", correct_index=1)]
    )
    assert not [p for p in same.problems if p.field == "correct_index"]
