"""``write_release``: the corrected benchmark as a new folder, the source never written."""

from __future__ import annotations

import errno
import json
import os

import nibabel as nib
import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging.masks import mask_labels, picture_mask_values
from medrcube_desktop.review.release import RELEASE_FILES, ReleaseError, write_release
from medrcube_desktop.review.release_records import read_records_file
from tests.review.release_fixture import (
    AFFINE,
    STYLES,
    accepted,
    build,
    mask_2d,
    mask_3d,
    records,
    tree_hashes,
)


@pytest.fixture
def source(tmp_path):
    return build(tmp_path / "src")


def _release_files(out) -> dict[str, str]:
    return {k: v for k, v in tree_hashes(out).items() if k not in RELEASE_FILES}


def test_a_release_without_corrections_equals_its_source_file_by_file(source, tmp_path):
    before = tree_hashes(source)
    summary = write_release(source, [], tmp_path / "out", "1.0")
    assert _release_files(tmp_path / "out") == before  # every file, by its SHA-256
    assert tree_hashes(source) == before
    assert sorted(set(tree_hashes(tmp_path / "out")) - set(before)) == sorted(RELEASE_FILES)
    assert (summary.items, summary.changed, summary.retired, summary.unchanged) == (9, 0, 0, 9)
    assert summary.files_rewritten == [] and summary.masks_written == []
    changes = json.loads((tmp_path / "out" / "changes.json").read_text())
    assert changes["items"] == [] and changes["counts"]["unchanged"] == 9


def test_images_are_hard_links_and_test_json_files_are_copies(source, tmp_path):
    summary = write_release(source, [], tmp_path / "out", "1.0")
    out = tmp_path / "out"
    for rel in ("ds1/images/ct.dcm", "ds2/masks/pic_mask.png", "ds3/vol/brain.nii.gz", "README.md"):
        assert os.stat(out / rel).st_ino == os.stat(source / rel).st_ino, rel
    for folder in ("ds1", "ds2", "ds3"):  # the release's own file, never the source's inode
        rel = f"{folder}/test.json"
        assert os.stat(out / rel).st_ino != os.stat(source / rel).st_ino
    assert summary.linked == 7 and summary.copied == 0  # 7 files besides the test.json


def test_copy_and_the_fallback_when_no_hard_link_is_possible(source, tmp_path, monkeypatch):
    summary = write_release(source, [], tmp_path / "copied", "1.0", copy=True)
    assert (summary.linked, summary.copied) == (0, 7)
    image = "ds1/images/ct.dcm"
    assert os.stat(tmp_path / "copied" / image).st_ino != os.stat(source / image).st_ino
    assert _release_files(tmp_path / "copied") == tree_hashes(source)

    def no_link(*args, **kwargs):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", no_link)
    summary = write_release(source, [], tmp_path / "fallback", "1.0")
    assert (summary.linked, summary.copied) == (0, 7)
    assert _release_files(tmp_path / "fallback") == tree_hashes(source)


def _every_kind():
    new_2d = mask_2d().copy()
    new_2d[0:4, 0:6] = 4
    slice_labels = np.zeros((20, 16), np.uint8)
    slice_labels[2:7, 3:9] = 5
    return [
        accepted("ct-1", "answer_key", {"answer": "C"}, rule="1.3"),
        accepted("ct-2", "option_text", {"letter": "A", "text": "Axial plane"}, rule="1.2"),
        accepted("ct-3", "bbox", {"bbox": [11, 13, 41.5, 51]}, rule="2.2"),
        accepted("ct-4", "question_text", {"text": "Which modality ü?"}, rule="1.1"),
        accepted("png-1", "mask", {"slice_index": None, "axis": None, "shape": [48, 64]},
                 labels=new_2d, rule="2.2"),
        accepted("png-3", "retire", rule="2.1"),
        accepted("vol-1", "mask", {"slice_index": 3, "axis": 2, "shape": [20, 16]},
                 labels=slice_labels, rule="2.2"),
    ]  # fmt: skip


