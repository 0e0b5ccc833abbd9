"""What a release does to one item: the answer key as option text, ``correct_index`` in
the record's own counting, option-text and answer-key corrections together, retirement."""

from __future__ import annotations

import pytest

from medrcube_desktop.review.release_plan import (
    ReleaseError,
    file_index_base,
    locate,
    plan_item,
)
from tests.conftest import item
from tests.review.release_fixture import accepted


def _plan(record, *corrections, base=0):
    return plan_item(record["id"], "ds/test.json", 0, record, corrections, base)


def test_an_option_renamed_on_the_new_answer_gives_gt_answer_its_new_text():
    record = item("a", correct_index=1)  # B = CT, 0-based
    plan = _plan(
        record,
        accepted("a", "answer_key", {"answer": "D"}),
        accepted("a", "option_text", {"letter": "D", "text": "Sonography"}),
    )
    assert plan.updates == {"option_D": "Sonography", "gt_answer": "Sonography", "correct_index": 3}
    assert (plan.answer_before, plan.answer_after) == ("B", "D")
    assert [e["to"] for e in plan.entries] == ["Sonography", "Sonography"]  # answer, option
    assert [e["field"] for e in plan.entries] == ["gt_answer", "option_D"]  # in order proposed


def test_the_old_answer_renamed_while_the_answer_moves_keeps_gt_on_the_new_option():
    record = item("a")
    plan = _plan(
        record,
        accepted("a", "option_text", {"letter": "B", "text": "CT scan"}),
        accepted("a", "answer_key", {"answer": "A"}),
    )
    assert plan.updates == {"option_B": "CT scan", "gt_answer": "MRI"}  # no correct_index
    assert plan.needs_new_answer  # an option's text changed: a new answer


def test_renaming_the_answer_alone_follows_on_gt_answer_without_touching_the_index():
    plan = _plan(
        item("a", correct_index=1),
        accepted("a", "option_text", {"letter": "B", "text": "CT (contrast)"}),
    )
    assert plan.updates == {"option_B": "CT (contrast)", "gt_answer": "CT (contrast)"}
    assert plan.answer_after == "B"


@pytest.mark.parametrize(
    ("index", "base", "expected"),
    [(1, 0, 0), (2, 0, 1), ("2", 0, "1"), (7, 0, 0), (7, 1, 1)],
)
def test_correct_index_is_counted_as_the_record_counts_it(index, base, expected):
    # B is the answer: 1 reads it from 0, 2 from 1; 7 reads it neither way (the file's
    # convention then decides); text stays text
    plan = _plan(
        item("a", correct_index=index), accepted("a", "answer_key", {"answer": "A"}), base=base
    )
    assert plan.updates["correct_index"] == expected


def test_a_file_counts_from_where_most_of_its_indices_name_their_answer():
    zero = [item(f"z{n}", correct_index=1) for n in range(2)]
    one = [item(f"o{n}", correct_index=2) for n in range(3)]
    assert file_index_base(zero + one) == 1 and file_index_base(zero) == 0
    assert file_index_base([item("x"), "not a record"]) == 0


def test_a_retired_item_lists_every_correction_and_needs_no_new_answer():
    plan = _plan(
        item("a"),
        accepted("a", "question_text", {"text": "Which one?"}),
        accepted("a", "retire", rule="2.1"),
    )
    assert plan.retired and plan.answer_after is None and not plan.needs_new_answer
    assert [(e["kind"], e["field"]) for e in plan.entries] == [
        ("question_text", "question"),
        ("retire", None),
    ]


def test_an_unknown_kind_or_a_record_that_is_no_object_is_refused():
    with pytest.raises(
        ReleaseError, match="ds/test.json item a: unknown kind of correction 'typo'"
    ):
        _plan(item("a"), accepted("a", "typo"))
    with pytest.raises(ReleaseError, match="item b: the record is not a JSON object"):
        plan_item("b", "ds/test.json", 0, ["b"], [], 0)


def test_an_id_in_two_files_is_placed_by_the_proposal_source_file():
    ids = {"a": [("d1/test.json", 0), ("d2/test.json", 4)]}
    named = accepted("a", "retire", source_file="d2/test.json")
    assert locate(ids, [named]) == {"a": ("d2/test.json", 4)}
    with pytest.raises(
        ReleaseError, match=r"item a: id held by several records \(d1/test.json, d2/test.json\)"
    ):
        locate(ids, [accepted("a", "retire")])


def test_a_correction_made_on_another_value_of_its_field_is_refused():
    from dataclasses import replace

    record = item("a")
    stale = accepted("a", "answer_key", {"answer": "A"})
    stale = replace(
        stale, proposal=replace(stale.proposal, record_before={**record, "gt_answer": "X-ray"})
    )
    with pytest.raises(
        ReleaseError,
        match=r"item a: gt_answer: the source holds 'CT', the proposal p\d+ was made on 'X-ray'",
    ):
        _plan(record, stale)
    fresh = replace(
        stale, proposal=replace(stale.proposal, record_before={**record, "question": "other"})
    )
    assert _plan(record, fresh).updates["gt_answer"] == "MRI"  # another field changed: fine
