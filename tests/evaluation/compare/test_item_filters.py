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
    letter_cells,
    matches_text,
    models_disagree,
    only_some_families_right,
    outcome_table,
    right_without_image,
    same_wrong_answer,
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


def test_the_summary_counts_right_and_answered_per_item_over_the_image_runs(matrix):
    # the text-only run (last column) is a baseline: i1's, i2's 0 and i5's, i6's 1 are not counted
    summary = item_summary(matrix)
    assert summary.n_right.tolist() == [3, 0, 2, 2, 0, 1, 1]
    assert summary.n_answered.tolist() == [3, 3, 3, 3, 0, 2, 1]
    assert summary.n_wrong.tolist() == [0, 3, 1, 1, 0, 1, 0]
    assert summary.n_unparsed.tolist() == [0, 1, 0, 0, 0, 0, 0]
    assert summary.n_right.dtype == np.int64 and [summary.text(r) for r in (0, 4)] == ["3/3", "0/0"]


def test_a_text_only_run_is_not_a_model_for_all_right_all_wrong_and_disagree():
    # item  img-a  img-b  text(a)
    # j0     1      1      0       every image run right: all right, no disagreement
    # j1     0      0      1       every image run wrong: all wrong (the text run's 1 aside)
    # j2     N      N      1       no image run answered: in none of the three
    correct = np.array([[1, 1, 0], [0, 0, 1], [N, N, 1]], dtype=float)
    m = RunMatrix(tuple(make_item(n) for n in range(3)), ("a", "b", "a-text"), correct,
                  np.zeros((3, 3), dtype=bool), models=("InternVL3-8B", "Qwen2.5-VL-7B",
                                                        "InternVL3-8B"),
                  text_only=(False, False, True))  # fmt: skip
    assert all_right(m).tolist() == [True, False, False]
    assert all_wrong(m).tolist() == [False, True, False]
    assert not models_disagree(m).any()
    assert right_without_image(m).tolist() == [False, True, True]  # reads the text run


def test_all_wrong_all_right_and_disagree(matrix):
    assert ids(matrix, all_wrong(matrix)) == ["i1"]  # i4 (no answer) is not "all wrong"
    assert ids(matrix, all_right(matrix)) == ["i0", "i6"]
    assert ids(matrix, models_disagree(matrix)) == ["i2", "i3", "i5"]
    assert ids(matrix, unparsed_by_any(matrix)) == ["i1"]


def test_only_some_families_right_counts_series_with_two_answering_runs(matrix):
    # Lingshu has one run: it never counts, so in the fixture nothing matches (i2 was
    # "InternVL right, Lingshu wrong": one model against two, which is Models disagree).
    assert ids(matrix, only_some_families_right(matrix)) == []
    # item  iv8  iv2  qw7  qw3  ls
    # k0     1    1    0    0    1   InternVL right, Qwen wrong: match
    # k1     1    1    0    N    0   Qwen has one answer: not counted; ls alone: no
    # k2     1    0    0    0    1   InternVL split, Qwen wrong, none right: no
    # k3     0    0    1    1    N   Qwen right, InternVL wrong: match
    # k4     1    1    1    1    0   both right, only Lingshu (one run) wrong: no
    correct = np.array([[1, 1, 0, 0, 1], [1, 1, 0, N, 0], [1, 0, 0, 0, 1],
                        [0, 0, 1, 1, N], [1, 1, 1, 1, 0]], dtype=float)  # fmt: skip
    m = RunMatrix(tuple(make_item(n) for n in range(5)), ("iv8", "iv2", "qw7", "qw3", "ls"),
                  correct, np.zeros(correct.shape, dtype=bool),
                  models=("InternVL3-8B", "InternVL3-2B", "Qwen2.5-VL-7B-Instruct",
                          "Qwen2.5-VL-3B-Instruct", "Lingshu-7B"))  # fmt: skip
    assert ids(m, only_some_families_right(m)) == ["i0", "i3"]
    # a text-only run never counts: as a second "InternVL" it would not split k0
    texted = RunMatrix(m.items, (*m.runs, "iv8-text"), np.c_[correct, [0, 0, 0, 0, 0]],
                       np.zeros((5, 6), dtype=bool), models=(*m.models, "InternVL3-8B"),
                       text_only=(False,) * 5 + (True,))  # fmt: skip
    assert ids(texted, only_some_families_right(texted)) == ["i0", "i3"]


def test_same_wrong_answer_finds_image_runs_agreeing_on_one_wrong_letter():
    # the right answer of every item is A; rows are items, columns runs a, b, c, text
    letters = [
        ["B", "B", "A", "B"],  # 2 of 3 chose B: match
        ["B", "C", "A", None],  # B and C once each: no
        ["B", "A", None, "B"],  # c unparsed answered; B is 1 of 3, under 2: no
        ["B", "B", None, "A"],  # B is 2 of 3 answering (c unparsed): match
        ["B", "none", "none", "B"],  # one image answer: no (the text run's B not counted)
        ["A", "A", "A", "C"],   # all right: no
        ["C", "C", "B", "B"],   # C 2 of 3: match
    ]  # fmt: skip
    answered = np.array([[x != "none" for x in row] for row in letters])
    answers = np.array([[None if x == "none" else x for x in row] for row in letters],
                       dtype=object)  # fmt: skip
    answers[~answered] = None
    truth = np.array(["A"] * len(letters), dtype=object)[:, None]
    correct = np.where(answered, (answers == truth).astype(float), np.nan)
    unparsed = answered & np.vectorize(lambda a: a is None, otypes=[bool])(answers)
    m = RunMatrix(tuple(make_item(n) for n in range(len(letters))), ("a", "b", "c", "t"),
                  correct, unparsed, models=("m1", "m2", "m3", "m1"),
                  text_only=(False, False, False, True), answers=answers)  # fmt: skip
    assert ids(m, same_wrong_answer(m)) == ["i0", "i3", "i6"]
    assert ids(m, filter_mask(m, "same_wrong")) == ["i0", "i3", "i6"]
    no_letters = RunMatrix(m.items, m.runs, m.correct, m.unparsed, m.models, m.text_only)
    assert not same_wrong_answer(no_letters).any()


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
    assert rows == [  # right / answered over the image runs only
        ["i1", "MR", "CT", "Brain", "d", 0, 3, "wrong", "unparsed", "wrong", "wrong"],
        ["i0", "MR", "CT", "Brain", "d", 3, 3, "right", "right", "right", ""],
    ]
    assert len(outcome_table(matrix)[1]) == 7
    assert letter_cells(matrix) is None  # built by hand: no letters, no letter columns


def test_the_table_gives_each_runs_letter_beside_its_outcome(matrix):
    answers = np.full(matrix.correct.shape, None, dtype=object)
    answers[matrix.correct == 1.0] = "A"  # every item's answer is A
    answers[(matrix.correct == 0.0) & ~matrix.unparsed] = "B"
    m = RunMatrix(matrix.items, matrix.runs, matrix.correct, matrix.unparsed, matrix.models,
                  matrix.text_only, answers)  # fmt: skip
    header, rows = outcome_table(m, [1, 0])
    assert header[7:] == ["iv8", "iv8 letter", "iv2", "iv2 letter", "ls", "ls letter",
                          "iv8-text", "iv8-text letter"]  # fmt: skip
    assert rows[0][7:] == ["wrong", "B", "unparsed", "?", "wrong", "B", "wrong", "B"]
    assert rows[1][7:] == ["right", "A", "right", "A", "right", "A", "", ""]