def test_each_kind_is_applied_and_reads_back_through_the_loader(source, tmp_path):
    before = tree_hashes(source)
    out = tmp_path / "out"
    write_release(source, _every_kind(), out, "2")
    assert tree_hashes(source) == before
    benchmark = load_benchmark(out)
    assert benchmark.problems == []
    items = {item.id: item for item in benchmark.items}
    assert "png-3" not in items and len(items) == 8
    assert items["ct-1"].answer == "C" and items["ct-1"].options["C"] == "X-ray"
    assert items["ct-2"].options["A"] == "Axial plane" and items["ct-2"].answer == "A"
    assert items["ct-3"].bbox == (11.0, 13.0, 41.5, 51.0)
    assert items["ct-4"].question == "Which modality ü?"
    ds1 = json.loads((out / "ds1" / "test.json").read_text())
    assert ds1[0]["gt_answer"] == "X-ray" and ds1[0]["correct_index"] == 2  # 0-based kept
    assert ds1[1]["gt_answer"] == "Axial plane"  # the answer's own option renamed


def test_a_2d_mask_is_a_new_png_in_the_source_mode_and_reads_back_as_the_labels(source, tmp_path):
    out = tmp_path / "out"
    corrections = _every_kind()
    write_release(source, corrections, out, "2")
    item = {i.id: i for i in load_benchmark(out).items}["png-1"]
    assert item.mask_path == out / "ds2" / "masks" / "pic_mask.r2.png"
    with Image.open(item.mask_path) as picture:
        assert picture.mode == "P"  # the source's mode, its palette kept
        assert picture.getpalette()[:9] == [0, 0, 0, 255, 0, 0, 0, 255, 0]
        labels = mask_labels(picture_mask_values(picture, item.mask_path), item.mask_path)
    expected = mask_2d().copy()
    expected[0:4, 0:6] = 4
    assert np.array_equal(labels, expected)
    with Image.open(out / "ds2" / "masks" / "pic_mask.png") as old:  # the old one, as it was
        assert np.array_equal(np.asarray(old), mask_2d())


def test_a_volume_mask_keeps_affine_header_and_other_slices(source, tmp_path):
    out = tmp_path / "out"
    write_release(source, _every_kind(), out, "2")
    item = {i.id: i for i in load_benchmark(out).items}["vol-1"]
    assert item.mask_path == out / "ds3" / "vol" / "brain_mask.r2.nii.gz"
    new, old = nib.load(item.mask_path), nib.load(source / "ds3" / "vol" / "brain_mask.nii.gz")
    assert np.allclose(new.affine, AFFINE) and np.array_equal(new.affine, old.affine)
    assert new.header["descrip"].tobytes().rstrip(b"\0") == b"labels of the source"
    assert new.get_data_dtype() == old.get_data_dtype() == np.uint8
    data, expected = np.asarray(new.dataobj), mask_3d()
    assert np.array_equal(np.delete(data, 3, axis=2), np.delete(expected, 3, axis=2))
    edited = np.zeros((20, 16), np.uint8)
    edited[2:7, 3:9] = 5
    assert np.array_equal(data[:, :, 3], edited)
    # the old mask is still the source's file (a link, never written), the new one its own
    old_path = "ds3/vol/brain_mask.nii.gz"
    assert os.stat(out / old_path).st_ino == os.stat(source / old_path).st_ino
    source_inodes = {os.stat(p).st_ino for p in source.rglob("*") if p.is_file()}
    assert os.stat(item.mask_path).st_ino not in source_inodes


