"""Item-by-item filters over many runs (issue 14, item 4): hand-built matrices whose
answers are known, every expected id list written out by hand."""

from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.item_filters import (
    FILTERS,
    all_right,
    all_wrong,
    cell_states,
    filter_mask,
    item_summary,
    matches_text,
    models_disagree,
    only_some_families_right,
    outcome_table,
    right_without_image,
    search_texts,
    text_image_pairs,
    unparsed_by_any,
)
from medrcube_desktop.evaluation.compare.leaderboard import right_without_image as one_pair
from medrcube_desktop.evaluation.compare.matrix import RunMatrix

N = np.nan
TASK = {task.abbreviation: task for task in TASKS}


def make_item(n, question="q"):
    return Item(
        id=f"i{n}", question=f"{question} {n}", options={"A": "alpha", "B": "beta"},
        answer="A", task=TASK["MR"], raw_task="MR", modality="CT", region="Brain",
        dataset="d", image_path=Path(f"{n}.png"), source_file=Path("test.json"),
    )  # fmt: skip


def ids(matrix, mask):
    return [item.id for item, hit in zip(matrix.items, mask, strict=True) if hit]


@pytest.fixture
def matrix():
    """Four runs: two InternVL (image), one Lingshu (image), one InternVL text-only of the
    same model as the first. U marks an unparsed (wrong) answer.

    item  iv-8b  iv-2b  lingshu  iv-8b text
    i0     1      1      1        N     every answer right
    i1     0      0U     0        0     every answer wrong, one unparsed
    i2     1      1      0        0     InternVL right, Lingshu wrong
    i3     1      0      1        N     InternVL split: no family is wrong as a whole
    i4     N      N      N        N     nobody answered
    i5     0      N      1        1     Lingshu right, InternVL (the one answer) wrong;
                                          right without the image
    i6     N      1      N        1     one answer, right; right without the image
    """
    correct = np.array(
        [
            [1, 1, 1, N],
            [0, 0, 0, 0],
            [1, 1, 0, 0],
            [1, 0, 1, N],
            [N, N, N, N],
            [0, N, 1, 1],
            [N, 1, N, 1],
        ]
    )
    unparsed = np.zeros(correct.shape, dtype=bool)
    unparsed[1, 1] = True
    return RunMatrix(
        tuple(make_item(n) for n in range(7)),
        ("iv8", "iv2", "ls", "iv8-text"),
        correct,
        unparsed,
        models=(
            "OpenGVLab/InternVL3_5-8B",
            "OpenGVLab/InternVL3_5-2B",
            "lingshu-medical-mllm/Lingshu-7B",
            "OpenGVLab/InternVL3_5-8B",
        ),
        text_only=(False, False, False, True),
    )


def test_the_summary_counts_right_and_answered_per_item(matrix):
    summary = item_summary(matrix)
    assert summary.n_right.tolist() == [3, 0, 2, 2, 0, 2, 2]
    assert summary.n_answered.tolist() == [3, 4, 4, 3, 0, 3, 2]
    assert summary.n_wrong.tolist() == [0, 4, 2, 1, 0, 1, 0]
    assert summary.n_unparsed.tolist() == [0, 1, 0, 0, 0, 0, 0]
    assert summary.n_right.dtype == np.int64 and [summary.text(r) for r in (0, 4)] == ["3/3", "0/0"]


def test_all_wrong_all_right_and_disagree(matrix):
    assert ids(matrix, all_wrong(matrix)) == ["i1"]  # i4 (no answer) is not "all wrong"
    assert ids(matrix, all_right(matrix)) == ["i0", "i6"]
    assert ids(matrix, models_disagree(matrix)) == ["i2", "i3", "i5"]
    assert ids(matrix, unparsed_by_any(matrix)) == ["i1"]


