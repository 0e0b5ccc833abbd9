"""Review › Compare models: any set of the database's runs side by side (issue 14).

Choose runs, press Compare: the items × runs matrix
(:func:`~medrcube_desktop.evaluation.compare.run_matrix`) and its leaderboard
(:func:`~medrcube_desktop.evaluation.compare.leaderboard.leaderboard`) are computed on
the one Qt job runner (own thread and database connection); the pane only shows them.
The Leaderboard tab is the paper's Table 3 layout; the Items tab is the grid of items ×
runs with the filters of :mod:`~medrcube_desktop.evaluation.compare.item_filters`, where
a benchmark builder finds the broken items. Enter (or a double-click) on a cell opens the
item with every run's answer and its review
(:class:`~medrcube_desktop.ui.compare.detail.CompareDetailDialog`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.csvfile import write_csv
from medrcube_desktop.core.files import item_files, refuse_overwrite
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.item_filters import (
    FILTER_TIPS,
    FILTERS,
    filter_mask,
    matches_text,
    outcome_table,
    search_texts,
)
from medrcube_desktop.evaluation.compare_options import SETTINGS, CompareSettings
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.compare.credibility import CompareCredibilityView
from medrcube_desktop.ui.compare.detail import (
    CompareDetailDialog,
    DetailSources,
)
from medrcube_desktop.ui.compare.figures import CompareFiguresTab
from medrcube_desktop.ui.compare.grid import (
    ITEM_COLUMNS,
    CompareGridModel,
    GridView,
    LeaderboardModel,
    fit_run_columns,
    next_sort_order,
)
from medrcube_desktop.ui.compare.necessity import CompareNecessityView
from medrcube_desktop.ui.compare.releases import CompareReleasesView
from medrcube_desktop.ui.compare.runs import (
    Comparison,
    RunListView,
    compute_comparison,
    problems_of,
)
from medrcube_desktop.ui.widgets.file_dialogs import get_save_file_name
from medrcube_desktop.ui.widgets.job_runner import JobRunnerView
from medrcube_desktop.ui.widgets.option_fields import option_box
from medrcube_desktop.ui.widgets.screen import fit_to_screen
from medrcube_desktop.ui.widgets.text import esc
from medrcube_desktop.ui.widgets.themes import error_colour

if TYPE_CHECKING:
    from medrcube_desktop.review.session import ReviewSessionState

log = logging.getLogger(__name__)

PANE_SETTINGS: tuple[str, ...] = ("min_items",)
"""The options of a comparison the pane has a field for (the smallest voxel, so that
Fig. 3 can be drawn on a small benchmark); the others keep the command's defaults."""

SEARCH_PAUSE_MS = 200
"""Typing in the search box filters once the keys pause this long."""


