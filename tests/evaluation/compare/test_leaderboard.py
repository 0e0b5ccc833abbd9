"""The leaderboard of many runs, its intervals and the text-only drop (issue 14, item 1).

Every expected number is computed here independently: Wilson bounds from the closed
form, the random baseline by hand, the clustered bootstrap by an explicit loop.
"""

import math
from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.leaderboard import (
    leaderboard,
    paired_difference,
    right_without_image,
    text_only_drop,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix

Z = 1.959964
TASK = {task.abbreviation: task for task in TASKS}


def wilson(correct, n):
    """Wilson 1927, closed form."""
    p = correct / n
    centre = p + Z**2 / (2 * n)
    half = Z * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    return (centre - half) / (1 + Z**2 / n), (centre + half) / (1 + Z**2 / n)


def make_item(n, image, task="MR", modality="CT", region="Brain", k=4):
    letters = "ABCDEF"[:k]
    return Item(
        id=f"i{n}", question=f"q{n}", options={x: x.lower() for x in letters}, answer="A",
        task=TASK[task], raw_task=task, modality=modality, region=region, dataset="d",
        image_path=Path(f"{image}.png"), source_file=Path("test.json"),
    )  # fmt: skip


def make_matrix(items, correct, runs):
    correct = np.asarray(correct, dtype=np.float64)
    return RunMatrix(tuple(items), tuple(runs), correct, np.zeros(correct.shape, dtype=bool))


@pytest.fixture
def small():
    """2 runs × 10 items over 2 images: image a holds items 0–4 (CT, Brain, 4 options,
    tasks MR MR MR DD DD), image b items 5–9 (MRI, Chest, 2 options, DD DD DD MR MR)."""
    tasks = ["MR", "MR", "MR", "DD", "DD", "DD", "DD", "DD", "MR", "MR"]
    items = [
        make_item(n, "a" if n < 5 else "b", tasks[n], "CT" if n < 5 else "MRI",
                  "Brain" if n < 5 else "Chest", 4 if n < 5 else 2)
        for n in range(10)
    ]  # fmt: skip
    m1 = [1, 1, 1, 0, 0, 1, 0, 1, 1, np.nan]
    m2 = [1, 0, 0, 0, 1, 1, 1, 0, 0, 0]
    return make_matrix(items, np.array([m1, m2]).T, ["m1", "m2"])


def cell(board, run, group, value):
    c = board.columns.index((group, value))
    r = board.runs.index(run)
    return (
        board.n[r, c],
        board.correct[r, c],
        board.accuracy[r, c],
        board.low[r, c],
        board.high[r, c],
    )


@pytest.mark.parametrize(
    ("run", "group", "value", "n", "k"),
    [
        ("m1", "overall", "Overall", 9, 6),  # item 9 unanswered: out of n
        ("m2", "overall", "Overall", 10, 4),
        ("m1", "task", "MR", 4, 4),  # items 0 1 2 8 (9 unanswered)
        ("m1", "task", "DD", 5, 2),  # items 3 4 5 6 7
        ("m2", "task", "MR", 5, 1),  # items 0 1 2 8 9
        ("m2", "modality", "MRI", 5, 2),
        ("m1", "region", "Brain", 5, 3),
        ("m1", "region", "Chest", 4, 3),
    ],
)
def test_counts_accuracy_and_wilson_bounds_by_hand(small, run, group, value, n, k):
    got_n, got_k, accuracy, low, high = cell(leaderboard(small), run, group, value)
    assert (got_n, got_k) == (n, k)
    assert accuracy == pytest.approx(k / n)
    assert (low, high) == pytest.approx(wilson(k, n), abs=1e-6)


def test_tasks_without_items_are_columns_of_nan_and_columns_follow_the_paper(small):
    board = leaderboard(small)
    assert [v for g, v in board.columns if g == "task"] == [
        "MR",
        "VR",
        "IPR",
        "OR",
        "RG",
        "DD",
        "AD",
        "SG",
    ]
    assert [v for g, v in board.columns if g == "modality"] == ["CT", "MRI"]
    assert [v for g, v in board.columns if g == "region"] == ["Brain", "Chest"]
    n, k, accuracy, low, high = cell(board, "m1", "task", "SG")
    assert (n, k) == (0, 0) and np.isnan([accuracy, low, high]).all()


def test_random_baseline_is_the_mean_of_one_over_k(small):
    board = leaderboard(small)
    random = dict(zip(board.columns, board.random, strict=True))
    assert random[("overall", "Overall")] == pytest.approx((5 * 1 / 4 + 5 * 1 / 2) / 10)
    assert random[("modality", "CT")] == pytest.approx(0.25)
    assert random[("region", "Chest")] == pytest.approx(0.5)
    # MR: items 0 1 2 (4 options) and 8 9 (2 options); DD: 3 4 (4) and 5 6 7 (2)
    assert random[("task", "MR")] == pytest.approx((3 / 4 + 2 / 2) / 5)
    assert random[("task", "DD")] == pytest.approx((2 / 4 + 3 / 2) / 5)
    assert np.isnan(random[("task", "VR")])


def test_frame_in_table_3_layout_and_dict(small):
    board = leaderboard(small)
    frame = board.to_frame(percent=True)
    assert list(frame.index) == ["Random", "m1", "m2"]
    assert frame.loc["m1", ("overall", "Overall")] == pytest.approx(100 * 6 / 9)
    assert frame.loc["Random", ("overall", "Overall")] == pytest.approx(37.5)
    assert frame.columns[0] == ("overall", "Overall") and frame.columns[1] == ("task", "MR")
    assert board.to_frame("n").loc["m1", ("region", "Chest")] == 4
    assert list(board.to_frame("low").index) == ["m1", "m2"]
    with pytest.raises(ValueError, match="value must be"):
        board.to_frame("median")
    d = board.to_dict()
    assert d["runs"]["m2"]["task"]["MR"] == {
        "n": 5, "correct": 1, "accuracy": 0.2, "low": pytest.approx(wilson(1, 5)[0], abs=1e-6),
        "high": pytest.approx(wilson(1, 5)[1], abs=1e-6),
    }  # fmt: skip
    assert d["runs"]["m1"]["task"]["SG"]["accuracy"] is None
    assert d["random"]["overall"]["Overall"] == pytest.approx(0.375)


def test_identical_runs_differ_by_exactly_zero(small):
    twin = make_matrix(small.items, np.column_stack([small.correct[:, 0]] * 2), ["a", "b"])
    assert paired_difference(twin, "a", "b") == (0.0, 0.0, 0.0)


def test_difference_counts_only_items_both_answered(small):
    diff, low, high = paired_difference(small, "m1", "m2")
    # items 0–8: m1 right 6, m2 right 4 of the same 9
    assert diff == pytest.approx((6 - 4) / 9)
    assert low <= diff <= high
    with pytest.raises(ValueError, match="no run 'm3'"):
        paired_difference(small, "m1", "m3")


def clustered(n_images=80, per_image=4, seed=1):
    """Two runs whose outcomes are strongly correlated within an image: each image is
    'easy' or 'hard' for each run, and its items follow it."""
    rng = np.random.default_rng(seed)
    items = [make_item(n, f"img{n // per_image}") for n in range(n_images * per_image)]
    easy = rng.random((n_images, 2)) < [0.7, 0.5]
    p = np.where(easy, 0.95, 0.05).repeat(per_image, axis=0)
    correct = (rng.random(p.shape) < p).astype(np.float64)
    return make_matrix(items, correct, ["a", "b"])


def naive_cluster_bootstrap(matrix, n_boot, seed):
    """Resample images with replacement in a plain loop, every item of a drawn image
    coming along."""
    rng = np.random.default_rng(seed)
    images = matrix.images()
    d = matrix.correct[:, 0] - matrix.correct[:, 1]
    by_image = [d[images == j] for j in range(images.max() + 1)]
    draws = []
    for _ in range(n_boot):
        chosen = rng.integers(0, len(by_image), len(by_image))
        draws.append(np.concatenate([by_image[j] for j in chosen]).mean())
    return np.percentile(draws, [2.5, 97.5])


def test_clustered_bootstrap_agrees_with_a_direct_resampling_of_images():
    matrix = clustered()
    diff, low, high = paired_difference(matrix, "a", "b", n_boot=4000, seed=3)
    true = matrix.correct[:, 0].mean() - matrix.correct[:, 1].mean()
    assert diff == pytest.approx(true)
    assert low < true < high
    ref_low, ref_high = naive_cluster_bootstrap(matrix, 4000, seed=11)
    assert (high - low) == pytest.approx(ref_high - ref_low, rel=0.2)
    assert low == pytest.approx(ref_low, abs=0.03) and high == pytest.approx(ref_high, abs=0.03)
    # items of an image move together, so resampling items alone would be too narrow
    d = matrix.correct[:, 0] - matrix.correct[:, 1]
    rng = np.random.default_rng(5)
    item_draws = d[rng.integers(0, len(d), (4000, len(d)))].mean(axis=1)
    item_low, item_high = np.percentile(item_draws, [2.5, 97.5])
    assert (high - low) > 1.4 * (item_high - item_low)


def test_bootstrap_is_seeded():
    matrix = clustered(n_images=30)
    assert paired_difference(matrix, "a", "b", seed=7) == paired_difference(
        matrix, "a", "b", seed=7
    )
    assert paired_difference(matrix, "a", "b", seed=7) != paired_difference(
        matrix, "a", "b", seed=8
    )


def test_no_item_answered_by_both_gives_nan(small):
    correct = np.array([[1.0, np.nan], [np.nan, 0.0]])
    matrix = make_matrix(small.items[:2], correct, ["a", "b"])
    assert np.isnan(paired_difference(matrix, "a", "b")).all()


def test_text_only_drop_per_voxel_and_items_right_without_image(small):
    # m1 as the image run, m2 as its text-only run
    table = text_only_drop(small, "m1", "m2")
    assert list(table.index) == [
        "Overall",
        "DD|CT|Brain",
        "DD|MRI|Chest",
        "MR|CT|Brain",
        "MR|MRI|Chest",
    ]
    assert table.loc["Overall"].tolist() == pytest.approx([9, 6 / 9, 4 / 9, 2 / 9])
    # DD|MRI|Chest: items 5 6 7: m1 1 0 1, m2 1 1 0
    assert table.loc["DD|MRI|Chest"].tolist() == pytest.approx([3, 2 / 3, 2 / 3, 0.0])
    # MR|CT|Brain: items 0 1 2: m1 1 1 1, m2 1 0 0
    assert table.loc["MR|CT|Brain"].tolist() == pytest.approx([3, 1.0, 1 / 3, 2 / 3])
    # MR|MRI|Chest: item 8 only (item 9 unanswered by m1)
    assert table.loc["MR|MRI|Chest", "n"] == 1
    assert table["n"].dtype == np.int64
    assert right_without_image(small, "m1", "m2") == ["i0", "i4", "i5", "i6"]


def test_a_run_named_random_is_never_taken_for_the_baseline_row(small):
    from medrcube_desktop.evaluation.compare.leaderboard import random_row_name

    named = make_matrix(list(small.items), small.correct, ["random", "m2"])
    frame = leaderboard(named).to_frame(percent=True)
    assert list(frame.index) == ["Random (chance)", "random", "m2"]
    assert frame.loc["Random (chance)", ("overall", "Overall")] == pytest.approx(37.5)
    assert frame.loc["random", ("overall", "Overall")] == pytest.approx(100 * 6 / 9)
    assert random_row_name(["m1", "Randomised"]) == "Random"
