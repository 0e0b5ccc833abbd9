"""The Compare models pane's Image necessity tab (issue 24, Table 4 extended): how many
items are answerable without the image, the sighted − ablated gap per pair of runs
overall, per task and per voxel with its interval clustered by image, and the items
answerable without the image. The gap table shows one level at a time (overall by
default; per task, per voxel or all) and all pairs or one. Every cell's text comes from
:mod:`medrcube_desktop.evaluation.compare.necessity` (Qt-free), the computation
``compare`` prints."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from medrcube_desktop.evaluation.compare.necessity import (
    GAP_COLUMNS,
    ITEM_COLUMNS,
    PANE_ITEMS_FILE,
    answerable_cells,
    gap_cells,
    gap_pairs,
    necessity_lines,
)
from medrcube_desktop.ui.compare.credibility import _fill, _table

LEVEL_CHOICES: tuple[tuple[str, str | None], ...] = (
    ("Overall", "overall"), ("Per task", "task"), ("Per voxel", "voxel"), ("All levels", None),
)  # fmt: skip
"""The level filter's entries: (shown, ``level`` of :func:`gap_cells`); the first is the
default."""
ALL_PAIRS = "All pairs"


class CompareNecessityView(QWidget):
    """The image-necessity figures of one comparison (``show_result``)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.result = None
        self.summary = QLabel("No ablation run (text-only, blank, swapped, noise) compared.")
        self.summary.setObjectName("compareNecessity")
        self.summary.setWordWrap(True)
        self.gaps = _table("compareNecessityGaps", GAP_COLUMNS)
        self.gaps.setToolTip(
            "Accuracy (%) of an image run and of an ablation run of its model over the "
            "items both answered, and the gap with its 95% bootstrap interval "
            "(images resampled), overall, per task and per voxel"
        )
        self.items = _table("compareAnswerable", ITEM_COLUMNS)
        self.items.setToolTip(
            "Items right under ablation by more than the answerable share of the models "
            "with an ablation run of them (models right / models answering)"
        )
        self.level = QComboBox()
        self.level.setObjectName("compareNecessityLevel")
        for shown, level in LEVEL_CHOICES:
            self.level.addItem(shown, level)
        self.level.setToolTip("Which rows of the gap table: overall, per task, per voxel")
        self.pair = QComboBox()
        self.pair.setObjectName("compareNecessityPair")
        self.pair.setToolTip("One image run and its ablation run, or all pairs")
        self.pair.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.shown_rows = QLabel("")
        self.shown_rows.setProperty("muted", True)
        self.level.currentIndexChanged.connect(self._fill_gaps)
        self.pair.currentIndexChanged.connect(self._fill_gaps)
        filters = QHBoxLayout()
        level_label = QLabel("&Level:")
        level_label.setBuddy(self.level)
        pair_label = QLabel("&Pair:")
        pair_label.setBuddy(self.pair)
        for widget in (level_label, self.level, pair_label, self.pair):
            filters.addWidget(widget)
        filters.addWidget(self.shown_rows, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addLayout(filters)
        layout.addWidget(self.gaps, 2)
        layout.addWidget(QLabel("Answerable without the image:"))
        layout.addWidget(self.items, 1)

    def show_result(self, result) -> None:
        """Fill the tables from a :class:`~medrcube_desktop.evaluation.compare.result.CompareResult`
        (emptied when it has no ablation run)."""
        self.result = result
        found = result.necessity
        if found is None:
            self.summary.setText("No ablation run (text-only, blank, swapped, noise) compared.")
            self._set_pairs([])
            _fill(self.gaps, [])
            _fill(self.items, [])
            self.shown_rows.setText("")
            return
        self.summary.setText(necessity_lines(found, PANE_ITEMS_FILE)[0])
        self._set_pairs(gap_pairs(found))
        self._fill_gaps()
        _fill(self.items, answerable_cells(found))

    def _set_pairs(self, pairs: list[tuple[str, str, str]]) -> None:
        """List ``pairs`` in the pair filter, keeping the pair chosen when it is still
        there (else "All pairs")."""
        chosen = self.pair.currentData()
        self.pair.blockSignals(True)
        try:
            self.pair.clear()
            self.pair.addItem(ALL_PAIRS, None)
            for image_run, ablated_run, mode in pairs:
                self.pair.addItem(f"{image_run} vs {ablated_run} ({mode})",
                                  (image_run, ablated_run))  # fmt: skip
            found = [k for k in range(self.pair.count())
                     if chosen is not None and self.pair.itemData(k) == chosen]  # fmt: skip
            self.pair.setCurrentIndex(found[0] if found else 0)
        finally:
            self.pair.blockSignals(False)

    def _fill_gaps(self) -> None:
        found = getattr(self.result, "necessity", None)
        if found is None:
            return
        every = len(found.gap_rows())
        rows = gap_cells(found, self.level.currentData(), self.pair.currentData())
        _fill(self.gaps, rows)
        self.shown_rows.setText(f"{len(rows)} of {every} rows")
