"""The rules of a proposed correction that need the item (issue 23): each kind's change
checked against the item with the file, item and field named; the record as its
test.json holds it; blinding before one's own commit; decisions; conflicts."""

import json

import numpy as np
import pytest

from medrcube_desktop.core.corrections import (
    ANSWER_KEY,
    BBOX,
    MASK,
    OPTION_TEXT,
    QUESTION_TEXT,
    RETIRE,
    AcceptedCorrection,
    Decision,
    Proposal,
    encode_labels,
)
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import CorrectionError, StoreError
from medrcube_desktop.review.proposing import (
    build_proposal,
    check_change,
    conflicts,
    decide,
    propose,
    read_record,
    shown_proposals,
)
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import Review, StudyStore
from tests.conftest import dicom_file, item, write_benchmark

T0 = "2026-03-01T10:00:00+00:00"
WHERE = "ds1/test.json, item ct-1"


@pytest.fixture
def bench(tmp_path):
    """ct-1 (answer B "CT" of A-D, a box) and ct-2 (an integer id in the file) on
    CT_small.dcm (128 x 128); keys written in an order of their own."""
    first = {"question": "What is the imaging modality of this image?", **item("ct-1")}
    first["bbox"] = [10, 20, 50, 60]
    second = item(7, question="Which plane?", option_A="Axial", option_B="Coronal",
                  gt_answer="Axial", option_C=None, option_D=None, task="View Identification")  # fmt: skip
    root = write_benchmark(tmp_path / "bench", {"ds1": [first, second]},
                           {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})  # fmt: skip
    return {i.id: i for i in load_benchmark(root).items}


def test_a_proposal_holds_the_record_as_the_file_has_it(bench):
    p = build_proposal(bench["ct-1"], ANSWER_KEY, "1.1", "it is an MRI", "dr-a", {"answer": "A"})
    on_disk = json.loads((bench["ct-1"].source_file).read_text())[0]
    assert p.record_before == on_disk and list(p.record_before) == list(on_disk)
    assert list(p.record_before)[:2] == ["question", "id"]  # the file's order, not the app's
    assert (p.source_file, p.item_id, p.kind, p.change) == ("ds1/test.json", "ct-1",
                                                             ANSWER_KEY, {"answer": "A"})  # fmt: skip
    assert read_record(bench["7"])["id"] == 7  # as written: an integer id stays one


@pytest.mark.parametrize(
    ("kind", "change", "sizes", "said"),
    [
        (ANSWER_KEY, {"answer": "E"}, {}, r"change.answer: 'E' is not an option of the item \(A, B, C, D\)"),
        (ANSWER_KEY, {"answer": "B"}, {}, "change.answer: B is already the answer"),
        (ANSWER_KEY, {"answer": "b"}, {}, "change.answer: 'b' is not an option letter"),
        (ANSWER_KEY, {}, {}, "change.answer: missing"),
        (OPTION_TEXT, {"letter": "E", "text": "PET"}, {}, "change.letter: 'E' is not an option"),
        (OPTION_TEXT, {"letter": "A", "text": "MRI"}, {}, "change.text: option_A already reads 'MRI'"),
        (OPTION_TEXT, {"letter": "A", "text": " MRI\n"}, {}, "change.text: option_A already reads 'MRI'"),
        (OPTION_TEXT, {"letter": "A", "text": "CT"}, {}, r"change.text: option_B already reads 'CT' \(options differ\)"),
        (OPTION_TEXT, {"letter": "A", "text": "\u200b\u00a0"}, {}, "change.text: the new text must have a visible character"),
        (QUESTION_TEXT, {"text": "What is the imaging modality of this image?"}, {}, "change.text: the question already reads so"),
        (QUESTION_TEXT, {"text": 3}, {}, "change.text: the new text must have a visible character"),
        (OPTION_TEXT, {"letter": "A", "text": "M\u200bRI"}, {}, r"change.text: character 2 is U\+200B \(zero width space\), which is not shown as itself"),
        (OPTION_TEXT, {"letter": "C", "text": "C\u00adT"}, {}, r"change.text: character 2 is U\+00AD \(soft hyphen\)"),
        (QUESTION_TEXT, {"text": "Which \u202eytiladom?"}, {}, r"change.text: character 7 is U\+202E \(right-to-left override\)"),
        (QUESTION_TEXT, {"text": "Which \u2067modality\u2069?"}, {}, r"change.text: character 7 is U\+2067 \(right-to-left isolate\)"),
        (BBOX, {"bbox": [10, 20, 50, 60]}, {}, r"change.bbox: \[10, 20, 50, 60\] is already the item's box"),
        (BBOX, {"bbox": [60, 20, 50, 70]}, {}, r"change.bbox: \[60, 20, 50, 70\] is not a box with x0 < x1"),
        (BBOX, {"bbox": [0, 0, float("nan"), 5]}, {}, "change.bbox: .*finite numbers"),
        (BBOX, {"bbox": [0, 0, 128, 5]}, {"image_size": (128, 128)}, r"change.bbox: \[0, 0, 128, 5\] reaches outside the image \(128 × 128 pixels: x below 128, y below 128\)"),
        (BBOX, {"bbox": [0, 0, 5, 128.5]}, {"image_size": (128, 128)}, r"change.bbox: \[0, 0, 5, 128.5\] reaches outside"),
        (MASK, {"slice_index": None, "axis": None, "shape": [64, 64]}, {"slice_shape": (128, 128)},
         r"change.shape: \[64, 64\]: the slice is \[128, 128\]"),
        (RETIRE, {"answer": "A"}, {}, "change.answer: not a field of a retire change"),
        ("typo", {}, {}, "kind: unknown kind 'typo'"),
    ],
)  # fmt: skip
def test_each_kind_is_checked_against_the_item_naming_file_item_and_field(
    bench, kind, change, sizes, said
):
    labels = encode_labels(np.zeros((64, 64), np.uint8)) if kind == MASK else None
    with pytest.raises(CorrectionError, match=f"^{WHERE}, {said}"):
        check_change(bench["ct-1"], kind, change, labels, **sizes)


