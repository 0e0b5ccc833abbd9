import json
import logging
import os
from collections import Counter

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import DatasetError
from tests.conftest import dicom_file, item, write_benchmark


def problems_by_item(benchmark):
    return {(p.file, p.item, p.field) for p in benchmark.problems}


def problem_counts(benchmark):
    """``Counter`` of ``(file, item, field)``: exact sets and each problem listed once."""
    return Counter((p.file, p.item, p.field) for p in benchmark.problems)


def load_ds1(tmp_path, content):
    """Load a benchmark whose only sub-folder ``ds1`` holds ``content`` (records or text)."""
    root = write_benchmark(
        tmp_path / "b", {"ds1": content}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return load_benchmark(root)


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
    assert (problem.item, problem.field, problem.message) == (
        "#0 (no id)",
        "id",
        "missing or empty",
    )


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


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"image_path": 5}, {"image_path": "expected text, found int"}),
        ({"task": 3}, {"task": "expected text, found int"}),
        ({"mask_path": 5}, {"mask_path": "expected text, found int"}),
        ({"mask_path": ""}, {"mask_path": "empty; leave the field out if no mask"}),
        ({"question": 5}, {"question": "expected text, found int"}),
        ({"modality": ["CT"]}, {"modality": "expected text, found list"}),
        (
            {"option_B": 2, "gt_answer": 2},
            {"option_B": "expected text, found int", "gt_answer": "expected text, found int"},
        ),
        ({"id": True}, {"id": "expected text or an integer, found bool"}),
    ],
)
def test_field_of_the_wrong_type_is_a_problem_never_a_silent_drop(tmp_path, overrides, expected):
    bench = load_ds1(tmp_path, [item("bad", **overrides), item("good")])
    assert [i.id for i in bench.items] == ["good"]
    name = "#0 (no id)" if "id" in overrides else "bad"
    assert problem_counts(bench) == Counter(("ds1/test.json", name, f) for f in expected)
    assert {p.field: p.message for p in bench.problems} == expected


def test_integer_id_is_accepted_as_text(tmp_path):
    bench = load_ds1(tmp_path, [item(7), item(0)])
    assert ([i.id for i in bench.items], bench.problems) == (["7", "0"], [])


def test_one_bad_file_or_item_never_ends_validation(tmp_path):
    ct = dicom_file("CT_small.dcm")
    huge_id = json.dumps([item("HUGE")]).replace('"HUGE"', "1" + "0" * 5000)
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [item("bigbox", bbox=[0, 0, 10**400, 4]), item("ok-1")],
            "ds2": huge_id[:-1] + ", " + json.dumps(item("ok-2")) + "]",
            "ds3": "[" * 100_000,
            "ds4": json.dumps([item("ok-4")]).replace('"ok-4"', '"\\ud800"', 1)[:-1]
            + ", "
            + json.dumps(item("ok-5"))
            + "]",
        },
        {f"{ds}/images/ct.dcm": ct for ds in ("ds1", "ds2", "ds4")},
    )
    (root / "ds5").mkdir()
    os.symlink(root / "nowhere.json", root / "ds5" / "test.json")
    bench = load_benchmark(root)
    assert [i.id for i in bench.items] == ["ok-1", "ok-2", "ok-5"]
    assert problem_counts(bench) == Counter(
        [
            ("ds1/test.json", "bigbox", "bbox"),
            ("ds2/test.json", "#0 (no id)", "id"),
            ("ds3/test.json", None, None),
            ("ds4/test.json", "#0 (no id)", "id"),
            ("ds5/test.json", None, None),
        ]
    )
    messages = [p.message for p in bench.problems]
    assert messages == [
        "coordinates must be finite numbers (no NaN, Infinity or huge values)",
        "holds a number with 5001 digits, too long to use",
        "invalid JSON: lists or objects nested too deeply",
        "not valid Unicode (lone surrogate)",
        "broken symbolic link: the file it points to does not exist",
    ]
    assert all(str(p).encode("utf-8") for p in bench.problems)  # printable as UTF-8


