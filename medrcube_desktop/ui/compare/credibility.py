"""The Compare models pane's Credibility tab: what ``compare`` prints besides the
leaderboard. Per run (leaderboard order) the A–D pair counts, Acc_H, Rationality and
Shortcut Probability with their bootstrap 95 % intervals, SP − Acc_H, the log odds ratio
with its interval and the exact permutation p (paper §6); the Acc_H–SP Pearson r over
the image runs; and each text-only run against the image run of its model (paper Table
4), overall and, for the pair selected, per voxel, with the count of items some
text-only run got right and a button that lists them in the grid.

The cells' text is made by :mod:`medrcube_desktop.evaluation.compare.summary_tables`
(Qt-free); the tables hold a few rows each, so they are :class:`QTableWidget` s.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.evaluation.compare.summary_tables import (
    CREDIBILITY_COLUMNS,
    DROP_COLUMNS,
    VOXEL_COLUMNS,
    correlation_text,
    credibility_rows,
    drop_rows,
    drop_voxel_rows,
    leakage_count,
    leakage_text,
    ordered_drops,
)


def _table(name: str, header) -> QTableWidget:
    table = QTableWidget(0, len(header))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(header))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fill(table: QTableWidget, rows: list[list[str]], italic_rows=()) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            cell = QTableWidgetItem(text)
            if c:
                cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if r in italic_rows:
                font = QFont()
                font.setItalic(True)
                cell.setFont(font)
            table.setItem(r, c, cell)
    table.resizeColumnsToContents()


class CompareCredibilityView(QWidget):
    """The credibility and text-only tables of one comparison.

    ``show_leakage`` is emitted by the button under the text-only tables: the pane then
    filters the grid to "Right in a text-only run".
    """

    show_leakage = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.result = None
        self._order: list[str] | None = None  # the leaderboard's, once it is sorted
        self._drops: list = []
        self.credibility = _table("compareCredibility", CREDIBILITY_COLUMNS)
        self.credibility.setToolTip(
            "Per run, its (prerequisite L, high-level H) pairs on one image: A both right, "
            "B L right H wrong, C both wrong, D L wrong H right. Acc_H = (A+D)/N, "
            "Rationality = 1 − D/(A+D), Shortcut Probability = D/(C+D), each with its "
            "bootstrap 95 % interval (images resampled); SP − Acc_H is 0 when L and H are "
            "independent; log OR with Woolf's interval; exact permutation p. Text-only "
            "runs (baselines) are in italics and marked"
        )
        self.correlation = QLabel()
        self.correlation.setObjectName("compareCorrelation")
        self.correlation.setWordWrap(True)
        self.drops = _table("compareDrops", DROP_COLUMNS)
        self.drops.itemSelectionChanged.connect(self._show_voxels)
        self.voxels = _table("compareDropVoxels", VOXEL_COLUMNS)
        self.voxel_title = QLabel()
        self.leakage = QLabel()
        self.leakage.setObjectName("compareLeakage")
        self.leakage.setWordWrap(True)  # a long sentence never widens the pane
        self.leakage_button = QPushButton("List them in the &grid")
        self.leakage_button.setAutoDefault(False)
        self.leakage_button.setToolTip("Items tab, filter: Right in a text-only run")
        self.leakage_button.setEnabled(False)
        self.leakage_button.clicked.connect(self.show_leakage)
        self.no_pairs = QLabel("No text-only run with an image run of the same model.")
        self.no_pairs.setProperty("muted", True)
        row = QHBoxLayout()
        row.addWidget(self.leakage, 1)
        row.addWidget(self.leakage_button)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Credibility across models (paper §6, the paper's pairing):"))
        layout.addWidget(self.credibility, 2)
        layout.addWidget(self.correlation)
        drops_title = QLabel("Text-only runs against the image run of the same model "
                             "(paper Table 4; accuracy in percent over items both answered):")  # fmt: skip
        drops_title.setWordWrap(True)  # on one line the pane was wider than a 1024 px screen
        layout.addWidget(drops_title)
        layout.addWidget(self.no_pairs)
        layout.addWidget(self.drops, 1)
        layout.addWidget(self.voxel_title)
        layout.addWidget(self.voxels, 2)
        layout.addLayout(row)

    def show_result(self, result) -> None:
        """Fill the tables from a :class:`~medrcube_desktop.evaluation.compare.result.CompareResult`."""
        self.result = result
        self._order = None
        self._fill_credibility()
        why = next((w for w in result.warnings if "Shortcut Probability correlation" in w), "")
        self.correlation.setText(correlation_text(result.correlation, why))
        self._drops = ordered_drops(result)
        _fill(self.drops, drop_rows(result))
        self.no_pairs.setVisible(not self._drops)
        self.voxels.setRowCount(0)
        self.voxel_title.setText("")
        if self._drops:
            self.drops.selectRow(0)
        count = leakage_count(result)
        self.leakage.setText(leakage_text(count))
        self.leakage_button.setEnabled(count > 0)

    def set_order(self, runs: list[str]) -> None:
        """List the runs in this order (the leaderboard's as shown: one order on both
        tabs; ``result.order``, the command's, until the leaderboard is sorted)."""
        self._order = list(runs)
        self._fill_credibility()

    def run_order(self) -> list[str]:
        """The runs of the credibility table, top to bottom."""
        if self.result is None:
            return []
        shown = {f.run for f in self.result.credibility}
        return [run for run in (self._order or self.result.order) if run in shown]

    def _fill_credibility(self) -> None:
        if self.result is None:
            return
        rows = credibility_rows(self.result, self._order)
        _fill(self.credibility, rows,
              [r for r, f in enumerate(self.result.in_order(order=list(self._order or self.result.order)))
               if f.mark()])  # fmt: skip

    def _show_voxels(self) -> None:
        rows = self.drops.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self._drops):
            return
        drop = self._drops[rows[0].row()]
        self.voxel_title.setText(f"Per voxel: {drop.image_run} with the image, "
                                 f"{drop.text_run} without:")  # fmt: skip
        _fill(self.voxels, drop_voxel_rows(drop))
