"""Screenshots of widgets, written through the app's one guarded writer."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtWidgets import QWidget

from medrcube_desktop.core.files import atomic_write


def save_grab(widget: QWidget, path: Path) -> Path:
    """Save a grab of ``widget`` to ``path`` as PNG, whatever the name says.

    The PNG is encoded in memory and written with
    :func:`~medrcube_desktop.core.files.atomic_write`, so a screenshot never replaces a
    study database, a benchmark's ``test.json`` or image, a device or a pipe, and a
    failed write leaves ``path`` as it was.

    Raises
    ------
    ProtectedFileError
        ``path`` must never be written (the message says what it is).
    OSError
        The PNG cannot be encoded or written; the message names ``path``.
    """
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not widget.grab().save(buffer, "PNG"):
        raise OSError(f"{path}: the window's picture could not be encoded as PNG")
    data = bytes(buffer.data())
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, data)