def test_a_dataset_folder_that_is_a_symbolic_link_is_released_as_a_folder(source, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (source / "ds2").rename(elsewhere)
    (source / "ds2").symlink_to(elsewhere, target_is_directory=True)
    before = tree_hashes(source)
    out = tmp_path / "out"
    write_release(source, [accepted("png-2", "retire")], out, "1")
    assert tree_hashes(source) == before
    assert (out / "ds2").is_dir() and not (out / "ds2").is_symlink()
    released, expected = _release_files(out), dict(before)
    assert released.pop("ds2/test.json") != expected.pop("ds2/test.json")  # png-2 left out
    assert released == expected
    assert (
        os.stat(out / "ds2/images/pic.png").st_ino == os.stat(elsewhere / "images/pic.png").st_ino
    )


def test_a_mask_on_an_item_without_one_is_created_on_the_image_grid(source, tmp_path):
    png = np.zeros((48, 64), np.uint8)
    png[10:20, 10:30] = 1
    volume_slice = np.zeros((20, 16), np.uint8)
    volume_slice[5:9, 5:9] = 2
    corrections = [
        accepted("png-2", "mask", {"slice_index": None, "axis": None, "shape": [48, 64]}, labels=png),
        accepted("vol-2", "mask", {"slice_index": 1, "axis": 2, "shape": [20, 16]}, labels=volume_slice),
    ]  # fmt: skip
    out = tmp_path / "out"
    summary = write_release(source, corrections, out, "3")
    assert summary.masks_written == ["ds2/images/pic.mask.r3.png", "ds3/vol/brain.mask.r3.nii.gz"]
    items = {i.id: i for i in load_benchmark(out).items}
    with Image.open(items["png-2"].mask_path) as picture:
        assert picture.mode == "L" and np.array_equal(np.asarray(picture), png)
    made = nib.load(items["vol-2"].mask_path)
    assert np.array_equal(made.affine, nib.load(source / "ds3/vol/brain.nii.gz").affine)
    data = np.asarray(made.dataobj)
    assert data.shape == (20, 16, 6) and data.dtype == np.uint8
    assert np.array_equal(data[:, :, 1], volume_slice) and not np.delete(data, 1, axis=2).any()


def test_untouched_records_keep_their_bytes_and_a_changed_one_only_its_values(source, tmp_path):
    out = tmp_path / "out"
    write_release(source, _every_kind(), out, "2")
    for folder in ("ds1", "ds2", "ds3"):
        old = read_records_file(source / folder / "test.json")
        new = read_records_file(out / folder / "test.json")
        old_spans = {
            r["id"]: old.text[s:e] for r, (s, e) in zip(old.records, old.spans, strict=True)
        }
        new_spans = {
            r["id"]: new.text[s:e] for r, (s, e) in zip(new.records, new.spans, strict=True)
        }
        for item_id in ("ct-1", "ct-2", "ct-3", "ct-4", "png-1", "vol-1", "png-3"):
            old_spans.pop(item_id, None)
            new_spans.pop(item_id, None)
        assert new_spans == old_spans  # byte for byte: png-2 and vol-2
    # each file as json.dumps writes the corrected records in the source's own style:
    # proof that only the changed values moved and the rest kept its formatting
    expected = records()
    expected["ds1"][0].update(gt_answer="X-ray", correct_index=2)
    expected["ds1"][1].update(option_A="Axial plane", gt_answer="Axial plane")
    expected["ds1"][2]["bbox"] = [11, 13, 41.5, 51]
    expected["ds1"][3]["question"] = "Which modality ü?"
    expected["ds2"][0]["mask_path"] = "masks/pic_mask.r2.png"
    del expected["ds2"][2]
    expected["ds3"][0]["mask_path"] = "vol/brain_mask.r2.nii.gz"
    for folder, rows in expected.items():
        text = (out / folder / "test.json").read_text("utf-8")
        assert text == json.dumps(rows, **STYLES[folder]), folder


def test_retiring_the_first_the_last_or_every_record_leaves_valid_json(source, tmp_path):
    rows = records()["ds2"]
    cases = {
        "first": ["png-1"],
        "last": ["png-3"],
        "middle": ["png-2"],
        "all": ["png-1", "png-2", "png-3"],
    }
    for name, retired in cases.items():
        out = tmp_path / name
        write_release(source, [accepted(i, "retire") for i in retired], out, "1")
        kept = [r for r in rows if r["id"] not in retired]
        assert (out / "ds2" / "test.json").read_text() == json.dumps(kept, **STYLES["ds2"]), name
        for folder in ("ds1", "ds3"):
            assert (out / folder / "test.json").read_bytes() == (
                source / folder / "test.json"
            ).read_bytes()


def test_changes_json_and_release_json_hold_the_counts_by_hand(source, tmp_path):
    out = tmp_path / "out"
    corrections = _every_kind()
    write_release(
        source, corrections, out, "2", created_at="2026-12-03T10:00:00+00:00", app_version="9.9"
    )
    changes = json.loads((out / "changes.json").read_text())
    assert changes["format"] == "medrcube-release-changes" and changes["version"] == "2"
    # 9 records; 6 changed (ct-1..4, png-1, vol-1), 1 retired (png-3), 2 unchanged;
    # new answers: ct-2 option, ct-3 bbox, ct-4 question, png-1 and vol-1 masks = 5
    assert changes["counts"] == {
        "changed": 6, "retired": 1, "unchanged": 2, "needs_new_answer": 5,
        "per_rule": {"1.1": 1, "1.2": 1, "1.3": 1, "2.1": 1, "2.2": 3},
        "per_task": {"Modality Recognition": 6, "View Recognition": 1},
        "per_kind": {"answer_key": 1, "bbox": 1, "mask": 2, "option_text": 1,
                     "question_text": 1, "retire": 1},
    }  # fmt: skip
    by_id = {entry["item_id"]: entry for entry in changes["items"]}
    assert list(by_id) == ["ct-1", "ct-2", "ct-3", "ct-4", "png-1", "png-3", "vol-1"]
    ct1 = by_id["ct-1"]
    assert (ct1["answer_before"], ct1["answer_after"], ct1["needs_new_answer"]) == ("B", "C", False)
    p = corrections[0].proposal
    assert ct1["changes"] == [{
        "kind": "answer_key", "field": "gt_answer", "from": "CT", "to": "X-ray", "rule": "1.3",
        "reason": p.reason, "proposer": "dr-a", "proposed_at": p.created_at,
        "proposal_uid": p.uid, "acceptor": "dr-b",
        "accepted_at": corrections[0].decision.created_at,
        "acceptance_reason": corrections[0].decision.reason,
    }]  # fmt: skip
    assert by_id["png-3"]["status"] == "retired" and by_id["png-3"]["answer_after"] is None
    assert by_id["png-1"]["changes"][0]["from"] == "masks/pic_mask.png"
    assert by_id["png-1"]["changes"][0]["to"] == "masks/pic_mask.r2.png"
    assert by_id["ct-3"]["changes"][0]["from"] == [10, 12, 40, 50]
    assert by_id["ct-2"]["changes"][0]["field"] == "option_A"
    release = json.loads((out / "release.json").read_text())
    assert release == {
        "format": "medrcube-release", "format_version": 1, "version": "2",
        "source": str(source), "created_at": "2026-12-03T10:00:00+00:00", "app_version": "9.9",
        "items": 8, "retired": 1, "changed": 6,
    }  # fmt: skip
    log = (out / "CHANGELOG.md").read_text()
    assert log.startswith("# MedRCube release 2\n") and f"- Source: {source}" in log
    assert '`gt_answer`: `"CT"` → `"X-ray"`' in log and "answer B → C" in log
    assert "| 2.2 | 3 |" in log and "| View Recognition | 1 |" in log
    assert "accepted by dr-b on " + corrections[0].decision.created_at in log


def test_a_1_based_correct_index_stays_1_based(source, tmp_path):
    out = tmp_path / "out"
    write_release(source, [accepted("png-3", "answer_key", {"answer": "D"})], out, "1")
    row = json.loads((out / "ds2" / "test.json").read_text())[2]
    assert row["gt_answer"] == "Ultrasound" and row["correct_index"] == 4  # D, from 1
    assert load_benchmark(out).problems == []


def test_conflicting_corrections_are_refused_naming_item_and_field(source, tmp_path):
    before = tree_hashes(source)
    corrections = [
        accepted("ct-1", "answer_key", {"answer": "C"}),
        accepted("ct-1", "answer_key", {"answer": "D"}),
    ]
    with pytest.raises(ReleaseError, match=r"^ds1/test.json, item ct-1, field gt_answer: .*C .*D "):
        write_release(source, corrections, tmp_path / "out", "1")
    assert not (tmp_path / "out").exists() and tree_hashes(source) == before
    assert list(tmp_path.iterdir()) == [source]  # no stage left behind
    same = [
        accepted("ct-1", "answer_key", {"answer": "C"}),
        accepted("ct-1", "answer_key", {"answer": "C"}),
    ]
    write_release(source, same, tmp_path / "agreed", "1")  # the same value twice: no conflict
    assert load_benchmark(tmp_path / "agreed").items[0].answer == "C"


@pytest.mark.parametrize(
    ("correction", "message"),
    [
        (("ct-1", "answer_key", {"answer": "F"}), r"ds1/test.json item ct-1: gt_answer: no option 'F'"),
        (("ct-1", "option_text", {"letter": "B", "text": " "}), r"item ct-1: option_B: the new text must have a visible character \(change.text\)"),
        (("ct-3", "bbox", {"bbox": [40, 12, 10, 50]}), r"item ct-3: bbox: .*not a box"),
        (("nope", "retire", {}), r"item nope: not in the source benchmark"),
        (("ct-1", "option_text", {"letter": "A", "text": "CT"}), r"item ct-1: gt_answer: after the corrections, 'CT' matches more than one option"),
    ],
)  # fmt: skip
def test_a_correction_that_does_not_fit_is_refused_and_nothing_written(
    source, tmp_path, correction, message
):
    before = tree_hashes(source)
    with pytest.raises(ReleaseError, match=message):
        write_release(source, [accepted(*correction)], tmp_path / "out", "1")
    assert tree_hashes(source) == before and list(tmp_path.iterdir()) == [source]


def test_a_failed_release_removes_the_parents_it_made(source, tmp_path):
    wrong = accepted("ct-1", "option_text", {"letter": "A", "text": "CT"})  # two options "CT"
    with pytest.raises(ReleaseError, match="matches more than one option"):
        write_release(source, [wrong], tmp_path / "new" / "deeper" / "out", "1")
    assert list(tmp_path.iterdir()) == [source]


def _dead_pid() -> int:
    """The id of a process that has ended (a child run and waited for)."""
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    return int(child.stdout)


def test_stale_staging_folders_of_a_dead_release_are_swept(source, tmp_path):
    out = tmp_path / "out"
    dead = tmp_path / f".out.release-{_dead_pid()}-0123abcd"
    live = tmp_path / f".out.release-{os.getpid()}-89abcdef"  # a release still running
    other = tmp_path / f".other.release-{_dead_pid()}-0123abcd"  # another out's
    for folder in (dead, live, other):
        folder.mkdir()
        (folder / "release.json").write_text("{}")
    write_release(source, [], out, "1")
    assert not dead.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [source.name, "out", live.name, other.name]
    )
    assert (live / "release.json").read_text() == "{}"


