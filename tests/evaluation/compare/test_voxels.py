"""Voxel correlation across models (paper Fig. 3, issue 14), checked against scipy."""

import dataclasses
import itertools
import threading
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.cluster.hierarchy import cophenet, linkage
from scipy.spatial.distance import squareform
from scipy.stats import spearmanr

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare import RunMatrix
from medrcube_desktop.evaluation.compare.voxels import (
    cluster_stability,
    cluster_voxels,
    region_islands,
    region_order,
    residual_matrix,
    voxel_correlation,
    voxel_matrix,
)


def _two_factor_accuracy(n_models=30, seed=0):
    """(n_models, 6): voxels 0–2 driven by factor 1, voxels 3–5 by factor 2."""
    rng = np.random.default_rng(seed)
    factors = rng.normal(size=(n_models, 2))
    loading = np.repeat(np.eye(2), 3, axis=0)  # (6, 2)
    logits = factors @ loading.T + 0.3 * rng.normal(size=(n_models, 6))
    return 1.0 / (1.0 + np.exp(-logits))


def test_voxel_matrix_accuracy_over_answered_items_and_drops_small_voxels(bench):
    base = load_benchmark(bench).items[:12]  # MR|CT|Chest
    regions = ["Brain"] * 6 + ["Chest"] * 5 + ["Heart"]
    items = tuple(dataclasses.replace(it, region=r) for it, r in zip(base, regions, strict=True))
    rng = np.random.default_rng(1)
    correct = rng.integers(0, 2, size=(12, 3)).astype(float)
    correct[0, 0] = correct[7, 2] = np.nan  # unanswered
    correct[6:11, 1] = np.nan  # run 1 answered nothing of Chest
    matrix = RunMatrix(items, ("a", "b", "c"), correct, np.zeros((12, 3), dtype=bool))
    result = voxel_matrix(matrix, min_items=5)
    assert result.voxels == ["MR|CT|Brain", "MR|CT|Chest"]
    assert result.counts.tolist() == [6, 5]
    assert result.dropped == {"MR|CT|Heart": 1}
    expected = np.full((3, 2), np.nan)
    for run in range(3):
        for column, rows in enumerate((slice(0, 6), slice(6, 11))):
            answered = correct[rows, run][~np.isnan(correct[rows, run])]
            if answered.size:
                expected[run, column] = answered.sum() / answered.size
    np.testing.assert_allclose(result.accuracy, expected, equal_nan=True)
    assert result.answered.tolist() == [[5, 5], [6, 0], [6, 4]]
    assert voxel_matrix(matrix, min_items=1).voxels[-1] == "MR|CT|Heart"


def test_rho_equals_scipy_spearman_and_clustering_finds_the_two_factors():
    acc = _two_factor_accuracy()
    rho = voxel_correlation(acc)
    expected = spearmanr(acc).statistic  # columns are variables
    np.testing.assert_allclose(rho, expected, atol=1e-12)
    clustering = cluster_voxels(rho, k=2)
    assert clustering.labels.tolist() == [0, 0, 0, 1, 1, 1]
    assert sorted(clustering.order[:3].tolist()) in ([0, 1, 2], [3, 4, 5])
    assert (clustering.mean_rho_within > clustering.mean_rho_between).all()
    within = np.mean([rho[i, j] for i, j in itertools.combinations(range(3), 2)])
    across = rho[:3, 3:].mean()
    assert clustering.mean_rho_within[0] == pytest.approx(within)
    assert clustering.mean_rho_between[0] == pytest.approx(across)
    assert clustering.mean_rho_blocks[0, 1] == pytest.approx(across)
    d = squareform(1.0 - rho, checks=False)
    tree = linkage(d, method="average", optimal_ordering=True)
    np.testing.assert_allclose(clustering.linkage, tree)
    assert clustering.cophenetic == pytest.approx(cophenet(tree, d)[0])


def test_pairwise_complete_rho_with_holes_matches_scipy_pair_by_pair():
    acc = _two_factor_accuracy(n_models=12, seed=3)
    rng = np.random.default_rng(4)
    acc[rng.random(acc.shape) < 0.25] = np.nan
    acc[:, 5] = np.nan
    acc[[0, 1], 5] = [0.2, 0.4]  # only 2 models on voxel 5
    rho = voxel_correlation(acc)
    for i, j in itertools.combinations(range(6), 2):
        both = ~np.isnan(acc[:, i]) & ~np.isnan(acc[:, j])
        if both.sum() < 3:
            assert np.isnan(rho[i, j])
        else:
            assert rho[i, j] == pytest.approx(spearmanr(acc[both, i], acc[both, j]).statistic)
        assert rho[i, j] == rho[j, i] or np.isnan(rho[i, j])
    assert np.isnan(rho[5, :5]).all()
    clustering = cluster_voxels(rho, k=2)  # NaN read as ρ = 0, no error
    assert clustering.labels.shape == (6,)


