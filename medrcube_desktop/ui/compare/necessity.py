"""The Compare models pane's Image necessity tab (issue 24, Table 4 extended): how many
items are answerable without the image, the sighted − ablated gap per pair of runs
overall, per task and per voxel with its interval clustered by image, and the items
answerable without the image. Every cell's text comes from
:mod:`medrcube_desktop.evaluation.compare.necessity` (Qt-free), the computation
``compare`` prints."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from medrcube_desktop.evaluation.compare.necessity import (
    GAP_COLUMNS,
    ITEM_COLUMNS,
    PANE_ITEMS_FILE,
    answerable_cells,
    gap_cells,
    necessity_lines,
)
from medrcube_desktop.ui.compare.credibility import _fill, _table


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
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
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
            _fill(self.gaps, [])
            _fill(self.items, [])
            return
        self.summary.setText(necessity_lines(found, PANE_ITEMS_FILE)[0])
        _fill(self.gaps, gap_cells(found))
        _fill(self.items, answerable_cells(found))