def test_lone_surrogates_anywhere_in_a_record_are_problems(tmp_path):
    text = json.dumps(
        [
            item("q", question="QUESTION"),
            item("extra", meta={"notes": ["NOTE"]}),
            item("key", KEY=1),
        ]
    )
    text = text.replace("QUESTION", "\\udc00").replace("NOTE", "\\ud800")
    bench = load_ds1(tmp_path, text.replace("KEY", "\\udfff"))
    assert bench.items == []
    assert problem_counts(bench) == Counter(
        [
            ("ds1/test.json", "q", "question"),
            ("ds1/test.json", "extra", "meta"),
            ("ds1/test.json", "key", "'\\udfff'"),
        ]
    )


@pytest.mark.parametrize(
    "bbox", [[float("nan"), 0, 3, 4], [0, 0, float("inf"), 4], [0, 0, 1, -float("inf")]]
)
def test_bbox_with_nan_or_infinity_is_a_problem(tmp_path, bbox):
    bench = load_ds1(tmp_path, [item("box", bbox=bbox)])
    assert bench.items == []
    assert problem_counts(bench) == Counter([("ds1/test.json", "box", "bbox")])
    assert "finite" in bench.problems[0].message


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (
            {"option_C": None, "option_E": "e", "option_F": "f"},
            {
                "option_C": "missing, but option_D, option_E, option_F are present; "
                "options must be contiguous"
            },
        ),
        ({"option_B": ""}, {"option_B": "missing or empty"}),
        ({"option_B": None}, {"option_B": "missing or empty"}),
        ({"option_A": 1.5}, {"option_A": "expected text, found float"}),
        (
            {"option_C": ""},
            {"option_C": "missing, but option_D is present; options must be contiguous"},
        ),
        (
            {"option_C": None, "option_E": None, "option_F": "f"},
            {
                "option_C": "missing, but option_D, option_F are present; "
                "options must be contiguous",
                "option_E": "missing, but option_F is present; options must be contiguous",
            },
        ),
        ({"option_E": " "}, {"option_E": "empty; leave the field out if there is no such option"}),
        ({"option_C": 3, "gt_answer": "X-ray"}, {"option_C": "expected text, found int"}),
    ],
)
def test_each_option_field_gets_at_most_one_problem(tmp_path, overrides, expected):
    bench = load_ds1(tmp_path, [item("opt", **overrides)])
    assert bench.items == []
    assert problem_counts(bench) == Counter(("ds1/test.json", "opt", f) for f in expected)
    assert {p.field: p.message for p in bench.problems} == expected


def test_optional_options_load_when_contiguous(tmp_path):
    bench = load_ds1(tmp_path, [item("six", option_E="e", option_F="f", option_D=None)])
    assert problem_counts(bench) == Counter([("ds1/test.json", "six", "option_D")])
    bench = load_ds1(tmp_path / "2", [item("five", option_E="e", mask_path=None)])
    assert bench.problems == [] and list(bench.items[0].options) == ["A", "B", "C", "D", "E"]


@pytest.mark.parametrize("bad_id", ["a\nb", "a\tb", "a\u0000b", "a\u2028b"])
def test_id_with_control_characters_is_a_problem(tmp_path, bad_id):
    bench = load_ds1(tmp_path, [item(bad_id), item("ok")])
    assert [i.id for i in bench.items] == ["ok"]
    assert problem_counts(bench) == Counter([("ds1/test.json", "#0 (no id)", "id")])
    assert bench.problems[0].message == "contains a line break or other control character"


def test_positional_names_never_collide_with_explicit_ids(tmp_path):
    records = [item(None), item("#0"), item("#2 (no id)")]
    bench = load_ds1(tmp_path, records)
    assert [i.id for i in bench.items] == ["#0"]  # an explicit "#0" is an ordinary id
    assert problem_counts(bench) == Counter(
        [("ds1/test.json", "#0 (no id)", "id"), ("ds1/test.json", "#2 (no id)", "id")]
    )
    assert bench.problems[1].message == "'#2 (no id)' is reserved for naming items without an id"


def test_duplicate_id_is_reported_even_when_its_first_item_was_bad(tmp_path):
    ct = dicom_file("CT_small.dcm")
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("dup", gt_answer="PET"), item("dup")], "ds2": [item("dup", image="x.dcm")]},
        {"ds1/images/ct.dcm": ct},
    )
    bench = load_benchmark(root)
    assert bench.items == []
    assert problem_counts(bench) == Counter(
        [
            ("ds1/test.json", "dup", "gt_answer"),
            ("ds1/test.json", "dup", "id"),
            ("ds2/test.json", "dup", "id"),
            ("ds2/test.json", "dup", "image_path"),
        ]
    )
    assert {p.message for p in bench.problems if p.field == "id"} == {
        "duplicate id (first seen in ds1/test.json)"
    }


