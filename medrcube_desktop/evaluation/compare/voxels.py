"""Voxel correlation across models: the MedRCube paper's Fig. 3 (Section 5), Qt-free.

From a :class:`~.matrix.RunMatrix`: the model × voxel accuracy matrix (voxel =
task|modality|region, paper §3), Spearman ρ between voxels over models (§5.1), the
average-linkage clustering of Fig. 3a with mean ρ within and between clusters (§5.2: 0.405
within cluster A, 0.253 across), the matrix less each model's overall accuracy, the region
islands of Fig. 3b (§5.3, brain: 0.219 with other regions, 0.089 among themselves) and a
bootstrap over models for cluster stability. Accuracy matrices are (n_runs, n_voxels),
rows runs (models); ρ matrices (n_voxels, n_voxels) in the voxel order given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from medrcube_desktop.core.degenerate import MIN_DISTINCT_POINTS
from medrcube_desktop.core.options import defaults
from medrcube_desktop.core.progress import Cancel, Progress, ProgressFn, report
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare_options import SETTINGS

_D = defaults(SETTINGS)
"""The defaults of ``min_items``, ``k`` (the ``clusters`` option), ``n_boot`` (the
``n_stability`` option) and ``seed``: the ``compare`` command's, declared once."""

MIN_COMMON_MODELS = MIN_DISTINCT_POINTS
"""Fewest distinct (x, y) points over the models scored on both voxels for ρ to be given."""


@dataclass(frozen=True)
class VoxelMatrix:
    """Per-run accuracy on each competency voxel (the rows and columns of Fig. 3).

    Attributes
    ----------
    accuracy : ndarray of shape (n_runs, n_voxels), float64
        Fraction right over the items of the voxel the run answered (an unparsed answer
        counts as wrong, as in :class:`~.matrix.RunMatrix`); NaN where the run answered
        none of them. Rows follow ``RunMatrix.runs``, columns ``voxels``.
    voxels : list of str
        ``task|modality|region`` labels of the kept voxels, sorted.
    counts : ndarray of shape (n_voxels,), int64
        Items of the benchmark in each kept voxel (at least ``min_items``).
    answered : ndarray of shape (n_runs, n_voxels), int64
        Items of each voxel each run answered (the denominators of ``accuracy``).
    dropped : dict of str to int
        Voxels left out for having fewer than ``min_items`` items, with their counts.
    """

    accuracy: np.ndarray
    voxels: list[str]
    counts: np.ndarray
    answered: np.ndarray
    dropped: dict[str, int]


def voxel_matrix(
    matrix: RunMatrix,
    min_items: int = _D["min_items"],  # type: ignore[assignment]
) -> VoxelMatrix:
    """The model × voxel accuracy matrix of ``matrix`` (paper §5.1, Fig. 3).

    Parameters
    ----------
    matrix : RunMatrix
        Items × runs outcomes; ``matrix.labels("voxel")`` gives each item's voxel.
    min_items : int
        Voxels with fewer benchmark items are left out (and listed in ``dropped``):
        an accuracy over two items says little about a model.
    """
    labels = matrix.labels("voxel")
    names, inverse, sizes = np.unique(labels.astype(str), return_inverse=True, return_counts=True)
    one_hot = np.zeros((len(names), len(labels)))
    one_hot[inverse, np.arange(len(labels))] = 1.0
    answered = one_hot @ matrix.answered.astype(float)  # (n_voxels, n_runs)
    right = one_hot @ np.nan_to_num(matrix.correct, nan=0.0)
    accuracy = np.where(answered > 0, right / np.maximum(answered, 1), np.nan)
    keep = sizes >= min_items
    return VoxelMatrix(
        accuracy=accuracy[keep].T.copy(),
        voxels=[str(name) for name in names[keep]],
        counts=sizes[keep].astype(np.int64),
        answered=answered[keep].T.astype(np.int64),
        dropped=dict(zip(map(str, names[~keep]), map(int, sizes[~keep]), strict=True)),
    )