def test_a_mask_equal_to_the_slice_now_is_refused_and_another_is_not(bench):
    now = np.zeros((64, 64), np.uint16)
    now[10:20, 5:9] = 2
    change = {"slice_index": 3, "axis": 2, "shape": [64, 64]}
    same = encode_labels(now.astype(np.uint8))  # the same labels in another dtype
    with pytest.raises(CorrectionError, match=f"^{WHERE}, change.mask_labels: the slice "
                       "already has these labels$"):  # fmt: skip
        check_change(bench["ct-1"], MASK, change, same, current_labels=now)
    edited = now.astype(np.uint8)
    edited[30, 30] = 1
    check_change(bench["ct-1"], MASK, change, encode_labels(edited), current_labels=now)
    check_change(bench["ct-1"], MASK, change, same)  # the slice not known: not compared


@pytest.mark.parametrize(
    ("labels", "said"),
    [
        (encode_labels(np.zeros((4, 4), np.float32)), "dtype float32: expected uint8 or uint16"),
        (encode_labels(np.zeros((4, 5), np.uint8)), r"shape \[4, 5\] differs from change.shape \[4, 4\]"),
        (b"not a npy", r"not a .npy file \(no NUMPY header\)"),
        (None, "a mask change needs its labels"),
    ],
)  # fmt: skip
def test_mask_labels_are_checked(bench, labels, said):
    change = {"slice_index": None, "axis": None, "shape": [4, 4]}
    with pytest.raises(CorrectionError, match=f"^{WHERE}, mask_labels: {said}"):
        check_change(bench["ct-1"], MASK, change, labels)


def test_a_new_text_is_stored_stripped(bench):
    p = build_proposal(
        bench["ct-1"], OPTION_TEXT, "2.3", "r", "dr-a", {"letter": "D", "text": "  PET \n"}
    )
    assert p.change == {"letter": "D", "text": "PET"}


def test_a_change_that_fits_passes(bench):
    ct = bench["ct-1"]
    check_change(ct, ANSWER_KEY, {"answer": "C"})
    check_change(ct, OPTION_TEXT, {"letter": "D", "text": "PET"})
    check_change(ct, QUESTION_TEXT, {"text": "Which modality?"})
    check_change(ct, BBOX, {"bbox": [0, 0, 127.9, 127]}, image_size=(128, 128))
    labels = encode_labels(np.ones((128, 128), np.uint16))
    check_change(ct, MASK, {"slice_index": None, "axis": None, "shape": [128, 128]}, labels,
                 slice_shape=(128, 128))  # fmt: skip
    check_change(ct, RETIRE, {})


def _review(store, reviewer, item_id):
    store.save_review(Review(reviewer, item_id, dict.fromkeys(RULE_IDS, 1), "", T0, T0))


def test_under_blinding_a_proposal_comes_after_ones_own_commit(bench):
    store = StudyStore(None)  # a study is blind unless its settings say otherwise
    p = build_proposal(bench["ct-1"], RETIRE, "1.4", "no image needed", "dr-a", {})
    with pytest.raises(
        CorrectionError, match="^item ct-1: the study is blind: dr-a, commit your own"
    ):
        propose(store, p)
    _review(store, "dr-b", "ct-1")  # another reviewer's commit does not count
    with pytest.raises(CorrectionError, match="the study is blind"):
        propose(store, p)
    assert store.proposals() == []
    _review(store, "dr-a", "ct-1")
    stored = propose(store, p)
    assert store.proposals() == [stored] and stored.record_before == p.record_before