def test_only_some_families_right_needs_one_family_right_and_another_wrong(matrix):
    # i2: InternVL (both image runs) right, Lingshu wrong. i3: InternVL split, so only
    # Lingshu is right and no family is wrong. i5: Lingshu right, InternVL's one answer
    # (iv8) wrong, iv2 did not answer. The text-only run never counts.
    assert ids(matrix, only_some_families_right(matrix)) == ["i2", "i5"]
    flipped = RunMatrix(matrix.items, matrix.runs, matrix.correct.copy(), matrix.unparsed,
                        matrix.models, (False, False, False, False))  # fmt: skip
    # as an image run, iv8-text makes InternVL split on i2 (its 0) and on i5 (its 1)
    assert ids(flipped, only_some_families_right(flipped)) == []


def test_one_family_only_never_matches():
    correct = np.array([[1.0, 0.0], [1.0, 1.0]])
    m = RunMatrix((make_item(0), make_item(1)), ("a", "b"), correct,
                  np.zeros((2, 2), dtype=bool), models=("InternVL3-8B", "InternVL3-2B"))  # fmt: skip
    assert not only_some_families_right(m).any()


def test_right_without_the_image_pairs_text_runs_with_their_image_run(matrix):
    assert text_image_pairs(matrix) == [(3, 0)]  # iv8-text with iv8, same model
    assert ids(matrix, right_without_image(matrix)) == ["i5", "i6"]
    assert ids(matrix, right_without_image(matrix)) == one_pair(matrix, "iv8", "iv8-text")
    lonely = RunMatrix(matrix.items, matrix.runs, matrix.correct, matrix.unparsed,
                       (*matrix.models[:3], "gpt-5.1"), matrix.text_only)  # fmt: skip
    assert text_image_pairs(lonely) == [(3, None)]
    assert ids(lonely, right_without_image(lonely)) == ["i5", "i6"]
    assert not right_without_image(lonely, paired_only=True).any()
    no_text = RunMatrix(matrix.items, matrix.runs, matrix.correct, matrix.unparsed)
    assert not right_without_image(no_text).any()


def test_every_filter_by_key_and_an_unknown_one(matrix):
    assert filter_mask(matrix, "all").all()
    for key, (_title, function) in FILTERS.items():
        mask = filter_mask(matrix, key)
        assert mask.shape == (7,) and mask.dtype == bool
        if function is not None:
            assert (mask == function(matrix)).all()
    with pytest.raises(ValueError, match="no item filter 'nope'"):
        filter_mask(matrix, "nope")


def test_text_search_matches_every_word_in_any_field():
    items = [make_item(0, "Which lobe"), make_item(1, "Which plane"), make_item(12, "lobe")]
    texts = search_texts(items)
    assert matches_text(texts, "").tolist() == [True, True, True]
    assert matches_text(texts, "LOBE").tolist() == [True, False, True]
    assert matches_text(texts, "which lobe").tolist() == [True, False, False]
    assert matches_text(texts, "i12").tolist() == [False, False, True]
    assert matches_text(texts, "beta brain").tolist() == [True, True, True]


def test_an_empty_matrix_gives_empty_masks():
    m = RunMatrix((), ("a",), np.zeros((0, 1)), np.zeros((0, 1), dtype=bool))
    for key in FILTERS:
        assert filter_mask(m, key).shape == (0,)


def test_cell_states_and_the_table_written_as_csv(matrix):
    states = cell_states(matrix)
    assert states.dtype == np.int8 and states[1].tolist() == [2, 3, 2, 2]
    assert states[4].tolist() == [0, 0, 0, 0] and states[0].tolist() == [1, 1, 1, 0]
    header, rows = outcome_table(matrix, [1, 0])
    assert header == ["id", "task", "modality", "region", "dataset", "right", "answered",
                      "iv8", "iv2", "ls", "iv8-text"]  # fmt: skip
    assert rows == [
        ["i1", "MR", "CT", "Brain", "d", 0, 4, "wrong", "unparsed", "wrong", "wrong"],
        ["i0", "MR", "CT", "Brain", "d", 3, 3, "right", "right", "right", ""],
    ]
    assert len(outcome_table(matrix)[1]) == 7
