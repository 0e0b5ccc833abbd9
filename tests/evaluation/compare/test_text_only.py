"""Families in the leaderboard, text-only pairs and the leakage list (issue 14)."""

from pathlib import Path

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.leaderboard import leaderboard
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare.text_only import leakage_items, text_only_pairs

RUNS = [  # run, model, text_only, accuracy over 10 items
    ("qwen", "Qwen/Qwen2.5-VL-7B-Instruct", False, 0.5),
    ("lingshu", "lingshu-medical-mllm/Lingshu-7B", False, 0.6),
    ("gpt", "gpt-5.1", False, 0.4),
    ("lingshu-text", "lingshu-medical-mllm/Lingshu-7B", True, 0.3),
    ("lingshu-32", "lingshu-medical-mllm/Lingshu-32B", False, 0.7),
    ("foo", "foo-7b", False, 0.9),
]


def _matrix():
    items = tuple(
        Item(id=f"i{n}", question="q", options={"A": "a", "B": "b"}, answer="A",
             task=TASKS[n % 8], raw_task=TASKS[n % 8].name, modality="CT", region="Chest",
             dataset="d", image_path=Path(f"{n}.png"), source_file=Path("t"))
        for n in range(10)
    )  # fmt: skip
    correct = np.array([[float(n < round(acc * 10)) for *_, acc in RUNS] for n in range(10)])
    correct[9, 0] = np.nan
    answers = np.where(correct == 1.0, "A", "B").astype(object)
    return RunMatrix(
        items, tuple(r[0] for r in RUNS), correct, np.zeros(correct.shape, bool),
        models=tuple(r[1] for r in RUNS), text_only=tuple(r[2] for r in RUNS),
        answers=answers,
    )  # fmt: skip


def test_rows_by_group_series_then_accuracy_with_text_only_beside_its_image_run():
    board = leaderboard(_matrix())
    by_family = [board.runs[r] for r in board.order("family")]
    # proprietary, medical-specific (Lingshu: 32B before 7B, its text-only run right after
    # the 7B), general-purpose, other
    assert by_family == ["gpt", "lingshu-32", "lingshu", "lingshu-text", "qwen", "foo"]
    assert [board.runs[r] for r in board.order("accuracy")][:2] == ["foo", "lingshu-32"]
    assert list(board.order("none")) == list(range(6))
    frame = board.to_frame(sort="family")
    assert list(frame.index) == ["Random", *by_family]
    assert frame[("family", "group")].tolist()[1:3] == ["Proprietary", "Medical-specific"]
    assert frame[("family", "text_only")].tolist()[4] is True
    assert ("family", "series") not in board.to_frame().columns  # the layout as before


def test_text_only_pairs_and_the_items_right_without_the_image():
    m = _matrix()
    assert text_only_pairs(m) == [("lingshu", "lingshu-text")]
    rows = leakage_items(m, "lingshu", "lingshu-text")
    assert [r["item"] for r in rows] == ["i0", "i1", "i2"]
    assert rows[0] == {
        "image_run": "lingshu", "text_run": "lingshu-text", "item": "i0", "task": "MR",
        "modality": "CT", "region": "Chest", "image_answer": "A", "image_correct": True,
    }  # fmt: skip
    two = RunMatrix(m.items, m.runs, m.correct, m.unparsed, models=m.models,
                    text_only=(False, False, False, True, False, True))  # fmt: skip
    # foo has no image run, so its text-only flag pairs with nothing
    assert text_only_pairs(two) == [("lingshu", "lingshu-text")]


def test_a_baseline_imported_before_its_image_run_pairs_by_its_name():
    """A text-only run stored as model "Lingshu-7B-text" (its image run came later) is
    still the baseline of Lingshu-7B."""
    from medrcube_desktop.evaluation.compare.text_only import text_only_pairs

    base = _matrix()
    matrix = RunMatrix(
        base.items, ("Lingshu-7B-text", "Lingshu-7B", "other"), base.correct[:, :3],
        base.unparsed[:, :3], models=("Lingshu-7B-text", "Lingshu-7B", "qwen"),
        text_only=(True, False, False),
    )  # fmt: skip
    assert text_only_pairs(matrix) == [("Lingshu-7B", "Lingshu-7B-text")]