def voxel_correlation(accuracy: np.ndarray, min_models: int = MIN_COMMON_MODELS) -> np.ndarray:
    """Spearman ρ between voxels over models, pairwise-complete (paper §5.1).

    For each pair of voxels: keep the runs with scores on both, rank each voxel's scores
    over those runs afresh (``scipy.stats.rankdata``, average ranks for ties) and take
    the Pearson r of the ranks. That is ``scipy.stats.spearmanr`` on the pair's complete
    rows, and ``pandas.DataFrame.corr(method="spearman", min_periods=min_models)``; the
    tests check both. ρ is given only where it is defined
    (:func:`~medrcube_desktop.core.degenerate.correlation_undefined`'s rule, decided
    before anything is divided: no warning): the pair's shared runs give at least
    ``min_models`` distinct (x, y) points (two runs of one model are one point) and
    neither voxel is constant over them. Vectorised over one voxel's partners (0.1 s for
    33 × 200 with holes, against 0.4 s for pandas); without holes each column is ranked
    once.

    Parameters
    ----------
    accuracy : ndarray of shape (n_runs, n_voxels), float
        Accuracies, NaN where a run has no score on a voxel.
    min_models : int
        Fewest distinct (x, y) points over the shared runs for ρ to be given
        (:data:`~medrcube_desktop.core.degenerate.MIN_DISTINCT_POINTS`).

    Returns
    -------
    rho : ndarray of shape (n_voxels, n_voxels), float64
        Symmetric, 1 on the diagonal (NaN where a voxel has scores from fewer than
        ``min_models`` runs or the same score for every run), NaN where a pair is
        undefined: fewer than ``min_models`` distinct points or one voxel constant over
        the shared runs.
    """
    from scipy.stats import rankdata

    accuracy = np.asarray(accuracy, dtype=float)
    present = ~np.isnan(accuracy)
    n_voxels = accuracy.shape[1]
    distinct = distinct_points(accuracy)
    # a voxel with itself: defined (1) when it varies over at least min_models runs
    scored = present.sum(axis=0)
    np.fill_diagonal(distinct, np.where(np.diag(distinct) > 1, scored, 0))
    rho = np.full((n_voxels, n_voxels), np.nan)
    if present.all():  # no holes: each voxel ranked once, over every run
        centred = rankdata(accuracy, axis=0)
        centred -= centred.mean(axis=0)
        num = centred.T @ centred
        den = np.sqrt(np.outer(np.diag(num), np.diag(num)))
        ok = (distinct >= min_models) & (den > 0)
        rho[ok] = np.clip(num[ok] / den[ok], -1.0, 1.0)
        return rho
    for i in range(n_voxels):
        both = present[:, [i]] & present  # (n_runs, n_voxels): runs scored on i and j
        n = np.maximum(both.sum(axis=0), 1)
        ranks = [
            rankdata(np.where(both, x, np.nan), axis=0, nan_policy="omit")
            for x in (accuracy[:, [i]], accuracy)
        ]
        rx, ry = (np.where(both, r - np.nansum(r, axis=0) / n, 0.0) for r in ranks)
        num, den = (rx * ry).sum(axis=0), np.sqrt((rx * rx).sum(axis=0) * (ry * ry).sum(axis=0))
        ok = (distinct[i] >= min_models) & (den > 0)
        rho[i, ok] = np.clip(num[ok] / den[ok], -1.0, 1.0)
    return rho


def distinct_points(accuracy: np.ndarray) -> np.ndarray:
    """(n_voxels, n_voxels) int64: distinct (x, y) points each pair of voxels has over
    the runs scored on both (runs with the same two scores are one point).

    A run s repeats an earlier point of pair (i, j) when some run r < s scored on both
    has the same score as s on i and on j; for each s that is a boolean product of the
    (n_runs, n_voxels) "same score as s" matrix with itself, O(n_runs² · n_voxels²).

    Parameters
    ----------
    accuracy : ndarray of shape (n_runs, n_voxels), float
        NaN where a run has no score.
    """
    accuracy = np.asarray(accuracy, dtype=float)
    present = ~np.isnan(accuracy)
    n_runs, n_voxels = accuracy.shape
    count = np.zeros((n_voxels, n_voxels), dtype=np.int64)
    for s in range(n_runs):
        same = (present[:s] & present[s] & (accuracy[:s] == accuracy[s])).astype(np.float64)
        repeated = (same.T @ same) > 0  # some earlier run equals s on both voxels
        mine = np.outer(present[s], present[s])
        count += mine & ~repeated
    return count


