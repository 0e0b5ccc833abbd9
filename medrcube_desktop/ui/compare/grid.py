"""The two tables of the Compare models pane: items × runs, and the leaderboard.

Both are :class:`QAbstractTableModel` s over arrays computed once (Qt-free, in
:mod:`medrcube_desktop.evaluation.compare`): a cell's text, colour and tooltip are looked
up when it is painted, so 7,626 items × 33 runs scroll at once and no widget is ever
made per cell. Colour is never the only cue: a cell reads ✓, ✗ or ? as well.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QKeyEvent
from PySide6.QtWidgets import QTableView

from medrcube_desktop.evaluation.compare.item_filters import (
    NO_ANSWER,
    RIGHT,
    UNPARSED,
    WRONG,
    cell_states,
    item_summary,
)
from medrcube_desktop.evaluation.compare.leaderboard import random_row_name
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.image_modes import is_ablation, mode_mark, mode_words
from medrcube_desktop.ui.widgets.readable import bold_metrics, fit_header, header_padding
from medrcube_desktop.ui.widgets.themes import current_theme

ITEM_COLUMNS: tuple[str, ...] = ("Item", "Task", "Modality", "Region", "Right")
"""The grid's first columns; one column per run follows."""

MARKS: dict[int, str] = {NO_ANSWER: "", RIGHT: "✓", WRONG: "✗", UNPARSED: "?"}
"""What a grid cell reads (no answer: blank)."""

STATE_NAMES: dict[int, str] = {
    NO_ANSWER: "no answer",
    RIGHT: "right",
    WRONG: "wrong",
    UNPARSED: "unparsed (no choice read: counted wrong)",
}

CELL_COLOURS: dict[str, dict[int, tuple[str, str]]] = {
    "light": {RIGHT: ("#d2f4dc", "#0f5323"), WRONG: ("#fbdcdc", "#8a1414"),
              UNPARSED: ("#fdf0c2", "#6b4a00")},
    "dark": {RIGHT: ("#1d4428", "#b6f2c4"), WRONG: ("#5a1f22", "#ffc9c9"),
             UNPARSED: ("#51420f", "#ffe9a8")},
    "high-contrast": {RIGHT: ("#000000", "#7ee787"), WRONG: ("#000000", "#ff8f8f"),
                      UNPARSED: ("#000000", "#ffff00")},
}  # fmt: skip
"""Theme → cell state → (background, text) colour; every pair 4.5:1 or more (WCAG AA,
tests/ui/compare/test_pane.py computes it)."""

ITEM_ROW_ROLE = Qt.ItemDataRole.UserRole + 1
"""Data role: the matrix row (item index) of a grid row."""


TEXT_ONLY_SUFFIX = " (text)"


def ablation_suffix(mode: str) -> str:
    """A column header's short mark of a blank, swapped or noise run: ``" (blank)"``
    (the mode of :func:`~medrcube_desktop.evaluation.image_modes.mode_mark`), "" else."""
    return f" ({mode})" if is_ablation(mode) else ""


"""Ends the header of a text-only run's column (a baseline, not a model)."""


def run_headers(matrix: RunMatrix) -> list[str]:
    """Each run column's header: its number (1, 2, …), its name, and
    :data:`TEXT_ONLY_SUFFIX` for a text-only run, ``(blank)``, ``(swapped)``,
    ``(noise)`` for the other ablation runs. The header elides the middle, so two
    names sharing a prefix and a suffix (``Qwen2.5-VL-7B-Instruct``,
    ``Qwen2.5-VL-3B-Instruct``) still read apart by their number."""
    return [
        f"{n} {run}{TEXT_ONLY_SUFFIX if text else ablation_suffix(mode)}"
        for n, (run, text, mode) in enumerate(
            zip(matrix.runs, matrix.text_only, matrix.image_modes, strict=True), 1
        )
    ]