def test_residual_rows_have_mean_zero_and_keep_holes():
    acc = _two_factor_accuracy()
    acc[0, 2] = np.nan
    acc[1, :] = np.nan
    residual = residual_matrix(acc)
    np.testing.assert_allclose(np.nanmean(residual[[0, *range(2, 30)]], axis=1), 0, atol=1e-12)
    assert np.isnan(residual[0, 2]) and np.isnan(residual[1]).all()
    assert residual[3, 4] == pytest.approx(acc[3, 4] - acc[3].mean())


def test_region_island_means_by_hand():
    voxels = ["MR|MRI|Brain", "DG|CT|Brain", "MR|CT|Chest", "DG|X-ray|Chest"]
    rho = np.array(
        [
            [1.0, 0.1, 0.3, 0.2],
            [0.1, 1.0, 0.4, np.nan],
            [0.3, 0.4, 1.0, 0.8],
            [0.2, np.nan, 0.8, 1.0],
        ]
    )
    brain = region_islands(rho, voxels, "Brain")
    assert (brain.n_voxels, brain.within) == (2, pytest.approx(0.1))
    assert brain.with_others == pytest.approx((0.3 + 0.2 + 0.4) / 3)
    chest = region_islands(rho, voxels, "Chest")
    assert chest.within == pytest.approx(0.8)
    assert region_order(voxels).tolist() == [1, 0, 3, 2]
    with pytest.raises(
        MedRCubeError, match=r"no voxel of region 'Heart' \(regions: Brain, Chest\)"
    ):
        region_islands(rho, voxels, "Heart")


def test_cluster_voxels_rejects_impossible_cuts():
    with pytest.raises(MedRCubeError, match="at least 2 voxels"):
        cluster_voxels(np.ones((1, 1)))
    with pytest.raises(MedRCubeError, match="cannot cut 2 voxels into 3"):
        cluster_voxels(np.eye(2), k=3)


def test_cluster_stability_bootstrap_over_models():
    acc = _two_factor_accuracy()
    seen = []
    stability = cluster_stability(acc, k=2, n_boot=40, seed=7, progress=seen.append)
    assert len(stability.tree_agreement) == 40 and not stability.cancelled
    assert [p.done for p in seen] == list(range(1, 41))
    same = np.equal.outer([0, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 1])
    assert stability.co_clustering[same].min() > 0.9
    assert stability.co_clustering[~same].max() < 0.1
    # first replicate by hand: scipy on the resampled rows, against the full-data tree
    rows = np.random.default_rng(7).integers(0, 30, size=30)
    full = linkage(squareform(1 - spearmanr(acc).statistic, checks=False), method="average")
    boot = squareform(1 - spearmanr(acc[rows]).statistic, checks=False)
    r = np.corrcoef(cophenet(linkage(boot, method="average")), cophenet(full))[0, 1]
    assert stability.tree_agreement[0] == pytest.approx(r)
    stopped = threading.Event()
    stopped.set()
    assert cluster_stability(acc, k=2, n_boot=5, cancel=stopped).cancelled


def test_complete_and_holed_paths_agree_on_ties_and_constant_voxels():
    acc = np.round(_two_factor_accuracy(n_models=10, seed=5), 1)  # many ties
    acc[:, 2] = 0.5  # a voxel every model scores the same on
    fast = voxel_correlation(acc)  # no holes: ranks once
    slow = pd.DataFrame(acc).corr(method="spearman", min_periods=3).to_numpy()
    np.testing.assert_allclose(fast, slow, equal_nan=True, atol=1e-12)
    assert np.isnan(fast[2]).all() and np.isnan(fast[:, 2]).all()
    assert fast[0, 1] == pytest.approx(spearmanr(acc[:, 0], acc[:, 1]).statistic)
    assert np.isnan(voxel_correlation(acc[:2])).all()  # 2 models: nothing to say


def test_holed_path_equals_pandas_pairwise_spearman_at_scale():
    rng = np.random.default_rng(9)
    acc = rng.random((33, 60)).round(2)
    acc[rng.random(acc.shape) < 0.1] = np.nan
    acc[:, 7] = np.where(np.isnan(acc[:, 7]), np.nan, 0.3)  # constant where present
    expected = pd.DataFrame(acc).corr(method="spearman", min_periods=3).to_numpy()
    np.testing.assert_allclose(voxel_correlation(acc), expected, equal_nan=True, atol=1e-12)


def test_tied_merge_heights_give_fewer_clusters_than_asked():
    rho = np.full((4, 4), 0.5)
    np.fill_diagonal(rho, 1.0)
    with warnings.catch_warnings():  # every distance the same: r undefined, no warning
        warnings.simplefilter("error")
        clustering = cluster_voxels(rho, k=3)
    assert clustering.labels.tolist() == [0, 0, 0, 0]
    assert clustering.mean_rho_within.tolist() == [0.5]
    assert np.isnan(clustering.mean_rho_between).all() and np.isnan(clustering.cophenetic)
