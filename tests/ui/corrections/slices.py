"""Small slices for the editors' tests, built by hand (known spacing and transform)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from medrcube_desktop.imaging.edit_slice import EditSlice
from medrcube_desktop.imaging.geometry import DisplayTransform
from medrcube_desktop.imaging.pixel_facts import PixelFacts


def edit_slice(
    rows: int = 100,
    cols: int = 160,
    spacing: tuple[float, float] | None = (0.5, 1.0),
    transform: DisplayTransform | None = None,
    box: tuple[int, int, int, int] | None = (20, 10, 59, 49),
    labels: np.ndarray | None = None,
    volume_axis: int | None = None,
) -> EditSlice:
    """A grey gradient slice of ``rows`` x ``cols`` shown pixels."""
    transform = transform or DisplayTransform()
    gray = (np.add.outer(np.arange(rows), np.arange(cols)) % 256).astype(np.uint8)
    rgba = np.dstack([gray, gray, gray, np.full_like(gray, 255)])
    stored = (cols, rows) if transform.transpose else (rows, cols)
    aspect = spacing[0] / spacing[1] if spacing else 1.0
    return EditSlice(
        item_id="it-1",
        rgba=rgba,
        pixel_aspect=aspect,
        transform=transform,
        stored_shape=stored,
        spacing=spacing,
        spacing_source="Pixel Spacing (0028,0030)" if spacing else None,
        labels=labels,
        slice_index=3 if volume_axis is not None else 0,
        slice_count=8 if volume_axis is not None else 1,
        volume_axis=volume_axis,
        box=box,
        facts=PixelFacts(gray, "grey level", spacing, transform=transform),
    )


def viewport_point(view, x: float, y: float):
    """The viewport point over the image coordinate (x, y) of ``view``'s picture."""
    return view.mapFromScene(view._pixmap_item.mapToScene(QPointF(x, y)))


def mouse(view, kind, point, button=Qt.MouseButton.LeftButton, buttons=None) -> None:
    """Send one mouse event to ``view``'s viewport at ``point``."""
    if buttons is None:
        buttons = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseButtonRelease else button
    event = QMouseEvent(kind, QPointF(point), QPointF(view.viewport().mapToGlobal(point)),
                        button, buttons, Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(view.viewport(), event)


def drag(view, start, end, steps: int = 5, button=Qt.MouseButton.LeftButton) -> None:
    """Press at ``start``, move in ``steps`` to ``end``, release there (viewport points)."""
    mouse(view, QEvent.Type.MouseButtonPress, start, button)
    for i in range(1, steps + 1):
        x = start.x() + (end.x() - start.x()) * i / steps
        y = start.y() + (end.y() - start.y()) * i / steps
        mouse(view, QEvent.Type.MouseMove, QPointF(x, y).toPoint(), Qt.MouseButton.NoButton, button)
    mouse(view, QEvent.Type.MouseButtonRelease, end, button)
