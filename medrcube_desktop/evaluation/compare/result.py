"""Everything ``compare`` computes from one :class:`~.matrix.RunMatrix`, in one object.

:func:`compare_runs` runs the leaderboard (Table 3), the voxel correlation and clusters
(Section 5, Fig. 3), the region islands (§5.3), credibility across models (Section 6,
Fig. 4) and the text-only drops (Table 4); :class:`CompareResult` holds the results, and
every output (the CSV, JSON, XLSX, figures and HTML of :mod:`.report`) is written from
it, so all of them show the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from medrcube_desktop.core.degenerate import MIN_DISTINCT_POINTS, undefined_text
from medrcube_desktop.core.options import defaults
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_models import (
    Correlation,
    ModelCredibility,
    accuracy_shortcut_correlation,
    credibility_table,
)
from medrcube_desktop.evaluation.compare.leaderboard import Leaderboard, leaderboard
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare.necessity import Necessity, necessity
from medrcube_desktop.evaluation.compare.text_only import (
    leakage_items,
    text_only_drop,
    text_only_pairs,
)
from medrcube_desktop.evaluation.compare.voxels import (
    Clustering,
    ClusterStability,
    RegionIsland,
    VoxelMatrix,
    cluster_stability,
    cluster_voxels,
    region_islands,
    residual_matrix,
    voxel_correlation,
    voxel_matrix,
    voxel_region,
)
from medrcube_desktop.evaluation.compare_options import SETTINGS

if TYPE_CHECKING:
    import pandas as pd

_MIN_ITEMS = SETTINGS["min_items"]  # the option's flag and the pane's label, declared once
_D = defaults(SETTINGS)  # every default of a comparison, declared once (issue 22)


@dataclass(frozen=True)
class TextOnlyDrop:
    """An image run against the text-only run of the same model (paper Table 4).

    ``table`` is :func:`~.leaderboard.text_only_drop`: index ``"Overall"`` then each
    voxel; columns ``n``, ``with_image``, ``without_image``, ``drop`` (0–1).
    """

    image_run: str
    text_run: str
    model: str
    table: pd.DataFrame

    def rows(self) -> list[dict[str, object]]:
        """``{"voxel", "n", "with_image", "without_image", "drop"}`` per row, ``n`` an int
        (``iterrows`` would make it a float)."""
        records = self.table.reset_index().to_dict("records")
        return [{**r, "voxel": str(r["voxel"]), "n": int(r["n"])} for r in records]


@dataclass(frozen=True)
class CompareResult:
    """What ``compare`` computes (see :func:`compare_runs`).

    Attributes
    ----------
    matrix : RunMatrix
    board : Leaderboard
    voxels : VoxelMatrix
        Accuracy per image run and voxel, (n_image_runs, n_voxels): text-only runs are
        baselines, not models, and are left out of the voxel correlation (rows follow
        ``voxel_runs``).
    rho : ndarray of shape (n_voxels, n_voxels), float64, or None
        Spearman ρ between voxels over image runs, NaN for a pair where it is undefined
        (:func:`~.voxels.voxel_correlation`); None with fewer than 2 voxels, or when no
        pair is defined (``voxel_undefined`` says why).
    clustering : Clustering or None
        Average linkage on 1 − ρ cut into ``clusters`` clusters; None without ``rho``.
    islands : list of RegionIsland
        Per region, the mean ρ among its voxels and with the others (§5.3); empty
        without ``rho``.
    credibility : list of ModelCredibility
        Per run (paper §6, eqs. 1–6), under the first preset, with bootstrap intervals
        clustered by image and the exact permutation p
        (:func:`~.credibility_models.credibility_table`).
    correlation : Correlation or None
        Pearson r of Acc_H and Shortcut Probability over the image runs (a text-only
        run is a baseline, not a model); with fewer than 4 distinct points or zero
        variance its figures are None and ``Correlation.undefined`` says why.
    drops : list of TextOnlyDrop
        Each (image run, text-only run) pair of one model (:func:`~.text_only.text_only_pairs`).
    warnings : list of str
        Why a part is missing, and the pairing preset's warnings.
    preset, min_items, clusters
        The settings used (``preset`` may be ``"both"``).
    by_preset : dict
        Preset name → (figures, correlation), for every preset computed (both with
        ``preset="both"``, the paper's first).
    leakage : list of dict or None
        With ``leakage=True``, the items each text-only run got right
        (:func:`~.text_only.leakage_items`); else None.
    sort : str
        How leaderboard rows are ordered (:meth:`~.leaderboard.Leaderboard.order`).
    n_boot, seed
        The credibility bootstrap's replicates and seed.
    residual_rho : ndarray of shape (n_voxels, n_voxels), float64, or None
        Spearman ρ between voxels after removing each model's overall accuracy
        (:func:`~.voxels.residual_matrix`): strong models are strong everywhere, and this
        is what is left of the structure once that is taken out. None without ``rho``.
    residual_clustering : Clustering or None
        Average linkage on 1 − ``residual_rho``.
    stability : ClusterStability or None
        The bootstrap over models of the voxel tree (:func:`~.voxels.cluster_stability`,
        ``n_stability`` replicates, seed ``seed``); None when not asked for or without a
        clustering.
    voxel_undefined : str or None
        Why the voxel correlation is undefined as a whole (``rho`` None: "fewer than 4
        distinct points (3 image runs, 2 distinct)"); None when it is given.
    release : dict or None
        ``{"version", "dir", "digest"}`` when the benchmark compared is a corrected
        release (:func:`~..release_read.release_of`); None otherwise (and the JSON has
        no ``"release"``).
    necessity : Necessity or None
        Image necessity per item and the sighted − ablated gaps (issue 24,
        :mod:`.necessity`); None when no run is an ablation run.
    answerable : float
        The share of ``--answerable-share`` it was computed with.
    """

    matrix: RunMatrix
    board: Leaderboard
    voxels: VoxelMatrix
    rho: np.ndarray | None
    clustering: Clustering | None
    islands: list[RegionIsland]
    credibility: list[ModelCredibility]
    correlation: Correlation | None
    drops: list[TextOnlyDrop]
    warnings: list[str] = field(default_factory=list)
    preset: str = _D["preset"]  # type: ignore[assignment]
    min_items: int = _D["min_items"]  # type: ignore[assignment]
    clusters: int = _D["clusters"]  # type: ignore[assignment]
    by_preset: dict[str, tuple[list[ModelCredibility], Correlation | None]] = field(
        default_factory=dict
    )
    leakage: list[dict[str, object]] | None = None
    sort: str = _D["sort"]  # type: ignore[assignment]
    n_boot: int = _D["n_boot"]  # type: ignore[assignment]
    seed: int = _D["seed"]  # type: ignore[assignment]
    residual_rho: np.ndarray | None = None
    residual_clustering: Clustering | None = None
    stability: ClusterStability | None = None
    n_stability: int = _D["n_stability"]  # type: ignore[assignment]
    voxel_runs: tuple[str, ...] = ()
    voxel_undefined: str | None = None
    release: dict[str, object] | None = None
    necessity: Necessity | None = None
    answerable: float = _D["answerable"]  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if not self.voxel_runs:
            object.__setattr__(self, "voxel_runs", self.matrix.image_runs().runs)

    @property
    def order(self) -> list[str]:
        """The run names in leaderboard order (``sort``)."""
        return [self.matrix.runs[r] for r in self.board.order(self.sort)]

    def in_order(
        self, figures: list[ModelCredibility] | None = None, order: list[str] | None = None
    ) -> list[ModelCredibility]:
        """``figures`` (default: :attr:`credibility`) in leaderboard order: ``order`` (run
        names as a leaderboard shows them), by default :attr:`order`; every surface
        lists credibility rows so (the command's text, the pane, the report, the CSV and
        XLSX). Runs not in ``order`` follow, as given."""
        rank = {run: n for n, run in enumerate(order or self.order)}
        listed = self.credibility if figures is None else figures
        return sorted(listed, key=lambda f: rank.get(f.run, len(rank)))

    @property
    def within_between(self) -> tuple[float, float] | None:
        """Mean ρ over voxel pairs inside a cluster and across clusters (§5.2), or None."""
        from medrcube_desktop.evaluation.compare.figures import within_between

        if self.rho is None or self.clustering is None:
            return None
        return within_between(self.rho, self.clustering.labels)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (NaN as None): ``{"runs", "order", "families", "leaderboard",
        "voxels", "credibility", "text_only"}``, with ``"credibility_by_preset"`` for
        both presets and ``"leakage"`` when asked: the document ``compare --json`` prints
        and writes."""
        m = self.matrix
        result: dict[str, object] = {
            "runs": list(m.runs),
            "order": self.order,
            "families": {
                run: {
                    "model": model,
                    "series": f.series,
                    "group": f.group,
                    "text_only": text,
                    "image_mode": mode,
                    "answered": int(n),
                    "unparsed": int(bad),
                }
                for run, model, f, text, mode, n, bad in zip(
                    m.runs,
                    m.models,
                    m.families(),
                    m.text_only,
                    m.image_modes,
                    m.answered.sum(axis=0),
                    m.unparsed.sum(axis=0),
                    strict=True,
                )
            },  # fmt: skip
            "leaderboard": self.board.to_dict(),
            "voxels": None,
            "voxels_undefined": self.voxel_undefined,
        }
        if self.rho is not None:
            clusters = None
            if self.clustering is not None:
                within, between = self.within_between or (math.nan, math.nan)
                clusters = {
                    "labels": self.clustering.labels.tolist(),
                    "order": self.clustering.order.tolist(),
                    "cophenetic": self.clustering.cophenetic,
                    "mean_rho_within": self.clustering.mean_rho_within.tolist(),
                    "mean_rho_between": self.clustering.mean_rho_between.tolist(),
                    "mean_rho_within_clusters": within,
                    "mean_rho_between_clusters": between,
                }
            result["voxels"] = {
                "runs": list(self.voxel_runs),
                "voxels": self.voxels.voxels,
                "dropped": self.voxels.dropped,
                "rho": self.rho.tolist(),
                "rho_undefined_pairs": undefined_pairs(self.rho),
                "clusters": clusters,
                "islands": [asdict(island) for island in self.islands],
                "residual": None
                if self.residual_rho is None
                else {
                    "rho": self.residual_rho.tolist(),
                    "clusters": _clusters(self.residual_rho, self.residual_clustering),
                },
                "stability": None if self.stability is None else _stability(self.stability),
            }
        sections = {
            preset: {
                "preset": preset,
                "models": [asdict(f) for f in self.in_order(figures)],  # leaderboard order
                **({"acc_h_vs_shortcut": asdict(r)} if r is not None else {}),
            }
            for preset, (figures, r) in self.by_preset.items()
        }
        if sections:
            result["credibility"] = next(iter(sections.values()))
        else:
            result["credibility"] = {
                "preset": self.preset,
                "models": [asdict(f) for f in self.in_order()],
                **({"acc_h_vs_shortcut": asdict(self.correlation)} if self.correlation else {}),
            }
        if len(sections) > 1:
            result["credibility_by_preset"] = sections
        result["text_only"] = [
            {
                "image_run": drop.image_run,
                "text_run": drop.text_run,
                "model": drop.model,
                "rows": drop.rows(),
            }
            for drop in self.drops
        ]
        if self.leakage is not None:
            result["leakage"] = self.leakage
        if self.release is not None:
            result["release"] = self.release
        if self.necessity is not None:
            result["necessity"] = self.necessity.to_dict()
        return clean(result)  # type: ignore[return-value]


def undefined_pairs(rho: np.ndarray) -> int:
    """Pairs of distinct voxels whose ρ is undefined (NaN) in ``rho`` (n, n)."""
    return int(np.isnan(rho[np.triu_indices(rho.shape[0], k=1)]).sum())


def voxel_rho(
    voxels: VoxelMatrix,
    min_items: int = _D["min_items"],  # type: ignore[assignment]
) -> tuple[np.ndarray | None, str | None]:
    """Spearman ρ between the voxels of ``voxels`` (:func:`~.voxels.voxel_correlation`),
    or None and why it is undefined as a whole: fewer than 2 voxels (of ``min_items``
    items, said in the reason), fewer than 4 distinct image runs (rows of the accuracy
    matrix; two runs of one model are one point), or no pair of voxels with 4 distinct
    points and variation; every reason that applies, joined by "; "."""
    n_voxels, n_runs = len(voxels.voxels), voxels.accuracy.shape[0]
    reasons = []
    if n_voxels < 2:
        reasons.append(
            f"fewer than 2 voxels of at least {min_items} items ({_MIN_ITEMS.flag}; in the "
            f"pane “{_MIN_ITEMS.label}”) to correlate ({n_voxels})"
        )
    rows = n_runs
    if n_runs and n_voxels:
        rows = np.unique(np.nan_to_num(voxels.accuracy, nan=-1.0), axis=0).shape[0]
    if rows < MIN_DISTINCT_POINTS:
        reasons.append(
            f"fewer than {MIN_DISTINCT_POINTS} distinct points ({n_runs} image run"
            f"{'' if n_runs == 1 else 's'}, {rows} distinct; text-only runs are baselines)"
        )
    if reasons:
        return None, "; ".join(reasons)
    rho = voxel_correlation(voxels.accuracy)
    if undefined_pairs(rho) < n_voxels * (n_voxels - 1) // 2:
        return rho, None
    return None, (
        f"no pair of voxels has {MIN_DISTINCT_POINTS} distinct points with variation over "
        "the image runs scored on both"
    )


def _clusters(rho: np.ndarray, clustering: Clustering | None) -> dict[str, object] | None:
    from medrcube_desktop.evaluation.compare.figures import within_between

    if clustering is None:
        return None
    within, between = within_between(rho, clustering.labels)
    return {
        "labels": clustering.labels.tolist(),
        "order": clustering.order.tolist(),
        "cophenetic": clustering.cophenetic,
        "mean_rho_within_clusters": within,
        "mean_rho_between_clusters": between,
    }


def _stability(stability: ClusterStability) -> dict[str, object]:
    """The tree agreement's median and 2.5/97.5 percentiles over replicates, and the
    co-clustering matrix."""
    agreement = stability.tree_agreement
    finite = agreement[np.isfinite(agreement)]
    low, median, high = np.percentile(finite, [2.5, 50, 97.5]) if finite.size else (math.nan,) * 3
    return {
        "replicates": int(agreement.size),
        "tree_agreement_median": median,
        "tree_agreement_low": low,
        "tree_agreement_high": high,
        "co_clustering": stability.co_clustering.tolist(),
        "cancelled": stability.cancelled,
    }


def clean(value: object) -> object:
    """JSON-ready: NaN as null, numpy scalars and arrays as Python numbers and lists."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalar or array
        return clean(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


UNPARSED_WARNING = 0.1
"""A run with more than this fraction of its answers unparsed is warned about: they count
as wrong, so its accuracy says more about its output format than about the model."""


def run_warnings(matrix: RunMatrix) -> list[str]:
    """What must be said of single runs: one with no answer to any item of the
    benchmark or to only some, one whose answers are unparsed beyond
    :data:`UNPARSED_WARNING`."""
    found = []
    answered, unparsed = matrix.answered.sum(axis=0), matrix.unparsed.sum(axis=0)
    for run, n, bad in zip(matrix.runs, answered.tolist(), unparsed.tolist(), strict=True):
        if n == 0:
            found.append(f"run {run!r} has no answer to any item of this benchmark")
            continue
        if n < len(matrix.items):
            found.append(f"run {run!r} answered {n} of the {len(matrix.items)} items: its "
                         "accuracy is over those only")  # fmt: skip
        if bad == n:
            found.append(f"run {run!r}: every one of its {n} answers is unparsed (all "
                         "counted wrong): is its output in another format?")  # fmt: skip
        if 0 < bad < n and bad > UNPARSED_WARNING * n:
            found.append(f"run {run!r}: {bad} of its {n} answers are unparsed "
                         f"({bad / n:.0%}, counted wrong)")  # fmt: skip
    return found


def compare_runs(
    matrix: RunMatrix,
    min_items: int = _D["min_items"],  # type: ignore[assignment]
    clusters: int = _D["clusters"],  # type: ignore[assignment]
    preset: str = _D["preset"],  # type: ignore[assignment]
    n_boot: int = _D["n_boot"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
    sort: str = _D["sort"],  # type: ignore[assignment]
    leakage: bool = _D["leakage"],  # type: ignore[assignment]
    n_stability: int = _D["n_stability"],  # type: ignore[assignment]
    answerable: float = _D["answerable"],  # type: ignore[assignment]
) -> CompareResult:
    """Compute every part of the comparison of ``matrix``'s runs; every default is the
    option's in :data:`~medrcube_desktop.evaluation.compare_options.SETTINGS` (the
    ``compare`` command's and the Compare models pane's).

    Parameters
    ----------
    matrix : RunMatrix
    min_items : int
        Voxels with fewer items are left out (:func:`~.voxels.voxel_matrix`).
    clusters : int
        Clusters cut from the voxel tree (:func:`~.voxels.cluster_voxels`).
    preset : {"paper", "official", "both"}
        Pairing of low- and high-level items (:func:`~.credibility_models.group_counts`);
        ``"both"`` computes each, the paper's first.
    n_boot, seed : int
        Bootstrap replicates (0: no intervals) and seed of the credibility intervals.
    sort : {"family", "accuracy", "none"}
        Leaderboard order (:meth:`~.leaderboard.Leaderboard.order`).
    leakage : bool
        List the items each text-only run got right (``CompareResult.leakage``).
    n_stability : int
        Bootstrap replicates over models for the voxel tree's stability (0: none; about
        7 ms each at 33 runs × 100 voxels). The default is the command's (100; it was 0
        here before issue 22).
    answerable : float
        Share of models right under ablation above which an item is answerable without
        the image (:func:`~.necessity.item_necessity`).

    Returns
    -------
    CompareResult
        A part that is undefined says so with its reason (issue 21): ρ is None with
        ``voxel_undefined`` (fewer than 2 voxels, fewer than 4 distinct image runs), r
        has ``Correlation.undefined``; the reasons are also in ``warnings``.

    Raises
    ------
    MedRCubeError
        Unknown preset.
    """
    if len(matrix.runs) and not matrix.answered.any():
        raise MedRCubeError(
            f"none of the {len(matrix.runs)} runs has an answer to any of the "
            f"{len(matrix.items)} items of this benchmark: is it the benchmark they were "
            "run on (the answers are matched by item id)?"
        )
    warnings = run_warnings(matrix)
    models = matrix.image_runs()
    voxels = voxel_matrix(models, min_items)
    clustering = residual_rho = residual_clustering = stability = None
    islands: list[RegionIsland] = []
    rho, voxel_undefined = voxel_rho(voxels, min_items)
    if rho is not None:
        if undefined_pairs(rho):
            n_pairs = len(voxels.voxels) * (len(voxels.voxels) - 1) // 2
            warnings.append(
                f"Spearman ρ {undefined_text('fewer than 4 distinct points or zero variance')}"
                f" for {undefined_pairs(rho)} of {n_pairs} voxel pairs (blank in the heatmaps, "
                "null in the JSON, left out of the means)"
            )
        try:
            clustering = cluster_voxels(rho, clusters)
        except MedRCubeError as exc:
            warnings.append(f"voxels not clustered: {exc}")
        regions = sorted({voxel_region(v) for v in voxels.voxels})
        islands = [region_islands(rho, voxels.voxels, region) for region in regions]
        residual_rho = voxel_correlation(residual_matrix(voxels.accuracy))
        try:
            residual_clustering = cluster_voxels(residual_rho, clusters)
        except MedRCubeError as exc:
            warnings.append(f"residual voxels not clustered: {exc}")
        if n_stability and clustering is not None:
            try:
                stability = cluster_stability(voxels.accuracy, clusters, n_stability, seed)
            except MedRCubeError as exc:
                warnings.append(f"no cluster stability: {exc}")
    else:
        warnings.append(f"voxel correlation {undefined_text(voxel_undefined or '')}")
    sighted = set(models.runs)  # ablation runs are baselines, not models
    presets = ("paper", "official") if preset == "both" else (preset,)
    by_preset: dict[str, tuple[list[ModelCredibility], Correlation | None]] = {}
    for name in presets:
        figures, pairing = credibility_table(matrix, name, n_boot, seed)
        warnings.extend(pairing)
        r = accuracy_shortcut_correlation([f for f in figures if f.run in sighted])
        by_preset[name] = (figures, r)
    credibility, correlation = by_preset[presets[0]]
    model = dict(zip(matrix.runs, matrix.models, strict=True))
    pairs = text_only_pairs(matrix)
    drops = [
        TextOnlyDrop(image, text, model[text], text_only_drop(matrix, image, text))
        for image, text in pairs
    ]
    rows = [row for i, t in pairs for row in leakage_items(matrix, i, t)] if leakage else None
    return CompareResult(
        matrix, leaderboard(matrix), voxels, rho, clustering, islands, credibility, correlation,
        drops, warnings, preset, min_items, clusters, by_preset, rows, sort, n_boot, seed,
        residual_rho, residual_clustering, stability, n_stability, models.runs, voxel_undefined,
        necessity=necessity(matrix, answerable, n_boot, seed), answerable=answerable,
    )  # fmt: skip
