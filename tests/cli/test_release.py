"""``release`` from the command line: corrections accepted in the study database, the
release folder, ``validate`` on it, and the source's hashes after every command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.corrections import Decision, Proposal, encode_labels
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.store import StudyStore
from tests.review.release_fixture import build, mask_2d, records, tree_hashes


@pytest.fixture
def source(tmp_path):
    return build(tmp_path / "src")


def _propose(store, item_id, kind, change, author="dr-a", labels=None, decision="accepted"):
    folder = {"ct": "ds1", "pn": "ds2", "vo": "ds3"}[item_id[:2]]
    record = next(r for r in records()[folder] if r["id"] == item_id)
    proposal = store.save_proposal(
        Proposal(item_id, kind, "1.3", f"fix {item_id}", author, change, record,
                 f"{folder}/test.json", None if labels is None else encode_labels(labels))
    )  # fmt: skip
    store.save_decision(Decision(proposal.uid, decision, "agreed", "dr-b"))
    return proposal


def _study(tmp_path):
    db = tmp_path / "study.db"
    store = StudyStore(db)
    _propose(store, "ct-1", "answer_key", {"answer": "A"})
    _propose(store, "ct-3", "bbox", {"bbox": [1, 2, 30, 40]})
    _propose(store, "png-3", "retire", {})
    _propose(store, "ct-4", "question_text", {"text": "rejected"}, decision="rejected")
    labels = mask_2d().copy()
    labels[40:, :10] = 3
    _propose(store, "png-1", "mask", {"slice_index": None, "axis": None, "shape": [48, 64]},
             labels=labels)  # fmt: skip
    store.close()
    return db


def test_release_writes_the_accepted_corrections_and_validate_passes_on_it(
    source, tmp_path, capsys
):
    db, out = _study(tmp_path), tmp_path / "release"
    before = tree_hashes(source)
    args = ["release", "--dataset", str(source), "--db", str(db), "--out", str(out)]
    assert main([*args, "--version", "1.1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["items"], summary["changed"], summary["retired"]) == (8, 3, 1)
    assert summary["masks_written"] == ["ds2/masks/pic_mask.r1.1.png"] and summary["linked"] == 7
    assert tree_hashes(source) == before
    items = {item.id: item for item in load_benchmark(out).items}
    assert items["ct-1"].answer == "A" and items["ct-3"].bbox == (1.0, 2.0, 30.0, 40.0)
    assert items["ct-4"].question == "Which modality é?"  # its proposal was rejected
    assert "png-3" not in items
    changes = json.loads((out / "changes.json").read_text())
    assert changes["counts"]["per_kind"] == {"answer_key": 1, "bbox": 1, "mask": 1, "retire": 1}
    assert json.loads((out / "release.json").read_text())["version"] == "1.1"
    assert main(["validate", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["problems"] == []
    assert main(["validate", str(out), "--deep", "--json"]) == 0  # the new mask decodes
    assert tree_hashes(source) == before


def test_release_with_no_accepted_proposal_equals_the_source(source, tmp_path, capsys):
    db = tmp_path / "empty.db"
    StudyStore(db).close()
    out = tmp_path / "release"
    cmd = [
        "release",
        "--dataset",
        str(source),
        "--db",
        str(db),
        "--out",
        str(out),
        "--version",
        "1",
    ]
    assert main(cmd) == 0
    assert "release 1 written to" in capsys.readouterr().out
    written = {
        k: v
        for k, v in tree_hashes(out).items()
        if not k.endswith(("release.json", "changes.json", "CHANGELOG.md"))
    }
    assert written == tree_hashes(source)


def test_bad_input_exits_2_with_one_line_and_the_source_unchanged(source, tmp_path, capsys):
    db = _study(tmp_path)
    store = StudyStore(db)
    _propose(store, "ct-1", "answer_key", {"answer": "D"}, author="dr-c")  # contradicts A
    store.close()
    before = tree_hashes(source)
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("x")
    (tmp_path / "link").symlink_to(full)
    base = ["release", "--dataset", str(source), "--db", str(db), "--version", "2"]
    cases = [
        ([*base, "--out", str(tmp_path / "out")], "ds1/test.json, item ct-1, field gt_answer"),
        ([*base, "--out", str(full)], "is not empty"),
        ([*base, "--out", str(tmp_path / "link")], f"link: is a symbolic link (to {full})"),
        ([*base[:-1], "1" * 65, "--out", str(tmp_path / "o")],
         "too long (65 characters, at most 64)"),
        ([*base, "--out", str(source / "ds1" / "r")], "inside the source benchmark"),
        ([*base, "--out", str(tmp_path)], "holds the source benchmark"),
        (["release", "--dataset", str(tmp_path / "nope"), "--db", str(db), "--version", "2",
          "--out", str(tmp_path / "o")], "does not exist"),
        (["release", "--dataset", str(source), "--db", str(tmp_path / "no.db"), "--version",
          "2", "--out", str(tmp_path / "o")], "no.db"),
        ([*base[:-1], "a/b", "--out", str(tmp_path / "o")], "--version 'a/b'"),
    ]  # fmt: skip
    for args, said in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, (args, err)
        assert tree_hashes(source) == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "o").exists()
    assert not (tmp_path / "no.db").exists()  # a command that reads never creates it
    assert main([*cases[0][0], "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["exit_status"] == 2


def test_a_sigterm_during_release_leaves_no_staging_folder(source, tmp_path, capsys, monkeypatch):
    import os
    import signal

    from medrcube_desktop.review import release as release_module

    db = _study(tmp_path)
    before = tree_hashes(source)
    handler = signal.getsignal(signal.SIGTERM)
    real_mirror = release_module.mirror

    def mirror_then_terminated(*args):
        real_mirror(*args)  # the stage holds the source's files now
        assert [p.name for p in tmp_path.glob(".rel.release-*")] != []
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(release_module, "mirror", mirror_then_terminated)
    status = main(["release", "--dataset", str(source), "--db", str(db), "--out",
                   str(tmp_path / "rel"), "--version", "2"])  # fmt: skip
    assert status == 1 and "interrupted" in capsys.readouterr().err
    assert list(tmp_path.glob(".rel.release-*")) == [] and not (tmp_path / "rel").exists()
    assert signal.getsignal(signal.SIGTERM) == handler  # put back after the command
    assert tree_hashes(source) == before


def test_copy_writes_copies(source, tmp_path, capsys):
    db = tmp_path / "empty.db"
    StudyStore(db).close()
    out = tmp_path / "release"
    cmd = ["release", "--dataset", str(source), "--db", str(db), "--out", str(out)]
    assert main([*cmd, "--version", "1", "--copy", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["linked"], summary["copied"]) == (0, 7)
    image = "ds1/images/ct.dcm"
    assert (out / image).stat().st_ino != (source / image).stat().st_ino
    assert np.array_equal(
        np.frombuffer((out / image).read_bytes(), np.uint8),
        np.frombuffer((source / image).read_bytes(), np.uint8),
    )
