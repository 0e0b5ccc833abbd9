"""The leaderboard of many runs (paper Table 3.3), its intervals, and the text-only drop.

Everything here reads a :class:`~.matrix.RunMatrix` and is vectorised over runs and
items (issue 14, "Speed": 33 runs × 7,626 items well under a second).

- :func:`leaderboard`: per run, accuracy Overall, per task, modality and region, with
  counts and Wilson 95 % intervals, and the random-baseline row (paper Table 3.3 layout).
- :func:`paired_difference`: the accuracy difference of two runs with a bootstrap
  interval clustered by image (several items share an image, so items are not
  independent draws).
- :func:`~.text_only.text_only_drop`, :func:`~.text_only.right_without_image` (kept
  importable from here), :func:`~.text_only.text_only_pairs` and
  :func:`~.text_only.leakage_items`: an image run against the text-only run of the
  same model (paper Table 4, Appendix D.4), in :mod:`.text_only`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare.text_only import (  # noqa: F401 - kept importable
    right_without_image,
    text_only_drop,
)

if TYPE_CHECKING:
    import pandas as pd  # imported where used: pandas comes with statsmodels, loads slowly

SORTS: tuple[str, ...] = ("family", "accuracy", "none")
"""Row orders of :meth:`Leaderboard.order`."""

GROUPS: tuple[str, ...] = ("task", "modality", "region")
"""Breakdowns of the leaderboard, in the column order of paper Table 3.3."""

_PAPER_ORDER: dict[str, tuple[str, ...]] = {
    "task": tuple(task.abbreviation for task in TASKS),
    "modality": ("ct", "x-ray", "xray", "mri", "mr", "us", "ultrasound"),
    "region": ("brain", "chest", "heart", "lungs", "breast"),
}
"""Column order of paper Table 3.3 (lower case for modality and region, whose spelling
varies between releases); values the paper does not have follow, sorted."""


def random_row_name(runs: Sequence[str]) -> str:
    """The label of the random-baseline row: ``"Random"`` as in paper Table 3.3, or
    ``"Random (chance)"`` when a run is itself named Random (in any case), so the two rows
    are never taken for one another."""
    return "Random (chance)" if any(run.casefold() == "random" for run in runs) else "Random"


def _columns(matrix: RunMatrix, group: str) -> list[str]:
    """The values of ``group`` as leaderboard columns: every task of Table 6 (even
    without items), and the modalities or regions present, in the paper's order."""
    if group == "task":
        return list(_PAPER_ORDER["task"])
    order = _PAPER_ORDER[group]
    present = set(matrix.labels(group).tolist())
    rank = {
        value: order.index(value.lower()) if value.lower() in order else len(order)
        for value in present
    }
    return sorted(present, key=lambda value: (rank[value], value))