class ComparePane(QDialog):
    """Runs to compare, the leaderboard, and the items × runs grid with its filters.

    ``open_item(item_id)`` asks the review window to show an item; ``computed`` is
    emitted once a result (or an error) is on screen.
    """

    open_item = Signal(str)
    computed = Signal()

    def __init__(self, parent: QWidget, session: ReviewSessionState, benchmark_root: Path) -> None:
        """``session``: the window's (its store, items, and the blinding rule the item
        detail follows); ``benchmark_root``: the benchmark folder a report names."""
        super().__init__(parent)
        self.setWindowTitle("Compare models")
        self.benchmark_root = benchmark_root
        self.store: StudyStore = session.store
        self.items = list(session.items) + list(session.restricted)
        self.item_paths = item_files(self.items)  # never written over by an export
        self.comparison: Comparison | None = None
        self.grid_model: CompareGridModel | None = None
        self.board_model: LeaderboardModel | None = None
        self.detail: CompareDetailDialog | None = None
        self._texts: list[str] | None = None  # search text per item, built once
        self.sources = DetailSources(self.store, session)
        self._build()
        self.fill_runs()

    # -- construction -----------------------------------------------------------
    def _build(self) -> None:
        self.runs = RunListView()
        buttons = QHBoxLayout()
        for title, checked in (("&All", True), ("N&one", False)):
            button = QPushButton(title)
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, c=checked: self.check_all(c))
            buttons.addWidget(button)
        self.compare_button = QPushButton("&Compare")
        self.compare_button.setAutoDefault(False)
        self.compare_button.clicked.connect(self.compare)
        buttons.addWidget(self.compare_button)
        side = QWidget()
        side_layout = QVBoxLayout(side)
        side_layout.setContentsMargins(0, 0, 0, 0)
        side_layout.addWidget(QLabel("Runs to compare:"))
        side_layout.addWidget(self.runs, 1)
        side_layout.addLayout(self._settings_form())
        side_layout.addLayout(buttons)
        self.runner = JobRunnerView(self, hide_when_idle=True)
        self.runner.finished.connect(self._on_done)
        self.status = QLabel()
        self.status.setObjectName("compareStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.status.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.addTab(self._board_tab(), "&Leaderboard")
        self.tabs.addTab(self._items_tab(), "&Items × models")
        self.figures = CompareFiguresTab(self.store.path, str(self.benchmark_root), self.item_paths)
        self.tabs.addTab(self.figures, "&Figures")
        self.credibility = CompareCredibilityView()
        self.credibility.show_leakage.connect(self.show_leakage)
        self.tabs.addTab(self.credibility, "Cre&dibility")
        self.releases = CompareReleasesView(
            self, self.store, self.benchmark_root, self.checked_runs
        )
        self.tabs.addTab(self.releases, "Old vs &new release")
        self.necessity = CompareNecessityView()
        self.tabs.addTab(self.necessity, "I&mage necessity")
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.runner)
        right_layout.addWidget(self.status)
        right_layout.addWidget(self.tabs, 1)
        split = QSplitter()
        split.addWidget(side)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([300, 900])
        layout = QVBoxLayout(self)
        layout.addWidget(split)
        fit_to_screen(self, 1240, 860)

    def _settings_form(self) -> QFormLayout:
        """A field per option of :data:`PANE_SETTINGS`, made from its declaration in
        :data:`~medrcube_desktop.evaluation.compare_options.SETTINGS` (the label,
        default, range and help the command's flag has)."""
        self.setting_fields: dict[str, QSpinBox] = {}
        form = QFormLayout()
        for name in PANE_SETTINGS:
            setting = SETTINGS[name]
            box = option_box(setting)
            box.setObjectName(f"compare_{name}")
            form.addRow(f"{setting.label}:", box)
            self.setting_fields[name] = box
        self.min_items = self.setting_fields["min_items"]
        return form

    def settings(self) -> CompareSettings:
        """The settings Compare computes with: the pane's fields, the command's defaults
        for the rest."""
        return CompareSettings(**{n: box.value() for n, box in self.setting_fields.items()})

    def _board_tab(self) -> QWidget:
        self.group_by_family = QCheckBox("&Group by family (the compare command's order)")
        self.group_by_family.setToolTip(
            "Group, series, then accuracy; a text-only run after its model's run"
        )  # the whole rule here: a long label set the pane's minimum wider than a small screen
        self.group_by_family.setChecked(True)
        self.group_by_family.toggled.connect(self._order_board)
        self.board = QTableView()
        self.board.setObjectName("compareLeaderboard")
        self.board.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.board.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.board.verticalHeader().setVisible(False)
        self.board.horizontalHeader().setSortIndicatorShown(True)
        self.board.horizontalHeader().sectionClicked.connect(self._sort_board)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(self.group_by_family)
        layout.addWidget(self.board, 1)
        hint = QLabel("Accuracy in %; hover a cell for its Wilson 95 % interval; click a "
                      "header to sort.")  # fmt: skip
        hint.setProperty("muted", True)
        layout.addWidget(hint)
        return tab

    def _items_tab(self) -> QWidget:
        self.filter = QComboBox()
        self.filter.setObjectName("compareFilter")
        for key, (title, _) in FILTERS.items():
            self.filter.addItem(title, key)
            self.filter.setItemData(self.filter.count() - 1, FILTER_TIPS[key],
                                    Qt.ItemDataRole.ToolTipRole)  # fmt: skip
        self.filter.currentIndexChanged.connect(self.apply_filter)
        self.search = QLineEdit()
        self.search.setObjectName("compareSearch")
        self.search.setPlaceholderText("Search id, question, options, task, modality, region")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_PAUSE_MS)
        self._search_timer.timeout.connect(self.apply_filter)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        self.count = QLabel()
        self.count.setObjectName("compareCount")
        self.export_button = QPushButton("&Export…")
        self.export_button.setAutoDefault(False)
        self.export_button.setToolTip("Write the items shown (filter and search) as CSV")
        self.export_button.setEnabled(False)
        self.export_button.clicked.connect(self.export)
        self.grid = GridView()
        self.grid.setObjectName("compareGrid")
        self.grid.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.grid.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.grid.setWordWrap(False)
        self.grid.verticalHeader().setVisible(False)
        self.grid.verticalHeader().setDefaultSectionSize(
            self.grid.fontMetrics().height() + 8
        )  # every row the same height: nothing measured per row
        self.grid.horizontalHeader().setSortIndicatorShown(True)
        self.grid.horizontalHeader().sectionClicked.connect(self._sort_grid)
        self.grid.activated.connect(self.open_cell)
        row = QHBoxLayout()
        row.addWidget(QLabel("&Show"))
        row.itemAt(0).widget().setBuddy(self.filter)
        row.addWidget(self.filter)
        row.addWidget(self.search, 1)
        row.addWidget(self.count)
        row.addWidget(self.export_button)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addLayout(row)
        layout.addWidget(self.grid, 1)
        hint = QLabel("✓ right · ✗ wrong · ? unparsed (counted wrong) · blank: no answer. "
                      "Arrows move, Enter or a double-click opens the item, Esc closes it.")  # fmt: skip
        hint.setProperty("muted", True)
        hint.setWordWrap(True)
        layout.addWidget(hint)
        return tab

    # -- runs ---------------------------------------------------------------------
    def fill_runs(self) -> None:
        """List the database's runs (model, series, text-only), keeping what was checked."""
        try:
            names = self.runs.fill(self.store)
        except MedRCubeError as exc:
            self._message(f"Could not read the runs: {esc(exc)}", error=True)
            names = []
        if not names:
            self._message(
                "This database holds no evaluation run yet: Review › Evaluate a model "
                "(Ctrl+Shift+E) or the <code>evaluate</code> command makes one."
            )
        self.compare_button.setEnabled(bool(names))

    def check_all(self, checked: bool) -> None:
        """Check (or uncheck) every run."""
        self.runs.check_all(checked)

    def set_checked(self, runs: list[str]) -> None:
        """Check exactly these runs (by name)."""
        self.runs.set_checked(runs)

    def checked_runs(self) -> list[str]:
        """The runs checked, in list order (oldest first)."""
        return self.runs.checked_runs()

    # -- computing ----------------------------------------------------------------
    def compare(self) -> None:
        """Compute the matrix and leaderboard of the checked runs (on a worker thread)."""
        if self.runner.is_running():
            return
        runs = self.checked_runs()
        if not runs:
            self._message("Check at least one run to compare.", error=True)
            self.computed.emit()
            return
        if not self.items:
            self._message("The benchmark has no item to compare runs on.", error=True)
            self.computed.emit()
            return
        dataset, settings = self.benchmark_root, self.settings()
        self.compare_button.setEnabled(False)
        self._message(
            f"Comparing {len(runs)} run{'' if len(runs) == 1 else 's'}… (Cancel or Esc stops it)"
        )
        if self.store.path is None:  # an in-memory study: no file for a worker to open
            QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
            try:
                result = compute_comparison(self.store, dataset, runs, settings)
                error = ""
            except MedRCubeError as exc:
                result, error = None, str(exc)
            finally:
                QApplication.restoreOverrideCursor()
            self._on_done(result, error)
            return
        self.runner.start(
            self.store.path,
            lambda store, cancel, progress: compute_comparison(
                store, dataset, runs, settings, cancel
            ),
        )

    def _on_done(self, result: Comparison | None, error: str) -> None:
        self.compare_button.setEnabled(True)
        if result is None and not error and self.runner.cancelled:
            self._message("Compare cancelled; what was shown before stays shown.")
        elif error or result is None:
            self._message(f"Could not compare: {error or 'no result'}", error=True)
        else:
            self.show_comparison(result)
        self.computed.emit()

    def show_comparison(self, comparison: Comparison) -> None:
        """Show a computed comparison in both tabs."""
        self.comparison = comparison
        matrix = comparison.matrix
        families = matrix.families()
        self.board_model = LeaderboardModel(
            comparison.board, [f.series for f in families], [f.group for f in families], self
        )
        self.board.setModel(self.board_model)
        self._order_board()
        self.board.resizeColumnsToContents()
        self.grid_model = CompareGridModel(matrix, self)
        self.grid.setModel(self.grid_model)
        header = self.grid.horizontalHeader()
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        for column in range(len(ITEM_COLUMNS)):
            self.grid.resizeColumnToContents(column)
        fit_run_columns(self.grid)  # headers in lines, never elided
        self.export_button.setEnabled(True)
        if comparison.result is not None:
            self.figures.show_result(comparison.result, comparison.figures)
            self.credibility.show_result(comparison.result)
            self.credibility.set_order(self.board_model.run_order())  # the leaderboard's
            self.necessity.show_result(comparison.result)
        self.apply_filter()
        answered = int(matrix.answered.sum())
        problems = problems_of(matrix)
        self._message(
            f"{len(matrix.runs)} run{'' if len(matrix.runs) == 1 else 's'} × "
            f"{len(matrix.items)} items, {answered} answers."
            + "".join(f"<br>⚠ {esc(p)}" for p in problems),
            error=bool(problems),
        )

    # -- leaderboard ----------------------------------------------------------------
    def _order_board(self) -> None:
        if self.board_model is None:
            return
        if self.group_by_family.isChecked():  # the command's order (--sort family)
            self.board_model.group_by_family()
            self.board.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        else:
            self.board_model.sort(3, Qt.SortOrder.DescendingOrder)  # Overall, best first
            self.board.horizontalHeader().setSortIndicator(3, Qt.SortOrder.DescendingOrder)
        self.credibility.set_order(self.board_model.run_order())

    def _sort_board(self, column: int) -> None:
        if self.board_model is None:
            return
        order = next_sort_order(self.board, column)
        self.group_by_family.blockSignals(True)
        self.group_by_family.setChecked(False)
        self.group_by_family.blockSignals(False)
        self.board_model.sort(column, order)
        self.board.horizontalHeader().setSortIndicator(column, order)
        self.credibility.set_order(self.board_model.run_order())  # one order, both tabs

    # -- items ------------------------------------------------------------------------
    def apply_filter(self) -> None:
        """Show the items of the chosen filter that match the search, keeping the sort."""
        self._search_timer.stop()
        if self.grid_model is None or self.comparison is None:
            self.count.setText("")
            return
        matrix = self.comparison.matrix
        if self._texts is None:
            self._texts = search_texts(matrix.items)
        mask = filter_mask(matrix, self.filter.currentData()) & matches_text(
            self._texts, self.search.text()
        )
        self.grid_model.set_rows(np.flatnonzero(mask))
        header = self.grid.horizontalHeader()
        if header.sortIndicatorSection() >= 0 and header.isSortIndicatorShown():
            self.grid_model.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
        self.count.setText(f"{len(self.grid_model.rows)} of {len(matrix.items)} items")
        if self.grid_model.rowCount():
            self.grid.setCurrentIndex(self.grid_model.index(0, len(ITEM_COLUMNS)))

    def show_leakage(self) -> None:
        """The Items tab, filtered to "Right in a text-only run" (the search cleared)."""
        self.search.clear()
        self.filter.setCurrentIndex(self.filter.findData("no_image"))
        self.apply_filter()
        self.tabs.setCurrentIndex(1)

    def _sort_grid(self, column: int) -> None:
        if self.grid_model is None:
            return
        order = next_sort_order(self.grid, column)
        self.grid.horizontalHeader().setSortIndicator(column, order)
        self.grid_model.sort(column, order)

    def shown_item_ids(self) -> list[str]:
        """The ids of the items listed now, in grid order."""
        if self.grid_model is None:
            return []
        return [self.comparison.matrix.items[r].id for r in self.grid_model.rows]

    def open_cell(self, index: QModelIndex) -> CompareDetailDialog | None:
        """Open the item of a grid cell in the detail dialog (every run's answer)."""
        if self.grid_model is None or not index.isValid():
            return None
        row = self.grid_model.item_row(index.row())
        item = self.comparison.matrix.items[row]
        try:
            html = self.sources.detail_html(
                self.comparison.matrix, row, self.grid_model.states[row]
            )
        except MedRCubeError as exc:
            self._message(f"Could not read item {esc(item.id)}: {esc(exc)}", error=True)
            return None
        if self.detail is None:
            self.detail = CompareDetailDialog(self)
            self.detail.open_item.connect(self.open_item)
        self.detail.show_item(item, html)
        self.detail.show()
        self.detail.raise_()
        return self.detail

    # -- export ---------------------------------------------------------------------
    def export(self) -> Path | None:
        """Write the items shown (filter and search applied) as CSV, formula-safe."""
        if self.grid_model is None:
            return None
        path, _ = get_save_file_name(
            self, "Export the grid as CSV", "compare-items.csv", "CSV (*.csv)"
        )
        return self.export_csv(Path(path)) if path else None

    def export_csv(self, path: Path) -> Path | None:
        """Write the grid's rows shown to ``path``: never over a file the comparison
        reads (the database and its SQLite sidecars, each item's test.json, image and
        mask)."""
        if self.grid_model is None:
            return None
        try:
            refuse_overwrite(path, self.store.path, sources=self.item_paths)
            header, rows = outcome_table(self.comparison.matrix, self.grid_model.rows)
            written = write_csv(path, header, rows)
        except (OSError, MedRCubeError) as exc:
            self._message(f"Export failed: {esc(path)}: {esc(exc)}", error=True)
            return None
        self._message(f"{len(rows)} items written to {esc(written)}.")
        return written

    def export_report(self, folder: Path) -> bool:
        """Write the comparison's tables, figures and HTML report into ``folder`` (what
        ``compare --out`` writes; the Figures tab's Export report…); the outcome arrives
        through ``self.figures.exported``."""
        return self.figures.export_to(folder)

    # -- messages ---------------------------------------------------------------------
    def _message(self, html: str, error: bool = False) -> None:
        """Show ``html`` (already escaped) in the status line, red for an error."""
        colour = error_colour()
        self.status.setText(f"<span style='color:{colour}'>{html}</span>" if error else html)

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Cancel and wait for both jobs (Compare, Export report…): a thread must not
        outlive its widgets. A cancelled export leaves no file (it is all or nothing)."""
        self.figures.stop()
        self.runner.stop()
        self.releases.stop()
        if self.detail is not None:
            self.detail.close()
        super().closeEvent(event)
