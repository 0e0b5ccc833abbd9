"""The pairing's guards under each preset (issue 26 items 1 and 3,
``python -m tests.mutation.run --modules compare.credibility_stats``): a task the
official preset leaves out makes no pair, an unknown preset is refused by name, a matrix
without items or without pairs gives empty counts of the right shape, an image holding
only high-level items counts no pair, and each reason an odds ratio is undefined.
Expected pairs and counts listed by hand."""

from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_stats import (
    cluster_counts,
    image_counts,
    odds_ratio_reason,
    pair_index,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix

TASK = {task.abbreviation: task for task in TASKS}
NAMES = {"MR": "Modality Recognition", "VR": "View Identification", "DD": "Disease Diagnosis"}


def _item(n, image, task):
    return Item(
        id=f"i{n}", question="q", options={"A": "a", "B": "b"}, answer="A", task=TASK[task],
        raw_task=NAMES[task], modality="CT", region="Brain", dataset="d",
        image_path=Path(f"{image}.png"), source_file=Path("test.json"),
    )  # fmt: skip


def _matrix(spec, correct):
    """``spec``: (image, task) per item; ``correct``: (n_items, n_runs) 0/1/NaN."""
    items = tuple(_item(n, image, task) for n, (image, task) in enumerate(spec))
    correct = np.asarray(correct, dtype=np.float64).reshape(len(items), -1)
    runs = tuple(f"m{r}" for r in range(correct.shape[1]))
    return RunMatrix(items, runs, correct, np.zeros(correct.shape, dtype=bool))


# image a: MR (low), VR (low under paper, left out under official), DD (high);
# image b: DD only (no prerequisite: no pair); image c (the last): DD and MR
SPEC = [("a", "MR"), ("a", "VR"), ("a", "DD"), ("c", "DD"), ("b", "DD"), ("c", "MR"), ("b", "DD")]
RIGHT = [1, 0, 1, 0, 1, 1, 0]


def test_the_official_preset_leaves_out_view_identification_and_the_paper_keeps_it():
    matrix = _matrix(SPEC, RIGHT)
    paper = pair_index(matrix, "paper")
    # a: DD(2) x MR(0), DD(2) x VR(1); c: DD(3) x MR(5); b has no prerequisite
    assert list(zip(paper.low.tolist(), paper.high.tolist(), strict=True)) == [
        (0, 2),
        (1, 2),
        (5, 3),
    ]
    assert paper.image.tolist() == [0, 0, 1] and paper.n_images == 2 and paper.warnings == ()
    official = pair_index(matrix, "official")
    assert list(zip(official.low.tolist(), official.high.tolist(), strict=True)) == [(0, 2), (5, 3)]
    assert official.n_images == 2
    # the counts per image: paper a: A = 1 (MR right, DD right), D = 1 (VR wrong, DD
    # right); c: B = 1 (MR right, DD wrong); official: a's A and c's B
    counts = image_counts(matrix, "paper")
    assert counts.counts.tolist() == [[[1.0, 0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0, 0.0]]]
    assert image_counts(matrix, "official").totals.tolist() == [[1, 1, 0, 0]]


def test_an_unknown_preset_is_refused_naming_the_presets():
    matrix = _matrix(SPEC, RIGHT)
    for call in (pair_index, image_counts):
        with pytest.raises(
            MedRCubeError, match=r"^preset must be one of paper, official, got 'both'$"
        ):
            call(matrix, "both")


def test_a_matrix_without_items_or_without_pairs_gives_empty_counts_of_the_right_shape():
    empty = RunMatrix((), ("m0", "m1"), np.zeros((0, 2)), np.zeros((0, 2), dtype=bool))
    none = pair_index(empty, "paper")
    assert none.low.size == none.high.size == none.image.size == 0
    assert none.n_images == 0 and none.warnings == ()
    counts = image_counts(empty, "paper")
    assert counts.counts.shape == (0, 2, 4) and counts.warnings == ()
    assert counts.totals.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0]]
    highs_only = _matrix([("a", "DD"), ("b", "DD")], [[1, 0], [0, 1]])
    assert pair_index(highs_only).n_images == 0
    assert image_counts(highs_only).counts.shape == (0, 2, 4)
    assert (
        cluster_counts(np.zeros((4, 0, 2), dtype=bool), np.zeros(0, dtype=np.int64), 3).tolist()
        == [[[0.0] * 4] * 2] * 3
    )


def test_prerequisites_stay_in_item_order_on_their_image():
    # 40 prerequisites spread over two images, one high-level item on each: the pairs of
    # an image list its prerequisites in item order (a stable sort); images are numbered
    # in order of first appearance (item 0 is on b)
    spec = [("a" if n % 3 else "b", "MR") for n in range(40)] + [("a", "DD"), ("b", "DD")]
    index = pair_index(_matrix(spec, [1] * 42), "paper")
    on_a = [n for n in range(40) if n % 3]
    on_b = [n for n in range(40) if not n % 3]
    assert index.low.tolist() == on_b + on_a and index.high.tolist() == [41] * 14 + [40] * 26


def test_high_level_items_stay_in_item_order_on_their_image():
    # one prerequisite on each of two images, 40 high-level items spread over them
    spec = [("a", "MR"), ("b", "MR")] + [("a" if n % 3 else "b", "DD") for n in range(40)]
    index = pair_index(_matrix(spec, [1] * 42), "paper")
    on_a = [2 + n for n in range(40) if n % 3]
    on_b = [2 + n for n in range(40) if not n % 3]
    assert index.high.tolist() == on_a + on_b and index.low.tolist() == [0] * 26 + [1] * 14


@pytest.mark.parametrize(
    "counts, reason",
    [
        ((0, 0, 0, 0), "no pairs"),
        ((0, 0, 2, 1), "L wrong on every pair (A+B = 0)"),
        ((0, 0, 1, 1), "L wrong on every pair (A+B = 0)"),  # A + B + C - D = 0 too
        ((0, 1, 1, 0), "H wrong on every pair (A+D = 0)"),  # A - B + C + D = 0 too
        ((2, 1, 0, 0), "L right on every pair (C+D = 0)"),
        ((0, 2, 1, 0), "H wrong on every pair (A+D = 0)"),
        ((2, 0, 0, 1), "H right on every pair (B+C = 0)"),
        ((0, 1, 1, 1), None),  # a cell 0, no margin 0: defined (Haldane-corrected)
        ((1, 0, 1, 0), None),
        ((1, 1, 1, 1), None),
    ],
)
def test_each_reason_an_odds_ratio_is_undefined(counts, reason):
    assert odds_ratio_reason(counts) == reason
