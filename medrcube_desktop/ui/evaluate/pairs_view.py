"""The paired-outcome view of an evaluation run (paper Section 6): every prerequisite /
high-level pair per image with its group, the credibility figures, and the pair's image,
questions, raw answers and how they were read.

It shows a :class:`~medrcube_desktop.ui.evaluate.run_results.RunResults` (the run's answers read
once by the pane) and renders both items of a pair side by side, each with its own mask,
box and slice, on the render pool; the result is applied on
the GUI thread, a stale one dropped. Every benchmark and model text is escaped.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.evaluation.credibility import Pair, figure_text, pair_outcomes
from medrcube_desktop.evaluation.scoring import paired_figures
from medrcube_desktop.imaging.render import RenderedImage
from medrcube_desktop.ui.evaluate.run_results import RunResults
from medrcube_desktop.ui.widgets.image_view import rgba_to_qimage
from medrcube_desktop.ui.widgets.render_task import RenderTask, render_pool
from medrcube_desktop.ui.widgets.text import esc

PAIR_IMAGE_SIDE = 300
"""Each item's picture in a pair is rendered at most this many pixels per side."""
PAIR_ROWS = 5000
"""Pairs listed at most (a benchmark of thousands of items on one picture has millions;
a table of them would hang the window). The figures count every pair."""


def table_cell(text: object, align: bool = True) -> QTableWidgetItem:
    """A read-only cell; ``None`` shows as —."""
    cell = QTableWidgetItem("—" if text is None else str(text))
    if align:
        cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
    return cell


