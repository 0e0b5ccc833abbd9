"""The mask editor of a proposed correction: paint and erase the shown slice's labels
with a brush whose radius is in mm, undo strokes (Ctrl+Z), the item's mask outlined
beside the edited one.

The painting is Qt-free (:func:`~medrcube_desktop.imaging.brush.paint_stroke`, on the
shown slice's grid with its spacing); the view only maps the cursor to image coordinates
(:meth:`ImageView.image_point`: zoom, pan and the pixel aspect undone) and draws. The
result goes back to the stored slice's order (:func:`~medrcube_desktop.imaging.
edit_slice.stored_labels`).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeySequence, QPen, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QDoubleSpinBox,
    QGraphicsEllipseItem,
    QGraphicsPixmapItem,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.imaging.brush import paint_stroke
from medrcube_desktop.imaging.edit_slice import EditSlice, stored_labels
from medrcube_desktop.ui.widgets.image_view import ImageView, rgba_to_qimage

EDIT_ALPHA = 110
"""Opacity (0–255) of the edited labels' fill."""
PROPOSED_RGB = (30, 144, 255)
"""The proposed labels: filled blue, never the red of a mask as the review window shows
it (a new stroke looked like the mask it corrects)."""
OLD_RGB = (255, 214, 0)
"""The item's mask now: its outline in yellow."""
LEGEND = (
    f'<span style="color: rgb{PROPOSED_RGB}">■</span> proposed labels (filled blue) · '
    f'<span style="color: rgb{OLD_RGB}">□</span> the item\'s mask now (yellow outline)'
)
"""The legend line under the editor's tools (rich text)."""
UNDO_DEPTH = 100
"""Strokes Ctrl+Z can take back."""


def overlay_rgba(labels: np.ndarray, original: np.ndarray | None) -> np.ndarray:
    """``(H, W, 4)`` uint8: the edited labels filled in :data:`PROPOSED_RGB` (alpha
    :data:`EDIT_ALPHA`) and
    the original labels' border (a pixel with a 4-neighbour of another label) in
    opaque yellow, transparent elsewhere."""
    out = np.zeros((*labels.shape, 4), dtype=np.uint8)
    painted = labels != 0
    out[painted] = (*PROPOSED_RGB, EDIT_ALPHA)
    if original is not None and original.any():
        padded = np.pad(original, 1, constant_values=0)
        centre = padded[1:-1, 1:-1]
        border = (centre != 0) & (
            (padded[:-2, 1:-1] != centre)
            | (padded[2:, 1:-1] != centre)
            | (padded[1:-1, :-2] != centre)
            | (padded[1:-1, 2:] != centre)
        )
        out[border] = (*OLD_RGB, 255)
    return out