@dataclass(frozen=True)
class Clustering:
    """Average-linkage clustering of voxels on 1 − ρ (paper Fig. 3a).

    Attributes
    ----------
    linkage : ndarray of shape (n_voxels - 1, 4), float64
        ``scipy.cluster.hierarchy.linkage`` matrix (merged ids, distance, size), for
        ``scipy.cluster.hierarchy.dendrogram``.
    order : ndarray of shape (n_voxels,), int64
        Leaf order (optimal ordering): ``rho[np.ix_(order, order)]`` is the heatmap.
    labels : ndarray of shape (n_voxels,), int64
        Cluster of each voxel (input order), numbered 0.. by first appearance in
        ``order`` (0 is the heatmap's top-left block); at most k clusters, fewer when
        merges tie at the cut.
    cophenetic : float
        Cophenetic correlation coefficient (``scipy.cluster.hierarchy.cophenet``):
        Pearson r between the distances 1 − ρ and the tree's merge heights; NaN when
        it is undefined (every distance the same: :func:`pearson_or_nan`).
    mean_rho_within : ndarray of shape (n_clusters,), float64
        Mean ρ over pairs of distinct voxels inside each cluster (NaN for a single voxel).
    mean_rho_between : ndarray of shape (n_clusters,), float64
        Mean ρ between each cluster's voxels and every voxel outside it.
    mean_rho_blocks : ndarray of shape (n_clusters, n_clusters), float64
        Mean ρ between clusters i and j (off the diagonal) and within i (diagonal,
        distinct pairs only): the block means of the clustered heatmap.
    """

    linkage: np.ndarray
    order: np.ndarray
    labels: np.ndarray
    cophenetic: float
    mean_rho_within: np.ndarray
    mean_rho_between: np.ndarray
    mean_rho_blocks: np.ndarray


def distance_matrix(rho: np.ndarray) -> np.ndarray:
    """(n, n) float64: the distance 1 − ρ the clustering uses, in [0, 2].

    A NaN ρ (too few common models, a constant voxel) is taken as ρ = 0, distance 1: no
    evidence either way. Symmetric, zero diagonal, as ``squareform`` requires.
    """
    rho = np.asarray(rho, dtype=float)
    d = 1.0 - np.nan_to_num(rho, nan=0.0)
    d = np.clip((d + d.T) / 2.0, 0.0, 2.0)
    np.fill_diagonal(d, 0.0)
    return d


