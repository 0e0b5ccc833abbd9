"""The Compare models pane's runs: the checkable list of the database's runs, and the
comparison computed from the checked ones (Qt-free, run on the job runner's thread)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget, QListWidgetItem

from medrcube_desktop.evaluation.compare.families import model_family
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare_options import CompareSettings
from medrcube_desktop.evaluation.image_modes import is_ablation, mode_words, run_image_mode
from medrcube_desktop.store import StudyStore

RUN_ROLE = Qt.ItemDataRole.UserRole
"""Data role of a list entry: the run's name."""


@dataclass(frozen=True)
class Comparison:
    """What Compare computes: the matrix, its
    :class:`~medrcube_desktop.evaluation.compare.leaderboard.Leaderboard`, everything
    ``compare`` computes (a :class:`~medrcube_desktop.evaluation.compare.result.CompareResult`)
    and its figures (name → matplotlib Figure, drawn off the GUI thread)."""

    matrix: RunMatrix
    board: object
    result: object = None
    figures: dict = field(default_factory=dict)


def compute_comparison(
    store: StudyStore,
    dataset: str | Path,
    runs: list[str],
    settings: CompareSettings | None = None,
    cancel: threading.Event | None = None,
) -> Comparison | None:
    """The :class:`Comparison` of ``runs`` over the benchmark at ``dataset`` (Qt-free:
    the job's body): the items read as ``compare`` reads them
    (:func:`~medrcube_desktop.evaluation.compare.inputs.scored_benchmark`: restricted
    items included, in benchmark order) and the figures of
    :func:`~medrcube_desktop.evaluation.compare.inputs.compare_study` with ``settings``
    (default: the command's defaults), so the pane shows what ``compare`` prints.

    ``cancel`` is checked between the steps (the items, everything ``compare``
    computes, the figures); once it is set, None is returned.

    Raises
    ------
    DatasetError
        The benchmark cannot be read again.
    MedRCubeError
        A run is not in the database.
    StoreError
        The database cannot be read.
    """
    from medrcube_desktop.evaluation.compare.inputs import compare_study, scored_benchmark
    from medrcube_desktop.evaluation.compare.report import draw_figures  # matplotlib

    def stopped() -> bool:
        return cancel is not None and cancel.is_set()

    items = scored_benchmark(dataset).items
    if stopped():
        return None
    result = compare_study(store, items, runs, settings or CompareSettings(), dataset)
    if stopped():
        return None
    figures = draw_figures(result)
    return None if stopped() else Comparison(result.matrix, result.board, result, figures)


def problems_of(matrix: RunMatrix) -> list[str]:
    """What the user must be told about a matrix: runs without any answer to this
    benchmark's items (their column stays blank)."""
    answered = matrix.answered.sum(axis=0)
    return [
        f"{run} has no answer to any item of this benchmark: its column is blank."
        for run, n in zip(matrix.runs, answered, strict=True)
        if n == 0
    ]


class RunListView(QListWidget):
    """The database's runs, each with its model, series and whether it is text only;
    checkable (a new run comes checked, a listed one keeps its state on a refill)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("compareRuns")
        self.setAlternatingRowColors(True)
        self.setWordWrap(True)  # long model names wrap instead of scrolling sideways
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def fill(self, store: StudyStore) -> list[str]:
        """List the runs of ``store``, oldest first; return their names (StoreError when
        the database cannot be read)."""
        before = {
            self.item(r).data(RUN_ROLE): self.item(r).checkState() for r in range(self.count())
        }
        names = store.eval_run_names()
        records = [store.eval_run(name) for name in names]
        self.clear()
        for name, record in zip(names, records, strict=True):
            if record is None:
                continue
            family = model_family(record.model)
            mode = run_image_mode(record)
            marked = f" · {mode.replace('-', ' ').upper()}" if is_ablation(mode) else ""
            entry = QListWidgetItem(f"{name}\n{family.series}{marked} · {record.model}")
            entry.setData(RUN_ROLE, name)
            entry.setToolTip(
                f"{name}\nModel: {record.model}\nSeries: {family.series} ({family.group})\n"
                + ("Text only: no image sent" if record.text_only else
                   mode_words(mode) if is_ablation(mode) else "With the image")
            )  # fmt: skip
            entry.setFlags(entry.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            entry.setCheckState(before.get(name, Qt.CheckState.Checked))
            self.addItem(entry)
        return names

    def check_all(self, checked: bool) -> None:
        """Check (or uncheck) every run."""
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        for row in range(self.count()):
            self.item(row).setCheckState(state)

    def set_checked(self, runs: list[str]) -> None:
        """Check exactly these runs (by name)."""
        for row in range(self.count()):
            wanted = self.item(row).data(RUN_ROLE) in runs
            self.item(row).setCheckState(
                Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked
            )

    def checked_runs(self) -> list[str]:
        """The runs checked, in list order (oldest first)."""
        return [
            self.item(row).data(RUN_ROLE)
            for row in range(self.count())
            if self.item(row).checkState() == Qt.CheckState.Checked
        ]
