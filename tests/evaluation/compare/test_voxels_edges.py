"""The voxel analysis at the edges its mutants moved (issue 26): a run that answered one
item of a voxel (its accuracy is that item, 0 or 1), a run with one score (its residual
is 0), the documented dtypes (int64 counts, float64 figures from float32 input),
ρ with ``min_models=2`` (two runs: ±1), no division where ρ or r is undefined (no
warning), Pearson r at the edges (no values, a y spanning exactly 1), and the
cluster-stability bootstrap with its own k and a single replicate. Expected values by
hand, numpy's corrcoef or the function on float64 copies of the same values."""

import dataclasses
import warnings

import numpy as np
import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.compare import RunMatrix
from medrcube_desktop.evaluation.compare.voxels import (
    cluster_stability,
    distance_matrix,
    pearson_or_nan,
    residual_matrix,
    voxel_correlation,
    voxel_matrix,
)

N = np.nan


def test_a_run_that_answered_one_item_of_a_voxel_scores_that_item(bench):
    items = tuple(dataclasses.replace(it, region="Brain") for it in load_benchmark(bench).items[:3])
    correct = np.array([[1.0, 0.0, 1.0], [N, N, 1.0], [N, N, N]])  # items x runs
    matrix = RunMatrix(items, ("a", "b", "c"), correct, np.zeros((3, 3), dtype=bool))
    result = voxel_matrix(matrix, min_items=1)
    # run a: one item answered, right: 1; run b: one, wrong: 0; run c: two of two
    np.testing.assert_array_equal(result.accuracy, [[1.0], [0.0], [1.0]])
    assert result.answered.dtype == np.int64 and result.answered.tolist() == [[1], [1], [2]]
    assert result.counts.dtype == np.int64 and result.counts.tolist() == [3]


def test_a_run_with_one_score_has_residual_zero_and_float32_is_read_as_float64():
    accuracy = np.array([[N, 0.25, N], [0.1, 0.2, 0.7]], dtype=np.float32)
    out = residual_matrix(accuracy)
    assert out.dtype == np.float64
    wide = accuracy.astype(np.float64)
    np.testing.assert_array_equal(out[0], [N, 0.0, N])
    np.testing.assert_array_equal(out[1], wide[1] - wide[1].sum() / 3)


def test_the_distance_of_float32_rho_is_float64():
    rho = np.array([[1.0, 0.3], [0.3, 1.0]], dtype=np.float32)
    d = distance_matrix(rho)
    assert d.dtype == np.float64
    off = 1.0 - float(np.float32(0.3))  # the float32 value, subtracted in float64
    np.testing.assert_array_equal(d, [[0.0, off], [off, 0.0]])


@pytest.mark.parametrize("holes", [False, True])
def test_two_runs_give_rho_of_one_or_minus_one_with_min_models_2(holes):
    accuracy = np.array([[0.2, 0.9, 0.4], [0.6, 0.1, 0.8]])
    if holes:  # a third run scored on one voxel only: the pairwise-complete path
        accuracy = np.vstack([accuracy, [N, N, 0.5]])
    rho = voxel_correlation(accuracy, min_models=2)
    expected = [[1.0, -1.0, 1.0], [-1.0, 1.0, -1.0], [1.0, -1.0, 1.0]]
    np.testing.assert_array_equal(rho, expected)


@pytest.mark.parametrize("holes", [False, True])
def test_a_constant_voxel_gives_nan_without_dividing(holes):
    accuracy = np.array([[0.5, 0.1], [0.5, 0.4], [0.5, 0.9], [0.5, 0.3]])
    if holes:
        accuracy = np.vstack([accuracy, [N, 0.2]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rho = voxel_correlation(accuracy)
    assert np.isnan(rho[0]).all() and np.isnan(rho[:, 0]).all() and rho[1, 1] == 1.0


def test_pearson_r_at_its_edges():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(pearson_or_nan(np.array([]), np.array([])))
        assert np.isnan(pearson_or_nan([3.0, 3.0, 3.0], [1.0, 2.0, 4.0]))
        assert np.isnan(pearson_or_nan([1.0, 2.0, 4.0], [3.0, 3.0, 3.0]))
    x, y = [0.0, 1.0, 2.0, 5.0], [0.0, 1.0, 0.5, 0.25]  # y spans exactly 1
    assert pearson_or_nan(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-15)
    x32 = np.array([0.1, 0.7, 0.3, 0.9], np.float32)
    y32 = np.array([0.2, 0.1, 0.8, 0.6], np.float32)
    wide = pearson_or_nan(x32.astype(np.float64), y32.astype(np.float64))
    assert pearson_or_nan(x32, y32.astype(np.float64)) == wide
    assert pearson_or_nan(x32.astype(np.float64), y32) == wide


def test_cluster_stability_cuts_its_reference_with_its_own_k_and_one_replicate_is_whole():
    rng = np.random.default_rng(3)
    accuracy = rng.random((8, 2))  # two voxels: k = 2 (the default 3 cannot cut them)
    stability = cluster_stability(accuracy, k=2, n_boot=1, seed=5)
    assert stability.tree_agreement.shape == (1,) and not stability.cancelled
    # one replicate: each voxel is with itself in it, 1 of 1
    np.testing.assert_array_equal(np.diag(stability.co_clustering), [1.0, 1.0])
    assert stability.co_clustering[0, 1] == 0.0  # two clusters of two voxels: apart


def test_pearson_r_of_exactly_linear_data_is_one_or_minus_one_not_past_it():
    # y = a x + b exactly in the reals: unrounded, r is +-1; in float64 these two pairs
    # give 1 + 2**-52 and -1 - 2**-52 before the clip (found by a search)
    x = [0.48519097443163506, 0.9807371998012386, 0.9616571936637868]
    y = [4.057842231769013, 7.649511425130845, 7.51122145994762]
    assert pearson_or_nan(x, y) == 1.0
    x = [0.2152181671629736, 0.6393313800665879, 0.8050548331450097, 0.9636708728449709]
    y = [0.5707590810385412, -0.06763661347843153, -0.3170915601928457, -0.5558480849719998]
    assert pearson_or_nan(x, y) == -1.0


def test_a_pair_sharing_one_run_has_no_rho_even_with_min_models_1():
    # voxel 1 scored by run 1 only: one shared run, one rank, nothing to correlate
    accuracy = np.array([[0.1, N], [0.5, 0.3], [0.9, N]])
    rho = voxel_correlation(accuracy, min_models=1)
    assert np.isnan(rho[0, 1]) and np.isnan(rho[1, 0]) and rho[0, 0] == 1.0