def wilson_interval(correct: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score 95 % interval of ``correct`` successes in ``n`` trials, elementwise.

    Uses ``statsmodels.stats.proportion.proportion_confint(method="wilson")`` (Wilson
    1927; the closed form (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n), z = 1.96).

    Parameters
    ----------
    correct, n : ndarray of int, same shape
        Successes and trials.

    Returns
    -------
    low, high : ndarray of float64, same shape
        The bounds as proportions (0–1); NaN where ``n`` is 0.
    """
    from statsmodels.stats.proportion import proportion_confint

    n = np.asarray(n)
    safe = np.where(n > 0, n, 1)
    low, high = proportion_confint(np.asarray(correct), safe, alpha=0.05, method="wilson")
    empty = n == 0
    return (
        np.where(empty, np.nan, np.asarray(low, dtype=np.float64)),
        np.where(empty, np.nan, np.asarray(high, dtype=np.float64)),
    )


@dataclass(frozen=True)
class Leaderboard:
    """Accuracy of each run overall and per task, modality and region (paper Table 3.3).

    Attributes
    ----------
    runs : tuple of str
        Run names (rows), in the matrix's order.
    columns : tuple of (str, str)
        ``(group, value)`` per column: ``("overall", "Overall")`` first, then
        ``("task", "MR")``.. (all 8 tasks of Table 6), ``("modality", ..)``,
        ``("region", ..)``.
    n, correct : ndarray of shape (n_runs, n_columns), int64
        Items the run answered in the column's group, and how many of them right.
        Unanswered items (NaN in the matrix) are not counted; unparsed ones count as wrong.
    low, high : ndarray of shape (n_runs, n_columns), float64
        Wilson 95 % interval of the accuracy (0–1); NaN where ``n`` is 0.
    random : ndarray of shape (n_columns,), float64
        Expected accuracy of uniform guessing: the mean of 1/k over the column's items,
        k the item's number of options (paper Table 3.3, row "Random"); NaN for a
        column without items. Over all items of the benchmark, answered or not.
    models : tuple of str
        Each run's model (``RunMatrix.models``; the run names when not given).
    text_only : tuple of bool
        Each run sent no image (``RunMatrix.text_only``).
    image_modes : tuple of str
        Each run's image mode (``RunMatrix.image_modes``; by default ``"text-only"``
        where ``text_only`` is set, else ``"image"``): an ablation run is a baseline of
        its model, marked (:func:`~medrcube_desktop.evaluation.image_modes.mode_mark`).
    """

    runs: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    n: np.ndarray
    correct: np.ndarray
    low: np.ndarray
    high: np.ndarray
    random: np.ndarray
    models: tuple[str, ...] = ()
    text_only: tuple[bool, ...] = ()
    image_modes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.models:
            object.__setattr__(self, "models", tuple(self.runs))
        if not self.text_only:
            object.__setattr__(self, "text_only", (False,) * len(self.runs))
        if not self.image_modes:
            modes = tuple("text-only" if text else "image" for text in self.text_only)
            object.__setattr__(self, "image_modes", modes)

    def ablation(self, r: int) -> bool:
        """Whether run ``r`` withheld the item's picture (text-only, blank, swapped,
        noise): a baseline of its model, not a model of its own."""
        from medrcube_desktop.evaluation.image_modes import is_ablation

        return bool(self.text_only[r]) or is_ablation(self.image_modes[r])

    def order(self, sort: str | None = "family") -> np.ndarray:
        """(n_runs,) int64: the rows in the order ``sort`` asks for.

        ``"family"``: by group in the paper's order (:func:`~.families.groups`:
        proprietary, medical-specific, general-purpose, then other), series, then the
        overall accuracy of the model's image runs, highest first (paper Table 3); a
        text-only run follows the image run of its model (Table 4: side by side).
        ``"accuracy"``: overall accuracy, highest first. ``None`` or ``"none"``: as given.
        A run without answers (NaN accuracy) comes last of its block; ties keep the
        given order.

        Raises
        ------
        ValueError
            Another ``sort``.
        """
        from medrcube_desktop.evaluation.compare.families import groups, model_family

        n = len(self.runs)
        if sort in (None, "none"):
            return np.arange(n)
        overall = np.nan_to_num(self.accuracy[:, 0], nan=-1.0)
        if sort == "accuracy":
            return np.array(sorted(range(n), key=lambda r: -overall[r]), dtype=np.int64)
        if sort != "family":
            raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
        rank = {group: i for i, group in enumerate(groups())}
        best: dict[str, float] = {}  # the model's best image run, else its best run
        for r in range(n):
            model = self.models[r]
            value = overall[r] + (0.0 if self.ablation(r) else 2.0)
            best[model] = max(best.get(model, -9.0), value)
        families = [model_family(model) for model in self.models]

        def key(r: int) -> tuple[int, str, float, str, bool, float]:
            family = families[r]
            return (rank.get(family.group, len(rank)), family.series.lower(),
                    -best[self.models[r]], self.models[r], self.ablation(r), -overall[r])  # fmt: skip

        return np.array(sorted(range(n), key=key), dtype=np.int64)

    @property
    def accuracy(self) -> np.ndarray:
        """(n_runs, n_columns) float64: correct / n (0–1), NaN where n is 0."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.n > 0, self.correct / np.where(self.n > 0, self.n, 1), np.nan)

    def to_frame(
        self, value: str = "accuracy", percent: bool = False, sort: str | None = None
    ) -> pd.DataFrame:
        """The table in the paper's Table 3.3 layout: a row per run, columns Overall,
        the tasks, modalities and regions.

        Parameters
        ----------
        value : {"accuracy", "low", "high", "n", "correct"}
            What the cells hold. For ``"accuracy"`` a first row ``"Random"`` holds the
            random baseline, as in the paper.
        percent : bool
            Accuracies and bounds in percent (the paper's unit) instead of 0–1.
        sort : {None, "none", "family", "accuracy"}
            ``None``: the rows as given and no family columns (the layout before
            families). Otherwise rows in :meth:`order`'s order, and three first columns
            ``("family", "series")``, ``("family", "group")`` (str,
            :func:`~.families.model_family` of the run's model) and
            ``("family", "text_only")`` (bool; empty strings on the Random row), and
            ``("family", "image_mode")`` after them when a run is a blank, swapped or
            noise ablation (the mode; the layout without ablations kept as it was).

        Returns
        -------
        DataFrame
            Index: run names (``"Random"`` first for accuracy); columns: a MultiIndex
            ``(group, value)`` with group ``overall``, ``task``, ``modality``, ``region``
            (after ``family`` when sorted).
        """
        import pandas as pd

        data = {"accuracy": self.accuracy, "low": self.low, "high": self.high}.get(value)
        if data is None and value not in ("n", "correct"):
            raise ValueError(f"value must be accuracy, low, high, n or correct, not {value!r}")
        index = list(self.runs)
        if data is None:
            data = self.n if value == "n" else self.correct
        else:
            data = data * 100 if percent else data
        rows = self.order(sort)
        data, index = data[rows], [index[r] for r in rows]
        if value == "accuracy":
            data = np.vstack([self.random * (100 if percent else 1), data])
            index = [random_row_name(self.runs), *index]
        columns = pd.MultiIndex.from_tuples(self.columns, names=["group", "value"])
        frame = pd.DataFrame(data, index=pd.Index(index, name="run"), columns=columns)
        if sort is None:
            return frame
        from medrcube_desktop.evaluation.compare.families import model_family

        families = [model_family(self.models[r]) for r in rows]
        text_only = [bool(self.text_only[r]) for r in rows]
        blank = [""] if value == "accuracy" else []
        frame.insert(0, ("family", "text_only"), blank + text_only)
        if any(mode not in ("image", "text-only") for mode in self.image_modes):
            modes = [self.image_modes[r] for r in rows]
            frame.insert(1, ("family", "image_mode"), blank + modes)
        frame.insert(0, ("family", "group"), blank + [f.group for f in families])
        frame.insert(0, ("family", "series"), blank + [f.series for f in families])
        return frame

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``{"runs": {run: {group: {value: {"n", "correct", "accuracy",
        "low", "high"}}}}, "random": {group: {value: float}}}``, NaN written as None."""

        def number(x: float) -> float | None:
            return None if np.isnan(x) else float(x)

        accuracy = self.accuracy
        runs: dict[str, dict[str, dict[str, dict[str, object]]]] = {}
        random: dict[str, dict[str, float | None]] = {}
        for r, run in enumerate(self.runs):
            row = runs.setdefault(run, {})
            for c, (group, value) in enumerate(self.columns):
                row.setdefault(group, {})[value] = {
                    "n": int(self.n[r, c]),
                    "correct": int(self.correct[r, c]),
                    "accuracy": number(accuracy[r, c]),
                    "low": number(self.low[r, c]),
                    "high": number(self.high[r, c]),
                }
        for c, (group, value) in enumerate(self.columns):
            random.setdefault(group, {})[value] = number(self.random[c])
        return {"runs": runs, "random": random}


def _membership(matrix: RunMatrix) -> tuple[list[tuple[str, str]], np.ndarray]:
    """Leaderboard columns and the (n_items, n_columns) float64 0/1 matrix of which
    item counts in which column (the first column, Overall, holds every item)."""
    columns = [("overall", "Overall")]
    blocks = [np.ones((len(matrix.items), 1))]
    for group in GROUPS:
        values = _columns(matrix, group)
        labels = matrix.labels(group)
        blocks.append(
            (labels[:, None] == np.array(values, dtype=object)[None, :]).astype(np.float64)
        )
        columns += [(group, value) for value in values]
    return columns, np.hstack(blocks)


def leaderboard(matrix: RunMatrix) -> Leaderboard:
    """The :class:`Leaderboard` of every run of ``matrix``.

    A run's ``n`` in a column is the number of the column's items it answered: an
    unanswered item (NaN in ``matrix.correct``) is left out of that run's n and
    accuracy; an unparsed answer is wrong, as the paper counts it. Intervals are Wilson
    95 % (:func:`wilson_interval`); the random row is Σ 1/k over the column's items
    divided by their number, k = ``len(item.options)``.
    """
    columns, member = _membership(matrix)
    answered = matrix.answered.astype(np.float64)
    right = np.nan_to_num(matrix.correct, nan=0.0)
    n = np.rint(answered.T @ member).astype(np.int64)
    correct = np.rint(right.T @ member).astype(np.int64)
    low, high = wilson_interval(correct, n)
    inv_k = np.array([1.0 / len(item.options) for item in matrix.items])
    size = member.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        random = np.where(size > 0, inv_k @ member / np.where(size > 0, size, 1), np.nan)
    return Leaderboard(
        matrix.runs, tuple(columns), n, correct, low, high, random,
        models=matrix.models, text_only=matrix.text_only, image_modes=matrix.image_modes,
    )  # fmt: skip


def _column(matrix: RunMatrix, run: str) -> int:
    return matrix.column(run)


def paired_difference(
    matrix: RunMatrix, run_a: str, run_b: str, n_boot: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """Accuracy of ``run_a`` minus that of ``run_b``, with a 95 % bootstrap interval
    clustered by image.

    Only items both runs answered count. The bootstrap draws images with replacement
    (``matrix.images()``: items sharing an image file are one cluster) and takes every
    item of a drawn image along, the cluster bootstrap of Cameron, Gelbach & Miller
    (2008) / Field & Welsh (2007); the interval is the 2.5 and 97.5 percentiles of the
    resampled differences (percentile bootstrap, Efron & Tibshirani 1993 §13.3).
    Vectorised: a (n_boot, n_images) int64 matrix of drawn image indices (uniform,
    with replacement); a replicate's difference is Σ over its draws of the sum of d on
    the image / Σ of the image's item count, d = correct_a − correct_b per item. This
    equals (counts @ sums) / (counts @ sizes) with the multinomial image counts, and
    gathering is 7× faster than ``rng.multinomial`` at 2,542 images (bench_compare.py).

    Parameters
    ----------
    matrix : RunMatrix
    run_a, run_b : str
        Run names in ``matrix.runs``.
    n_boot : int
        Bootstrap replicates.
    seed : int
        Seed of ``numpy.random.default_rng``: the same seed gives the same interval.

    Returns
    -------
    diff, low, high : float
        Difference of accuracies (0–1 scale, −1 to 1) and its interval; all NaN when no
        item was answered by both.
    """
    a, b = _column(matrix, run_a), _column(matrix, run_b)
    both = matrix.answered[:, a] & matrix.answered[:, b]
    if not both.any():
        return (np.nan, np.nan, np.nan)
    d = matrix.correct[both, a] - matrix.correct[both, b]
    return clustered_difference(d, matrix.images()[both], n_boot, seed)


def clustered_difference(
    d: np.ndarray, images: np.ndarray, n_boot: int = 2000, seed: int = 0
) -> tuple[float, float, float]:
    """The mean of per-item differences ``d`` and its 95 % percentile bootstrap interval
    clustered by image: the computation of :func:`paired_difference`, for any subset
    of items (a voxel, a task: :mod:`.necessity` calls it).

    Parameters
    ----------
    d : ndarray of shape (n,), float64
        Per-item difference (e.g. correct_a − correct_b, each 0 or 1), n ≥ 1.
    images : ndarray of shape (n,), int
        Each item's image id (:meth:`~.matrix.RunMatrix.images`): the clusters.
    n_boot : int
        Bootstrap replicates; 0 gives NaN bounds.
    seed : int
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    diff, low, high : float
        Mean of ``d`` and its interval (NaN bounds with ``n_boot=0``).
    """
    if n_boot < 1:
        return (float(d.mean()), np.nan, np.nan)
    _, cluster = np.unique(images, return_inverse=True)
    sums = np.bincount(cluster, weights=d)
    sizes = np.bincount(cluster).astype(np.float64)
    n_images = len(sizes)
    rng = np.random.default_rng(seed)
    replicates = np.empty(n_boot)
    chunk = max(1, 2**22 // n_images)  # about 32 MB of drawn indices at a time
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        drawn = rng.integers(0, n_images, size=(stop - start, n_images))
        replicates[start:stop] = sums[drawn].sum(axis=1) / sizes[drawn].sum(axis=1)
    low, high = np.percentile(replicates, [2.5, 97.5])
    return (float(d.mean()), float(low), float(high))