class MaskEditorView(ImageView):
    """The slice with the labels being edited; the left button paints :attr:`label` (or
    erases in erase mode), the right button erases, with a brush of
    :attr:`radius_mm`; :meth:`undo` takes the last stroke back. ``stroked(changed)``
    after each stroke (pixels changed)."""

    stroked = Signal(int)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setDragMode(QGraphicsView.DragMode.NoDrag)  # the left button paints
        self.viewport().setCursor(Qt.CursorShape.CrossCursor)
        self.edit: EditSlice | None = None
        self.labels: np.ndarray | None = None  # (H, W) int32, as shown
        self.original: np.ndarray | None = None
        self.radius_mm = 2.0
        self.label = 1
        self.erasing = False
        self._stroke: list[tuple[float, float]] = []
        self._stroke_value = 0
        self._before: np.ndarray | None = None
        self.undo_stack: list[tuple[np.ndarray, np.ndarray]] = []  # (flat indices, old values)
        self._overlay = QGraphicsPixmapItem(self._pixmap_item)
        pen = QPen(QColor(0, 230, 230), 1)
        pen.setCosmetic(True)
        self._cursor = QGraphicsEllipseItem(self._pixmap_item)
        self._cursor.setPen(pen)
        self._cursor.setVisible(False)

    def set_slice(self, edit: EditSlice) -> None:
        """Edit ``edit``'s labels (zeros when the item has no mask)."""
        self.edit = edit
        self.set_image(edit.rgba, edit.pixel_aspect, True, edit.edge_labels, edit.facts)
        self.original = None if edit.labels is None else edit.labels.copy()
        self.labels = (
            edit.labels.astype(np.int32, copy=True)
            if edit.labels is not None
            else np.zeros(edit.shown_shape, dtype=np.int32)
        )
        self.undo_stack.clear()
        self._redraw()

    def _redraw(self) -> None:
        rgba = overlay_rgba(self.labels, self.original)
        self._overlay.setPixmap(QPixmap.fromImage(rgba_to_qimage(rgba)))

    def _reach(self) -> tuple[float, float]:
        """The brush's radius in shown pixels, across and down."""
        spacing = self.edit.spacing if self.edit is not None else None
        if spacing is None:
            return self.radius_mm, self.radius_mm
        return self.radius_mm / spacing[1], self.radius_mm / spacing[0]

    def _show_cursor(self, point: QPointF) -> None:
        rx, ry = self._reach()
        self._cursor.setRect(QRectF(point.x() - rx, point.y() - ry, 2 * rx, 2 * ry))
        self._cursor.setVisible(True)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        button = event.button()
        if self.edit is None or button not in (
            Qt.MouseButton.LeftButton,
            Qt.MouseButton.RightButton,
        ):
            super().mousePressEvent(event)
            return
        erase = self.erasing or button == Qt.MouseButton.RightButton
        self._stroke_value = 0 if erase else int(self.label)
        self._before = self.labels.copy()
        point = self.image_point(event.position().toPoint())
        self._stroke = [(point.x(), point.y())]
        self._paint(self._stroke)
        self.setFocus()
        event.accept()

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if self.edit is None:
            super().mouseMoveEvent(event)
            return
        point = self.image_point(event.position().toPoint())
        self._update_readout(event.position().toPoint())
        self._show_cursor(point)
        if self._before is not None:
            last = self._stroke[-1]
            self._stroke.append((point.x(), point.y()))
            self._paint([last, (point.x(), point.y())])
        event.accept()

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if self._before is None:
            super().mouseReleaseEvent(event)
            return
        before, self._before = self._before, None
        changed = np.flatnonzero(before != self.labels)
        if changed.size:
            self.undo_stack.append((changed, before.ravel()[changed]))
            del self.undo_stack[:-UNDO_DEPTH]
        self._stroke = []
        self.stroked.emit(int(changed.size))
        event.accept()

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Ctrl+Z on the image: the last stroke taken back (the editor's shortcut does
        the same from its tools)."""
        if event.matches(QKeySequence.StandardKey.Undo):
            self.undo()
            event.accept()
            return
        super().keyPressEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self._cursor.setVisible(False)
        super().leaveEvent(event)

    def _paint(self, points) -> None:
        spacing = self.edit.spacing
        if paint_stroke(self.labels, points, self.radius_mm, spacing, self._stroke_value):
            self._redraw()

    def undo(self) -> bool:
        """Take the last stroke back; False when there is none."""
        if not self.undo_stack:
            return False
        indices, values = self.undo_stack.pop()
        self.labels.ravel()[indices] = values
        self._redraw()
        self.stroked.emit(-int(indices.size))
        return True

    def stored(self) -> np.ndarray | None:
        """The edited labels in the stored slice's ``(rows, cols)`` order."""
        if self.labels is None or self.edit is None:
            return None
        return stored_labels(self.labels, self.edit.transform)


