"""The items × models table every comparison is computed from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.image_modes import IMAGE, TEXT_ONLY, run_image_mode
from medrcube_desktop.evaluation.metrics import voxel


@dataclass(frozen=True)
class RunMatrix:
    """Per-item outcomes of several runs on one benchmark.

    Attributes
    ----------
    items : tuple of Item
        The benchmark's items, in benchmark order (rows).
    runs : tuple of str
        Run names (columns).
    correct : ndarray of shape (n_items, n_runs), float64
        1.0 right, 0.0 wrong (an unparsed answer is wrong, as the paper counts it), NaN
        where the run has no answer to the item.
    unparsed : ndarray of shape (n_items, n_runs), bool
        The run answered but no choice could be read.
    models : tuple of str
        Each run's model (as stored; the run's name when built without a store).
    text_only : tuple of bool
        Each run sent no image (the paper's prior-leakage baseline, Appendix D.4).
    answers : ndarray of shape (n_items, n_runs), object, or None
        The parsed letter of each answer (``None`` unparsed or unanswered), when built
        from a store (:func:`run_matrix`); ``None`` for a matrix built by hand.
    image_modes : tuple of str
        Each run's image mode (:mod:`~medrcube_desktop.evaluation.image_modes`:
        ``"image"``, ``"text-only"``, ``"blank"``, ``"swapped"``, ``"noise"``); by
        default ``"text-only"`` where ``text_only`` is set, else ``"image"``.
    image_links : tuple of str
        Each ablation run's linked image run (``RunRecord.image_run``; ``""`` unknown,
        and for image runs).
    """

    items: tuple[Item, ...]
    runs: tuple[str, ...]
    correct: np.ndarray
    unparsed: np.ndarray
    models: tuple[str, ...] = ()
    text_only: tuple[bool, ...] = ()
    answers: np.ndarray | None = None
    image_modes: tuple[str, ...] = ()
    image_links: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        shape = (len(self.items), len(self.runs))
        if self.correct.shape != shape or self.unparsed.shape != shape:
            raise ValueError(
                f"matrix shapes {self.correct.shape}, {self.unparsed.shape} != {shape}"
            )
        if not self.models:
            object.__setattr__(self, "models", tuple(self.runs))
        if not self.text_only:
            object.__setattr__(self, "text_only", (False,) * len(self.runs))
        if not self.image_modes:
            modes = tuple(TEXT_ONLY if text else IMAGE for text in self.text_only)
            object.__setattr__(self, "image_modes", modes)
        if not self.image_links:
            object.__setattr__(self, "image_links", ("",) * len(self.runs))
        if len(self.image_modes) != len(self.runs) or len(self.image_links) != len(self.runs):
            raise ValueError(f"{len(self.image_modes)} image modes, {len(self.image_links)} "
                             f"image links for {len(self.runs)} runs")  # fmt: skip
        if len(self.models) != len(self.runs) or len(self.text_only) != len(self.runs):
            raise ValueError(f"{len(self.models)} models, {len(self.text_only)} text_only "
                             f"flags for {len(self.runs)} runs")  # fmt: skip

    def families(self) -> list:
        """Each run's :class:`~.families.Family` (series and group), from its model."""
        from medrcube_desktop.evaluation.compare.families import model_family

        return [model_family(model) for model in self.models]

    def select(self, columns: Sequence[int]) -> RunMatrix:
        """The matrix of these run columns only, in this order."""
        columns = list(columns)
        return RunMatrix(
            self.items, tuple(self.runs[c] for c in columns), self.correct[:, columns],
            self.unparsed[:, columns], models=tuple(self.models[c] for c in columns),
            text_only=tuple(self.text_only[c] for c in columns),
            answers=None if self.answers is None else self.answers[:, columns],
            image_modes=tuple(self.image_modes[c] for c in columns),
            image_links=tuple(self.image_links[c] for c in columns),
        )  # fmt: skip

    def image_runs(self) -> RunMatrix:
        """The runs that saw the images (text-only and other ablation runs are
        baselines of a model, not models of their own: the voxel correlation and Fig. 4
        leave them out)."""
        return self.select(
            [c for c, (text, mode) in enumerate(zip(self.text_only, self.image_modes,
             strict=True)) if not text and mode == IMAGE]
        )  # fmt: skip

    def column(self, run: str) -> int:
        """The column of run ``run`` (``ValueError`` naming the runs when absent)."""
        try:
            return self.runs.index(run)
        except ValueError:
            raise ValueError(
                f"no run {run!r} in the matrix (runs: {', '.join(self.runs)})"
            ) from None

    @property
    def answered(self) -> np.ndarray:
        """(n_items, n_runs) bool: the run has an answer to the item."""
        return ~np.isnan(self.correct)

    def images(self) -> np.ndarray:
        """(n_items,) int: an id per image file (items sharing an image share it), the
        cluster of a bootstrap that resamples images rather than items."""
        ids: dict[str, int] = {}
        return np.array([ids.setdefault(str(item.image_path), len(ids)) for item in self.items])

    def labels(self, key: str) -> np.ndarray:
        """(n_items,) object: each item's ``task`` (abbreviation), ``modality``,
        ``region``, ``dataset`` or ``voxel`` (task|modality|region, paper §3)."""
        get = {
            "task": lambda i: i.task.abbreviation,
            "modality": lambda i: i.modality,
            "region": lambda i: i.region,
            "dataset": lambda i: i.dataset,
            "voxel": voxel,
        }[key]
        return np.array([get(item) for item in self.items], dtype=object)


def run_matrix(store, runs: Sequence[str], items: Sequence[Item]) -> RunMatrix:
    """The :class:`RunMatrix` of ``runs`` (stored in ``store``) over ``items``.

    Raises
    ------
    MedRCubeError
        A run name is not in the database (the known ones are listed).
    """
    known = set(store.eval_run_names())
    missing = [run for run in runs if run not in known]
    if missing:
        raise MedRCubeError(
            f"no run named {', '.join(map(repr, missing))} (runs: {', '.join(sorted(known)) or 'none'})"
        )
    records = [store.eval_run(run) for run in runs]
    answered = np.zeros((len(items), len(runs)), dtype=bool)
    answers = np.full((len(items), len(runs)), None, dtype=object)
    row = {item.id: n for n, item in enumerate(items)}
    column = {run: c for c, run in enumerate(runs)}
    for run, item_id, letter in store.parsed_answers(runs):  # one query for every run
        n = row.get(item_id)
        if n is None:
            continue  # an answer to an item this benchmark no longer has
        c = column[run]
        answered[n, c] = True
        answers[n, c] = letter
    truth = np.array([item.answer for item in items], dtype=object)[:, None]
    unparsed = answered & np.vectorize(lambda a: a is None, otypes=[bool])(answers)
    correct = np.where(answered, (answers == truth).astype(np.float64), np.nan)
    return RunMatrix(
        tuple(items), tuple(runs), correct, unparsed,
        models=tuple(r.model for r in records),
        text_only=tuple(bool(r.text_only) for r in records),
        answers=answers,
        image_modes=tuple(run_image_mode(r) for r in records),
        image_links=tuple(getattr(r, "image_run", "") or "" for r in records),
    )  # fmt: skip
