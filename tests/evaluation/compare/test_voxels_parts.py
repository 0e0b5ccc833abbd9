"""The voxel analysis's parts against second computations written here (issue 26):
distinct points by brute force, the distance 1 − ρ by hand, Pearson r against numpy,
the block means of a clustering by loops, the residual matrix against numpy.nanmean,
the region order and islands by hand, and the cluster-stability bootstrap redone with
scipy from the same draws."""

import itertools

import numpy as np
import pytest
from scipy.cluster.hierarchy import cophenet, fcluster, linkage
from scipy.spatial.distance import squareform

from medrcube_desktop.core.progress import Progress
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.voxels import (
    MIN_COMMON_MODELS,
    cluster_stability,
    cluster_voxels,
    distance_matrix,
    distinct_points,
    pearson_or_nan,
    region_islands,
    region_order,
    residual_matrix,
    voxel_correlation,
    voxel_region,
)

N = np.nan


def test_distinct_points_equal_a_brute_force_count():
    rng = np.random.default_rng(2)
    accuracy = rng.choice([0.0, 0.5, 1.0, N], size=(9, 5), p=[0.3, 0.3, 0.25, 0.15])
    accuracy[3] = accuracy[1]  # a repeated run
    got = distinct_points(accuracy)
    assert got.dtype == np.int64
    for i, j in itertools.product(range(5), repeat=2):
        points = {
            (accuracy[r, i], accuracy[r, j])
            for r in range(9)
            if not (np.isnan(accuracy[r, i]) or np.isnan(accuracy[r, j]))
        }
        assert got[i, j] == len(points), (i, j)


def test_a_voxel_with_itself_is_defined_only_when_it_varies():
    accuracy = np.array([[0.5, 0.2], [0.5, 0.4], [0.5, 0.6], [0.5, 0.8]])
    rho = voxel_correlation(accuracy)
    assert np.isnan(rho[0, 0]) and rho[1, 1] == 1.0  # voxel 0 constant
    assert np.isnan(rho[0, 1]) and np.isnan(rho[1, 0])
    assert MIN_COMMON_MODELS == 4
    three = voxel_correlation(accuracy[:3])  # three runs: too few points for any ρ
    assert np.isnan(three).all()
    holed = accuracy.copy()
    holed[0, 0] = N
    holed = np.vstack([holed, [0.7, 0.1]])
    rho = voxel_correlation(holed)
    assert rho[1, 1] == 1.0
    # voxel 0 over runs 1-4: 0.5, 0.5, 0.5, 0.7 (two distinct values but four runs):
    # with itself defined, as any voxel that varies over at least four runs
    assert rho[0, 0] == 1.0


def test_the_distance_is_one_minus_rho_symmetrised_clipped_with_nan_as_zero():
    rho = np.array([[1.0, 0.4, N], [0.2, 1.0, -0.5], [N, -0.5, N]])
    d = distance_matrix(rho)
    expected = np.array([[0.0, 0.7, 1.0], [0.7, 0.0, 1.5], [1.0, 1.5, 0.0]])
    np.testing.assert_allclose(d, expected, atol=1e-15)
    assert d.dtype == np.float64
    clipped = distance_matrix(np.array([[1.0, -1.5], [-1.5, 1.0]]))  # beyond -1: at most 2
    np.testing.assert_array_equal(clipped, [[0.0, 2.0], [2.0, 0.0]])
    above = distance_matrix(np.array([[1.0, 1.5], [1.5, 1.0]]))  # beyond 1: at least 0
    np.testing.assert_array_equal(above, [[0.0, 0.0], [0.0, 0.0]])


def test_pearson_or_nan_is_numpys_r_or_nan_for_a_constant():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=30), rng.normal(size=30)
    assert pearson_or_nan(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-14)
    assert pearson_or_nan(x, 2 * x + 1) == 1.0
    assert pearson_or_nan(x, -x) == -1.0
    assert np.isnan(pearson_or_nan(np.ones(5), y[:5]))
    assert np.isnan(pearson_or_nan(y[:5], np.ones(5)))
    assert np.isnan(pearson_or_nan([1.0], [2.0]))
    assert pearson_or_nan([1, 2], [3, 5]) == 1.0  # two points: a line


def _block_mean(rho, a, b):
    values = [rho[i, j] for i in a for j in b if i != j and not np.isnan(rho[i, j])]
    return np.mean(values) if values else N


def test_cluster_means_within_between_and_blocks_by_loops():
    rng = np.random.default_rng(5)
    factors = rng.normal(size=(40, 3))
    loading = np.repeat(np.eye(3), [3, 2, 2], axis=0)
    accuracy = factors @ loading.T + 0.4 * rng.normal(size=(40, 7))
    rho = voxel_correlation(accuracy)
    rho[0, 4] = rho[4, 0] = N  # a missing ρ left out of the means
    result = cluster_voxels(rho, k=3)
    clusters = [np.flatnonzero(result.labels == c) for c in range(3)]
    assert sorted(len(c) for c in clusters) == [2, 2, 3]
    assert result.labels[result.order[0]] == 0  # numbered by first appearance in order
    firsts = [int(np.flatnonzero(result.labels[result.order] == c)[0]) for c in range(3)]
    assert firsts == sorted(firsts)
    everything = range(7)
    for c, members in enumerate(clusters):
        others = [v for v in everything if v not in members]
        assert result.mean_rho_within[c] == pytest.approx(_block_mean(rho, members, members))
        assert result.mean_rho_between[c] == pytest.approx(_block_mean(rho, members, others))
        for e, theirs in enumerate(clusters):
            want = _block_mean(rho, members, theirs)
            assert result.mean_rho_blocks[c, e] == pytest.approx(want)
    d = squareform(distance_matrix(rho), checks=False)
    tree = linkage(d, method="average", optimal_ordering=True)
    np.testing.assert_allclose(result.linkage, tree)
    assert result.cophenetic == pytest.approx(np.corrcoef(cophenet(tree), d)[0, 1])
    assert result.order.dtype == np.int64 and result.labels.dtype == np.int64


