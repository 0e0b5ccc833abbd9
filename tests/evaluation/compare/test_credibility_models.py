"""Credibility across models (issue 14 item 3), against hand counts, hand formulas, scipy
and simulations with a known dependence structure."""

import math

import numpy as np
import pytest
from scipy import stats

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_models import (
    accuracy_shortcut_correlation,
    counts_of,
    group_counts,
    independent_r,
    log_odds_ratio,
    model_credibility,
    model_pairs,
    permutation_p,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from tests.conftest import dicom_file, item, write_benchmark

# (id, image, task as written)
FIXTURE = [
    ("m1", "ct", "Modality Recognition"),
    ("o1", "ct", "Organ Recognition"),
    ("d1", "ct", "Disease Diagnosis"),
    ("v2", "mr", "View Identification"),
    ("s2", "mr", "Severity Grading"),
]
N = np.nan
# columns r1, r2, r3; rows as FIXTURE
CORRECT = [[1, 1, 0], [1, 0, N], [1, 1, 0], [1, 0, 1], [1, 1, 0]]


@pytest.fixture
def matrix(tmp_path):
    records = [item(i, image=f"images/{img}.dcm", task=task) for i, img, task in FIXTURE]
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": records},
        {
            "ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
            "ds1/images/mr.dcm": dicom_file("MR_small.dcm"),
        },
    )
    items = {i.id: i for i in load_benchmark(root).items}
    correct = np.array(CORRECT, dtype=float)
    return RunMatrix(
        tuple(items[i] for i, *_ in FIXTURE), ("r1", "r2", "r3"), correct, np.zeros((5, 3), bool)
    )


def test_group_counts_by_hand_for_both_presets(matrix):
    # paper: pairs d1×m1, d1×o1 (ct), s2×v2 (mr); r3 did not answer o1
    # r2: d1×m1 A, d1×o1 D, s2×v2 D;  r3: d1×m1 C, s2×v2 B
    counts, warnings = group_counts(matrix, "paper")
    assert counts == {"r1": (3, 0, 0, 0), "r2": (1, 0, 0, 2), "r3": (0, 1, 1, 0)}
    assert warnings == []
    # official: View Identification is ignored, so s2 has no prerequisite
    counts, _ = group_counts(matrix, "official")
    assert counts == {"r1": (2, 0, 0, 0), "r2": (1, 0, 0, 1), "r3": (0, 0, 1, 0)}
    pairs, _ = model_pairs(matrix, "paper")
    assert sorted(zip(*pairs["r2"], strict=True)) == [(False, True), (False, True), (True, True)]
    with pytest.raises(MedRCubeError, match="preset"):
        group_counts(matrix, "other")


def test_per_model_figures_and_woolf_interval_by_hand():
    (fig,) = model_credibility({"m": (40, 10, 30, 20)})
    assert fig.acc_h == pytest.approx(60 / 100)
    assert fig.rationality == pytest.approx(1 - 20 / 60)
    assert fig.shortcut_prob == pytest.approx(20 / 50)
    assert fig.baseline == pytest.approx(20 / 50 - 60 / 100)
    assert fig.log_or == pytest.approx(math.log(40 * 30 / (10 * 20)))
    se = math.sqrt(1 / 40 + 1 / 10 + 1 / 30 + 1 / 20)
    assert fig.log_or_low == pytest.approx(fig.log_or - 1.959964 * se)
    assert fig.log_or_high == pytest.approx(fig.log_or + 1.959964 * se)
    assert not fig.haldane and fig.n_pairs == 100


