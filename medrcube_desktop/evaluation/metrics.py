"""Accuracy over the competency cube (paper Section 4, Table 3.3) and the random baseline.

An outcome is an item with the model's parsed letter (``None`` when unparsed); an
unparsed answer counts as wrong and is reported in its own rate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from medrcube_desktop.core.items import Item


@dataclass(frozen=True)
class Outcome:
    """One item's result: ``letter`` is the parsed choice (``None``: unparsed)."""

    item: Item
    letter: str | None

    @property
    def correct(self) -> bool:
        """The parsed letter is the item's ground truth."""
        return self.letter is not None and self.letter == self.item.answer


@dataclass(frozen=True)
class Cell:
    """Accuracy of a group of items: ``n`` items, ``correct`` of them right."""

    n: int
    correct: int

    @property
    def accuracy(self) -> float | None:
        """correct / n; ``None`` for an empty group."""
        return self.correct / self.n if self.n else None

    def to_dict(self) -> dict[str, object]:
        return {"n": self.n, "correct": self.correct, "accuracy": self.accuracy}


def voxel(item: Item) -> str:
    """Competency voxel of an item: ``task abbreviation|modality|region`` (paper §3)."""
    return f"{item.task.abbreviation}|{item.modality}|{item.region}"


GROUPINGS: dict[str, Callable[[Item], str]] = {
    "task": lambda item: item.task.abbreviation,
    "modality": lambda item: item.modality,
    "region": lambda item: item.region,
    "dataset": lambda item: item.dataset,
    "voxel": voxel,
}
"""How results are broken down: by task, modality, region, dataset, competency voxel."""


def grouped(outcomes: Iterable[Outcome], key: Callable[[Item], str]) -> dict[str, Cell]:
    """Accuracy per value of ``key``, sorted by value."""
    counts: dict[str, list[int]] = {}
    for outcome in outcomes:
        n_correct = counts.setdefault(key(outcome.item), [0, 0])
        n_correct[0] += 1
        n_correct[1] += int(outcome.correct)
    return {k: Cell(*counts[k]) for k in sorted(counts)}


def random_baseline(items: Sequence[Item]) -> float | None:
    """Expected accuracy of uniform guessing: the mean of 1/k over items with k options."""
    return sum(1 / len(item.options) for item in items) / len(items) if items else None


def summarize(outcomes: Sequence[Outcome]) -> dict[str, object]:
    """Overall accuracy, the unparsed rate, the random baseline and every breakdown.

    Returns ``{"n", "correct", "accuracy", "unparsed", "unparsed_rate",
    "random_baseline", "by_task", "by_modality", "by_region", "by_dataset",
    "by_voxel"}``, each breakdown ``{value: {"n", "correct", "accuracy"}}``.
    """
    total = Cell(len(outcomes), sum(o.correct for o in outcomes))
    unparsed = sum(o.letter is None for o in outcomes)
    result: dict[str, object] = {
        "n": total.n,
        "correct": total.correct,
        "accuracy": total.accuracy,
        "unparsed": unparsed,
        "unparsed_rate": unparsed / total.n if total.n else None,
        "random_baseline": random_baseline([o.item for o in outcomes]),
    }
    for name, key in GROUPINGS.items():
        result[f"by_{name}"] = {k: c.to_dict() for k, c in grouped(outcomes, key).items()}
    return result
