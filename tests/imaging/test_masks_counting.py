"""label_count counts in runs of COUNT_CHUNK values: a label seen only in a later run,
negative labels and a run boundary inside a label are all counted once."""

import numpy as np

from medrcube_desktop.imaging import masks
from medrcube_desktop.imaging.masks import label_count


def test_labels_across_runs_are_counted_once(monkeypatch):
    monkeypatch.setattr(masks, "COUNT_CHUNK", 7)
    labels = np.zeros(50, dtype=np.int32)
    labels[45] = 9  # only in the last run
    labels[5:12] = 3  # across the first boundary
    labels[20] = -4  # below zero: counted, shifted
    assert label_count(labels.reshape(5, 10)) == 3
    assert label_count(np.zeros((3, 3), dtype=np.int32)) == 0
    wide = np.array([0, 1, 2, 3, 3, 1 << 19], dtype=np.int32)
    assert label_count(wide) == 4


def test_the_count_is_the_number_of_distinct_non_zero_values():
    rng = np.random.default_rng(8)
    labels = rng.integers(-20, 40, (31, 33, 17)).astype(np.int32)
    expected = len(set(np.unique(labels).tolist()) - {0})
    assert label_count(labels) == expected


def test_values_of_one_or_two_levels_are_counted_from_their_ends(monkeypatch):
    """Binary masks, all-zero, one label all over and two adjacent negative labels:
    counted as the distinct non-zero values are, with no histogram (np.bincount made to
    fail); values three levels apart still get one."""
    cases = {(0, 1): 1, (0,): 0, (5,): 1, (-3, -2): 2, (-1, 0): 1, (7, 8): 2}
    rng = np.random.default_rng(3)
    with monkeypatch.context() as patched:
        patched.setattr(np, "bincount", None)  # any histogram call raises TypeError
        for values, expected in cases.items():
            labels = rng.choice(np.array(values, dtype=np.int32), size=(9, 8, 7))
            labels.flat[: len(values)] = values  # every value present
            assert label_count(labels) == expected == len(set(values) - {0})
    spread = np.array([[0, 3], [3, 0]], dtype=np.int32)  # 0 and 3: nothing between
    assert label_count(spread) == 1