def test_paths_that_cannot_be_resolved_are_problems(tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"ds1": []}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    os.symlink(root / "ds1" / "loop2", root / "ds1" / "loop1")
    os.symlink(root / "ds1" / "loop1", root / "ds1" / "loop2")
    records = [
        item("nul", image="images/ct\u0000.dcm"),
        item("loop", image="loop1"),
        item("long", image="x" * 5000),
        item("dir", image="empty"),  # a folder with files would be a DICOM series
    ]
    (root / "ds1" / "empty").mkdir()
    (root / "ds1" / "test.json").write_text(json.dumps(records))
    bench = load_benchmark(root)
    assert bench.items == []
    assert problem_counts(bench) == Counter(
        ("ds1/test.json", name, "image_path") for name in ("nul", "loop", "long", "dir")
    )
    assert bench.problems[-1].message == "a folder, not a file: ds1/empty"


def test_unexpected_error_in_one_item_is_logged_and_reported(tmp_path, monkeypatch, caplog):
    from medrcube_desktop.core import records

    real = records.canonical_task

    def flaky(spelling):
        if spelling == "Boom":
            raise KeyError("boom")
        return real(spelling)

    monkeypatch.setattr(records, "canonical_task", flaky)
    with caplog.at_level(logging.ERROR, logger="medrcube_desktop.core.records"):
        bench = load_ds1(tmp_path, [item("a", task="Boom"), item("b")])
    assert [i.id for i in bench.items] == ["b"]
    (problem,) = bench.problems
    assert (problem.item, problem.field) == ("a", None)
    assert problem.message == "internal error, please report it: KeyError: 'boom'"
    assert caplog.records[0].exc_info is not None


def test_benchmark_of_empty_lists_loads_with_no_items(tmp_path):
    bench = load_ds1(tmp_path, [])
    assert (bench.items, bench.problems) == ([], [])


def test_a_letter_as_gt_answer_gets_a_hint(tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("letter", gt_answer="B"), item("paren", gt_answer="(b)")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    messages = {p.item: p.message for p in load_benchmark(root).problems}
    hint = "gt_answer is the text of the correct option, not its letter (option_B is 'CT')"
    assert messages["letter"] == f"'B' matches no option; {hint}"
    assert messages["paren"] == f"'(b)' matches no option; {hint}"


def test_a_mask_of_the_wrong_kind_for_its_image_is_found_by_validate(tmp_path):
    png = tmp_path / "x.png"
    from PIL import Image

    Image.new("L", (4, 4)).save(png)
    files = {
        "ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
        "ds1/images/p.png": png,
        "ds1/images/v.nii.gz": png,  # only the names matter to this check
        "ds1/masks/m.nii.gz": png,
        "ds1/masks/m.png": png,
        "ds1/masks/m.jpg": png,
    }
    records = [
        item("pic-vol", image="images/p.png", mask_path="masks/m.nii.gz"),
        item("dcm-vol", image="images/ct.dcm", mask_path="masks/m.nii.gz"),
        item("vol-pic", image="images/v.nii.gz", mask_path="masks/m.png"),
        item("jpeg", image="images/p.png", mask_path="masks/m.jpg"),
        item("fine", image="images/p.png", mask_path="masks/m.png"),
    ]
    bench = load_benchmark(write_benchmark(tmp_path / "b", {"ds1": records}, files))
    found = {p.item: (p.field, p.message) for p in bench.problems}
    assert set(found) == {"pic-vol", "dcm-vol", "vol-pic", "jpeg"}
    assert found["pic-vol"] == (
        "mask_path",
        "m.nii.gz is a volume, but the image p.png is 2-D: give a PNG mask of the image's "
        "width and height",
    )
    assert "is a 2-D picture, but the image v.nii.gz is a volume" in found["vol-pic"][1]
    assert "lossy compression" in found["jpeg"][1]
    assert [i.id for i in bench.items] == ["fine"]
