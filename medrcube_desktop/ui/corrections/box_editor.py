"""The bounding-box editor of a proposed correction: drag a corner on the image, the old
box dashed beside the new one, numeric fields (the file's stored pixels) that follow.

The corner math is Qt-free (:func:`~medrcube_desktop.imaging.edit_slice.drag_corner`);
the view only maps the cursor to image pixels through its whole transform (zoom, pan, the
pixel aspect: :meth:`ImageView.image_point`) and draws. Esc during a drag puts the box
back as it was when the drag began.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.imaging.edit_slice import (
    CORNERS,
    EditSlice,
    corner_points,
    drag_corner,
    shown_box,
    stored_box,
)
from medrcube_desktop.ui.widgets.image_view import ImageView

OLD_COLOUR = QColor(255, 214, 0)
"""The item's box now: yellow, dashed."""
NEW_COLOUR = QColor(0, 230, 230)
"""The proposed box: cyan, solid, with its corner handles."""
HANDLE_PX = 9
"""A handle's side on screen (logical pixels); a press within this of a corner grabs it."""

Box = tuple[int, int, int, int]


class BoxEditorView(ImageView):
    """The slice with the old box (dashed) and the proposed one (solid, four handles).

    ``box`` is the proposed box on the *shown* slice (inclusive pixels); ``box_changed``
    is emitted after each change (a drag step, :meth:`set_box`). A left press near a
    corner drags it; elsewhere the left drag pans, as in the review window.
    """

    box_changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.edit: EditSlice | None = None
        self.box: Box | None = None
        self.dragging: int | None = None  # the corner held, an index into CORNERS
        self._before_drag: Box | None = None
        old_pen = QPen(OLD_COLOUR, 2, Qt.PenStyle.DashLine)
        old_pen.setCosmetic(True)
        self._old = QGraphicsRectItem(self._pixmap_item)
        self._old.setPen(old_pen)
        new_pen = QPen(NEW_COLOUR, 2)
        new_pen.setCosmetic(True)
        self._new = QGraphicsRectItem(self._pixmap_item)
        self._new.setPen(new_pen)
        self._handles = []
        for _ in CORNERS:
            handle = QGraphicsRectItem(
                QRectF(-HANDLE_PX / 2, -HANDLE_PX / 2, HANDLE_PX, HANDLE_PX), self._pixmap_item
            )
            handle.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
            handle.setBrush(NEW_COLOUR)
            handle.setPen(QPen(Qt.GlobalColor.black, 1))
            self._handles.append(handle)
        self._old.setVisible(False)
        self._show_box()

    def set_slice(self, edit: EditSlice, box: Box | None = None) -> None:
        """Show ``edit``'s slice with its box (dashed) and ``box`` (shown pixels) as the
        proposal; by default the item's box, else the middle half of the image."""
        self.edit = edit
        self.set_image(edit.rgba, edit.pixel_aspect, True, edit.edge_labels, edit.facts)
        rows, cols = edit.shown_shape
        if edit.box is not None:
            self._old.setRect(_outline(edit.box))
        self._old.setVisible(edit.box is not None)
        default = edit.box or (cols // 4, rows // 4, max(cols * 3 // 4, 1), max(rows * 3 // 4, 1))
        self.set_box(box or default)

    def set_box(self, box: Box) -> None:
        """The proposed box on the shown slice (clipped to it, kept two pixels at least)."""
        rows, cols = self.edit.shown_shape
        x0, y0, x1, y1 = box
        x0, y0 = max(0, min(x0, cols - 2)), max(0, min(y0, rows - 2))
        x1, y1 = max(x0 + 1, min(x1, cols - 1)), max(y0 + 1, min(y1, rows - 1))
        if (x0, y0, x1, y1) != self.box:
            self.box = (x0, y0, x1, y1)
            self._show_box()
            self.box_changed.emit()

    def stored(self) -> Box | None:
        """The proposed box in the file's stored pixels (what a proposal records)."""
        if self.box is None or self.edit is None:
            return None
        return stored_box(self.box, self.edit.transform, self.edit.shown_shape)

    def set_stored(self, box: Box) -> None:
        """Set the proposed box from the file's stored pixels (the numeric fields)."""
        shown = shown_box(box, self.edit.transform, self.edit.stored_shape)
        if shown is not None:
            self.set_box(shown)

    def _show_box(self) -> None:
        visible = self.box is not None
        self._new.setVisible(visible)
        for handle in self._handles:
            handle.setVisible(visible)
        if not visible:
            return
        self._new.setRect(_outline(self.box))
        for handle, (x, y) in zip(self._handles, corner_points(self.box), strict=True):
            handle.setPos(QPointF(x, y))

    def corner_at(self, viewport_point) -> int | None:
        """The corner within :data:`HANDLE_PX` of a viewport point, or None."""
        if self.box is None:
            return None
        best, best_distance = None, float(HANDLE_PX)
        for index, (x, y) in enumerate(corner_points(self.box)):
            on_screen = self.mapFromScene(self._pixmap_item.mapToScene(QPointF(x, y)))
            distance = max(
                abs(on_screen.x() - viewport_point.x()), abs(on_screen.y() - viewport_point.y())
            )
            if distance <= best_distance:
                best, best_distance = index, distance
        return best

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.button() == Qt.MouseButton.LeftButton and self.edit is not None:
            corner = self.corner_at(event.position().toPoint())
            if corner is not None:
                self.dragging, self._before_drag = corner, self.box
                self.setFocus()
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if self.dragging is not None and self.edit is not None:
            point = self.image_point(event.position().toPoint())
            self._update_readout(event.position().toPoint())
            self.set_box(
                drag_corner(self.box, self.dragging, point.x(), point.y(), self.edit.shown_shape)
            )
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if self.dragging is not None and event.button() == Qt.MouseButton.LeftButton:
            self.dragging = self._before_drag = None
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Esc during a drag: the box as it was before it (the dialog stays open)."""
        if event.key() == Qt.Key.Key_Escape and self.dragging is not None:
            before = self._before_drag
            self.dragging = self._before_drag = None
            if before is not None:
                self.set_box(before)
            event.accept()
            return
        super().keyPressEvent(event)


def _outline(box: Box) -> QRectF:
    """The rectangle around inclusive pixels ``x0..x1``, ``y0..y1`` (image units)."""
    x0, y0, x1, y1 = box
    return QRectF(x0, y0, x1 + 1 - x0, y1 + 1 - y0)


class BoxEditor(QWidget):
    """:class:`BoxEditorView` with the box's numbers: the current box and four fields of
    the proposed one, in the file's stored pixels (x = column, y = row), that follow the
    drag and move the box when typed in. ``changed`` after each change."""

    changed = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.view = BoxEditorView()
        self.view.setObjectName("boxEditorView")
        self.current = QLabel()
        self.current.setObjectName("boxCurrent")
        self.current.setTextFormat(Qt.TextFormat.PlainText)
        self.fields: dict[str, QSpinBox] = {}
        fields = QHBoxLayout()
        fields.addWidget(QLabel("Proposed box (file pixels):"))
        for name in ("x0", "y0", "x1", "y1"):
            spin = QSpinBox()
            spin.setObjectName(f"box_{name}")
            spin.setPrefix(f"{name} ")
            spin.setRange(0, 0)
            spin.setKeyboardTracking(False)  # moved when typing ends, not per digit
            spin.valueChanged.connect(self._typed)
            self.fields[name] = spin
            fields.addWidget(spin)
        fields.addStretch(1)
        hint = QLabel(
            "Drag a corner of the cyan box on the image (Esc during a drag puts it back); "
            "the dashed yellow box is the item's now. Wheel zooms, a drag elsewhere pans."
        )
        hint.setWordWrap(True)
        hint.setProperty("muted", True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.current)
        layout.addLayout(fields)
        layout.addWidget(hint)
        self._following = False
        self.view.box_changed.connect(self._follow)

    def set_slice(self, edit: EditSlice) -> None:
        """Edit the box on ``edit``'s slice."""
        rows, cols = edit.stored_shape
        for name, spin in self.fields.items():
            spin.blockSignals(True)
            spin.setRange(0, (cols if name[0] == "x" else rows) - 1)
            spin.blockSignals(False)
        old = stored_box(edit.box, edit.transform, edit.shown_shape) if edit.box else None
        self.current.setText(
            f"Current box: {list(old)}" if old else "Current box: none (the item has no box)"
        )
        self.view.set_slice(edit)
        self._follow()

    def value(self) -> list[int] | None:
        """The proposed box, ``[x0, y0, x1, y1]`` in the file's stored pixels."""
        stored = self.view.stored()
        return list(stored) if stored is not None else None

    def _follow(self) -> None:
        """The fields follow the box."""
        stored = self.view.stored()
        if stored is None:
            return
        self._following = True
        for spin, value in zip(self.fields.values(), stored, strict=True):
            spin.setValue(value)
        self._following = False
        self.changed.emit()

    def _typed(self) -> None:
        if self._following or self.view.edit is None:
            return
        values = [spin.value() for spin in self.fields.values()]
        self.view.set_stored((values[0], values[1], values[2], values[3]))
        self._follow()  # clipped or kept two pixels wide: the fields say so
