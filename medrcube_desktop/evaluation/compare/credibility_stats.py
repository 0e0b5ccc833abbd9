"""Pairs of every run at once, their bootstrap intervals clustered by image, and the
exact permutation test (issue 14 item 3; paper Section 6, Appendix H).

:func:`pair_index` pairs the items of a :class:`~.matrix.RunMatrix` once (every
high-level item H with every prerequisite L on its image, as
:func:`~medrcube_desktop.evaluation.credibility.pair_outcomes` does for one run); a run's
pairs are those whose two items it answered. :func:`pair_cells` gives each run's groups
A–D per pair, :func:`bootstrap_intervals` the percentile intervals of Acc_H, Rationality,
Shortcut Probability and the log odds ratio from resampling images (clusters) with
replacement, and :func:`permutation_p_exact` the one-sided p of shuffling L among a
model's pairs, enumerated exactly (Fisher's exact test).

Everything is vectorised over runs: at 33 runs × 7,626 items the pairing, counts and
1,000 replicates take tens of milliseconds (``tests/benchmarks/bench_compare.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from medrcube_desktop.core.options import defaults
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare_options import SETTINGS
from medrcube_desktop.evaluation.credibility import PRESETS, pair_role

_D = defaults(SETTINGS)  # the defaults of --preset, --bootstrap and --seed, declared once

STATS: tuple[str, ...] = ("acc_h", "rationality", "shortcut_prob", "log_or")
"""The figures :func:`bootstrap_intervals` gives intervals for, in this order."""

GROUPS = "ABCD"


@dataclass(frozen=True)
class PairIndex:
    """The (L, H) pairs of a benchmark under one preset, as rows of ``RunMatrix.items``.

    Attributes
    ----------
    low, high : ndarray of shape (n_pairs,), int64
        Row of the prerequisite L and of the high-level item H of each pair.
    image : ndarray of shape (n_pairs,), int64
        The pair's image as a cluster number 0..n_images-1 over the images holding a
        pair, ascending (pairs are grouped by image).
    n_images : int
        Images holding at least one pair (the clusters of the bootstrap).
    warnings : tuple of str
        The preset's warnings (task names the official rule reads differently).
    """

    low: np.ndarray
    high: np.ndarray
    image: np.ndarray
    n_images: int
    warnings: tuple[str, ...]


def _roles(matrix: RunMatrix, preset: str) -> tuple[np.ndarray, set[str]]:
    """(n_items,) int: 1 a high-level item, 0 a prerequisite, -1 neither (``pair_role``
    under ``preset``), and the preset's warnings. MedRCubeError for an unknown preset."""
    if preset not in PRESETS:
        raise MedRCubeError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    warnings: set[str] = set()
    code = {"high": 1, "low": 0, None: -1}
    roles = np.array([code[pair_role(item, preset, warnings)] for item in matrix.items], int)
    return roles, warnings


def pair_index(
    matrix: RunMatrix,
    preset: str = _D["preset"],  # type: ignore[assignment]
) -> PairIndex:
    """Every (L, H) pair on the same image of ``matrix.items`` under ``preset``.

    The same pairs as :func:`~medrcube_desktop.evaluation.credibility.pair_outcomes`
    over all items (roles from :func:`~medrcube_desktop.evaluation.credibility.pair_role`),
    with images told apart by ``RunMatrix.images()``: the path as the benchmark loader
    stored it (it resolves them; a matrix built by hand is taken as written). Vectorised:
    each H row is repeated once per prerequisite on its image.

    Raises
    ------
    MedRCubeError
        Unknown preset.
    """
    roles, warnings = _roles(matrix, preset)
    images = matrix.images() if len(matrix.items) else np.zeros(0, dtype=np.int64)
    n_all = int(images.max()) + 1 if images.size else 0
    lows = np.flatnonzero(roles == 0)
    lows = lows[np.argsort(images[lows], kind="stable")]
    highs = np.flatnonzero(roles == 1)
    highs = highs[np.argsort(images[highs], kind="stable")]
    n_low = np.bincount(images[lows], minlength=n_all)
    first_low = np.concatenate([[0], np.cumsum(n_low)[:-1]]) if n_all else n_low
    repeat = n_low[images[highs]]
    high = np.repeat(highs, repeat)
    offset = np.arange(int(repeat.sum())) - np.repeat(np.cumsum(repeat) - repeat, repeat)
    low = lows[np.repeat(first_low[images[highs]], repeat) + offset]
    _, cluster = np.unique(images[high], return_inverse=True)
    return PairIndex(
        low.astype(np.int64), high.astype(np.int64), cluster.astype(np.int64).ravel(),
        int(cluster.max()) + 1 if cluster.size else 0, tuple(sorted(warnings)),
    )  # fmt: skip