def test_a_study_that_is_not_blind_takes_a_proposal_at_once(bench):
    store = StudyStore(None)
    StudySettings(blind=False).save(store)
    p = build_proposal(bench["ct-1"], QUESTION_TEXT, "1.3", "ambiguous", "dr-a", {"text": "Which?"})
    assert propose(store, p).change == {"text": "Which?"}


def test_decisions_self_blinding_and_the_latest_wins(bench):
    store = StudyStore(None)
    _review(store, "dr-a", "ct-1")
    p = propose(
        store, build_proposal(bench["ct-1"], ANSWER_KEY, "1.1", "MRI", "dr-a", {"answer": "A"})
    )
    with pytest.raises(StoreError, match="dr-a proposed it and cannot accept it"):
        decide(store, p.uid, "accepted", "I agree with myself", "dr-a")
    with pytest.raises(
        CorrectionError, match="dr-b, commit your own review of the item before you accept"
    ):
        decide(store, p.uid, "accepted", "agree", "dr-b")
    _review(store, "dr-b", "ct-1")
    _review(store, "dr-c", "ct-1")
    assert decide(store, p.uid, "accepted", "agree", "dr-b").revision == 1
    assert [c.proposal.uid for c in store.accepted_corrections()] == [p.uid]
    overturned = decide(store, p.uid, "rejected", "it is a CT", "dr-c")  # the adjudicator
    assert overturned.revision == 2 and store.proposal_status(p.uid) == "rejected"
    assert store.accepted_corrections() == []


def _accepted(item_id, kind, change, uid, author="dr-a", labels=None):
    p = Proposal(item_id, kind, "1.1", "r", author, change, {}, "ds1/test.json", labels, uid)
    return AcceptedCorrection(p, Decision(uid, "accepted", "ok", "dr-z", 1))


def test_conflicts_name_the_item_and_field_set_differently():
    ones, zeros = (
        encode_labels(np.ones((2, 2), np.uint8)),
        encode_labels(np.zeros((2, 2), np.uint8)),
    )
    slice3 = {"slice_index": 3, "axis": 2, "shape": [2, 2]}
    accepted = [
        _accepted("i1", ANSWER_KEY, {"answer": "C"}, "u1"),
        _accepted("i1", ANSWER_KEY, {"answer": "D"}, "u2", "dr-b"),
        _accepted("i1", RETIRE, {}, "u3"),  # left out with its changes: no conflict
        _accepted("i2", OPTION_TEXT, {"letter": "B", "text": "x"}, "u4"),
        _accepted("i2", OPTION_TEXT, {"letter": "B", "text": "x"}, "u5"),  # the same value
        _accepted("i2", OPTION_TEXT, {"letter": "C", "text": "y"}, "u6"),  # another field
        _accepted("i3", MASK, slice3, "u7", labels=ones),
        _accepted("i3", MASK, {**slice3, "slice_index": 4}, "u8", labels=zeros),  # another slice
        _accepted("i3", MASK, slice3, "u9", labels=zeros),
    ]
    found = conflicts(accepted)
    assert len(found) == 2
    assert found[0] == ("ds1/test.json, item i1, field gt_answer: accepted proposals set it differently: "
                        "C (u1 by dr-a), D (u2 by dr-b)")  # fmt: skip
    assert found[1].startswith(
        "ds1/test.json, item i3, field mask_path, slice_index 3 along axis 2 (slice 4 in the viewer): "
        "accepted proposals"
    )
    assert "(u7 by dr-a)" in found[1] and "(u9 by dr-a)" in found[1] and "u8" not in found[1]
    assert conflicts(accepted[3:6]) == []


def test_a_blind_queue_shows_ones_own_and_committed_items_only():
    mine = Proposal("i1", RETIRE, "1.1", "r", "dr-a", uid="a")
    theirs = Proposal("i2", RETIRE, "1.1", "r", "dr-b", uid="b")
    seen = Proposal("i3", RETIRE, "1.1", "r", "dr-b", uid="c")
    everything = [mine, theirs, seen]
    assert shown_proposals(everything, "dr-a", True, {"i3"}) == [mine, seen]
    assert shown_proposals(everything, "dr-a", False, set()) == everything


def test_a_record_gone_from_its_file_is_named(bench, tmp_path):
    ct = bench["ct-1"]
    ct.source_file.write_text(json.dumps([item("other")]))
    with pytest.raises(CorrectionError, match=f"^{WHERE}: no record of this id in the file"):
        build_proposal(ct, RETIRE, "1.1", "r", "dr-a", {})
