"""``merge`` brings proposals and their decisions from a reviewer's own file into the
study: each copied once, as it was, decisions numbered after the study's own, and a
proposal decided in both files apart said as a conflict."""

import numpy as np

from medrcube_desktop.core.corrections import (
    MASK,
    RETIRE,
    Decision,
    Proposal,
    decode_labels,
    encode_labels,
)
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.merging import merge

RECORD = {"id": "i1", "question": "q", "gt_answer": "a"}


def test_proposals_and_decisions_are_merged_once_in_order(tmp_path):
    labels = np.arange(6, dtype=np.uint8).reshape(2, 3)
    theirs = StudyStore(tmp_path / "b.db")
    mask = theirs.save_proposal(Proposal("i1", MASK, "1.1", "bigger", "dr-b",
                                         {"slice_index": None, "axis": None, "shape": [2, 3]},
                                         RECORD, "ds/test.json", encode_labels(labels)))  # fmt: skip
    theirs.save_decision(Decision(mask.uid, "accepted", "yes", "dr-c"))
    theirs.close()
    study = StudyStore(tmp_path / "study.db")
    own = study.save_proposal(Proposal("i2", RETIRE, "1.4", "no image needed", "dr-a"))
    summary = merge(study, [tmp_path / "b.db"])
    (merged,) = summary.files
    assert (merged.added["proposals"], merged.added["proposal_decisions"]) == (1, 1)
    assert merged.conflicts == []
    assert [p.uid for p in study.proposals()] == [own.uid, mask.uid]
    copied = study.proposal(mask.uid)
    assert copied == mask and np.array_equal(decode_labels(copied.mask_labels), labels)
    assert [(d.decider, d.revision) for d in study.decisions(mask.uid)] == [("dr-c", 1)]
    again = merge(study, [tmp_path / "b.db"]).files[0]  # merging again adds nothing
    assert (again.added["proposals"], again.added["proposal_decisions"]) == (0, 0)


def test_a_proposal_decided_in_both_files_apart_is_a_conflict(tmp_path):
    theirs = StudyStore(tmp_path / "b.db")
    p = theirs.save_proposal(Proposal("i1", RETIRE, "1.4", "r", "dr-b"))
    first = theirs.save_decision(Decision(p.uid, "accepted", "yes", "dr-c"))
    theirs.close()
    study = StudyStore(tmp_path / "study.db")
    merge(study, [tmp_path / "b.db"])
    study.save_decision(Decision(p.uid, "rejected", "no", "dr-d"))  # in the study only
    theirs = StudyStore(tmp_path / "b.db")
    theirs.save_decision(Decision(p.uid, "accepted", "on review, yes", "dr-e"))  # in b only
    theirs.close()
    (merged,) = merge(study, [tmp_path / "b.db"]).files
    assert merged.added["proposal_decisions"] == 1
    assert [(d.uid == first.uid, d.decider, d.revision) for d in study.decisions(p.uid)] == [
        (True, "dr-c", 1), (False, "dr-d", 2), (False, "dr-e", 3)]  # fmt: skip
    assert study.proposal_status(p.uid) == "accepted"
    assert merged.conflicts == [
        f"{tmp_path / 'b.db'}: proposal {p.uid} was decided in both databases apart (1 "
        "decision(s) only in the study, 1 only in this file): this file's became revisions "
        f"3–3, so the latest is now dr-e's accepted ({study.decisions(p.uid)[-1].created_at}); "
        "decide again if another should stand"
    ]
