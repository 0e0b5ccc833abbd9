"""``proposals propose|decide|list|export`` end to end on a small real benchmark (a CT
slice and an fMRI volume): stored values read back, bad input exit 2 naming the item
and field, blinding, and the benchmark's files unchanged after every command."""

import csv
import hashlib
import json

import numpy as np
import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.corrections import decode_labels
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore
from tests.conftest import dicom_file, item, nibabel_example, write_benchmark

T0 = "2026-03-01T10:00:00+00:00"


def tree(root):
    """Every file under ``root`` with its SHA-256, and every folder."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        if p.is_file() else "folder"
        for p in sorted(root.rglob("*"))
    }  # fmt: skip


@pytest.fixture
def study(tmp_path):
    """A benchmark (ct-1, ct-2 on CT_small.dcm, 128 x 128; vol-1 on a 128 x 96 x 24
    NIfTI), and a blind study where dr-a, dr-b and dr-c committed ct-1 and vol-1."""
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1", bbox=[10, 10, 40, 40]), item("ct-2")],
         "ds2": [item("vol-1", image="images/vol.nii.gz", modality="MR", dataset="ds2")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
         "ds2/images/vol.nii.gz": nibabel_example()},
    )  # fmt: skip
    db = tmp_path / "study.db"
    store = StudyStore(db)
    for reviewer in ("dr-a", "dr-b"):
        for item_id in ("ct-1", "vol-1"):
            store.save_review(Review(reviewer, item_id, dict.fromkeys(RULE_IDS, 1), "", T0, T0))
    store.close()
    return root, db


def run(capsys, root, before, *argv):
    """``main(argv)`` → (status, stdout, stderr), a usage error's too (argparse exits);
    the benchmark must be unchanged."""
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    assert tree(root) == before, argv
    return status, out, err


def test_propose_decide_list_export_round_trip(study, tmp_path, capsys):
    root, db = study
    before = tree(root)
    assert len([v for v in before.values() if v != "folder"]) == 4
    common = ["--db", str(db), "--dataset", str(root)]

    def propose(reviewer, item_id, kind, rule, *change):
        status, out, err = run(capsys, root, before, "proposals", "propose", *common,
                               "--reviewer", reviewer, "--item", item_id, "--kind", kind,
                               "--rule", rule, "--reason", f"{kind} is wrong", *change,
                               "--json")  # fmt: skip
        assert status == 0, err
        return json.loads(out)

    key = propose("dr-a", "ct-1", "answer_key", "1.1", "--answer", "A")
    on_disk = json.loads((root / "ds1/test.json").read_text())[0]
    assert key["record_before"] == on_disk and list(key["record_before"]) == list(on_disk)
    assert (key["change"], key["field"], key["source_file"], key["status"]) == (
        {"answer": "A"}, "gt_answer", "ds1/test.json", "open")  # fmt: skip
    option = propose("dr-a", "ct-1", "option_text", "2.3", "--letter", "D", "--text", "PET")
    question = propose("dr-b", "ct-1", "question_text", "1.3", "--text", "Which modality?")
    box = propose("dr-b", "ct-1", "bbox", "1.4", "--bbox", "5,6,100.5,127")
    assert box["change"] == {"bbox": [5, 6, 100.5, 127]}
    labels = np.zeros((128, 96), np.uint8)
    labels[30:40, 20:25] = 2
    np.save(tmp_path / "labels.npy", labels)
    mask = propose("dr-a", "vol-1", "mask", "1.1", "--mask-npy", str(tmp_path / "labels.npy"),
                   "--slice-index", "5", "--axis", "2")  # fmt: skip
    assert mask["change"] == {"slice_index": 5, "axis": 2, "shape": [128, 96]}
    assert mask["mask_labels_sha256"] == hashlib.sha256(
        (tmp_path / "labels.npy").read_bytes()).hexdigest()  # fmt: skip
    retire = propose("dr-b", "vol-1", "retire", "1.4")
    stored = StudyStore(db).proposals()
    assert [p.uid for p in stored] == [r["uid"] for r in (key, option, question, box, mask, retire)]
    assert np.array_equal(decode_labels(stored[4].mask_labels), labels)

    def decide(reviewer, uid, flag, status=0):
        code, out, err = run(capsys, root, before, "proposals", "decide", "--db", str(db),
                             "--reviewer", reviewer, "--proposal", uid, flag, "--reason",
                             f"{reviewer} {flag}", "--json")  # fmt: skip
        assert code == status, err
        return json.loads(out) if status == 0 else err

    assert "dr-a proposed it and cannot accept it" in decide("dr-a", key["uid"], "--accept", 2)
    assert "dr-c, commit your own review of the item before you reject" in decide(
        "dr-c", key["uid"], "--reject", 2)  # fmt: skip
    accepted = decide("dr-b", key["uid"], "--accept")
    assert (accepted["status"], accepted["decision"]["revision"]) == ("accepted", 1)
    store = StudyStore(db)
    store.save_review(Review("dr-c", "ct-1", dict.fromkeys(RULE_IDS, 1), "", T0, T0))
    store.close()
    overturned = decide("dr-c", key["uid"], "--reject")  # the adjudicator overturns
    assert (overturned["status"], overturned["decision"]["revision"]) == ("rejected", 2)
    decide("dr-b", mask["uid"], "--accept")
    decide("dr-b", option["uid"], "--withdraw", 2)  # only its author withdraws
    decide("dr-a", option["uid"], "--withdraw")
    decide("dr-a", retire["uid"], "--accept")

    code, out, _ = run(capsys, root, before, "proposals", "list", "--db", str(db), "--json")
    listed = json.loads(out)
    assert code == 0 and listed["n"] == 6
    assert [p["status"] for p in listed["proposals"]] == [
        "rejected", "withdrawn", "open", "open", "accepted", "accepted"]  # fmt: skip
    assert [len(p["history"]) for p in listed["proposals"]] == [2, 1, 0, 0, 1, 1]
    code, out, _ = run(capsys, root, before, "proposals", "list", "--db", str(db),
                       "--status", "open", "--item", "ct-1")  # fmt: skip
    lines = out.splitlines()
    assert code == 0 and [line.split("\t")[0] for line in lines] == [question["uid"], box["uid"]]
    assert lines[1].split("\t")[1:] == [
        "ct-1",
        "bbox",
        "1.4",
        "open",
        "dr-b",
        "Now: bbox [10, 10, 40, 40] → Proposed: bbox [5, 6, 100.5, 127]",  # the queue's words
    ]

    code, out, _ = run(capsys, root, before, "proposals", "export", "--db", str(db),
                       "--out", str(tmp_path / "p.json"), "--json")  # fmt: skip
    assert code == 0 and json.loads(out) == {"proposals": 6, "out": str(tmp_path / "p.json")}
    document = json.loads((tmp_path / "p.json").read_text())
    assert (document["format"], document["format_version"]) == ("medrcube-proposals", 1)
    first = document["proposals"][0]
    assert first["record_before"] == on_disk and first["decision"]["decider"] == "dr-c"
    assert [d["decision"] for d in first["history"]] == ["accepted", "rejected"]
    code, _, _ = run(capsys, root, before, "proposals", "export", "--db", str(db),
                     "--out", str(tmp_path / "p.csv"))  # fmt: skip
    with open(tmp_path / "p.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert code == 0 and [r["uid"] for r in rows] == [p["uid"] for p in listed["proposals"]]
    assert (rows[0]["status"], rows[0]["decided_by"], rows[0]["revisions"]) == (
        "rejected",
        "dr-c",
        "2",
    )
    assert json.loads(rows[0]["change"]) == {"answer": "A"} and rows[3]["decided_by"] == ""


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--item", "ct-1", "--kind", "answer_key", "--answer", "E"],
         r"ds1/test.json, item ct-1, change.answer: 'E' is not an option of the item (A, B, C, D)"),
        (["--item", "ct-1", "--kind", "answer_key", "--answer", "B"],
         "ds1/test.json, item ct-1, change.answer: B is already the answer"),
        (["--item", "ct-1", "--kind", "answer_key"], "item ct-1, --kind answer_key takes --answer: give --answer"),
        (["--item", "ct-1", "--kind", "retire", "--text", "x"], "item ct-1, --kind retire takes no change flag: not --text"),
        (["--item", "ct-1", "--kind", "bbox", "--bbox", "0,0,128,20"],
         "ds1/test.json, item ct-1, change.bbox: [0, 0, 128, 20] reaches outside the image (128 × 128 pixels"),
        (["--item", "ct-1", "--kind", "bbox", "--bbox", "0", "0", "30.5", "128"],
         "ds1/test.json, item ct-1, change.bbox: [0, 0, 30.5, 128] reaches outside the image"),
        (["--item", "ct-1", "--kind", "bbox", "--bbox", "1", "2", "3"],
         "argument --bbox: expected four finite numbers, X0,Y0,X1,Y1 or X0 Y0 X1 Y1, got '1 2 3'"),
        (["--item", "ct-1", "--kind", "bbox", "--bbox", "10,10,40,40"],
         "ds1/test.json, item ct-1, change.bbox: [10, 10, 40, 40] is already the item's box"),
        (["--item", "ct-1", "--kind", "option_text", "--letter", "A", "--text", "CT"],
         "ds1/test.json, item ct-1, change.text: option_B already reads 'CT'"),
        (["--item", "vol-1", "--kind", "mask", "--mask-npy", "WRONG", "--slice-index", "5", "--axis", "2"],
         "ds2/test.json, item vol-1, change.shape: [96, 128]: the slice is [128, 96] (rows, cols)"),
        (["--item", "vol-1", "--kind", "mask", "--mask-npy", "WRONG"],
         "ds2/test.json, item vol-1, change.slice_index: "),
        (["--item", "vol-1", "--kind", "mask", "--mask-npy", "WRONG"],
         "vol.nii.gz: a volume [128, 96, 24]: give slice_index and axis"),
        (["--item", "vol-1", "--kind", "mask", "--mask-npy", "WRONG", "--slice-index", "24", "--axis", "2"],
         "ds2/test.json, item vol-1, change.slice_index: "),
        (["--item", "vol-1", "--kind", "mask", "--mask-npy", "EMPTY", "--slice-index", "5", "--axis", "2"],
         "ds2/test.json, item vol-1, change.mask_labels: the slice already has these labels"),
        (["--item", "nope", "--kind", "retire"], "no item 'nope' among the items that load"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_naming_item_and_field(study, tmp_path, capsys, argv, said):
    root, db = study
    before = tree(root)
    np.save(tmp_path / "wrong.npy", np.zeros((96, 128), np.uint16))
    np.save(tmp_path / "empty.npy", np.zeros((128, 96), np.uint8))  # as a new mask starts
    files = {"WRONG": str(tmp_path / "wrong.npy"), "EMPTY": str(tmp_path / "empty.npy")}
    argv = [files.get(a, a) for a in argv]
    status, out, err = run(capsys, root, before, "proposals", "propose", "--db", str(db),
                           "--dataset", str(root), "--reviewer", "dr-a", "--rule", "1.1",
                           "--reason", "r", *argv)  # fmt: skip
    assert status == 2 and out == ""
    assert said in err and err.count("\n") == 1
    assert StudyStore(db).proposals() == []


def test_a_blind_study_refuses_a_proposal_before_ones_commit(study, tmp_path, capsys):
    root, db = study
    before = tree(root)
    status, _, err = run(capsys, root, before, "proposals", "propose", "--db", str(db),
                         "--dataset", str(root), "--reviewer", "dr-a", "--item", "ct-2",
                         "--kind", "retire", "--rule", "1.4", "--reason", "r")  # fmt: skip
    assert status == 2
    assert "item ct-2: the study is blind: dr-a, commit your own review of the item" in err
    fresh = tmp_path / "new.db"  # a new database holds no commit: refused, and not left
    status, _, _ = run(capsys, root, before, "proposals", "propose", "--db", str(fresh),
                       "--dataset", str(root), "--reviewer", "dr-a", "--item", "ct-1",
                       "--kind", "retire", "--rule", "1.4", "--reason", "r")  # fmt: skip
    assert status == 2 and not fresh.exists()


def test_the_author_cannot_accept_their_own_proposal_in_another_case(study, capsys):
    root, db = study
    before = tree(root)
    status, out, err = run(capsys, root, before, "proposals", "propose", "--db", str(db),
                           "--dataset", str(root), "--reviewer", "DR-A", "--item", "ct-1",
                           "--kind", "retire", "--rule", "1.4", "--reason", "r", "--json")  # fmt: skip
    assert status == 0, err  # dr-a's commit of ct-1 is DR-A's: the blind study allows it
    uid = json.loads(out)["uid"]
    for reviewer, flag in (("dr-a", "--accept"), ("Dr-A", "--reject")):
        status, out, err = run(capsys, root, before, "proposals", "decide", "--db", str(db),
                               "--reviewer", reviewer, "--proposal", uid, flag, "--reason",
                               "mine")  # fmt: skip
        assert status == 2 and out == ""
        assert f"{reviewer} proposed it and cannot {flag[2:]} it" in err
    assert StudyStore(db).decisions(uid) == [] and StudyStore(db).proposal_status(uid) == "open"


def test_export_refuses_a_file_inside_the_benchmark_or_unwritable(study, tmp_path, capsys):
    import os

    root, db = study
    before = tree(root)
    status, _, err = run(capsys, root, before, "proposals", "propose", "--db", str(db),
                         "--dataset", str(root), "--reviewer", "dr-a", "--item", "ct-1",
                         "--kind", "retire", "--rule", "1.4", "--reason", "r")  # fmt: skip
    assert status == 0, err
    for out, said in ((root / "x.json", f"is inside the benchmark {root}"),
                      (root / "ds1" / "x.json", "is inside the benchmark dataset")):  # fmt: skip
        status, out_text, err = run(capsys, root, before, "proposals", "export", "--db",
                                    str(db), "--out", str(out))  # fmt: skip
        assert status == 2 and out_text == "" and f"{out}: " in err and said in err
        assert err.count("\n") == 1 and not out.exists()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        if os.access(locked, os.W_OK):  # root ignores the mode
            pytest.skip("running as root: a read-only folder is writable")
        status, _, err = run(capsys, root, before, "proposals", "export", "--db", str(db),
                             "--out", str(locked / "p.json"))  # fmt: skip
    finally:
        locked.chmod(0o755)
    assert status == 2 and err.count("\n") == 1 and str(locked) in err
    assert "Traceback" not in err and "ermission denied" in err
    assert list(locked.iterdir()) == []


def test_list_and_export_of_a_study_without_proposals(study, tmp_path, capsys):
    root, db = study
    before = tree(root)
    status, out, _ = run(capsys, root, before, "proposals", "list", "--db", str(db))
    assert status == 0 and out == f"no proposal in {db}\n"
    out_file = tmp_path / "p.json"
    out_file.write_text("earlier export")
    status, _, err = run(capsys, root, before, "proposals", "export", "--db", str(db),
                         "--out", str(out_file))  # fmt: skip
    assert status == 2 and f"no proposal in {db}; nothing written to {out_file}" in err
    assert out_file.read_text() == "earlier export"
    status, _, err = run(capsys, root, before, "proposals", "export", "--db", str(db),
                         "--out", str(tmp_path / "p.txt"))  # fmt: skip
    assert status == 2 and "give a .json or .csv file" in err
    status, _, err = run(capsys, root, before, "proposals", "decide", "--db", str(tmp_path / "x.db"),
                         "--reviewer", "dr-b", "--proposal", "u", "--accept", "--reason", "r")  # fmt: skip
    assert status == 2 and "no such review database" in err and not (tmp_path / "x.db").exists()