@dataclass(frozen=True)
class ImageCounts:
    """Each run's A–D counts on each image holding a pair, without listing the pairs.

    Attributes
    ----------
    counts : ndarray of shape (n_images, n_runs, 4), float64
        (A, B, C, D) per image and run, over the images holding at least one (L, H)
        pair, ascending by ``RunMatrix.images()`` number (the clusters of
        :attr:`PairIndex.image`, in the same order).
    warnings : tuple of str
        The preset's warnings.
    """

    counts: np.ndarray
    warnings: tuple[str, ...]

    @property
    def totals(self) -> np.ndarray:
        """(n_runs, 4) int64: each run's A–D over all pairs."""
        return np.rint(self.counts.sum(axis=0)).astype(np.int64)


def image_counts(
    matrix: RunMatrix,
    preset: str = _D["preset"],  # type: ignore[assignment]
) -> ImageCounts:
    """Every run's A–D counts per image, from per-image sums of right and wrong answers.

    The pairs of an image are every high-level item H on it with every prerequisite L on
    it (:func:`pair_index`), so a run's counts there factor: with Lr, Lw the L items it
    answered right and wrong and Hr, Hw the same for H, A = Lr·Hr, B = Lr·Hw, C = Lw·Hw
    and D = Lw·Hr. This costs O(n_items · n_runs) time and memory where listing the pairs
    costs O(n_pairs · n_runs), which is quadratic in the items of one image: a benchmark
    whose 7,626 items share one picture has 10.9 million pairs (1.4 GB of cells for 33
    runs). The counts equal :func:`cluster_counts` of :func:`pair_cells` (a test holds it).

    Raises
    ------
    MedRCubeError
        Unknown preset.
    """
    roles, warnings = _roles(matrix, preset)
    n_runs = len(matrix.runs)
    if not len(matrix.items):
        return ImageCounts(np.zeros((0, n_runs, 4)), tuple(sorted(warnings)))
    images = matrix.images()
    n_all = int(images.max()) + 1
    right = (matrix.correct == 1.0).astype(np.float64)
    wrong = (matrix.correct == 0.0).astype(np.float64)  # NaN (unanswered) is neither

    def per_image(role: int, values: np.ndarray) -> np.ndarray:
        out = np.zeros((n_all, n_runs))
        rows = roles == role
        np.add.at(out, images[rows], values[rows])
        return out

    held = np.bincount(images[roles == 0], minlength=n_all) > 0
    held &= np.bincount(images[roles == 1], minlength=n_all) > 0
    lr, lw = per_image(0, right)[held], per_image(0, wrong)[held]
    hr, hw = per_image(1, right)[held], per_image(1, wrong)[held]
    counts = np.stack([lr * hr, lr * hw, lw * hw, lw * hr], axis=-1)
    return ImageCounts(counts, tuple(sorted(warnings)))


def pair_cells(matrix: RunMatrix, index: PairIndex) -> np.ndarray:
    """Each run's group of each pair: (4, n_pairs, n_runs) bool, axis 0 the groups A (L
    and H right), B (L right, H wrong), C (both wrong), D (L wrong, H right).

    A pair one of whose items the run did not answer (NaN in ``matrix.correct``) is in no
    group for that run; an unparsed answer is wrong."""
    low = matrix.correct[index.low]
    high = matrix.correct[index.high]
    valid = ~(np.isnan(low) | np.isnan(high))
    lo, hi = low == 1.0, high == 1.0
    return np.stack([lo & hi, lo & ~hi, ~lo & ~hi, ~lo & hi]) & valid


HALDANE_ANSCOMBE = 0.5
"""Added to every cell of a table with an empty cell (see :func:`odds_ratio_cells`)."""

CORRECTION_NOTE = "+0.5 to every cell: a cell was empty (Haldane-Anscombe)"
"""How a corrected log odds ratio says so, on every surface."""