class PairsView(QWidget):
    """Preset and group filters, the pairs table, the selected pair in detail.

    ``open_item(item_id)`` asks the review window to show an item.
    """

    open_item = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.results: RunResults | None = None
        self._generation = 0  # of the pair image requested last
        self.counts: dict[str, int] = dict.fromkeys("ABCD", 0)
        self.figures: dict | None = None  # the run's credibility figures shown
        self.shown_pairs: list[Pair] = []
        self.preset = QComboBox()
        self.preset.addItem("Paper preset (DD AD SG vs every low/mid task)", "paper")
        self.preset.addItem("Official script preset (task names as written)", "official")
        self.preset.currentIndexChanged.connect(self.refresh)
        self.group_filter = QComboBox()
        for value, title in (("", "All groups"), ("A", "A: both right"),
                             ("B", "B: perception right, diagnosis wrong"),
                             ("C", "C: both wrong"),
                             ("D", "D: right diagnosis, wrong perception")):  # fmt: skip
            self.group_filter.addItem(title, value)
        self.group_filter.currentIndexChanged.connect(self._fill_pairs_table)
        self.credibility_label = QLabel()
        self.credibility_label.setObjectName("credibility")
        self.credibility_label.setTextFormat(Qt.TextFormat.RichText)
        self.credibility_label.setWordWrap(True)
        self.pairs_table = QTableWidget(0, 6)
        self.pairs_table.setObjectName("pairsTable")
        self.pairs_table.setHorizontalHeaderLabels(
            ["Image", "Prerequisite item", "Right?", "High-level item", "Right?", "Group"]
        )
        # each column as wide as its header and cells (filled: resizeColumnsToContents),
        # the last taking what is left: a stretched header was cut ("rerequisite iten")
        self.pairs_table.horizontalHeader().setStretchLastSection(True)
        self.pairs_table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.pairs_table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.pairs_table.verticalHeader().setVisible(False)
        self.pairs_table.currentCellChanged.connect(lambda row, *_: self._show_pair(row))
        self.images: dict[str, QLabel] = {}  # "low" (prerequisite), "high" (high level)
        self.texts: dict[str, QLabel] = {}
        self._generations: dict[str, int] = {"low": 0, "high": 0}
        self.pair_text = QLabel()  # the group, or what to do
        self.pair_text.setObjectName("pairDetail")
        self.pair_text.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        self.pair_text.setWordWrap(True)
        self.review_low = QPushButton("Review the prerequisite item")
        self.review_high = QPushButton("Review the high-level item")
        self.review_low.clicked.connect(lambda: self._review(low=True))
        self.review_high.clicked.connect(lambda: self._review(low=False))
        columns = QHBoxLayout()
        for side, button in (("low", self.review_low), ("high", self.review_high)):
            columns.addLayout(self._side_column(side, button), 1)
        detail = QWidget()
        detail_layout = QVBoxLayout(detail)
        detail_layout.addWidget(self.pair_text)
        detail_layout.addLayout(columns)
        detail_layout.addStretch(1)
        scroll = QScrollArea()  # a pair's two questions can be taller than the screen
        scroll.setObjectName("pairScroll")
        scroll.setWidget(detail)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.detail_scroll = scroll
        split = QSplitter()
        split.addWidget(self.pairs_table)
        split.addWidget(scroll)
        split.setSizes([560, 620])
        filters = QHBoxLayout()
        filters.addWidget(self.preset, 1)
        filters.addWidget(self.group_filter, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.credibility_label)
        layout.addWidget(split, 1)

    def _side_column(self, side: str, button: QPushButton) -> QVBoxLayout:
        """One item of the pair: its own image (mask, box, slice), text and button."""
        image = QLabel()
        image.setObjectName(f"pairImage_{side}")
        image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        image.setMinimumSize(200, 200)
        image.setTextFormat(Qt.TextFormat.PlainText)  # an error's text as written
        image.setWordWrap(True)
        text = QLabel()
        text.setObjectName(f"pairText_{side}")
        text.setTextFormat(Qt.TextFormat.RichText)  # every value in it is escaped
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        text.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.images[side], self.texts[side] = image, text
        column = QVBoxLayout()
        column.addWidget(image)
        column.addWidget(text, 1)
        column.addWidget(button)
        return column

    def show_run(self, results: RunResults | None) -> None:
        """The pairs of one run's results (None: nothing to show)."""
        self.results = results
        self.refresh()

    def refresh(self) -> None:
        """Recompute the pairs for the chosen preset (from the results: no database read)."""
        if self.results is None:
            self.counts = dict.fromkeys("ABCD", 0)
            self.figures = None
            self.credibility_label.clear()
            self._fill_pairs_table()
            return
        figures, self.counts, warnings = paired_figures(  # what `credibility --run` prints
            self.results.outcomes, self.preset.currentData()
        )
        self.figures = figures

        def num(key):  # "undefined: <reason>" as the credibility command writes it
            return esc(figure_text(figures, key))

        self.credibility_label.setText(
            f"Pairs {figures['total_pairs']}: A {figures['group_a']} · B {figures['group_b']} · "
            f"C {figures['group_c']} · D {figures['group_d']}. Luck Rate {num('luck_rate')}, "
            f"Rationality {num('rationality')}, Shortcut Probability "
            f"{num('shortcut_prob')}, Acc_H {num('acc_h')}."
            + "".join(f"<br><span style='color:#9a6700'>⚠ {esc(w)}</span>" for w in warnings)
        )
        self._fill_pairs_table()

    def _fill_pairs_table(self) -> None:
        wanted = self.group_filter.currentData() or None
        shown: list[Pair] = []
        if self.results is not None:
            shown, _ = pair_outcomes(self.results.outcomes, self.preset.currentData(),
                                     wanted, PAIR_ROWS)  # fmt: skip
        self.shown_pairs = shown
        total = sum(self.counts.values()) if wanted is None else self.counts[wanted]
        self.pair_text.setText(
            ("No pair." if wanted is None else f"No pair in group {wanted}.")
            if not total
            else "Select a pair to see its images, questions and answers."
            if total <= len(shown)
            else f"Showing the first {len(shown):,} of {total:,} pairs"
            + ("" if wanted is None else f" in group {wanted}")
            + " (the figures above count them all); select a pair to see it."
        )
        self._clear_sides()
        self.pairs_table.setRowCount(len(shown))
        self.pairs_table.setCurrentCell(-1, -1)
        for row, pair in enumerate(shown):
            values = [
                Path(pair.image).name,
                f"{pair.low.item.id} ({pair.low.item.task.abbreviation})",
                "✓" if pair.low.correct else "✗",
                f"{pair.high.item.id} ({pair.high.item.task.abbreviation})",
                "✓" if pair.high.correct else "✗",
                pair.group,
            ]
            for column, value in enumerate(values):
                self.pairs_table.setItem(row, column, table_cell(value, align=column in (2, 4, 5)))
        self.pairs_table.resizeColumnsToContents()  # the header's text included

    def _clear_sides(self) -> None:
        for side in ("low", "high"):
            self._generations[side] += 1  # a render in flight is for a pair no longer shown
            self.images[side].clear()
            self.texts[side].clear()

    def _show_pair(self, row: int) -> None:
        if row < 0 or row >= len(self.shown_pairs) or self.results is None:
            return
        pair = self.shown_pairs[row]
        answers = self.results.answers
        self.pair_text.setText(
            f"Group <b>{esc(pair.group)}</b> · image {esc(Path(pair.image).name)}"
        )
        for side, title, outcome in (("low", "Prerequisite", pair.low),
                                     ("high", "High level", pair.high)):  # fmt: skip
            self.texts[side].setText(_outcome_block(title, outcome, answers.get(outcome.item.id)))
            self._render(side, outcome.item)

    def _render(self, side: str, item) -> None:
        """Render ``item`` with its own mask, box and slice on the render pool."""
        self._generations[side] += 1
        self.images[side].clear()
        self.images[side].setText("Rendering…")
        task = RenderTask(self._generations[side], item, None, max_side=PAIR_IMAGE_SIDE)
        task.signals.done.connect(
            self._on_rendered_low if side == "low" else self._on_rendered_high
        )
        task.signals.failed.connect(self._on_failed_low if side == "low" else self._on_failed_high)
        render_pool().start(task)

    def _on_rendered_low(self, generation: int, result: RenderedImage) -> None:
        self._apply("low", generation, result)

    def _on_rendered_high(self, generation: int, result: RenderedImage) -> None:
        self._apply("high", generation, result)

    def _on_failed_low(self, generation: int, message: str) -> None:
        self._apply("low", generation, None, message)

    def _on_failed_high(self, generation: int, message: str) -> None:
        self._apply("high", generation, None, message)

    def _apply(self, side: str, generation: int, result, message: str = "") -> None:
        if generation != self._generations[side]:
            return  # another pair is shown now
        if result is None:
            self.images[side].setText(f"Image not shown: {message}")
            return
        self.images[side].setPixmap(QPixmap.fromImage(rgba_to_qimage(result.rgba)))
        if result.slice_count > 1:
            self.images[side].setToolTip(f"Slice {result.slice_index + 1} of {result.slice_count}")

    def _review(self, low: bool) -> None:
        row = self.pairs_table.currentRow()
        if 0 <= row < len(self.shown_pairs):
            pair = self.shown_pairs[row]
            self.open_item.emit((pair.low if low else pair.high).item.id)


def _outcome_block(title: str, outcome, answer) -> str:
    """One item of a pair as rich text: question, options (ground truth bold), the raw
    answer and how it was read; every value escaped."""
    item = outcome.item
    options = "<br>".join(
        f"<b>{esc(L)}. {esc(t)}</b>" if item.answer == L else f"{esc(L)}. {esc(t)}"
        for L, t in item.options.items()
    )
    raw = esc((answer.response if answer else "")[:600])
    how = f"{esc(answer.parsed_answer or 'none')} ({esc(answer.parse_method)})" if answer else "—"
    return (
        f"<p><b>{esc(title)}: {esc(item.id)}</b> · {esc(item.task.name)}<br>"
        f"{esc(item.question)}<br>{options}"
        f"<br><i>Model answered:</i> <code>{raw}</code><br><i>Read as:</i> {how} "
        f"{'✓' if outcome.correct else '✗'}</p>"
    )