def cluster_voxels(
    rho: np.ndarray,
    k: int = _D["clusters"],  # type: ignore[assignment]
) -> Clustering:
    """Hierarchical clustering of voxels by correlation, as in paper §5.2 / Fig. 3a.

    Distance 1 − ρ (:func:`distance_matrix`), ``scipy.cluster.hierarchy.linkage(
    squareform(d), method="average", optimal_ordering=True)``, cut by
    ``scipy.cluster.hierarchy.fcluster(..., k, criterion="maxclust")`` (the paper
    names three clusters, A, B and C).

    Parameters
    ----------
    rho : ndarray of shape (n_voxels, n_voxels), float
        Spearman ρ from :func:`voxel_correlation` (or of :func:`residual_matrix`).
    k : int
        Number of clusters.

    Returns
    -------
    Clustering

    Raises
    ------
    MedRCubeError
        Fewer than two voxels, or ``k`` outside 1..n_voxels.
    """
    from scipy.cluster.hierarchy import cophenet, fcluster, leaves_list, linkage
    from scipy.spatial.distance import squareform

    rho = np.asarray(rho, dtype=float)
    n = rho.shape[0]
    if n < 2:
        raise MedRCubeError(f"clustering needs at least 2 voxels, got {n}")
    if not 1 <= k <= n:
        raise MedRCubeError(f"cannot cut {n} voxels into {k} clusters")
    condensed = squareform(distance_matrix(rho), checks=False)
    # Average linkage, not Ward: Ward's update (Lance–Williams) minimises within-cluster
    # variance and is only valid on squared Euclidean distances between raw observations;
    # 1 − ρ is a dissimilarity, not such a distance (issue 14).
    tree = linkage(condensed, method="average", optimal_ordering=True)
    order = leaves_list(tree).astype(np.int64)
    raw = fcluster(tree, k, criterion="maxclust")
    renumber: dict[int, int] = {}
    for leaf in order:
        renumber.setdefault(int(raw[leaf]), len(renumber))
    labels = np.array([renumber[int(c)] for c in raw], dtype=np.int64)
    cophenetic = pearson_or_nan(cophenet(tree), condensed)
    found = int(labels.max()) + 1  # maxclust gives fewer than k on tied merge heights
    clusters = [labels == c for c in range(found)]
    blocks = np.array([[_mean_off(rho, a, b) for b in clusters] for a in clusters])
    return Clustering(
        linkage=tree,
        order=order,
        labels=labels,
        cophenetic=float(cophenetic),
        mean_rho_within=np.diag(blocks).copy(),
        mean_rho_between=np.array([_mean_off(rho, a, ~a) for a in clusters]),
        mean_rho_blocks=blocks,
    )


