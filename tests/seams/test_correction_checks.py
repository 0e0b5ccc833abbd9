"""The seam between the proposals store and the release writer (issue 23): the same change
is judged by one check (``core.corrections.change_problem``), so what ``save_proposal``
refuses the release refuses too, with the same words (a change can reach the release
without the store's check: a study merged from another file, an older app version). And
the queue's "from → to", the ``proposals list`` line and ``changes.json`` say the same
thing of one proposal (one function, ``review.proposal_export``)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from medrcube_desktop.core.corrections import change_problem, encode_labels
from medrcube_desktop.errors import StoreError
from medrcube_desktop.review.proposal_export import change_text, from_to
from medrcube_desktop.review.release import write_release
from medrcube_desktop.review.release_records import ReleaseError
from medrcube_desktop.store import StudyStore
from tests.review.release_fixture import accepted, build, records, tree_hashes

BAD = [
    ("ct-1", "option_text", {"letter": "B", "text": " \t"}, None),
    ("ct-1", "answer_key", {"answer": "Z"}, None),
    ("ct-1", "question_text", {"text": "Which?", "extra": 1}, None),
    ("ct-3", "bbox", {"bbox": [40, 12, 10, 50]}, None),
    ("ct-3", "bbox", {"bbox": [1, 2, 3]}, None),
    ("png-1", "mask", {"slice_index": None, "axis": None, "shape": [48, 64]},
     np.zeros((48, 64), np.int32)),
    ("png-1", "mask", {"slice_index": None, "axis": None, "shape": [48, 64]},
     np.zeros((64, 48), np.uint8)),
    ("vol-1", "mask", {"slice_index": 3, "axis": None, "shape": [20, 16]},
     np.zeros((20, 16), np.uint8)),
    ("vol-1", "mask", {"slice_index": 3, "axis": 2, "shape": [20, 16]}, None),
]  # fmt: skip


@pytest.mark.parametrize(("item_id", "kind", "change", "labels"), BAD)
def test_the_store_and_the_release_refuse_a_change_with_one_message(
    tmp_path, item_id, kind, change, labels
):
    source = build(tmp_path / "src")
    before = tree_hashes(source)
    problem = change_problem(kind, change, None if labels is None else encode_labels(labels))
    assert problem is not None
    correction = accepted(item_id, kind, change, labels=labels)
    with pytest.raises(StoreError) as stored:
        StudyStore(None).save_proposal(correction.proposal)
    with pytest.raises(ReleaseError) as released:
        write_release(source, [correction], tmp_path / "out", "2")
    assert problem[1] in str(stored.value) and problem[1] in str(released.value)
    assert f"item {item_id}" in str(released.value)
    assert tree_hashes(source) == before and not (tmp_path / "out").exists()


def test_the_queue_the_list_and_changes_json_say_the_same_of_each_proposal(tmp_path):
    source = build(tmp_path / "src")
    labels = np.zeros((20, 16), np.uint8)
    labels[2:5, 3:9] = 1
    corrections = [
        accepted("ct-1", "answer_key", {"answer": "A"}),
        accepted("ct-2", "option_text", {"letter": "B", "text": "Frontal"}),
        accepted("ct-4", "question_text", {"text": "Which modality?"}),
        accepted("ct-3", "bbox", {"bbox": [1, 2, 30, 40]}),
        accepted("vol-1", "mask", {"slice_index": 3, "axis": 2, "shape": [20, 16]},
                 labels=labels),
        accepted("png-3", "retire", {}),
    ]  # fmt: skip
    by_id = {r["id"]: r for rows in records().values() for r in rows}
    corrections = [  # each with its record as it was, as the store holds it
        dataclasses.replace(c, proposal=dataclasses.replace(
            c.proposal, record_before=by_id[c.proposal.item_id]))
        for c in corrections
    ]  # fmt: skip
    write_release(source, corrections, tmp_path / "out", "2")
    changes = json.loads((tmp_path / "out" / "changes.json").read_text("utf-8"))
    entries = {c["proposal_uid"]: c for i in changes["items"] for c in i["changes"]}
    for correction in corrections:
        p = correction.proposal
        before, after = from_to(p)
        entry = entries[p.uid]
        if p.kind == "answer_key":  # letters and texts, one notation on both sides
            record = by_id[p.item_id]
            held = next(
                k[-1] for k in record if k.startswith("option_") and record[k] == entry["from"]
            )
            assert (before, after) == (
                f"{held}. {entry['from']}",
                f"{p.change['answer']}. {entry['to']}",
            )
        elif entry["field"] is not None:
            assert before.startswith(entry["field"]) or p.kind == "question_text"
        if p.kind == "mask":  # the slice as the list names it, the old mask's path
            assert "slice_index 3 along axis 2" in after and "slice_index 3 along axis 2" in (
                change_text(p)
            )
            assert entry["from"] == by_id["vol-1"]["mask_path"] and entry["from"] in before
        elif p.kind == "retire":
            assert entry["from"] is None and "retired" in after
        else:  # a text as it is, a box as its list
            assert _shown(entry["from"]) in before and _shown(entry["to"]) in after


def _shown(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@pytest.mark.parametrize(("box", "refused"), [([0, 0, 21, 17], False), ([0, 0, 22, 10], True)])
def test_the_window_and_proposals_propose_judge_a_volume_box_alike(tmp_path, capsys, box, refused):
    """A box on a volume is in the stored slice's pixels (18 rows, 22 columns here): the
    window checks it against the slice it shows, and so does the command."""
    import nibabel as nib

    from medrcube_desktop.cli import main
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.errors import CorrectionError
    from medrcube_desktop.imaging.edit_slice import load_edit_slice
    from medrcube_desktop.review.proposing import build_proposal
    from medrcube_desktop.review.study import StudySettings
    from tests.conftest import item, write_benchmark

    root = write_benchmark(
        tmp_path / "bench", {"ds": [item("v", image="v.nii.gz", modality="MRI")]}
    )
    volume = np.arange(18 * 22 * 7, dtype=np.int16).reshape(18, 22, 7)
    nib.save(nib.Nifti1Image(volume, np.diag([-1.5, 2.0, 3.0, 1.0])), root / "ds" / "v.nii.gz")
    loaded = load_benchmark(root).items[0]
    edit = load_edit_slice(loaded)
    assert edit.stored_shape == (18, 22)
    size = (edit.stored_shape[1], edit.stored_shape[0])  # as the window's store_proposal
    said = None
    try:
        build_proposal(loaded, "bbox", "2.1", "r", "dr-a", {"bbox": box}, image_size=size)
    except CorrectionError as exc:
        said = str(exc)
    db = tmp_path / "study.db"
    store = StudyStore(db)
    StudySettings(blind=False).save(store)
    store.close()
    argv = ["proposals", "propose", "--db", str(db), "--dataset", str(root), "--reviewer",
            "dr-a", "--item", "v", "--kind", "bbox", "--rule", "2.1", "--reason", "r",
            "--bbox", ",".join(map(str, box))]  # fmt: skip
    status = main(argv)
    err = capsys.readouterr().err
    if refused:
        assert said is not None and "reaches outside the image (22 × 18 pixels" in said
        assert status == 2 and said.split("change.bbox: ")[1] in err
    else:
        assert said is None and status == 0, err


def test_the_window_refuses_a_mask_equal_to_the_slice_as_the_command_does(tmp_path, capsys):
    """An empty mask on an item without one changes nothing: the window's store_proposal
    and ``proposals propose`` both refuse it naming change.mask_labels; one label more
    is stored."""
    import nibabel as nib

    from medrcube_desktop.cli import main
    from medrcube_desktop.core.corrections import encode_labels
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.errors import CorrectionError
    from medrcube_desktop.imaging.edit_slice import load_edit_slice
    from medrcube_desktop.review.corrections import Proposal
    from medrcube_desktop.review.study import StudySettings
    from medrcube_desktop.ui.corrections.controls import store_proposal
    from tests.conftest import item, write_benchmark

    root = write_benchmark(
        tmp_path / "bench", {"ds": [item("v", image="v.nii.gz", modality="MRI")]}
    )
    volume = np.arange(18 * 22 * 7, dtype=np.int16).reshape(18, 22, 7)
    nib.save(nib.Nifti1Image(volume, np.eye(4)), root / "ds" / "v.nii.gz")
    loaded = load_benchmark(root).items[0]
    edit = load_edit_slice(loaded)
    store = StudyStore(tmp_path / "study.db")
    StudySettings(blind=False).save(store)
    empty = np.zeros(edit.stored_shape, np.uint8)
    change = {"slice_index": edit.slice_index, "axis": edit.volume_axis,
              "shape": list(edit.stored_shape)}  # fmt: skip
    draft = Proposal("v", "mask", "1.4", "r", "dr-a", change, mask_labels=encode_labels(empty))
    with pytest.raises(CorrectionError, match="change.mask_labels: the slice already has these"):
        store_proposal(store, loaded, draft, edit)
    one = empty.copy()
    one[3, 4] = 1
    stored = store_proposal(
        store, loaded, dataclasses.replace(draft, mask_labels=encode_labels(one)), edit
    )
    assert store.proposals() == [stored]
    store.close()
    np.save(tmp_path / "empty.npy", empty)
    status = main(["proposals", "propose", "--db", str(tmp_path / "study.db"), "--dataset",
                   str(root), "--reviewer", "dr-b", "--item", "v", "--kind", "mask", "--rule",
                   "1.4", "--reason", "r", "--mask-npy", str(tmp_path / "empty.npy"),
                   "--slice-index", str(edit.slice_index), "--axis", str(edit.volume_axis)])  # fmt: skip
    assert status == 2
    assert (
        "ds/test.json, item v, change.mask_labels: the slice already has" in capsys.readouterr().err
    )