def test_haldane_correction_when_a_cell_is_zero():
    value, low, high, haldane = log_odds_ratio((5, 0, 3, 2))
    assert haldane
    assert value == pytest.approx(math.log(5.5 * 3.5 / (0.5 * 2.5)))
    se = math.sqrt(1 / 5.5 + 1 / 0.5 + 1 / 3.5 + 1 / 2.5)
    assert (low, high) == pytest.approx((value - 1.959964 * se, value + 1.959964 * se))
    # every pair in one cell: an empty margin, 0/0, undefined (issue 21: it was ln 7)
    (fig,) = model_credibility({"m": (3, 0, 0, 0)})
    assert fig.shortcut_prob is None and fig.baseline is None and not fig.haldane
    assert fig.log_or is None and fig.log_or_undefined == "L right on every pair (C+D = 0)"
    (empty,) = model_credibility({"e": (0, 0, 0, 0)})
    assert empty.acc_h is None and empty.log_or is None and empty.log_or_undefined == "no pairs"
    with pytest.raises(MedRCubeError, match="undefined: no pairs"):
        log_odds_ratio((0, 0, 0, 0))


def test_pearson_r_interval_and_p_equal_scipys():
    counts = {
        "a": (50, 10, 30, 10),
        "b": (60, 5, 20, 15),
        "c": (30, 20, 40, 10),
        "d": (70, 5, 10, 15),
        "e": (20, 30, 45, 5),
    }
    figures = model_credibility(counts) + model_credibility({"none": (1, 1, 0, 0)})
    result = accuracy_shortcut_correlation(figures)
    assert result.n == 5  # "none" has no SP
    x = [(a + d) / (a + b + c + d) for a, b, c, d in counts.values()]
    y = [d / (c + d) for a, b, c, d in counts.values()]
    expected = stats.pearsonr(x, y)
    assert result.r == pytest.approx(expected.statistic)
    assert result.p == pytest.approx(expected.pvalue)
    # Fisher z by hand
    z, se = math.atanh(expected.statistic), 1 / math.sqrt(5 - 3)
    assert result.low == pytest.approx(math.tanh(z - 1.959964 * se))
    assert result.high == pytest.approx(math.tanh(z + 1.959964 * se))
    two = accuracy_shortcut_correlation(figures[:2])
    assert (two.r, two.p, two.n) == (None, None, 2) and not two.defined
    assert two.undefined == "fewer than 4 distinct points (2 points, 2 distinct)"


def test_independent_answers_give_zero_baseline_and_high_r():
    rng = np.random.default_rng(1)
    acc_low = np.linspace(0.3, 0.9, 12)
    acc_high = np.linspace(0.2, 0.8, 12)
    n = 2000
    counts = {}
    for m, (pl, ph) in enumerate(zip(acc_low, acc_high, strict=True)):
        counts[str(m)] = counts_of(rng.random(n) < pl, rng.random(n) < ph)
    for fig in model_credibility(counts):
        p = fig.acc_h
        # SP is the mean of H over the C+D pairs, Acc_H over all N: nested means
        se = math.sqrt(p * (1 - p) * (1 / (fig.c + fig.d) - 1 / fig.n_pairs))
        assert abs(fig.baseline) < 3 * se
    assert accuracy_shortcut_correlation(model_credibility(counts)).r > 0.9
    assert independent_r(acc_low, acc_high, n, seed=3) > 0.9
    # the same draw from the same seed
    assert independent_r(acc_low, acc_high, 200, seed=5) == independent_r(
        acc_low, acc_high, 200, seed=5
    )


def test_permutation_p_uniformish_under_independence_and_small_under_dependence():
    rng = np.random.default_rng(7)
    ps = []
    for _ in range(40):
        low, high = rng.random(300) < 0.6, rng.random(300) < 0.5
        ps.append(permutation_p(low, high, n_permutations=500, seed=int(rng.integers(1e9))))
    ps_arr = np.array(ps)
    assert np.mean(ps_arr < 0.05) <= 0.15  # ~5 % expected
    assert 0.35 < ps_arr.mean() < 0.65  # a uniform p has mean 0.5
    # strong dependence: H copies L 90 % of the time
    low = rng.random(300) < 0.6
    high = np.where(rng.random(300) < 0.9, low, ~low)
    assert permutation_p(low, high, n_permutations=999, seed=0) < 0.01
    assert permutation_p(low, high, seed=0) == permutation_p(low, high, seed=0)
    with pytest.raises(MedRCubeError):
        permutation_p(np.array([], bool), np.array([], bool))
