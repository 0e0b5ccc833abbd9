"""The seam between ``proposals``, ``release``, ``render`` and ``validate`` on the command
line (issue 23) on the demo benchmark (``demo build``): a mask proposed from a ``.npy``
of the slice ``render --json`` shows (its ``slice_index`` and ``axis``, the convention of
``core.corrections.MASK``), another along another axis, a 2-D mask shared by two items,
a box and an answer key; accepted by another reviewer; ``release``; ``validate --deep``
passes on the release; the release holds the labels exactly where the ``.npy`` put them;
the source tree's hashes are the same after every command."""

from __future__ import annotations

import json

import nibabel as nib
import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore
from tests.review.release_fixture import tree_hashes

T0 = "2026-03-01T10:00:00+00:00"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo") / "demo"
    assert main(["demo", "build", str(root)]) == 0
    return root


def test_propose_decide_release_validate_on_the_demo(demo, tmp_path, capsys):
    before = tree_hashes(demo)
    items = {i.id: i for i in load_benchmark(demo).items}
    db = tmp_path / "study.db"
    store = StudyStore(db)  # a blind study: each reviewer commits the items first
    for reviewer in ("dr-a", "dr-b"):
        for item_id in ("demo-0001", "demo-0008", "demo-0014", "demo-0018"):
            store.save_review(Review(reviewer, item_id, dict.fromkeys(RULE_IDS, 1), "", T0, T0))
    store.close()

    def run(*argv):
        status = main(list(argv))
        out, err = capsys.readouterr()
        assert status == 0, err
        assert tree_hashes(demo) == before, argv
        return json.loads(out) if "--json" in argv else out

    def propose(item_id, kind, *change):
        return run("proposals", "propose", "--db", str(db), "--dataset", str(demo),
                   "--reviewer", "dr-a", "--item", item_id, "--kind", kind, "--rule", "2.1",
                   "--reason", f"{kind} is wrong", *change, "--json")  # fmt: skip

    # the slice the window shows, as render reports it
    volume = items["demo-0001"]
    facts = run("render", str(volume.image_path), "--mask", str(volume.mask_path), "--out",
                str(tmp_path / "shown.png"), "--json")  # fmt: skip
    k, axis = facts["slice_index"], facts["axis"]
    assert axis == 2
    source = np.asarray(nib.load(volume.mask_path).dataobj)
    shown = np.take(source, k, axis=axis).astype(np.uint8)
    shown[5:15, 20:40] = 7
    np.save(tmp_path / "shown.npy", shown)
    across = np.take(source, 40, axis=0).astype(np.uint8)  # another axis: the CLI allows it
    across[:8, :8] = 9
    np.save(tmp_path / "across.npy", across)
    shared = items["demo-0018"]
    with Image.open(shared.mask_path) as picture:
        old_2d = np.asarray(picture).astype(np.uint8)
    new_2d = old_2d.copy()
    new_2d[:6, -6:] = 3
    np.save(tmp_path / "picture.npy", new_2d)

    uids = [
        propose("demo-0001", "mask", "--mask-npy", str(tmp_path / "shown.npy"),
                "--slice-index", str(k), "--axis", str(axis))["uid"],
        propose("demo-0001", "mask", "--mask-npy", str(tmp_path / "across.npy"),
                "--slice-index", "40", "--axis", "0")["uid"],
        propose("demo-0018", "mask", "--mask-npy", str(tmp_path / "picture.npy"))["uid"],
        propose("demo-0008", "bbox", "--bbox", "3,4,20,30")["uid"],
        propose("demo-0014", "answer_key", "--answer", "A")["uid"],
    ]  # fmt: skip
    for uid in uids:
        decided = run("proposals", "decide", "--db", str(db), "--reviewer", "dr-b",
                      "--proposal", uid, "--accept", "--reason", "agreed", "--json")  # fmt: skip
        assert decided["status"] == "accepted"

    out = tmp_path / "release"
    summary = run("release", "--dataset", str(demo), "--db", str(db), "--out", str(out),
                  "--version", "2", "--json")  # fmt: skip
    assert summary["changed"] == 4 and summary["retired"] == 0
    assert sorted(summary["masks_written"]) == [
        "nilearn_mni152/images/mni152_gm_mask.r2.nii.gz",
        "pydicom_data/images/mr_siemens_dicom_withoverlays_mask.r2.png",
    ]
    checked = run("validate", str(out), "--deep", "--json")
    assert checked["problems"] == []

    released = {i.id: i for i in load_benchmark(out).items}
    new = nib.load(released["demo-0001"].mask_path)
    assert np.array_equal(new.affine, nib.load(volume.mask_path).affine)
    data = np.asarray(new.dataobj)
    assert np.array_equal(np.take(data, k, axis=2), shown)
    assert np.array_equal(np.take(data, 40, axis=0), across)
    untouched = np.ones(data.shape, bool)
    untouched[:, :, k] = untouched[40, :, :] = False
    assert np.array_equal(data[untouched], source[untouched])
    # the released mask shows on the slice render reports, as the .npy painted it
    again = run("render", str(released["demo-0001"].image_path), "--mask",
                str(released["demo-0001"].mask_path), "--slice", str(k), "--out",
                str(tmp_path / "again.png"), "--json")  # fmt: skip
    assert (again["slice_index"], again["axis"]) == (k, axis)
    with Image.open(released["demo-0018"].mask_path) as picture:
        assert np.array_equal(np.asarray(picture), new_2d)
    assert released["demo-0019"].mask_path.name == items["demo-0019"].mask_path.name  # kept
    assert released["demo-0008"].bbox == (3.0, 4.0, 20.0, 30.0)
    assert released["demo-0014"].answer == "A"
    assert tree_hashes(demo) == before
