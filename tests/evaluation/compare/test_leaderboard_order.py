"""The leaderboard's row order and table layout, and the bootstrap's exact replicates
(issue 26, ``python -m tests.mutation.run --modules compare.leaderboard``): the family
sort of paper Table 3 (group, series, the model's best image run, a text-only run after
its image run), the accuracy sort, the Table 3.3 frame with its family columns and the
Random row, the columns' paper order, and the paired bootstrap against a loop drawing
the same images. Every expected order is worked out by hand from the figures below."""

import numpy as np
import pytest

from medrcube_desktop.evaluation.compare.leaderboard import (
    Leaderboard,
    leaderboard,
    paired_difference,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from tests.evaluation.compare.test_leaderboard import make_item, make_matrix

# run, model, text-only, overall right of 10 (None: no answer), MR right of 10
RUNS = [
    ("r0", "gpt-5.1", False, 6, 1),
    ("r1", "OpenGVLab/InternVL3_5-8B", False, 7, 2),
    ("r2", "lingshu-7b", False, 5, 3),
    ("r3", "lingshu-32b", False, 8, 4),
    ("r4", "lingshu-7b", True, 9, 5),  # text only, above every image run of its model
    ("r5", "Foo-7b", False, None, 0),
    ("r6", "claude-x", False, 4, 9),
    ("r7", "lingshu-7b", False, 3, 8),
]


def _board(**kwargs):
    n = np.array([[0 if o is None else 10, 10] for *_, o, _ in RUNS])
    correct = np.array([[0 if o is None else o, mr] for *_, o, mr in RUNS])
    nan = np.full(n.shape, np.nan)
    return Leaderboard(
        runs=tuple(r[0] for r in RUNS),
        columns=(("overall", "Overall"), ("task", "MR")),
        n=n,
        correct=correct,
        low=nan + 0.1,
        high=np.where(n > 0, correct / np.maximum(n, 1) + 0.05, np.nan),
        random=np.array([0.25, 0.5]),
        **kwargs,
    )


FULL = {"models": tuple(r[1] for r in RUNS), "text_only": tuple(r[2] for r in RUNS)}


def test_the_family_order_is_group_series_best_image_run_then_text_only():
    # Proprietary: Claude (r6), GPT (r0); Medical-specific: Lingshu, lingshu-32b's best
    # image run 0.8 before lingshu-7b's 0.5 (its text-only 0.9 does not count), within
    # lingshu-7b the image runs by accuracy (r2 0.5, r7 0.3), then its text-only run r4;
    # General-purpose: InternVL (r1); Other: Foo (r5)
    assert _board(**FULL).order("family").tolist() == [6, 0, 3, 2, 7, 4, 1, 5]
    assert _board(**FULL).order().tolist() == [6, 0, 3, 2, 7, 4, 1, 5]  # the default


def test_the_accuracy_order_is_overall_highest_first_and_no_answers_last():
    # overall: r4 .9, r3 .8, r1 .7, r0 .6, r2 .5, r6 .4, r7 .3, r5 none (the MR column
    # would give another order)
    order = _board(**FULL).order("accuracy")
    assert order.tolist() == [4, 3, 1, 0, 2, 6, 7, 5] and order.dtype == np.int64
    assert _board(**FULL).order(None).tolist() == list(range(8))
    assert _board(**FULL).order("none").tolist() == list(range(8))
    with pytest.raises(
        ValueError, match=r"^sort must be one of family, accuracy, none, not 'best'$"
    ):
        _board(**FULL).order("best")


def test_models_and_text_only_default_to_the_runs_and_no_text_only():
    plain = _board()
    assert plain.models == plain.runs and plain.text_only == (False,) * 8
    given = _board(**FULL)
    assert given.models == FULL["models"] and given.text_only == FULL["text_only"]


def test_the_frame_sorted_by_family_has_the_family_columns_and_the_random_row_first():
    frame = _board(**FULL).to_frame(percent=True, sort="family")
    assert list(frame.index) == ["Random", "r6", "r0", "r3", "r2", "r7", "r4", "r1", "r5"]
    assert frame.index.name == "run" and frame.columns.names == ["group", "value"]
    assert list(frame.columns) == [
        ("family", "series"),
        ("family", "group"),
        ("family", "text_only"),
        ("overall", "Overall"),
        ("task", "MR"),
    ]
    assert frame[("family", "series")].tolist() == [
        "", "Claude", "GPT", "Lingshu", "Lingshu", "Lingshu", "Lingshu", "InternVL", "Foo",
    ]  # fmt: skip
    assert frame[("family", "group")].tolist()[:3] == ["", "Proprietary", "Proprietary"]
    assert frame[("family", "group")].tolist()[-2:] == ["General-purpose", "Other"]
    assert frame[("family", "text_only")].tolist() == [
        "",
        False,
        False,
        False,
        False,
        False,
        True,
        False,
        False,
    ]
    assert frame.loc["Random"].tolist()[3:] == [25.0, 50.0]
    assert frame.loc["r3", ("overall", "Overall")] == pytest.approx(80.0)
    assert np.isnan(frame.loc["r5", ("overall", "Overall")])


def test_the_frame_of_counts_has_no_random_row_and_no_family_columns_unsorted():
    board = _board(**FULL)
    n = board.to_frame("n")
    assert list(n.index) == [r[0] for r in RUNS] and list(n.columns) == [
        ("overall", "Overall"),
        ("task", "MR"),
    ]
    assert n.loc["r5"].tolist() == [0, 10]
    correct = board.to_frame("correct", sort="accuracy")
    assert list(correct.index) == ["r4", "r3", "r1", "r0", "r2", "r6", "r7", "r5"]
    assert correct[("family", "text_only")].tolist()[0] is True  # no blank: no Random row
    assert correct.loc["r4", ("task", "MR")] == 5
    high = board.to_frame("high", percent=False)
    assert high.loc["r3", ("overall", "Overall")] == pytest.approx(0.85)
    assert board.to_frame("high", percent=True).loc["r3", ("overall", "Overall")] == pytest.approx(
        85.0
    )
    assert board.to_frame(percent=False).loc["Random"].tolist() == [0.25, 0.5]


def test_modality_and_region_columns_follow_the_paper_then_the_others_sorted():
    modalities = ["PET", "MRI", "X-ray", "CT", "Dermoscopy"]
    regions = ["Knee", "chest", "Brain", "Abdomen", "Brain"]
    items = [
        make_item(n, f"im{n}", modality=m, region=r)
        for n, (m, r) in enumerate(zip(modalities, regions, strict=True))
    ]
    board = leaderboard(make_matrix(items, np.ones((5, 1)), ["m"]))
    assert [v for g, v in board.columns if g == "modality"] == [
        "CT",
        "X-ray",
        "MRI",
        "Dermoscopy",
        "PET",
    ]
    assert [v for g, v in board.columns if g == "region"] == ["Brain", "chest", "Abdomen", "Knee"]


def _loop_bootstrap(matrix, n_boot, seed):
    """The cluster bootstrap written as a loop: the same images drawn (one row of
    ``integers(0, n_images, n_images)`` per replicate, the stream the function reads)."""
    d = matrix.correct[:, 0] - matrix.correct[:, 1]
    images = matrix.images()
    ids = np.unique(images)
    rng = np.random.default_rng(seed)
    replicates = []
    for _ in range(n_boot):
        drawn = ids[rng.integers(0, len(ids), len(ids))]
        taken = np.concatenate([np.flatnonzero(images == i) for i in drawn])
        replicates.append(d[taken].sum() / len(taken))
    low, high = np.percentile(replicates, [2.5, 97.5])
    return float(d.mean()), float(low), float(high)


def _clusters(n_images, per_image=2, seed=0):
    rng = np.random.default_rng(seed)
    items = [make_item(n, f"img{n // per_image}") for n in range(n_images * per_image)]
    correct = rng.integers(0, 2, size=(len(items), 2)).astype(float)
    return make_matrix(items, correct, ["a", "b"])


def test_the_paired_bootstrap_is_the_loop_replicate_for_replicate():
    # _paired_difference: every replicate counted (range from 0), the defaults 2000 / 0
    small = _clusters(7)
    for n_boot in (3, 5, 40):
        assert paired_difference(small, "a", "b", n_boot=n_boot, seed=4) == pytest.approx(
            _loop_bootstrap(small, n_boot, 4), abs=1e-12
        )
    assert paired_difference(small, "a", "b") == paired_difference(small, "a", "b", 2000, 0)


def test_the_paired_bootstrap_in_several_chunks_is_the_same_stream():
    # 5,000 images: chunks of 838 replicates (2**22 // 5000), the last one shorter
    many = _clusters(5000, per_image=1, seed=2)
    diff, low, high = paired_difference(many, "a", "b", n_boot=2000, seed=9)
    d = many.correct[:, 0] - many.correct[:, 1]
    rng = np.random.default_rng(9)
    drawn = rng.integers(0, 5000, size=(2000, 5000))
    ref_low, ref_high = np.percentile(d[drawn].mean(axis=1), [2.5, 97.5])
    assert diff == pytest.approx(d.mean()) and (low, high) == pytest.approx(
        (ref_low, ref_high), abs=1e-12
    )


def _two_models(models, overall, text_only=None):
    n = len(models)
    return Leaderboard(
        runs=tuple(f"r{i}" for i in range(n)),
        columns=(("overall", "Overall"),),
        n=np.full((n, 1), 10),
        correct=np.array([[o] for o in overall]),
        low=np.zeros((n, 1)),
        high=np.ones((n, 1)),
        random=np.array([0.25]),
        models=tuple(models),
        text_only=tuple(text_only or (False,) * n),
    )


def test_a_model_is_placed_by_its_best_image_run_not_its_last_or_its_name():
    # lingshu-7b's runs 0.9 and 0.1, lingshu-32b's 0.5: 7b first (best 0.9), though its
    # last run is lower than 32b's and its name sorts after
    board = _two_models(["lingshu-7b", "lingshu-7b", "lingshu-32b"], [9, 1, 5])
    assert board.order("family").tolist() == [0, 1, 2]


def test_a_run_without_answers_follows_a_run_with_none_right():
    board = _two_models(["a-1", "b-1"], [0, 0])
    board.n[0, 0] = 0  # r0 answered nothing (NaN accuracy), r1 answered 10, none right
    assert board.order("accuracy").tolist() == [1, 0]


def test_the_frame_is_in_fractions_unless_asked_in_percent():
    frame = _two_models(["a-1"], [5]).to_frame()
    assert frame.loc["Random", ("overall", "Overall")] == 0.25
    assert frame.loc["r0", ("overall", "Overall")] == 0.5


def test_the_leaderboard_keeps_the_runs_models_and_text_only_and_a_one_item_column_has_its_random():
    items = [
        make_item(0, "a", "MR", k=4),
        make_item(1, "b", "DD", k=2),
        make_item(2, "c", "DD", k=4),
    ]
    correct = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    matrix = RunMatrix(
        tuple(items), ("img", "txt"), correct, np.zeros(correct.shape, dtype=bool),
        models=("m-1", "m-1"), text_only=(False, True),
    )  # fmt: skip
    board = leaderboard(matrix)
    assert board.models == ("m-1", "m-1") and board.text_only == (False, True)
    assert board.n.dtype == np.int64 and board.correct.dtype == np.int64  # as documented
    mr = board.columns.index(("task", "MR"))  # one item with 4 options: 1/4
    assert board.random[mr] == 0.25
    dd = board.columns.index(("task", "DD"))  # (1/2 + 1/4) / 2
    assert board.random[dd] == 0.375


def test_the_paired_bootstraps_defaults_are_2000_draws_and_seed_0():
    # the function's own defaults (a caller that passes neither gets these)
    import inspect

    parameters = inspect.signature(paired_difference).parameters
    assert (parameters["n_boot"].default, parameters["seed"].default) == (2000, 0)


def test_a_board_without_runs_orders_no_rows_as_integers():
    # an empty order must still index the rows (numpy makes float64 of an empty list)
    empty = np.zeros((0, 2), dtype=np.int64)
    board = Leaderboard(
        runs=(),
        columns=(("overall", "Overall"), ("task", "MR")),
        n=empty,
        correct=empty,
        low=np.zeros((0, 2)),
        high=np.zeros((0, 2)),
        random=np.array([0.25, 0.5]),
    )
    for sort in ("accuracy", "family", "none"):
        order = board.order(sort)
        assert order.dtype.kind == "i" and order.tolist() == []
        assert board.n[order].shape == (0, 2)
