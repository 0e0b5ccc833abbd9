"""The image view (zoom with the wheel or +/-, pan by dragging) and its render worker."""

from __future__ import annotations

import logging

import numpy as np
from PySide6.QtCore import QObject, QRunnable, Qt, QThreadPool, Signal
from PySide6.QtGui import QImage, QPainter, QPixmap, QTransform
from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsScene, QGraphicsView

from medrcube_desktop.core.items import Item
from medrcube_desktop.imaging.render import RenderedImage, render_item

log = logging.getLogger(__name__)


def rgba_to_qimage(rgba: np.ndarray) -> QImage:
    """Wrap an ``(H, W, 4) uint8`` RGBA array in a QImage (deep copy, so it owns its pixels)."""
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise ValueError(f"expected (H, W, 4) uint8 RGBA, got {rgba.shape} {rgba.dtype}")
    data = np.ascontiguousarray(rgba)
    h, w = data.shape[:2]
    return QImage(data.data, w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()


class ImageView(QGraphicsView):
    """Shows one rendered slice; the wheel zooms about the cursor, dragging pans."""

    ZOOM_STEP = 1.25
    image_shown = Signal()  # after set_image placed new pixels
    window_dragged = Signal(int, int)  # right-drag: (dx, dy) in screen pixels since last move
    typed = Signal(str)  # a printable key that no shortcut uses: the reviewer is writing

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
        self.edge_labels: dict[str, str] | None = None
        self.corner_text = ""  # lines, e.g. "W 400  C 40 (set by you)\n12 / 40"
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.FullViewportUpdate)

    def set_image(
        self,
        rgba: np.ndarray,
        pixel_aspect: float = 1.0,
        refit: bool = False,
        edge_labels: dict[str, str] | None = None,
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
        """
        self.edge_labels = edge_labels
        self._pixmap_item.setPixmap(QPixmap.fromImage(rgba_to_qimage(rgba)))
        self._pixmap_item.setTransform(QTransform.fromScale(1.0, pixel_aspect))
        self.scene().setSceneRect(self._pixmap_item.sceneBoundingRect())
        if refit or self._fit:
            self.fit()
        self.image_shown.emit()

    def clear(self) -> None:
        """Show nothing (while the next item renders)."""
        self._pixmap_item.setPixmap(QPixmap())
        self.edge_labels = None
        self.corner_text = ""
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect) -> None:  # noqa: N802 (Qt override)
        """Orientation letters at the middle of each edge of the view, and the window and
        slice in the bottom-left corner, in screen pixels (the image is not touched)."""
        if not self.edge_labels and not self.corner_text:
            return
        painter.save()
        painter.resetTransform()
        area = self.viewport().rect().adjusted(6, 4, -6, -4)
        center = Qt.AlignmentFlag
        places = [
            (edge, align, 14)
            for edge, align in (
                ("top", center.AlignTop | center.AlignHCenter),
                ("bottom", center.AlignBottom | center.AlignHCenter),
                ("left", center.AlignLeft | center.AlignVCenter),
                ("right", center.AlignRight | center.AlignVCenter),
            )
        ]
        places.append(("corner", center.AlignLeft | center.AlignBottom, 10))
        labels = {**(self.edge_labels or {}), "corner": self.corner_text}
        for edge, align, size in places:
            font = painter.font()
            font.setPointSize(size)
            font.setBold(True)
            painter.setFont(font)
            text = labels.get(edge, "")
            painter.setPen(Qt.GlobalColor.black)  # a shadow keeps the text legible on white
            painter.drawText(area.translated(1, 1), align, text)
            painter.setPen(Qt.GlobalColor.yellow)
            painter.drawText(area, align, text)
        painter.restore()

    def fit(self) -> None:
        """Fit the whole image in the view (key 0)."""
        self._fit = True
        self.fitInView(self._pixmap_item, Qt.AspectRatioMode.KeepAspectRatio)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """Keys that reach the view are not shortcuts; a printable one starts the comment
        (so a sentence typed here is written, not taken as scoring keys from then on)."""
        if _is_writing(event) and event.text() != " ":
            self.typed.emit(event.text())
            return
        super().keyPressEvent(event)

    def zoom(self, factor: float) -> None:
        """Zoom by ``factor`` (> 1 enlarges)."""
        self._fit = False
        self.scale(factor, factor)

    def mousePressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.button() == Qt.MouseButton.RightButton:  # right-drag: window/level
            self._drag_from = event.position().toPoint()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 (Qt override)
        start = getattr(self, "_drag_from", None)
        if start is not None and event.buttons() & Qt.MouseButton.RightButton:
            point = event.position().toPoint()
            self.window_dragged.emit(point.x() - start.x(), point.y() - start.y())
            self._drag_from = point
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802 (Qt override)
        if event.button() == Qt.MouseButton.RightButton:
            self._drag_from = None
            return
        super().mouseReleaseEvent(event)

    def wheelEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.zoom(self.ZOOM_STEP if event.angleDelta().y() > 0 else 1 / self.ZOOM_STEP)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self._fit:
            self.fit()


DISPLAY_MAX_SIDE = 4096
"""Images larger than this (pixels per side) are shown reduced; the file is untouched."""

_RENDER_POOL: QThreadPool | None = None


def render_pool() -> QThreadPool:
    """The one worker thread that renders images, in request order.

    One thread keeps decoding off the GUI thread without renders racing each other for
    memory or for process-wide state (warning filters, pydicom's logger); stale results
    are dropped by the window.
    """
    global _RENDER_POOL
    if _RENDER_POOL is None:
        _RENDER_POOL = QThreadPool()
        _RENDER_POOL.setMaxThreadCount(1)
    return _RENDER_POOL


def _is_writing(event) -> bool:
    """A printable character typed without Ctrl/Alt/Meta (Shift is part of typing)."""
    mods = (
        event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier & ~Qt.KeyboardModifier.KeypadModifier
    )
    text = event.text()
    return mods == Qt.KeyboardModifier.NoModifier and len(text) == 1 and text.isprintable()


class RenderSignals(QObject):
    """Signals of :class:`RenderTask`: (generation, result) or (generation, error text)."""

    done = Signal(int, object)
    failed = Signal(int, str)


class RenderTask(QRunnable):
    """Renders an item off the GUI thread; touches no widget, only emits signals.

    Run it on :func:`render_pool`; ``generation`` lets the receiver drop a result that a
    newer request superseded. ``max_side`` (pixels) reduces the picture for display.
    """

    def __init__(
        self,
        generation: int,
        item: Item,
        slice_index: int | None,
        overlay: bool = True,
        window: tuple[float, float] | None = None,
        invert: bool = False,
        mask_alpha: float = 0.4,
        mask_outline: bool = False,
        neurological: bool = False,
        max_side: int = DISPLAY_MAX_SIDE,
    ) -> None:
        super().__init__()
        self.generation, self.item, self.slice_index = generation, item, slice_index
        self.overlay, self.window, self.invert = overlay, window, invert
        self.mask_alpha, self.mask_outline = mask_alpha, mask_outline
        self.neurological = neurological
        self.max_side = max_side
        self.signals = RenderSignals()

    def run(self) -> None:
        try:
            result: RenderedImage = render_item(
                self.item,
                self.slice_index,
                self.overlay,
                self.window,
                self.invert,
                self.mask_alpha,
                self.mask_outline,
                self.neurological,
                self.max_side,
            )
        except Exception as exc:  # shown to the user in the view; logged with traceback
            log.exception("rendering item %s failed", self.item.id)
            try:
                self.signals.failed.emit(self.generation, f"item {self.item.id}: {exc}")
            except RuntimeError:
                log.debug("render of item %s failed after the window closed", self.item.id)
            return
        try:
            self.signals.done.emit(self.generation, result)
        except RuntimeError:  # the window (and its receiver) closed while rendering
            log.debug("render of item %s finished after the window closed", self.item.id)
