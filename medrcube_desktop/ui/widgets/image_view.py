"""The image view: zoom with the wheel or +/-, pan by dragging, the value under the
cursor, a distance caliper. Its images are rendered off the GUI thread by
:mod:`.render_task`."""

from __future__ import annotations

import logging
import math

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRect, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap, QTransform
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsPixmapItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from medrcube_desktop.imaging.pixel_facts import PixelFacts

CALIPER_COLOUR = QColor(0, 230, 230)
"""Cyan: apart from the red masks and boxes and the yellow overlay planes."""

log = logging.getLogger(__name__)


def rgba_to_qimage(rgba: np.ndarray) -> QImage:
    """Wrap an ``(H, W, 4) uint8`` RGBA array in a QImage (deep copy, so it owns its pixels)."""
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise ValueError(f"expected (H, W, 4) uint8 RGBA, got {rgba.shape} {rgba.dtype}")
    data = np.ascontiguousarray(rgba)
    h, w = data.shape[:2]
    return QImage(data.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()


class ImageView(QGraphicsView):
    """Shows one rendered slice; the wheel zooms about the cursor, dragging pans.

    Moving the mouse shows the file pixel (column x, row y, the display's turns and
    flips undone) and its value under the cursor (modality units, from the
    :class:`PixelFacts` given with the image) in the top-left corner; in caliper mode
    (:meth:`set_measuring`) a left drag draws a line with its length in mm (pixels when
    the file gives no spacing). Cursor positions map to image pixels through the view's
    whole transform (zoom, pan, the pixel aspect) and the facts' display reduction.
    """

    ZOOM_STEP = 1.25
    image_shown = Signal()  # after set_image placed new pixels
    window_dragged = Signal(int, int)  # right-drag: (dx, dy) in screen pixels since last move
    typed = Signal(str)  # a printable key that no shortcut uses (it does nothing here)
    full_resolution_wanted = Signal()  # zoomed past a reduced decode's pixels (once per image)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self._pixmap_item = QGraphicsPixmapItem()
        self._pixmap_item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.scene().addItem(self._pixmap_item)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        self.setBackgroundBrush(Qt.GlobalColor.black)
        self.setMinimumSize(320, 320)
        self._fit = True
        self._full_wanted = False
        self.edge_labels: dict[str, str] | None = None
        self.corner_text = ""  # lines, e.g. "W 400  C 40 (set by you)\n12 / 40"
        self.placeholder = ""  # said in the middle where there is no image (show_message)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)
        self.facts: PixelFacts | None = None
        self.readout_text = ""  # "x 12  y 40   -1002 HU" under the cursor
        self.measuring = False
        self.caliper: tuple[QPointF, QPointF] | None = None  # image pixels (x, y)
        self.caliper_text = ""
        self._caliper_dragging = False
        pen = QPen(CALIPER_COLOUR, 2)
        pen.setCosmetic(True)  # two screen pixels at any zoom
        self._caliper_line = QGraphicsLineItem(self._pixmap_item)
        self._caliper_line.setPen(pen)
        self._caliper_label = QGraphicsSimpleTextItem(self._pixmap_item)
        self._caliper_label.setBrush(CALIPER_COLOUR)
        self._caliper_label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        font = self._caliper_label.font()
        font.setPointSize(11)
        font.setBold(True)
        self._caliper_label.setFont(font)
        self._hide_caliper()
        self.setMouseTracking(True)
        self.viewport().setMouseTracking(True)

    def set_image(
        self,
        rgba: np.ndarray,
        pixel_aspect: float = 1.0,
        refit: bool = False,
        edge_labels: dict[str, str] | None = None,
        facts: PixelFacts | None = None,
    ) -> None:
        """Show new pixels at their physical aspect.

        Parameters
        ----------
        rgba : (H, W, 4) uint8
        pixel_aspect : float
            Height / width of one pixel (row spacing / column spacing); 4/3 stretches
            the picture vertically by a third. Display geometry only: pixels untouched.
        refit : bool
            Fit the window (a new item); otherwise keep the user's zoom (a new slice).
        edge_labels : dict or None
            Patient direction at the image's top, bottom, left and right, drawn at the
            edges of the view (orientation letters, as radiology viewers show them).
        facts : PixelFacts or None
            The values under the picture, for the cursor readout and the caliper. A new
            item (``refit``) clears the caliper and leaves caliper mode, unless the mode
            was turned on while no image was shown (the item still loading): then the
            mode is kept for the image that arrives. A new slice or window keeps both.
        """
        self.edge_labels = edge_labels
        keep = None if refit else self._view_fraction()
        old = self._pixmap_item.pixmap().width()
        waiting = self.facts is None and self._pixmap_item.pixmap().isNull()
        self.facts = facts
        self._full_wanted = False
        if refit and waiting and self.measuring:  # D pressed while this image loaded
            self.caliper, self.caliper_text = None, ""
            self._hide_caliper()
        elif refit:
            self.clear_caliper()
        elif self.caliper is not None:
            self._show_caliper()  # the length in the new facts' spacing
        self._pixmap_item.setPixmap(QPixmap.fromImage(rgba_to_qimage(rgba)))
        self._pixmap_item.setTransform(QTransform.fromScale(1.0, pixel_aspect))
        self.scene().setSceneRect(self._pixmap_item.sceneBoundingRect())
        if refit or self._fit:
            self.fit()
        elif old and old != rgba.shape[1] and keep is not None:
            self._keep_view(old / rgba.shape[1], keep)  # same picture, another resolution
        self.image_shown.emit()

    def shown_image_rect(self) -> QRect:
        """Where the picture lies in the viewport (logical pixels), clipped to the
        viewport; an empty rectangle when no picture is shown."""
        if self._pixmap_item.pixmap().isNull():
            return QRect()
        placed = self.mapFromScene(self._pixmap_item.sceneBoundingRect()).boundingRect()
        return placed.intersected(self.viewport().rect())

    def display_side(self) -> int:
        """The viewport's longer side in device pixels (what the screen can show)."""
        viewport = self.viewport()
        ratio = viewport.devicePixelRatioF()
        return max(1, math.ceil(max(viewport.width(), viewport.height()) * ratio))

    def _view_fraction(self) -> tuple[float, float] | None:
        """The viewport centre as a fraction of the shown image's width and height."""
        size = self._pixmap_item.pixmap().size()
        if size.isEmpty():
            return None
        centre = self.image_point(self.viewport().rect().center())
        return centre.x() / size.width(), centre.y() / size.height()

    def _keep_view(self, ratio: float, fraction: tuple[float, float]) -> None:
        """After the same picture came at another resolution (``ratio`` = old width / new
        width): keep its size on screen, the point at the centre and the caliper."""
        anchor = self.transformationAnchor()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self.scale(ratio, ratio)
        self.setTransformationAnchor(anchor)
        size = self._pixmap_item.pixmap().size()
        self.centerOn(
            self._pixmap_item.mapToScene(
                QPointF(fraction[0] * size.width(), fraction[1] * size.height())
            )
        )
        if self.caliper is not None:
            start, end = self.caliper
            self.measure(start / ratio, end / ratio)

    def _check_resolution(self) -> None:
        """Ask once for full resolution when a reduced decode's pixel spans more than one
        device pixel (the reviewer zoomed in past what was decoded)."""
        facts = self.facts
        if facts is None or facts.reduction <= 1 or self._full_wanted:
            return
        if self.transform().m11() * self.viewport().devicePixelRatioF() > 1.0:
            self._full_wanted = True
            self.full_resolution_wanted.emit()

    def clear(self) -> None:
        """Show nothing (while the next item renders)."""
        self._pixmap_item.setPixmap(QPixmap())
        self.edge_labels = None
        self.corner_text = ""
        self.facts = None
        self.readout_text = ""
        self.clear_caliper()
        self.placeholder = ""
        self.viewport().update()

    def show_message(self, text: str) -> None:
        """No image; ``text`` in the middle of the view instead (plain text, wrapped)."""
        self.clear()
        self.placeholder = text
        self.viewport().update()

    def _draw_placeholder(self, painter: QPainter) -> None:
        painter.save()
        painter.resetTransform()
        font = painter.font()
        font.setPointSize(13)
        painter.setFont(font)
        painter.setPen(Qt.GlobalColor.white)
        area = self.viewport().rect().adjusted(24, 24, -24, -24)
        flags = Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap
        painter.drawText(area, int(flags), self.placeholder)
        painter.restore()

    def drawForeground(self, painter: QPainter, rect) -> None:  # noqa: N802 (Qt override)
        """Orientation letters at the middle of each edge of the view, the readout in the
        top-left corner and the window and slice in the bottom-left one, in screen pixels
        (the image is not touched). A corner text that would run into the top or bottom
        letter moves below (above) it."""
        if self.placeholder:
            self._draw_placeholder(painter)
        if not self.edge_labels and not self.corner_text and not self._top_left_text():
            return
        painter.save()
        painter.resetTransform()
        area = self.viewport().rect().adjusted(6, 4, -6, -4)
        align = Qt.AlignmentFlag
        letters = {
            "top": align.AlignTop | align.AlignHCenter,
            "bottom": align.AlignBottom | align.AlignHCenter,
            "left": align.AlignLeft | align.AlignVCenter,
            "right": align.AlignRight | align.AlignVCenter,
        }
        placed = {}
        for edge, where in letters.items():
            text = (self.edge_labels or {}).get(edge, "")
            if text:
                placed[edge] = self._draw_overlay_text(painter, area, where, text, 14)
        corners = (
            ("top", align.AlignLeft | align.AlignTop, self._top_left_text()),
            ("bottom", align.AlignLeft | align.AlignBottom, self.corner_text),
        )
        for edge, where, text in corners:
            if not text:
                continue
            box = area
            letter = placed.get(edge)
            if letter is not None:
                _set_overlay_font(painter, 10)
                needed = painter.boundingRect(area, int(where), text)
                if needed.intersects(letter.adjusted(-4, 0, 4, 0)):  # run into the letter
                    box = (
                        area.adjusted(0, letter.height(), 0, 0)
                        if edge == "top"
                        else area.adjusted(0, 0, 0, -letter.height())
                    )
            self._draw_overlay_text(painter, box, where, text, 10)
        painter.restore()

    @staticmethod
    def _draw_overlay_text(painter: QPainter, area, where, text: str, size: int):
        """Yellow bold ``text`` with a black shadow (legible on white); its rectangle."""
        _set_overlay_font(painter, size)
        painter.setPen(Qt.GlobalColor.black)
        painter.drawText(area.translated(1, 1), int(where), text)
        painter.setPen(Qt.GlobalColor.yellow)
        return painter.drawText(area, int(where), text)

    def fit(self) -> None:
        """Fit the whole image in the view (key 0)."""
        self._fit = True
        self.fitInView(self._pixmap_item, Qt.AspectRatioMode.KeepAspectRatio)
        self._check_resolution()  # a larger view may show more than was decoded

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Keys that reach the view are not shortcuts: a printable one does nothing (it is
        told by ``typed``, and never written into the comment), the others scroll."""
        if _is_writing(event):
            event.accept()
            if event.text() != " ":
                self.typed.emit(event.text())
            return
        super().keyPressEvent(event)

    def zoom(self, factor: float) -> None:
        """Zoom by ``factor`` (> 1 enlarges)."""
        self._fit = False
        self.scale(factor, factor)
        self._check_resolution()

    def _top_left_text(self) -> str:
        lines = [self.readout_text]
        if self.measuring:
            lines.append("Caliper: drag to measure (Esc clears)")
        return "\n".join(line for line in lines if line)

    def image_point(self, viewport_point) -> QPointF:
        """Shown-image pixel coordinates (x column, y row, floats) of a viewport point,
        through zoom, pan and the pixel aspect."""
        return self._pixmap_item.mapFromScene(self.mapToScene(viewport_point))

    def set_measuring(self, on: bool) -> None:
        """Caliper mode: a left drag measures instead of panning."""
        self.measuring = on
        self._caliper_dragging = False
        self.setDragMode(
            QGraphicsView.DragMode.NoDrag if on else QGraphicsView.DragMode.ScrollHandDrag
        )
        self.viewport().setCursor(
            Qt.CursorShape.CrossCursor if on else Qt.CursorShape.OpenHandCursor
        )
        self.viewport().update()

    def clear_caliper(self) -> None:
        """Remove the measured line and leave caliper mode."""
        self.caliper = None
        self.caliper_text = ""
        self._hide_caliper()
        if self.measuring:
            self.set_measuring(False)

    def measure(self, start: QPointF, end: QPointF) -> str:
        """Show a caliper from ``start`` to ``end`` (shown-image pixels); returns its text."""
        self.caliper = (QPointF(start), QPointF(end))
        self._show_caliper()
        return self.caliper_text

    def _hide_caliper(self) -> None:
        self._caliper_line.setVisible(False)
        self._caliper_label.setVisible(False)

    def _show_caliper(self) -> None:
        start, end = self.caliper
        points = ((start.x(), start.y()), (end.x(), end.y()))
        if self.facts is not None:
            self.caliper_text = self.facts.describe_distance(*points)
        else:  # no facts: shown pixels only
            length = QLineF(start, end).length()
            self.caliper_text = f"{length:.1f} pixels (no pixel spacing)"
        self._caliper_line.setLine(QLineF(start, end))
        self._caliper_label.setText(self.caliper_text)
        self._caliper_label.setPos(end)
        self._caliper_line.setVisible(True)
        self._caliper_label.setVisible(True)

    def _update_readout(self, viewport_point) -> None:
        text = ""
        if self.facts is not None and not self._pixmap_item.pixmap().isNull():
            point = self.image_point(viewport_point)
            text = self.facts.describe(point.x(), point.y())
        if text != self.readout_text:
            self.readout_text = text
            self.viewport().update()

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.button() == Qt.MouseButton.RightButton:  # right-drag: window/level
            self._drag_from = event.position().toPoint()
            return
        if self.measuring and event.button() == Qt.MouseButton.LeftButton:
            start = self.image_point(event.position().toPoint())
            self._caliper_dragging = True
            self.measure(start, start)
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        point = event.position().toPoint()
        self._update_readout(point)
        start = getattr(self, "_drag_from", None)
        if start is not None and event.buttons() & Qt.MouseButton.RightButton:
            self.window_dragged.emit(point.x() - start.x(), point.y() - start.y())
            self._drag_from = point
            return
        if self._caliper_dragging and self.caliper is not None:
            self.measure(self.caliper[0], self.image_point(point))
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.button() == Qt.MouseButton.RightButton:
            self._drag_from = None
            return
        if self._caliper_dragging and event.button() == Qt.MouseButton.LeftButton:
            self._caliper_dragging = False
            return
        super().mouseReleaseEvent(event)

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.zoom(self.ZOOM_STEP if event.angleDelta().y() > 0 else 1 / self.ZOOM_STEP)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self._fit:
            self.fit()


def _set_overlay_font(painter: QPainter, size: int) -> None:
    font = painter.font()
    font.setPointSize(size)
    font.setBold(True)
    painter.setFont(font)


def _is_writing(event) -> bool:
    """A printable character typed without Ctrl/Alt/Meta (Shift is part of typing)."""
    mods = (
        event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier & ~Qt.KeyboardModifier.KeypadModifier
    )
    text = event.text()
    return mods == Qt.KeyboardModifier.NoModifier and len(text) == 1 and text.isprintable()
