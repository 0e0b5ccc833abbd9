import json

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import DatasetError
from tests.conftest import dicom_file, item, write_benchmark


def problems_by_item(benchmark):
    return {(p.file, p.item, p.field) for p in benchmark.problems}


def test_good_items_load_with_letter_of_gt_text(ct_benchmark):
    bench = load_benchmark(ct_benchmark)
    assert bench.problems == []
    first = bench.items[0]
    assert (first.id, first.answer, first.answer_text) == ("ct-1", "B", "CT")
    assert first.image_path == (ct_benchmark / "ds1" / "images" / "ct.dcm").resolve()
    assert bench.items[1].task.abbreviation == "VR"  # "View Identification" canonicalised


def test_every_kind_of_broken_item_is_reported_once_and_good_items_still_count(tmp_path):
    outside = tmp_path / "outside.dcm"
    outside.write_bytes(dicom_file("CT_small.dcm").read_bytes())
    records = [
        item("good-1"),
        item("no-question", question=None),
        item("gt-none", gt_answer="PET"),
        item("gt-two", option_C="CT"),
        item("good-1"),  # duplicate id
        item("no-image", image="images/missing.dcm"),
        item("escapes", image="../../outside.dcm"),
        item("bad-task", task="Image Captioning"),
        item("good-2", gt_answer="  CT  "),  # whitespace is trimmed before matching
    ]
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": records, "ds2": "[{not json", "ds3": json.dumps({"id": "x"})},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    bench = load_benchmark(root)
    assert [i.id for i in bench.items] == ["good-1", "good-2"]
    found = problems_by_item(bench)
    assert found == {
        ("ds1/test.json", "no-question", "question"),
        ("ds1/test.json", "gt-none", "gt_answer"),
        ("ds1/test.json", "gt-two", "gt_answer"),
        ("ds1/test.json", "good-1", "id"),
        ("ds1/test.json", "no-image", "image_path"),
        ("ds1/test.json", "escapes", "image_path"),
        ("ds1/test.json", "bad-task", "task"),
        ("ds2/test.json", None, None),
        ("ds3/test.json", None, None),
    }
    assert len(bench.problems) == len(found)  # each problem listed once
    messages = {(p.item, p.field): p.message for p in bench.problems}
    assert "leaves the benchmark root" in messages[("escapes", "image_path")]
    assert "more than one option (B, C)" in messages[("gt-two", "gt_answer")]
    by_file = {p.file: p.message for p in bench.problems if p.item is None}
    assert by_file["ds2/test.json"].startswith("invalid JSON at line 1 column 3")
    assert by_file["ds3/test.json"] == "expected a JSON list of items, found dict"


def test_item_without_id_is_named_by_position(tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"ds1": [item(None)]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    (problem,) = load_benchmark(root).problems
    assert (problem.item, problem.field) == ("#0", "id")


@pytest.mark.parametrize("make", ["missing", "file", "empty"])
def test_unusable_root_raises(tmp_path, make):
    target = tmp_path / "x"
    if make == "file":
        target.write_text("hi")
    elif make == "empty":
        target.mkdir()
    with pytest.raises(DatasetError, match=str(target.name)):
        load_benchmark(target)


def test_mask_and_bbox_extensions(tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("boxed", bbox=[1, 2, 30, 40]),
                item("badbox", bbox=[5, 5, 1, 1]),
                item("nomask", mask_path="m.png"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    bench = load_benchmark(root)
    assert [i.bbox for i in bench.items] == [(1.0, 2.0, 30.0, 40.0)]
    assert problems_by_item(bench) == {
        ("ds1/test.json", "badbox", "bbox"),
        ("ds1/test.json", "nomask", "mask_path"),
    }
