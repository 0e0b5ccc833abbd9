"""Tables and figures that stay readable in a small window: a figure keeps its drawn
size and scrolls instead of being squeezed (2×2 tables 25 px high, their "fail" and
"pass" on top of each other), and a header too long for its column breaks into lines
instead of being cut ("rerequisite iten") or elided ("1 g…nai")."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import QHeaderView, QScrollArea, QStyle, QWidget

BREAK_AFTER = " -_/→"
"""A header breaks into lines after these characters (a run name's parts, "wrong→" "right"), never
inside a part that fits a line (``Qwen2.5-`` / ``VL-7B-`` / ``Instruct``)."""


def figure_size(figure) -> QSize:
    """The size (logical pixels) a matplotlib ``figure`` is drawn at: its size in inches
    times its dpi (which the panes set for the screen), as laid out for that size."""
    width, height = figure.get_size_inches() * figure.get_dpi()
    return QSize(round(width), round(height))


class FigureScroll(QScrollArea):
    """A figure's canvas in a scroll area (see :func:`scrolled_canvas`); ``figure`` and
    ``canvas`` are the matplotlib figure and its canvas, its object name the canvas's."""

    def __init__(self, canvas: QWidget, figure) -> None:
        super().__init__()
        self.figure = figure
        self.canvas = canvas
        canvas.setMinimumSize(figure_size(figure))
        self.setObjectName(canvas.objectName())
        self.setWidget(canvas)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)


def scrolled_canvas(canvas: QWidget, figure) -> FigureScroll:
    """``canvas`` (a ``FigureCanvasQTAgg`` of ``figure``) in a scroll area: it grows
    with the pane but never shrinks below :func:`figure_size`, so a short pane scrolls
    the figure instead of squeezing its panels and labels into each other."""
    return FigureScroll(canvas, figure)


def bold_metrics(widget: QWidget) -> QFontMetrics:
    """Font metrics of ``widget``'s font in bold: a header draws its current section
    bold, which is wider."""
    font = QFont(widget.font())
    font.setBold(True)
    return QFontMetrics(font)


def header_padding(header: QHeaderView) -> int:
    """Pixels of a header section that are not text: the style's margins on both sides
    and the sort arrow's room where the header shows one."""
    style = header.style()
    margin = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
    arrow = style.pixelMetric(QStyle.PixelMetric.PM_HeaderMarkSize, None, header)
    return 2 * margin + (arrow + margin if header.isSortIndicatorShown() else 0) + 4


def wrap_header(title: str, metrics: QFontMetrics, width: int) -> list[str]:
    """``title`` in lines no wider than ``width`` pixels under ``metrics``: broken after
    a character of :data:`BREAK_AFTER` where it can be, inside a part only where that
    part alone is wider than a line. ``"".join(lines) == title``.

    Parameters
    ----------
    title : str
        The header's full text (one line).
    metrics : QFontMetrics
        The header's font (bold: see :func:`bold_metrics`).
    width : int
        The room for text in pixels (the section's width less :func:`header_padding`).
    """
    parts, start = [], 0
    for at, char in enumerate(title):
        if char in BREAK_AFTER:
            parts.append(title[start : at + 1])
            start = at + 1
    if start < len(title):
        parts.append(title[start:])
    lines = [""]
    for part in parts:
        if metrics.horizontalAdvance((lines[-1] + part).rstrip()) <= width:
            lines[-1] += part
            continue
        if lines[-1]:
            lines.append("")
        for char in part:  # a part wider than a line: broken where it must be
            if lines[-1] and metrics.horizontalAdvance((lines[-1] + char).rstrip()) > width:
                lines.append("")
            lines[-1] += char
    return lines


def fit_header(
    title: str, metrics: QFontMetrics, padding: int, narrow: int, wide: int, max_lines: int = 3
) -> tuple[int, str]:
    """A section width from ``narrow`` to ``wide`` pixels for ``title`` and the header
    text broken for it (lines joined by ``\n``, which a header draws as lines): the
    fewest lines that fit within ``wide`` (one line where the whole title does), at the
    narrowest width that gives them; ``wide`` and as many lines as it takes where even
    ``max_lines`` lines do not fit."""
    step = max(1, metrics.horizontalAdvance("M") // 2)
    one_line = metrics.horizontalAdvance(title) + padding
    if one_line <= wide:
        return max(narrow, one_line), title
    for lines in range(2, max_lines + 1):
        for width in range(narrow, wide + 1, step):
            if len(wrap_header(title, metrics, width - padding)) <= lines:
                return width, "\n".join(wrap_header(title, metrics, width - padding))
    return wide, "\n".join(wrap_header(title, metrics, wide - padding))


def headers_fit_contents(header: QHeaderView) -> None:
    """Every section of ``header`` as wide as its header text and cells need: the table
    scrolls sideways when they do not fit (a stretched section shrinks below its text
    when the others take the room)."""
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setStretchLastSection(False)