def odds_ratio_cells(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The one rule for the odds ratio A·C/(B·D) of (A, B, C, D) tables.

    - An empty margin (L right on every pair or on none, H right on every pair or on
      none): the odds ratio is 0/0 and is **undefined**; a correction would only make a
      number out of the 0.5s (all of n pairs in A gives ln(2n + 1)).
    - Otherwise, an empty cell: 0.5 is added to every cell of that table (the
      Haldane-Anscombe correction: Haldane 1956, "The estimation and viewing of the
      logarithm of a ratio", Biometrika 43:56-59; Anscombe 1956, "On estimating binomial
      response relations", Biometrika 43:461-464), and the figure says so
      (:data:`CORRECTION_NOTE`).
    - Otherwise the counts as they are.

    Every odds ratio of the app (each model's, its Woolf interval, each bootstrap
    replicate, each permutation) goes through this function; :func:`odds_ratio_reason`
    gives the words for a table this makes undefined.

    Parameters
    ----------
    cells : ndarray of shape (..., 4), float
        (A, B, C, D) counts (or bootstrap-weighted counts) on the last axis: A L and H
        right, B L right H wrong, C both wrong, D L wrong H right.

    Returns
    -------
    used : ndarray of shape (..., 4), float64
        The counts to take the odds ratio of (corrected where ``corrected``).
    corrected : ndarray of shape (...), bool
        0.5 was added.
    defined : ndarray of shape (...), bool
        No margin is empty.
    """
    cells = np.asarray(cells, dtype=np.float64)
    a, b, c, d = np.moveaxis(cells, -1, 0)
    defined = (a + b > 0) & (c + d > 0) & (a + d > 0) & (b + c > 0)
    corrected = defined & (cells.min(axis=-1) == 0)
    used = cells + np.where(corrected, HALDANE_ANSCOMBE, 0.0)[..., None]
    return used, corrected, defined


def odds_ratio_reason(counts: tuple[int, int, int, int]) -> str | None:
    """Why the odds ratio of one (A, B, C, D) table is undefined under
    :func:`odds_ratio_cells`' rule (``"no pairs"``, ``"L right on every pair (C+D =
    0)"``: a margin is empty, so A·C/(B·D) is 0/0), or None when it is defined."""
    a, b, c, d = counts
    if a + b + c + d == 0:
        return "no pairs"
    for empty, what in (
        (a + b, "L wrong on every pair (A+B = 0)"),
        (c + d, "L right on every pair (C+D = 0)"),
        (a + d, "H wrong on every pair (A+D = 0)"),
        (b + c, "H right on every pair (B+C = 0)"),
    ):
        if empty == 0:
            return what
    return None


def log_odds_ratio_of(cells: np.ndarray) -> np.ndarray:
    """(...) float64: ln(A·C/(B·D)) of (..., 4) counts under :func:`odds_ratio_cells`'
    rule, NaN where it is undefined (computed only where defined: no warning)."""
    used, _, defined = odds_ratio_cells(cells)
    fa, fb, fc, fd = np.moveaxis(used, -1, 0)
    out = np.full(defined.shape, np.nan)
    out[defined] = np.log(fa[defined] * fc[defined] / (fb[defined] * fd[defined]))
    return out


def figures_of(cells: np.ndarray) -> dict[str, np.ndarray]:
    """Acc_H, Rationality, Shortcut Probability and the log odds ratio from counts.

    Parameters
    ----------
    cells : ndarray of shape (..., 4), float
        (A, B, C, D) counts (or bootstrap-weighted counts) on the last axis.

    Returns
    -------
    dict of str to ndarray of shape (...), float64
        ``acc_h`` = (A+D)/N, ``rationality`` = 1 − D/(A+D), ``shortcut_prob`` =
        D/(C+D) (paper eqs. 5–6); ``log_or`` = ln(A·C/(B·D)) under
        :func:`odds_ratio_cells`' rule (0.5 added to a table with an empty cell, NaN
        with an empty margin). NaN where a denominator is 0.
    """
    cells = np.asarray(cells, dtype=np.float64)
    a, b, c, d = np.moveaxis(cells, -1, 0)
    n = a + b + c + d

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        return np.divide(num, den, out=np.full(den.shape, np.nan), where=den > 0)

    return {
        "acc_h": ratio(a + d, n),
        "rationality": 1 - ratio(d, a + d),
        "shortcut_prob": ratio(d, c + d),
        "log_or": log_odds_ratio_of(cells),
    }


def cluster_counts(cells: np.ndarray, cluster: np.ndarray, n_clusters: int) -> np.ndarray:
    """(n_clusters, n_runs, 4) float64: the A–D counts of each run on each cluster.

    ``cells`` is :func:`pair_cells`' (4, n_pairs, n_runs) bool, ``cluster`` the
    (n_pairs,) int cluster (image) of each pair, 0..n_clusters-1."""
    n_runs = cells.shape[2]
    flat = np.moveaxis(cells, 0, -1).reshape(cells.shape[1], n_runs * 4).astype(np.float64)
    out = np.zeros((n_clusters, n_runs * 4))
    if flat.shape[0]:
        order = np.argsort(cluster, kind="stable")
        sorted_cluster = cluster[order]
        starts = np.flatnonzero(np.r_[True, sorted_cluster[1:] != sorted_cluster[:-1]])
        out[sorted_cluster[starts]] = np.add.reduceat(flat[order], starts, axis=0)
    return out.reshape(n_clusters, n_runs, 4)


def bootstrap_intervals(
    per_cluster: np.ndarray,
    n_boot: int = _D["n_boot"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
    level: float = 0.95,
) -> dict[str, np.ndarray]:
    """Percentile bootstrap intervals of each run's figures, resampling clusters.

    Each replicate draws ``n_clusters`` clusters (images) uniformly with replacement and
    takes every pair of a drawn image along, with its multiplicity (the cluster bootstrap
    of Field & Welsh 2007 / Cameron, Gelbach & Miller 2008); the replicate's figures are
    :func:`figures_of` of the summed counts, and the interval is the (1−level)/2 and
    (1+level)/2 percentiles of the replicates that define the figure
    (``numpy.nanpercentile``; Efron & Tibshirani 1993 §13.3). The same draws serve every
    run, so each run's interval is a proper marginal one (runs are not independent of
    each other across replicates). Vectorised: the drawn-cluster counts form a
    (chunk, n_clusters) matrix, multiplied by the (n_clusters, n_runs·4) counts.

    Parameters
    ----------
    per_cluster : ndarray of shape (n_clusters, n_runs, 4), float
        A–D counts per cluster and run (:func:`cluster_counts`). Pass one cluster per
        pair for the unclustered bootstrap.
    n_boot : int
        Replicates (≥ 1).
    seed : int
        Seed of ``numpy.random.default_rng``: the same seed gives the same intervals.
    level : float
        Coverage of the interval (0–1).

    Returns
    -------
    dict of str to ndarray of shape (2, n_runs), float64
        For each of :data:`STATS`, the low and high bound per run (0–1 scale, natural log
        for ``log_or``); NaN for a run no replicate defines the figure for (no pairs).
    """
    per_cluster = np.asarray(per_cluster, dtype=np.float64)
    n_clusters, n_runs, _ = per_cluster.shape
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    flat = per_cluster.reshape(n_clusters, n_runs * 4)
    totals = np.zeros((n_boot, n_runs * 4))
    if n_clusters:
        rng = np.random.default_rng(seed)
        chunk = max(1, 2**22 // n_clusters)
        for start in range(0, n_boot, chunk):
            rows = min(n_boot, start + chunk) - start
            drawn = rng.integers(0, n_clusters, size=(rows, n_clusters))
            drawn += np.arange(rows)[:, None] * n_clusters
            weights = np.bincount(drawn.ravel(), minlength=rows * n_clusters)
            totals[start : start + rows] = weights.reshape(rows, n_clusters) @ flat
    figures = figures_of(totals.reshape(n_boot, n_runs, 4))
    tail = (1 - level) / 2 * 100
    out = {}
    for name in STATS:
        values = figures[name]  # (n_boot, n_runs)
        bounds = np.full((2, n_runs), np.nan)
        some = ~np.isnan(values).all(axis=0)  # a run no replicate defines stays NaN
        if some.any():
            bounds[:, some] = np.nanpercentile(values[:, some], [tail, 100 - tail], axis=0)
        out[name] = bounds
    return out


def permutation_p_exact(counts: np.ndarray) -> np.ndarray:
    """One-sided p of shuffling each model's L outcomes among its pairs, exactly.

    Shuffling L among a model's N pairs keeps both margins (K = A+B pairs with L right,
    M = A+D with H right), and A then follows the hypergeometric distribution
    Hypergeom(N, K, M); the odds ratio grows with A at fixed margins, so
    p = P(A* ≥ A) = ``scipy.stats.hypergeom.sf(A − 1, N, K, M)``: Fisher's exact test,
    alternative "greater" (``scipy.stats.fisher_exact``). It is what
    :func:`~.credibility_models.permutation_p` estimates by Monte Carlo (up to its
    Haldane-corrected statistic at the edges), for every model at once. Pairs are
    exchangeable under this test: an item in several pairs is shuffled pair by pair.

    Parameters
    ----------
    counts : ndarray of shape (n_models, 4), int
        (A, B, C, D) per model.

    Returns
    -------
    ndarray of shape (n_models,), float64
        p in (0, 1]; NaN for a model without pairs or whose odds ratio is undefined (an
        empty margin, :func:`odds_ratio_cells`: every shuffle gives the same table, so
        the test has nothing to test).
    """
    from scipy.stats import hypergeom

    counts = np.asarray(counts, dtype=np.int64).reshape(-1, 4)
    a, b, c, d = counts.T
    n = counts.sum(axis=1)
    _, _, defined = odds_ratio_cells(counts)
    p = hypergeom.sf(a - 1, np.maximum(n, 1), a + b, a + d)
    return np.where(defined, np.clip(p, 0.0, 1.0), np.nan)