def test_mask_labels_of_another_shape_are_refused(source, tmp_path):
    wrong = accepted("vol-1", "mask", {"slice_index": 2, "axis": 2, "shape": [16, 20]},
                     labels=np.zeros((16, 20), np.uint8))  # fmt: skip
    with pytest.raises(ReleaseError, match=r"ds3/test.json item vol-1: mask_path: .*16x20.*20x16"):
        write_release(source, [wrong], tmp_path / "out", "1")
    assert list(tmp_path.iterdir()) == [source]


def test_a_bad_output_folder_is_refused_before_anything_is_written(source, tmp_path):
    before = tree_hashes(source)
    full = tmp_path / "full"
    full.mkdir()
    (full / "x.txt").write_text("x")
    (tmp_path / "a-file").write_text("x")
    cases = {
        full: "is not empty",
        source / "ds1" / "release": "inside the source benchmark",
        source / "new": "inside the source benchmark",
        tmp_path: "holds the source benchmark",
        tmp_path / "a-file": "not a folder",
    }
    for out, message in cases.items():
        with pytest.raises(ReleaseError, match=message):
            write_release(source, [], out, "1")
    with pytest.raises(ReleaseError, match="--version"):
        write_release(source, [], tmp_path / "v", "../1")
    assert tree_hashes(source) == before and not (source / "new").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    write_release(source, [], empty, "1")  # an empty folder is fine
    assert _release_files(empty) == before


def test_a_symbolic_link_to_the_source_counts_as_the_source(source, tmp_path):
    (tmp_path / "link").symlink_to(source)
    with pytest.raises(ReleaseError, match="inside the source benchmark"):
        write_release(source, [], tmp_path / "link" / "out", "1")
