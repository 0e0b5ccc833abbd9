"""Sizing windows to the screen they open on, so no window or dialog is larger than the
screen's free area (taskbars and docks excluded: ``QScreen.availableGeometry``)."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QRect, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

SCREEN_SHARE = 0.92
"""A dialog takes at most this share of the screen's free area (taskbars excluded)."""

FRAME_ALLOWANCE = QMargins(8, 40, 8, 8)
"""Room left around a window's client area for the window manager's frame (title bar
above, borders), in logical pixels: the frame is not known before the window is shown,
and ``QWidget.setGeometry`` places the client area, not the frame."""


def available_geometry(widget: QWidget) -> QRect:
    """Free area of the screen ``widget`` is on (the primary screen before it is shown),
    in logical pixels of the virtual desktop."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def available_size(widget: QWidget) -> QSize:
    """Free area of the screen ``widget`` is on (the primary screen before it is shown)."""
    return available_geometry(widget).size()


def client_room(available: QRect, frame: QMargins = FRAME_ALLOWANCE) -> QRect:
    """The part of ``available`` a window's client area may take once ``frame`` (its
    title bar and borders) is drawn around it."""
    return available.marginsRemoved(frame)


def fitted_minimum(minimum: QSize, available: QRect, frame: QMargins = FRAME_ALLOWANCE) -> QSize:
    """``minimum`` (width, height in logical pixels), shrunk where the screen's free area
    ``available`` less the window ``frame`` is smaller, so a window at its minimum size
    still fits on the screen (1280 × 720 with a taskbar leaves about 1264 × 632)."""
    room = client_room(available, frame)
    return QSize(min(minimum.width(), room.width()), min(minimum.height(), room.height()))


def fitted_geometry(
    wanted: QRect | QSize, available: QRect, frame: QMargins = FRAME_ALLOWANCE
) -> QRect:
    """Where a window's client area goes on a screen whose free area is ``available``.

    Parameters
    ----------
    wanted : QRect or QSize
        A saved geometry (its position is kept where the window stays on the screen), or
        only a size (the window is centred in ``available``). Logical pixels.
    available : QRect
        ``QScreen.availableGeometry()`` of the screen the window opens on.
    frame : QMargins
        Room for the window manager's frame around the client area.

    Returns
    -------
    QRect
        The wanted size, shrunk to what fits, moved so that the client area and its frame
        lie inside ``available``.
    """
    room = client_room(available, frame)
    size = wanted.size() if isinstance(wanted, QRect) else QSize(wanted)
    size = QSize(min(size.width(), room.width()), min(size.height(), room.height()))
    if isinstance(wanted, QRect):
        left = min(max(wanted.left(), room.left()), room.right() + 1 - size.width())
        top = min(max(wanted.top(), room.top()), room.bottom() + 1 - size.height())
    else:
        left = room.left() + (room.width() - size.width()) // 2
        top = room.top() + (room.height() - size.height()) // 2
    return QRect(left, top, size.width(), size.height())


def fit_window(window: QWidget, wanted: QSize | None = None) -> QRect:
    """Place ``window`` within the free area of its screen (the primary screen before it
    is shown).

    Parameters
    ----------
    window : QWidget
        A top-level window. Its minimum size is shrunk to the screen first (see
        :func:`fitted_minimum`); a maximised or full-screen window is left to the window
        manager.
    wanted : QSize, optional
        The size to open at (logical pixels), shrunk where the screen is smaller and
        centred; None: the window's geometry now (a restored layout), shrunk and moved
        back onto the screen.

    Returns
    -------
    QRect
        The client-area geometry set (see :func:`fitted_geometry`).
    """
    available = available_geometry(window)
    window.setMinimumSize(fitted_minimum(window.minimumSize(), available))
    if window.isMaximized() or window.isFullScreen():  # the window manager sizes it
        return window.geometry()
    geometry = fitted_geometry(window.geometry() if wanted is None else wanted, available)
    window.setGeometry(geometry)
    return geometry


def fit_to_screen(widget: QWidget, width: int, height: int) -> QSize:
    """Resize ``widget`` to ``width`` × ``height`` pixels, or less where the screen is
    smaller (:data:`SCREEN_SHARE` of it); returns the size given."""
    free = available_size(widget)
    size = QSize(
        min(width, int(free.width() * SCREEN_SHARE)), min(height, int(free.height() * SCREEN_SHARE))
    )
    widget.resize(size)
    return size