class MaskEditor(QWidget):
    """:class:`MaskEditorView` with its tools: paint or erase, the label painted, the brush
    radius in mm (pixels when the image gives no spacing), Undo (Ctrl+Z), and the count
    of labelled pixels before and now. ``changed`` after each stroke or undo."""

    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.view = MaskEditorView()
        self.view.setObjectName("maskEditorView")
        self.paint = QRadioButton("&Paint")
        self.erase = QRadioButton("&Erase")
        self.paint.setChecked(True)
        modes = QButtonGroup(self)
        modes.addButton(self.paint)
        modes.addButton(self.erase)
        self.erase.toggled.connect(self._mode)
        self.label = QSpinBox()
        self.label.setObjectName("maskLabel")
        self.label.setRange(1, 65535)
        self.label.setPrefix("label ")
        self.label.valueChanged.connect(lambda value: setattr(self.view, "label", value))
        self.radius = QDoubleSpinBox()
        self.radius.setObjectName("brushRadius")
        self.radius.setRange(0.1, 200.0)
        self.radius.setDecimals(1)
        self.radius.setSingleStep(0.5)
        self.radius.setValue(self.view.radius_mm)
        self.radius.valueChanged.connect(lambda value: setattr(self.view, "radius_mm", value))
        self.undo_button = QPushButton("&Undo stroke")
        self.undo_button.clicked.connect(self.undo)
        self.undo_shortcut = QShortcut(QKeySequence.StandardKey.Undo, self)
        self.undo_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.undo_shortcut.activated.connect(self.undo)
        self.counts = QLabel()
        self.counts.setObjectName("maskCounts")
        self.counts.setTextFormat(Qt.TextFormat.PlainText)
        self.counts.setWordWrap(True)
        tools = QHBoxLayout()
        for widget in (self.paint, self.erase, self.label, QLabel("Brush radius"), self.radius):
            tools.addWidget(widget)
        tools.addWidget(self.undo_button)
        tools.addStretch(1)
        hint = QLabel(
            "Left button paints (or erases in Erase mode), right button erases; Ctrl+Z "
            "takes a stroke back; the wheel zooms."
        )
        self.legend = QLabel(LEGEND)
        self.legend.setObjectName("maskLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        hint.setWordWrap(True)
        hint.setProperty("muted", True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addLayout(tools)
        layout.addWidget(self.legend)
        layout.addWidget(self.counts)
        layout.addWidget(hint)
        self.view.stroked.connect(self._stroked)

    def set_slice(self, edit: EditSlice) -> None:
        """Edit the labels of ``edit``'s slice; the label painted is the mask's first."""
        self.view.set_slice(edit)
        present = [int(v) for v in np.unique(self.view.labels) if v != 0]
        self.label.setValue(present[0] if present else 1)
        self.radius.setSuffix(" mm" if edit.spacing is not None else " px")
        self._stroked(0)

    def _mode(self, erasing: bool) -> None:
        self.view.erasing = erasing

    def undo(self) -> None:
        """Ctrl+Z: the last stroke taken back."""
        self.view.undo()

    def _stroked(self, _changed: int) -> None:
        view, edit = self.view, self.view.edit
        if edit is None:
            return
        before = 0 if view.original is None else int(np.count_nonzero(view.original))
        now = int(np.count_nonzero(view.labels))
        where = (
            f"slice {edit.slice_index + 1} of {edit.slice_count}"
            if edit.volume_axis is not None
            else "the whole 2-D mask"
        )
        spacing = (
            f"pixel spacing {edit.spacing[0]:g} × {edit.spacing[1]:g} mm (rows × columns)"
            if edit.spacing is not None
            else "the image gives no pixel spacing: the radius is in pixels"
        )
        self.counts.setText(
            f"Labelled pixels on {where}: {before} now in the item, {now} proposed · "
            f"{len(view.undo_stack)} stroke(s) to undo · {spacing}"
        )
        self.undo_button.setEnabled(bool(view.undo_stack))
        self.changed.emit()

    def changed_labels(self) -> bool:
        """Whether the labels differ from the item's."""
        view = self.view
        if view.labels is None:
            return False
        if view.original is None:
            return bool(view.labels.any())
        return not np.array_equal(view.labels, view.original)
