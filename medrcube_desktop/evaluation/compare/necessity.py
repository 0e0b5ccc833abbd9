"""Does an item need its image? (issue 24 item 2; the paper's Table 4 extended.)

Over every run of a :class:`~.matrix.RunMatrix`:

- :func:`item_necessity`: per item, how many models answer it right with the image and
  under each ablation (text-only, blank, swapped, noise:
  :mod:`medrcube_desktop.evaluation.image_modes`), and whether it is "answerable
  without the image": right under ablation by more than a share (``--answerable-share``,
  declared once in :data:`~medrcube_desktop.evaluation.compare_options.SETTINGS`) of
  the models with an ablation answer to it;
- :func:`ablation_pairs` and :func:`necessity_gaps`: per (image run, ablation run) of
  one model, the gap sighted − ablated accuracy overall, per task and per voxel, with
  a 95 % bootstrap interval clustered by image
  (:func:`~.leaderboard.clustered_difference`, the one of ``paired_difference``).

Every surface (``compare`` text and ``--json``, its CSV/XLSX, report.html, the Compare
pane, the review reveal and queue, the agreement study) reads :class:`Necessity`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from medrcube_desktop.core.options import defaults
from medrcube_desktop.evaluation.compare.leaderboard import clustered_difference
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare.text_only import text_only_pairs
from medrcube_desktop.evaluation.compare_options import SETTINGS
from medrcube_desktop.evaluation.image_modes import ABLATIONS, IMAGE, TEXT_ONLY
from medrcube_desktop.evaluation.metrics import voxel

if TYPE_CHECKING:
    from medrcube_desktop.core.items import Item
    from medrcube_desktop.store import StudyStore

_D = defaults(SETTINGS)  # --answerable-share, --bootstrap and --seed, declared once

ANSWERABLE_SHARE: float = _D["answerable"]  # type: ignore[assignment]
"""The default of ``--answerable-share``: an item is answerable without the image when
more than this share of the models with an ablation answer to it answer it right."""

MODES: tuple[str, ...] = (IMAGE, *ABLATIONS)
"""The modes counted per item, the sighted one first."""


def _column(key: str) -> str:
    """An :meth:`ItemNecessity.evidence` key as a column name: ``text-only_right`` →
    ``text_only_right`` (underscores only, as every other column of compare's outputs)."""
    return key.replace("-", "_")


_EVIDENCE_KEYS: tuple[str, ...] = (
    *(f"{mode}_{what}" for mode in MODES for what in ("right", "models")),
    "ablated_right", "ablated_models", "answerable",
)  # fmt: skip
ITEM_FIELDS: tuple[str, ...] = ("item", "task", "modality", "region",
                                *map(_column, _EVIDENCE_KEYS))  # fmt: skip
"""The columns of :meth:`ItemNecessity.rows` (and of compare's ``necessity_items.csv``,
its XLSX sheet and ``--json``): ``image_right``, ``image_models``, ``text_only_right``,
…, ``ablated_right``, ``ablated_models``, ``answerable``."""

GAP_FIELDS: tuple[str, ...] = (
    "image_run", "ablated_run", "mode", "model", "scope", "level", "n", "images",
    "with_image", "ablated", "gap", "low", "high",
)  # fmt: skip
"""The columns of :meth:`Necessity.gap_rows` (and of compare's ``necessity_gaps.csv``)."""


def _model_outcome(matrix: RunMatrix, columns: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(answered, right) per item, (n_items,) bool each, of one model over its runs
    ``columns``: answered by any of them; right when more than half of its answers to
    the item are right (one run: that run's answer)."""
    answered = matrix.answered[:, columns]
    n = answered.sum(axis=1)
    hits = np.nan_to_num(matrix.correct[:, columns], nan=0.0).sum(axis=1)
    return n > 0, hits * 2 > n


@dataclass(frozen=True)
class ItemNecessity:
    """Per item, models right with the image and under each ablation.

    Attributes
    ----------
    matrix : RunMatrix
    right, models : dict of str to ndarray of shape (n_items,), int64
        Per mode of :data:`MODES`: distinct models (``RunMatrix.models``) that answered
        the item right in that mode, and that answered it at all. A model with several
        runs in one mode is right when more than half of its answers are.
    ablated_right, ablated_models : ndarray of shape (n_items,), int64
        The same over every ablation mode at once (a model's ablation answers pooled).
    answerable : ndarray of shape (n_items,), bool
        ``ablated_right > threshold × ablated_models`` (and at least one model).
    threshold : float
        The share (0–1) of ``--answerable-share``.
    """

    matrix: RunMatrix
    right: dict[str, np.ndarray]
    models: dict[str, np.ndarray]
    ablated_right: np.ndarray
    ablated_models: np.ndarray
    answerable: np.ndarray
    threshold: float

    def answerable_ids(self) -> list[str]:
        """Ids of the items answerable without the image, in benchmark order."""
        return [item.id for item, a in zip(self.matrix.items, self.answerable, strict=True) if a]

    def evidence(self) -> dict[str, dict[str, object]]:
        """Per item id with an ablation answer: ``{"answerable", "ablated_right",
        "ablated_models", "<mode>_right", "<mode>_models"...}`` (ints, a bool): what
        the reveal shows after the reviewer's commit."""
        out = {}
        for n, item in enumerate(self.matrix.items):
            if not self.ablated_models[n]:
                continue
            row: dict[str, object] = {"answerable": bool(self.answerable[n])}
            row["ablated_right"] = int(self.ablated_right[n])
            row["ablated_models"] = int(self.ablated_models[n])
            for mode in MODES:
                row[f"{mode}_right"] = int(self.right[mode][n])
                row[f"{mode}_models"] = int(self.models[mode][n])
            out[item.id] = row
        return out

    def rows(self) -> list[dict[str, object]]:
        """:data:`ITEM_FIELDS` per item with at least one ablation answer, in
        benchmark order."""
        evidence = self.evidence()
        return [
            {"item": item.id, "task": item.task.abbreviation, "modality": item.modality,
             "region": item.region,
             **{_column(k): evidence[item.id][k] for k in _EVIDENCE_KEYS}}
            for item in self.matrix.items if item.id in evidence
        ]  # fmt: skip


def item_necessity(
    matrix: RunMatrix,
    threshold: float = _D["answerable"],  # type: ignore[assignment]
) -> ItemNecessity:
    """The :class:`ItemNecessity` of every item of ``matrix`` over all its runs.

    Raises
    ------
    ValueError
        ``threshold`` outside 0–1.
    """
    if not 0 <= threshold <= 1:
        raise ValueError(f"answerable share must be 0-1, got {threshold}")
    n_items = len(matrix.items)
    right = {mode: np.zeros(n_items, dtype=np.int64) for mode in MODES}
    models = {mode: np.zeros(n_items, dtype=np.int64) for mode in MODES}
    ablated_right = np.zeros(n_items, dtype=np.int64)
    ablated_models = np.zeros(n_items, dtype=np.int64)
    for model in dict.fromkeys(matrix.models):
        mine = [c for c, m in enumerate(matrix.models) if m == model]
        for mode in MODES:
            columns = [c for c in mine if matrix.image_modes[c] == mode]
            if columns:
                answered, hit = _model_outcome(matrix, columns)
                models[mode] += answered
                right[mode] += hit
        columns = [c for c in mine if matrix.image_modes[c] in ABLATIONS]
        if columns:
            answered, hit = _model_outcome(matrix, columns)
            ablated_models += answered
            ablated_right += hit
    answerable = (ablated_models > 0) & (ablated_right > threshold * ablated_models)
    return ItemNecessity(
        matrix, right, models, ablated_right, ablated_models, answerable, float(threshold)
    )


def ablation_pairs(matrix: RunMatrix) -> list[tuple[str, str, str]]:
    """(image run, ablation run, mode) of each model that has both.

    Text-only runs pair as :func:`~.text_only.text_only_pairs` pairs them (Table 4). A
    blank, swapped or noise run pairs with its linked image run
    (``RunMatrix.image_links``) when that run is in the matrix and still an image run
    of its model (``import-run --replace`` may have put another run under the name),
    else with every image run of its model. Text-only pairs first, then the other modes in
    :data:`~medrcube_desktop.evaluation.image_modes.ABLATIONS` order, then columns.
    """
    pairs = [(i, t, TEXT_ONLY) for i, t in text_only_pairs(matrix)]
    image = [c for c, mode in enumerate(matrix.image_modes) if mode == IMAGE]
    for mode in ABLATIONS[1:]:
        for c, (run_mode, link) in enumerate(zip(matrix.image_modes, matrix.image_links,
                                                 strict=True)):  # fmt: skip
            if run_mode != mode:
                continue
            j = matrix.runs.index(link) if link and link in matrix.runs else None
            # a link still naming an image run of the model (import-run --replace)
            if j is not None and (matrix.image_modes[j], matrix.models[j]) == (
                IMAGE,
                matrix.models[c],
            ):
                pairs.append((link, matrix.runs[c], mode))
                continue
            pairs += [(matrix.runs[i], matrix.runs[c], mode) for i in image
                      if matrix.models[i] == matrix.models[c]]  # fmt: skip
    return pairs


@dataclass(frozen=True)
class NecessityGap:
    """One image run against one ablation run of its model.

    ``rows`` are ``{"scope", "level", "n", "images", "with_image", "ablated", "gap",
    "low", "high"}``: ``scope`` is ``"Overall"``, a task abbreviation or a voxel
    (task|modality|region), ``level`` ``"overall"``, ``"task"`` or ``"voxel"``; ``n``
    items both runs answered, ``images`` distinct images among them; accuracies and
    the gap (with − ablated) 0–1, the gap's 95 % interval clustered by image
    (NaN with ``n_boot=0``).
    """

    image_run: str
    ablated_run: str
    mode: str
    model: str
    rows: list[dict[str, object]]

    def row(self, scope: str) -> dict[str, object] | None:
        """The row of ``scope`` (``"Overall"``, a task, a voxel), None when absent."""
        return next((r for r in self.rows if r["scope"] == scope), None)


def necessity_gap(
    matrix: RunMatrix,
    image_run: str,
    ablated_run: str,
    mode: str,
    n_boot: int = _D["n_boot"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
) -> NecessityGap:
    """The :class:`NecessityGap` of two runs; every scope's interval is drawn with the
    same ``seed`` (:func:`~.leaderboard.clustered_difference`).

    Raises
    ------
    ValueError
        A run is not in the matrix.
    """
    i, a = matrix.column(image_run), matrix.column(ablated_run)
    both = matrix.answered[:, i] & matrix.answered[:, a]
    images = matrix.images()
    d = matrix.correct[:, i] - matrix.correct[:, a]
    tasks = matrix.labels("task")
    voxels = np.array([voxel(item) for item in matrix.items], dtype=object)
    scopes = [("Overall", "overall", both)]
    scopes += [(t, "task", both & (tasks == t)) for t in sorted(set(tasks[both]))]
    scopes += [(v, "voxel", both & (voxels == v)) for v in sorted(set(voxels[both]))]
    rows = []
    for scope, level, rows_in in scopes:
        n = int(rows_in.sum())
        if not n:
            continue
        gap, low, high = clustered_difference(d[rows_in], images[rows_in], n_boot, seed)
        rows.append({
            "scope": scope, "level": level, "n": n,
            "images": int(len(np.unique(images[rows_in]))),
            "with_image": float(matrix.correct[rows_in, i].mean()),
            "ablated": float(matrix.correct[rows_in, a].mean()),
            "gap": gap, "low": low, "high": high,
        })  # fmt: skip
    return NecessityGap(image_run, ablated_run, mode, matrix.models[a], rows)


@dataclass(frozen=True)
class Necessity:
    """Image necessity of a comparison: :class:`ItemNecessity` and every
    :class:`NecessityGap` of :func:`ablation_pairs`."""

    items: ItemNecessity
    gaps: list[NecessityGap] = field(default_factory=list)

    def gap_rows(self) -> list[dict[str, object]]:
        """:data:`GAP_FIELDS` per pair and scope."""
        return [
            {"image_run": g.image_run, "ablated_run": g.ablated_run, "mode": g.mode,
             "model": g.model, **row}
            for g in self.gaps for row in g.rows
        ]  # fmt: skip

    def summary(self) -> dict[str, int]:
        """``{"items", "answerable"}``: items with an ablation answer, and those of them
        answerable without the image."""
        return {
            "items": int((self.items.ablated_models > 0).sum()),
            "answerable": int(self.items.answerable.sum()),
        }

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``{"threshold", "summary", "items", "gaps"}`` (compare's
        ``"necessity"``)."""
        return {
            "threshold": self.items.threshold,
            "summary": self.summary(),
            "items": self.items.rows(),
            "gaps": self.gap_rows(),
        }


def has_ablations(matrix: RunMatrix) -> bool:
    """Whether any run of ``matrix`` is an ablation run (text-only included)."""
    return any(mode in ABLATIONS for mode in matrix.image_modes)


def necessity(
    matrix: RunMatrix,
    threshold: float = _D["answerable"],  # type: ignore[assignment]
    n_boot: int = _D["n_boot"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
) -> Necessity | None:
    """The :class:`Necessity` of ``matrix``, None when it has no ablation run (the
    comparison then reads as before issue 24)."""
    if not has_ablations(matrix):
        return None
    gaps = [
        necessity_gap(matrix, i, a, mode, n_boot, seed) for i, a, mode in ablation_pairs(matrix)
    ]
    return Necessity(item_necessity(matrix, threshold), gaps)


def _interval(row: dict[str, object]) -> str:
    low, high = row["low"], row["high"]
    if not isinstance(low, float) or not isinstance(high, float) or np.isnan(low):
        return ""
    return f" [{low * 100:.1f}, {high * 100:.1f}]"


CLI_ITEMS_FILE = "necessity_items.csv with --out"
"""Where ``compare`` says the per-item figures are written (its ``--out``)."""
PANE_ITEMS_FILE = "necessity_items.csv with Export report… on the Figures tab"
"""Where the Compare pane says they are written (the pane has no ``--out``)."""


def share_percent(share: float) -> str:
    """The answerable share ``share`` (0–1) in %, with as many digits as it needs (six
    significant): 0.5 → ``"50%"``, 0.99999 → ``"99.999%"`` (never rounded to a share
    it is not, as ``:.0%`` would print 100 % of it)."""
    return f"{share * 100:.6g}%"


def necessity_lines(found: Necessity, items_file: str = CLI_ITEMS_FILE) -> list[str]:
    """The text ``compare`` prints of ``found`` (and the Compare pane shows): the count
    of items answerable without the image, then per pair its overall and per-task gap
    in points with the clustered interval (voxels: ``necessity_gaps.csv``).
    ``items_file`` ends the first line: where the per-item figures are written
    (:data:`CLI_ITEMS_FILE` for the command, :data:`PANE_ITEMS_FILE` for the pane)."""
    summary = found.summary()
    lines = [
        f"Image necessity: {summary['answerable']} of the {summary['items']} items with an "
        f"ablation answer are answerable without the image (right under ablation by more "
        f"than {share_percent(found.items.threshold)} of the models; {items_file})"
    ]
    for gap in found.gaps:
        parts = [
            f"{row['scope']} {_pct(row['gap'])}{_interval(row)} (n={row['n']})"
            for row in gap.rows
            if row["level"] != "voxel"
        ]
        lines.append(
            f"sighted − {gap.mode} gap, {gap.image_run} vs {gap.ablated_run} (points, 95% "
            f"interval by image): "
            + ("; ".join(parts) or "undefined: no item answered by both runs")
        )
    return lines


GAP_COLUMNS: tuple[str, ...] = (
    "Image run", "Ablation run", "Mode", "Scope", "n", "Images", "With image", "Ablated",
    "Gap", "95% interval",
)  # fmt: skip
"""The Compare pane's image-necessity table header (:func:`gap_cells`)."""

ITEM_COLUMNS: tuple[str, ...] = ("Item", "Voxel", "Right with the image",
                                 "Right without", *ABLATIONS)  # fmt: skip
"""The Compare pane's answerable-items table header (:func:`answerable_cells`)."""


def _pct(value: object) -> str:
    return "—" if not isinstance(value, float) or np.isnan(value) else f"{value * 100:.1f}"


GAP_LEVELS: tuple[str, ...] = ("overall", "task", "voxel")
"""The ``level`` of a gap row, the pane's level filter (:func:`gap_cells`)."""


def gap_pairs(found: Necessity) -> list[tuple[str, str, str]]:
    """The ``(image_run, ablated_run, mode)`` of each pair of :meth:`Necessity.gap_rows`,
    in their order: the pane's pair filter."""
    return list(dict.fromkeys((str(row["image_run"]), str(row["ablated_run"]),
                               str(row["mode"])) for row in found.gap_rows()))  # fmt: skip


def gap_cells(
    found: Necessity, level: str | None = None, pair: tuple[str, str] | None = None
) -> list[list[object]]:
    """The pane's text of the :meth:`Necessity.gap_rows` rows (accuracies and gap in
    %, one decimal: what ``compare`` prints; the interval ``[low, high]``), in their
    order: all of them, or those of one ``level`` (:data:`GAP_LEVELS`) and/or of one
    ``pair`` ``(image_run, ablated_run)``.

    Raises
    ------
    ValueError
        ``level`` not one of :data:`GAP_LEVELS` (nor None).
    """
    if level is not None and level not in GAP_LEVELS:
        raise ValueError(f"level {level!r}: not one of {', '.join(GAP_LEVELS)}")
    return [
        [row["image_run"], row["ablated_run"], row["mode"], row["scope"], str(row["n"]),
         str(row["images"]), _pct(row["with_image"]), _pct(row["ablated"]), _pct(row["gap"]),
         "—" if _pct(row["low"]) == "—" else f"[{_pct(row['low'])}, {_pct(row['high'])}]"]
        for row in found.gap_rows()
        if (level is None or row["level"] == level)
        and (pair is None or (row["image_run"], row["ablated_run"]) == tuple(pair))
    ]  # fmt: skip


def answerable_cells(found: Necessity) -> list[list[object]]:
    """The pane's text of each item answerable without the image: id, voxel, models
    right with the image ``r/n``, right under ablation ``r/n``, then per ablation
    mode ``r/n`` (``—``: no model ran it)."""

    def count(row: dict[str, object], prefix: str) -> str:
        n = row[_column(f"{prefix}_models")]
        return f"{row[_column(f'{prefix}_right')]}/{n}" if n else "—"

    return [
        [row["item"], f"{row['task']}|{row['modality']}|{row['region']}", count(row, IMAGE),
         count(row, "ablated"), *(count(row, mode) for mode in ABLATIONS)]
        for row in found.items.rows() if row["answerable"]
    ]  # fmt: skip


def store_evidence(
    store: StudyStore,
    items: Sequence[Item],
    threshold: float = _D["answerable"],  # type: ignore[assignment]
) -> dict[str, dict[str, object]]:
    """:meth:`ItemNecessity.evidence` of ``items`` over every run stored in ``store``
    (what the review's reveal, its queue and the agreement study's rule 1.4 read:
    :mod:`medrcube_desktop.review.necessity_evidence`); empty when no run is stored or
    none is an ablation run.

    Raises
    ------
    StoreError
        The runs cannot be read.
    """
    from medrcube_desktop.evaluation.compare.matrix import run_matrix

    runs = store.eval_run_names()
    if not runs or not items:
        return {}
    matrix = run_matrix(store, runs, items)
    if not has_ablations(matrix):
        return {}
    return item_necessity(matrix, threshold).evidence()