def test_a_single_voxel_cluster_has_no_within_mean():
    rho = np.array([[1.0, 0.9, 0.1], [0.9, 1.0, 0.2], [0.1, 0.2, 1.0]])
    result = cluster_voxels(rho, k=2)
    sizes = np.bincount(result.labels)
    lonely = int(np.flatnonzero(sizes == 1)[0])
    assert np.isnan(result.mean_rho_within[lonely])
    assert result.mean_rho_between[lonely] == pytest.approx(0.15)


def test_impossible_cuts_are_refused_with_the_figures():
    with pytest.raises(MedRCubeError, match="^clustering needs at least 2 voxels, got 1$"):
        cluster_voxels(np.ones((1, 1)), k=1)
    rho = np.eye(3)
    with pytest.raises(MedRCubeError, match="^cannot cut 3 voxels into 4 clusters$"):
        cluster_voxels(rho, k=4)
    with pytest.raises(MedRCubeError, match="^cannot cut 3 voxels into 0 clusters$"):
        cluster_voxels(rho, k=0)
    assert cluster_voxels(rho, k=3).labels.max() == 2
    assert (cluster_voxels(rho, k=1).labels == 0).all()


def test_the_residual_matrix_subtracts_each_runs_nanmean():
    accuracy = np.array([[0.2, 0.4, N], [N, N, N], [1.0, 0.0, 0.5]])
    out = residual_matrix(accuracy)
    expected = accuracy - np.array([[0.3], [N], [0.5]])
    np.testing.assert_allclose(out, expected, equal_nan=True)
    assert out.dtype == np.float64


def test_region_order_and_islands_by_hand():
    voxels = ["MR|CT|Chest", "DD|MRI|Brain", "AA|CT|Brain", "MR|X-ray|Hand", "OR|CT|Chest"]
    assert [voxel_region(v) for v in voxels] == ["Chest", "Brain", "Brain", "Hand", "Chest"]
    assert voxel_region("a|b|c|Knee") == "Knee"
    order = region_order(voxels)
    assert order.dtype == np.int64
    assert order.tolist() == [2, 1, 0, 4, 3]  # Brain (AA, DD), Chest (MR, OR), Hand
    rho = np.array(
        [
            [1.0, 0.1, 0.2, 0.3, 0.9],
            [0.1, 1.0, 0.5, N, 0.4],
            [0.2, 0.5, 1.0, 0.6, 0.7],
            [0.3, N, 0.6, 1.0, 0.8],
            [0.9, 0.4, 0.7, 0.8, 1.0],
        ]
    )
    brain = region_islands(rho, voxels, "Brain")
    assert (brain.region, brain.n_voxels) == ("Brain", 2)
    assert brain.within == pytest.approx(0.5)
    # Brain (1, 2) with 0, 3, 4: 0.1, NaN, 0.4, 0.2, 0.6, 0.7
    assert brain.with_others == pytest.approx((0.1 + 0.4 + 0.2 + 0.6 + 0.7) / 5)
    hand = region_islands(rho, voxels, "Hand")
    assert hand.n_voxels == 1 and np.isnan(hand.within)
    with pytest.raises(
        MedRCubeError, match=r"^no voxel of region 'Knee' \(regions: Brain, Chest, Hand\)$"
    ):
        region_islands(rho, voxels, "Knee")


def test_cluster_stability_is_the_bootstrap_it_describes():
    rng = np.random.default_rng(8)
    factors = rng.normal(size=(12, 2))
    accuracy = factors @ np.repeat(np.eye(2), [3, 2], axis=0).T + 0.5 * rng.normal(size=(12, 5))
    accuracy[2, 1] = N
    reports = []
    result = cluster_stability(accuracy, k=2, n_boot=6, seed=13, progress=reports.append)
    reference = cophenet(cluster_voxels(voxel_correlation(accuracy), 2).linkage)
    draws = np.random.default_rng(13)
    agreement, together = [], np.zeros((5, 5))
    for _ in range(6):
        rows = draws.integers(0, 12, size=12)
        d = squareform(distance_matrix(voxel_correlation(accuracy[rows])), checks=False)
        tree = linkage(d, method="average")
        agreement.append(pearson_or_nan(cophenet(tree), reference))
        labels = fcluster(tree, 2, criterion="maxclust")
        together += labels[:, None] == labels[None, :]
    np.testing.assert_allclose(result.tree_agreement, agreement, equal_nan=True)
    np.testing.assert_allclose(result.co_clustering, together / 6)
    assert not result.cancelled
    assert [(p.done, p.total, p.unit) for p in reports] == [
        (k, 6, "replicate") for k in range(1, 7)
    ]
    assert all(isinstance(p, Progress) for p in reports)


def test_cluster_stability_cancelled_before_any_replicate():
    class Set:
        def is_set(self):
            return True

    accuracy = np.random.default_rng(1).normal(size=(8, 4))
    result = cluster_stability(accuracy, k=2, n_boot=5, seed=0, cancel=Set())
    assert result.cancelled and result.tree_agreement.size == 0
    np.testing.assert_array_equal(result.co_clustering, np.zeros((4, 4)))
    done = cluster_stability(accuracy, k=2, n_boot=0, seed=0)
    assert not done.cancelled