def pearson_or_nan(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r of two (n,) float vectors, NaN when either is constant (r is 0/0):
    checked before dividing, so no warning (``scipy.cluster.hierarchy.cophenet`` with a
    second argument warns). Equals ``numpy.corrcoef(x, y)[0, 1]`` otherwise."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    dx, dy = x - x.mean(), y - y.mean()
    return float(np.clip(dx @ dy / math.sqrt(float(dx @ dx) * float(dy @ dy)), -1.0, 1.0))


def _mean_off(rho: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> float:
    """Mean of ρ[rows, columns] ignoring NaN and the diagonal (NaN if nothing is left)."""
    block = rho[np.ix_(rows, columns)].astype(float)
    same = np.equal.outer(np.flatnonzero(rows), np.flatnonzero(columns))
    values = block[~same & ~np.isnan(block)]
    return float(values.mean()) if values.size else float("nan")


def residual_matrix(accuracy: np.ndarray) -> np.ndarray:
    """The accuracy matrix less each model's overall accuracy (issue 14, after §5.2).

    Strong models are strong everywhere, so all voxel pairs share a "general ability"
    component; removing each row's mean (the unweighted mean over the voxels the run has
    a score on, ``numpy.nanmean`` along axis 1) leaves rows of mean 0.

    Parameters
    ----------
    accuracy : ndarray of shape (n_runs, n_voxels), float
        NaN where a run has no score; NaN stays NaN (an empty row stays all NaN).

    Returns
    -------
    ndarray of shape (n_runs, n_voxels), float64
    """
    accuracy = np.asarray(accuracy, dtype=float)
    present = ~np.isnan(accuracy)
    sums = np.where(present, accuracy, 0.0).sum(axis=1, keepdims=True)
    n = present.sum(axis=1, keepdims=True)
    means = np.where(n > 0, sums / np.maximum(n, 1), np.nan)
    return accuracy - means


@dataclass(frozen=True)
class RegionIsland:
    """How a region's voxels correlate with each other and with the rest (Fig. 3b).

    Attributes
    ----------
    region : str
    n_voxels : int
    within : float
        Mean ρ over pairs of distinct voxels of the region (paper §5.3, brain: 0.089).
    with_others : float
        Mean ρ between the region's voxels and every other region's voxels (brain: 0.219).
    """

    region: str
    n_voxels: int
    within: float
    with_others: float


def voxel_region(voxel: str) -> str:
    """The region of a ``task|modality|region`` voxel label."""
    return voxel.rsplit("|", 1)[-1]


def region_order(voxels: list[str]) -> np.ndarray:
    """(n_voxels,) int64: voxel indices sorted by region, then label (Fig. 3b's order)."""
    return np.array(
        sorted(range(len(voxels)), key=lambda n: (voxel_region(voxels[n]), voxels[n])),
        dtype=np.int64,
    )


def region_islands(rho: np.ndarray, voxels: list[str], region: str) -> RegionIsland:
    """Mean ρ of ``region``'s voxels among themselves and with other regions (§5.3).

    Means ignore NaN ρ; "among themselves" counts each unordered pair of distinct voxels
    once (ρ is symmetric, so this equals the off-diagonal mean).

    Parameters
    ----------
    rho : ndarray of shape (n_voxels, n_voxels), float
    voxels : list of str
        ``task|modality|region`` labels in the order of ``rho``.
    region : str
        As written in the items (``Item.region``), e.g. ``"Brain"``.

    Raises
    ------
    MedRCubeError
        No voxel of ``region`` (the regions present are listed).
    """
    rho = np.asarray(rho, dtype=float)
    regions = np.array([voxel_region(v) for v in voxels], dtype=object)
    mine = regions == region
    if not mine.any():
        raise MedRCubeError(
            f"no voxel of region {region!r} (regions: {', '.join(sorted(set(regions)))})"
        )
    return RegionIsland(
        region=region,
        n_voxels=int(mine.sum()),
        within=_mean_off(rho, mine, mine),
        with_others=_mean_off(rho, mine, ~mine),
    )


@dataclass(frozen=True)
class ClusterStability:
    """How much the voxel tree depends on which models were run (issue 14, item 2).

    Attributes
    ----------
    tree_agreement : ndarray of shape (n_done,), float64
        Per bootstrap replicate, Pearson r between its cophenetic distances and those of
        the tree on all models (``scipy.cluster.hierarchy.cophenet``): 1 = same tree.
    co_clustering : ndarray of shape (n_voxels, n_voxels), float64
        Fraction of replicates in which voxels i and j fall in the same of ``k`` clusters.
    cancelled : bool
        Stopped by ``cancel`` before ``n_boot`` replicates.
    """

    tree_agreement: np.ndarray
    co_clustering: np.ndarray
    cancelled: bool


def cluster_stability(
    accuracy: np.ndarray,
    k: int = _D["clusters"],  # type: ignore[assignment]
    n_boot: int = _D["n_stability"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
    progress: ProgressFn | None = None,
    cancel: Cancel | None = None,
) -> ClusterStability:
    """Bootstrap over models (rows of ``accuracy``, drawn with replacement) for cluster
    stability: each replicate recomputes ρ (:func:`voxel_correlation`) and the average
    linkage of :func:`cluster_voxels` (without optimal ordering, which moves leaves but
    not merges), seeded by ``numpy.random.default_rng(seed)``.

    Parameters
    ----------
    accuracy : ndarray of shape (n_runs, n_voxels), float
    k : int
        Clusters cut from each replicate's tree for ``co_clustering``.
    progress, cancel : reported once per replicate; checked before each (STYLE.md rule 3)
    """
    from scipy.cluster.hierarchy import cophenet, fcluster, linkage
    from scipy.spatial.distance import squareform

    accuracy = np.asarray(accuracy, dtype=float)
    reference = cophenet(cluster_voxels(voxel_correlation(accuracy), k).linkage)
    rng = np.random.default_rng(seed)
    n_runs, n_voxels = accuracy.shape
    agreement, together = [], np.zeros((n_voxels, n_voxels))
    for done in range(n_boot):
        if cancel is not None and cancel.is_set():
            break
        rows = rng.integers(0, n_runs, size=n_runs)
        d = squareform(distance_matrix(voxel_correlation(accuracy[rows])), checks=False)
        tree = linkage(d, method="average")
        agreement.append(pearson_or_nan(cophenet(tree), reference))
        labels = fcluster(tree, k, criterion="maxclust")
        together += np.equal.outer(labels, labels)
        report(progress, Progress(done + 1, n_boot, unit="replicate"))
    n_done = len(agreement)
    return ClusterStability(
        tree_agreement=np.array(agreement),
        co_clustering=together / max(n_done, 1),
        cancelled=n_done < n_boot,
    )