class CompareGridModel(QAbstractTableModel):
    """Rows: the items shown (a subset of the matrix's rows, in any order); columns:
    :data:`ITEM_COLUMNS` then each run.

    Parameters
    ----------
    matrix : RunMatrix
        The outcomes; :func:`cell_states` and :func:`item_summary` are computed once.
    """

    def __init__(self, matrix: RunMatrix, parent=None) -> None:
        super().__init__(parent)
        self.matrix = matrix
        self.states = cell_states(matrix)  # (n_items, n_runs) int8
        self.summary = item_summary(matrix)
        self.rows = np.arange(len(matrix.items))  # matrix rows shown, in order
        families = matrix.families()
        self.run_tips = [
            f"{run}\nModel: {model}\nSeries: {f.series} ({f.group})"
            + (
                "\nText only: no image sent"
                if text
                else f"\n{mode_words(mode)}"
                if is_ablation(mode)
                else ""
            )
            for run, model, f, text, mode in zip(
                matrix.runs,
                matrix.models,
                families,
                matrix.text_only,
                matrix.image_modes,
                strict=True,
            )
        ]
        self.headers = run_headers(matrix)
        self.shown_headers = list(self.headers)  # as drawn: in lines (fit_run_columns)
        self._brushes: dict[int, tuple[QBrush, QBrush]] = {}
        self.refresh_colours()

    def refresh_colours(self) -> None:
        """Take the colours of the theme in use (after View › Theme)."""
        colours = CELL_COLOURS.get(current_theme(), CELL_COLOURS["light"])
        self._brushes = {
            state: (QBrush(QColor(bg)), QBrush(QColor(fg))) for state, (bg, fg) in colours.items()
        }
        if self.rowCount():
            self.dataChanged.emit(
                self.index(0, 0), self.index(self.rowCount() - 1, self.columnCount() - 1)
            )

    def set_rows(self, rows: np.ndarray) -> None:
        """Show these matrix rows (item indices), in this order."""
        self.beginResetModel()
        self.rows = np.asarray(rows, dtype=np.int64)
        self.endResetModel()

    def item_row(self, row: int) -> int:
        """The matrix row (item index) of grid row ``row``."""
        return int(self.rows[row])

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(ITEM_COLUMNS) + len(self.matrix.runs)

    def cell_text(self, row: int, column: int) -> str:
        """What grid cell (row, column) reads."""
        r = int(self.rows[row])
        if column >= len(ITEM_COLUMNS):
            return MARKS[int(self.states[r, column - len(ITEM_COLUMNS)])]
        item = self.matrix.items[r]
        return (item.id, item.task.abbreviation, item.modality, item.region,
                self.summary.text(r))[column]  # fmt: skip

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ):  # noqa: N802
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        run = column - len(ITEM_COLUMNS)
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell_text(row, column)
        if role == ITEM_ROW_ROLE:
            return int(self.rows[row])
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= len(ITEM_COLUMNS) - 1:
            return Qt.AlignmentFlag.AlignCenter
        if run < 0:
            if role == Qt.ItemDataRole.ToolTipRole and column == len(ITEM_COLUMNS) - 1:
                r = int(self.rows[row])
                s = self.summary
                return (f"{s.n_right[r]} right, {s.n_wrong[r]} wrong ({s.n_unparsed[r]} "
                        f"unparsed), of {s.n_answered[r]} image runs that answered "
                        "(text-only runs are baselines: not counted)")  # fmt: skip
            return None
        state = int(self.states[int(self.rows[row]), run])
        if role == Qt.ItemDataRole.BackgroundRole and state in self._brushes:
            return self._brushes[state][0]
        if role == Qt.ItemDataRole.ForegroundRole and state in self._brushes:
            return self._brushes[state][1]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{self.matrix.runs[run]}: {STATE_NAMES[state]} (Enter opens the item)"
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal:
            return None
        run = section - len(ITEM_COLUMNS)
        if role == Qt.ItemDataRole.DisplayRole:
            return ITEM_COLUMNS[section] if run < 0 else self.shown_headers[run]
        if role == Qt.ItemDataRole.ToolTipRole:
            if run < 0:
                return (
                    "Image runs right / image runs that answered (text-only runs are "
                    "baselines, not models: not counted)"
                    if section == len(ITEM_COLUMNS) - 1
                    else None
                )
            return f"Column {run + 1}: {self.run_tips[run]}"
        if (
            role == Qt.ItemDataRole.FontRole
            and run >= 0
            and (self.matrix.text_only[run] or is_ablation(self.matrix.image_modes[run]))
        ):
            font = QFont()
            font.setItalic(True)  # a baseline, not a model: told by the text as well
            return font
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the rows shown by a column (stable: ties keep benchmark order). A run's
        column sorts right, wrong, unparsed, no answer; Right sorts by the share right."""
        rows = self.rows
        if column >= len(ITEM_COLUMNS):
            rank = np.empty(4, dtype=np.int8)  # right, wrong, unparsed, then no answer
            rank[[RIGHT, WRONG, UNPARSED, NO_ANSWER]] = [0, 1, 2, 3]
            keys = rank[self.states[rows, column - len(ITEM_COLUMNS)]]
        elif column == len(ITEM_COLUMNS) - 1:
            with np.errstate(invalid="ignore", divide="ignore"):
                share = self.summary.n_right[rows] / self.summary.n_answered[rows]
            keys = np.nan_to_num(share, nan=-1.0)
        else:
            items = self.matrix.items
            get = (lambda i: i.id, lambda i: i.task.abbreviation,
                   lambda i: i.modality, lambda i: i.region)[column]  # fmt: skip
            keys = np.array([get(items[r]) for r in rows], dtype=object)
        descending = order == Qt.SortOrder.DescendingOrder
        if descending and keys.dtype != object:
            keys, descending = -keys.astype(np.float64), False  # ties keep benchmark order
        ranked = np.argsort(keys, kind="stable") if len(rows) else np.arange(0)
        if descending:
            ranked = ranked[::-1]
        self.layoutAboutToBeChanged.emit()
        self.rows = rows[ranked]
        self.layoutChanged.emit()


def next_sort_order(view: QTableView, column: int) -> Qt.SortOrder:
    """The order a click on ``column``'s header asks for: ascending first, then each
    click on the same column flips it."""
    header = view.horizontalHeader()
    if header.sortIndicatorSection() == column:
        return (
            Qt.SortOrder.DescendingOrder
            if header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder
            else Qt.SortOrder.AscendingOrder
        )
    return Qt.SortOrder.AscendingOrder


def fit_run_columns(view: QTableView) -> None:
    """Each run column of ``view`` (over a :class:`CompareGridModel`) as narrow as its
    header allows in at most three lines, from three marks to twelve ``M`` wide: the
    header is broken into lines, never elided ("1 g…nai"), so every name reads whole
    (33 runs still fit a screen; the tooltip names the model too)."""
    model = view.model()
    header = view.horizontalHeader()
    header.setTextElideMode(Qt.TextElideMode.ElideNone)  # elided, lines run into one
    metrics = bold_metrics(header)  # the current column's header is bold
    padding = header_padding(header)
    narrow = max(
        view.fontMetrics().horizontalAdvance("✓✓✓"), padding + metrics.horizontalAdvance("99")
    )
    wide = metrics.horizontalAdvance("M" * 12)
    for run, title in enumerate(model.headers):
        width, text = fit_header(title, metrics, padding, narrow, wide)
        model.shown_headers[run] = text
        view.setColumnWidth(len(ITEM_COLUMNS) + run, width)
    if model.headers:
        model.headerDataChanged.emit(
            Qt.Orientation.Horizontal, len(ITEM_COLUMNS), model.columnCount() - 1
        )


class GridView(QTableView):
    """The items × runs view: arrows move, Enter (or a double-click) opens the cell.

    Enter is taken here, so the dialog's default button never sees it.
    """

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.activated.emit(self.currentIndex())
            event.accept()
            return
        super().keyPressEvent(event)


class LeaderboardModel(QAbstractTableModel):
    """The leaderboard frame (``Leaderboard.to_frame(percent=True)``: rows runs, the
    Random row first; columns Overall, tasks, modalities, regions) with the Wilson
    interval and counts of each cell in its tooltip; sorted by :meth:`sort`.

    Parameters
    ----------
    board : Leaderboard
    series, groups : sequence of str
        Each run's model series and group (in ``board.runs`` order).
    """

    FIRST = ("Run", "Series", "Group")

    def __init__(self, board, series, groups, parent=None) -> None:
        super().__init__(parent)
        self.board = board
        self.accuracy = board.accuracy * 100  # (n_runs, n_columns) percent
        self.names = [random_row_name(board.runs), *board.runs]
        self.series = ["", *series]
        self.groups = ["", *groups]
        self.rows = list(range(len(self.names)))  # 0 is the Random row

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.FIRST) + len(self.board.columns)

    def value(self, row: int, column: int) -> float:
        """The accuracy (percent) of a table cell of a value column; NaN when none."""
        r = self.rows[row]
        c = column - len(self.FIRST)
        return float(self.board.random[c] * 100 if r == 0 else self.accuracy[r - 1, c])

    def data(self, index, role: int = Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if not index.isValid():
            return None
        row, column = index.row(), index.column()
        r = self.rows[row]
        ablation = r > 0 and self.board.ablation(r - 1)
        mode = self.board.image_modes[r - 1] if r > 0 else ""
        if column < len(self.FIRST):
            if role == Qt.ItemDataRole.DisplayRole:
                name = self.names[r] + (mode_mark(mode) if column == 0 else "")
                return (name, self.series[r], self.groups[r])[column]
            if role == Qt.ItemDataRole.FontRole and ablation:
                font = QFont()
                font.setItalic(True)
                return font
            if role == Qt.ItemDataRole.ToolTipRole and ablation:
                return f"{mode_words(mode)}; a baseline of its model"
            return None
        value = self.value(row, column)
        c = column - len(self.FIRST)
        if role == Qt.ItemDataRole.DisplayRole:
            return "—" if math.isnan(value) else f"{value:.1f}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        if role == Qt.ItemDataRole.ToolTipRole:
            if r == 0:
                return "Random baseline: the mean of 1/k over the column's items (k options)"
            n, correct = int(self.board.n[r - 1, c]), int(self.board.correct[r - 1, c])
            if n == 0:
                return "No item of this column answered"
            low, high = self.board.low[r - 1, c] * 100, self.board.high[r - 1, c] * 100
            return (f"{value:.1f} % ({correct} of {n} right)\n"
                    f"Wilson 95 % interval {low:.1f}–{high:.1f} %")  # fmt: skip
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ):  # noqa: N802
        if orientation != Qt.Orientation.Horizontal:
            return None
        if section < len(self.FIRST):
            return self.FIRST[section] if role == Qt.ItemDataRole.DisplayRole else None
        group, value = self.board.columns[section - len(self.FIRST)]
        if role == Qt.ItemDataRole.DisplayRole:
            return value
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{group}: {value} (accuracy %; hover a cell for its interval)"
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the runs by a column; the Random row stays first; ties keep run order."""
        descending = order == Qt.SortOrder.DescendingOrder
        runs = sorted(r for r in self.rows if r != 0)
        if column < len(self.FIRST):
            source = (self.names, self.series, self.groups)[column]
            runs.sort(key=lambda r: source[r].casefold(), reverse=descending)
        else:
            values = np.nan_to_num(self.accuracy[:, column - len(self.FIRST)], nan=-1.0)
            runs.sort(key=lambda r: values[r - 1], reverse=descending)  # stable either way
        self.layoutAboutToBeChanged.emit()
        self.rows = [0, *runs]
        self.layoutChanged.emit()

    def group_by_family(self) -> None:
        """Rows in the order of ``compare --sort family``
        (:meth:`~medrcube_desktop.evaluation.compare.leaderboard.Leaderboard.order`: by
        group in the paper's order, then series, then overall accuracy, best first, a
        text-only run after its model's image run; the layout of the paper's Table 3)."""
        self.layoutAboutToBeChanged.emit()
        self.rows = [0, *(int(r) + 1 for r in self.board.order("family"))]
        self.layoutChanged.emit()

    def run_order(self) -> list[str]:
        """The run names in the order shown (Random left out)."""
        return [self.names[r] for r in self.rows if r != 0]
