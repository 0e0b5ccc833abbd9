"""Sizing windows to the screen they open on, so no dialog is taller than the screen."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

SCREEN_SHARE = 0.92
"""A dialog takes at most this share of the screen's free area (taskbars excluded)."""


def available_size(widget: QWidget) -> QSize:
    """Free area of the screen ``widget`` is on (the primary screen before it is shown)."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry().size()


def fit_to_screen(widget: QWidget, width: int, height: int) -> QSize:
    """Resize ``widget`` to ``width`` × ``height`` pixels, or less where the screen is
    smaller (:data:`SCREEN_SHARE` of it); returns the size given."""
    free = available_size(widget)
    size = QSize(
        min(width, int(free.width() * SCREEN_SHARE)), min(height, int(free.height() * SCREEN_SHARE))
    )
    widget.resize(size)
    return size
