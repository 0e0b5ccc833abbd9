"""The leaderboard's image modes (ablation runs) and the cluster bootstrap on its own
(issue 26, ``python -m tests.mutation.run --modules compare.leaderboard``): the modes
a leaderboard keeps or derives, which runs count as ablations, the image-mode column of
the family frame, and ``clustered_difference`` against replicates computed by a loop
from the same draws. Every expected value is worked out by hand or by that loop."""

import numpy as np
import pytest

from medrcube_desktop.evaluation.compare.leaderboard import (
    Leaderboard,
    clustered_difference,
    leaderboard,
    paired_difference,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from tests.evaluation.compare.test_leaderboard import make_item


def _board(overall, models, text_only=(), image_modes=(), answered=None):
    n = len(overall)
    answered = answered or (10,) * n
    return Leaderboard(
        runs=tuple(f"r{i}" for i in range(n)),
        columns=(("overall", "Overall"),),
        n=np.array([[a] for a in answered]),
        correct=np.array([[o] for o in overall]),
        low=np.zeros((n, 1)),
        high=np.ones((n, 1)),
        random=np.array([0.25]),
        models=tuple(models),
        text_only=tuple(text_only),
        image_modes=tuple(image_modes),
    )


def test_the_image_modes_default_to_text_only_where_text_only_else_image():
    board = _board([5, 5], ["m-1", "m-1"], text_only=(False, True))
    assert board.image_modes == ("image", "text-only")


def test_a_run_is_an_ablation_when_text_only_or_its_mode_withholds_the_picture():
    # r0 an image run, r1 a blank run (not text-only), r2 text-only by its flag alone
    board = _board(
        [5, 5, 5], ["m-1"] * 3, text_only=(False, False, True),
        image_modes=("image", "blank", "image"),
    )  # fmt: skip
    assert [board.ablation(r) for r in range(3)] == [False, True, True]


def test_the_leaderboard_keeps_the_matrixs_image_modes():
    items = [make_item(0, "a"), make_item(1, "b")]
    correct = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    matrix = RunMatrix(
        tuple(items), ("img", "blank", "noise"), correct,
        np.zeros(correct.shape, dtype=bool), image_modes=("image", "blank", "noise"),
    )  # fmt: skip
    assert leaderboard(matrix).image_modes == ("image", "blank", "noise")


def test_a_model_whose_image_run_has_no_answers_ties_a_perfect_text_only_model_by_name():
    # lingshu-7b: one image run without answers, -1 + 2 = 1.0; lingshu-32b: one
    # text-only run 10 of 10, 1.0 + 0 = 1.0; the tie goes to the model name, 32b first
    board = _board([0, 10], ["lingshu-7b", "lingshu-32b"], (False, True), answered=(0, 10))
    assert board.order("family").tolist() == [1, 0]
    # the same tie with the names the other way round: the image run's model first
    board = _board([0, 10], ["lingshu-32b", "lingshu-7b"], (False, True), answered=(0, 10))
    assert board.order("family").tolist() == [0, 1]


def test_the_family_frame_has_the_image_mode_column_after_text_only_with_ablations():
    # rows in family order: claude-x (r1, blank), gpt-5.1 (r0, image)
    board = _board([5, 7], ["gpt-5.1", "claude-x"], image_modes=("image", "blank"))
    frame = board.to_frame(sort="family")
    assert frame.columns.tolist()[:5] == [
        ("family", "series"), ("family", "group"), ("family", "text_only"),
        ("family", "image_mode"), ("overall", "Overall"),
    ]  # fmt: skip
    assert frame[("family", "image_mode")].tolist() == ["", "blank", "image"]
    assert frame.index.tolist() == ["Random", "r1", "r0"]


def _loop(d, images, n_boot, seed):
    """Replicates by a loop over the same draws (one row of ``integers(0, n_images,
    n_images)`` per replicate): Σ d over the drawn images' items / their item count."""
    ids = np.unique(images)
    rng = np.random.default_rng(seed)
    replicates = []
    for _ in range(n_boot):
        drawn = ids[rng.integers(0, len(ids), len(ids))]
        taken = np.concatenate([np.flatnonzero(images == i) for i in drawn])
        replicates.append(d[taken].sum() / len(taken))
    return np.array(replicates)


def _uneven(n_images=60, seed=3):
    """Images of 1 to 5 items each, d in {-1, 0, 1}: replicates of many distinct values."""
    rng = np.random.default_rng(seed)
    images = np.repeat(np.arange(n_images) * 7, rng.integers(1, 6, n_images))
    d = rng.integers(-1, 2, len(images)).astype(np.float64)
    return d, images


def test_the_cluster_bootstraps_defaults_are_2000_draws_and_seed_0_by_value():
    d, images = _uneven()
    low, high = np.percentile(_loop(d, images, 2000, 0), [2.5, 97.5])
    assert clustered_difference(d, images) == pytest.approx((d.mean(), low, high), abs=1e-12)
    # and they differ from 2001 draws or seed 1, so the check above can tell them apart
    for n_boot, seed in ((2001, 0), (2000, 1)):
        other = np.percentile(_loop(d, images, n_boot, seed), [2.5, 97.5])
        assert tuple(other) != pytest.approx((low, high), abs=1e-12)


def test_the_paired_bootstraps_defaults_are_2000_draws_and_seed_0_by_value():
    d, images = _uneven()
    items = [make_item(i, f"img{image}") for i, image in enumerate(images)]
    correct = np.stack([(d > 0), (d < 0)], axis=1).astype(np.float64)  # a - b = d
    matrix = RunMatrix(tuple(items), ("a", "b"), correct, np.zeros(correct.shape, dtype=bool))
    low, high = np.percentile(_loop(d, matrix.images(), 2000, 0), [2.5, 97.5])
    assert paired_difference(matrix, "a", "b") == pytest.approx((d.mean(), low, high), abs=1e-12)


def test_one_replicate_is_its_own_interval_and_none_gives_nan_bounds():
    d, images = _uneven(seed=5)
    (only,) = _loop(d, images, 1, 8)
    assert clustered_difference(d, images, n_boot=1, seed=8) == pytest.approx(
        (d.mean(), only, only), abs=1e-12
    )
    diff, low, high = clustered_difference(np.array([1.0, 0.0, 0.0, -1.0]), np.arange(4), 0)
    assert diff == 0.0 and np.isnan(low) and np.isnan(high)


def test_series_are_ordered_by_their_lower_case_names():
    # "_x" has no leading letters, so its series is the name itself; lower-cased "_x"
    # sorts before "foo" ("_" 0x5F < "f" 0x66), though upper-cased "FOO" would come first
    board = _board([5, 5], ["foo-1", "_x"])
    assert [board.runs[r] for r in board.order("family")] == ["r1", "r0"]
