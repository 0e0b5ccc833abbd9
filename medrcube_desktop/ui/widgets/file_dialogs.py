"""Every file dialog of the app: Qt's own dialog, told never to read the files it lists.

Qt's file dialog asks, for each file it lists, what type it is (the icon and the Type
column: ``QMimeDatabase``), and for a name without a telling extension it opens the
file and reads its first bytes. A study database (``study.db``, its ``-wal`` and
``-shm``) listed in the folder was opened and closed so, and closing any descriptor of
a file releases all of this process's POSIX locks on it (sqlite.org/howtocorrupt.html
§2.2): the next CLI command to close the database then found itself alone, deleted
the ``-wal`` and ``-shm`` under the open window, and the window's next review went to a
deleted ``-wal``, lost at a crash. :class:`NameOnlyIconProvider` gives icons and types
from the name and the kind of entry alone (``QFileInfo``: a ``stat``, never an open);
every dialog is a :class:`SafeFileDialog`, which installs it, and the module functions
replace ``QFileDialog``'s static ones (a test keeps the rest of ``ui/`` off those).
The platform's native dialogs are not used: some run in this process and sniff the
same way.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileInfo
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QWidget

__all__ = [
    "NameOnlyIconProvider", "SafeFileDialog", "get_existing_directory", "get_open_file_name",
    "get_save_file_name",
]  # fmt: skip


class NameOnlyIconProvider(QFileIconProvider):
    """Icons and type names for a file dialog that never open a file: a folder's icon
    or a file's, and ``"PNG File"`` from the extension (``"File"`` without one)."""

    def icon(self, what):  # noqa: D102 (Qt override: QFileInfo or IconType)
        if isinstance(what, QFileInfo):
            kind = (
                QFileIconProvider.IconType.Folder
                if what.isDir()
                else QFileIconProvider.IconType.File
            )
            return super().icon(kind)
        return super().icon(what)

    def type(self, info: QFileInfo) -> str:  # noqa: D102 (Qt override)
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} File" if suffix else "File"


class SafeFileDialog(QFileDialog):
    """``QFileDialog`` (Qt's own, not the platform's) with :class:`NameOnlyIconProvider`:
    listing a folder never opens a file in it."""

    def __init__(self, parent: QWidget | None = None, title: str = "", start: str = "") -> None:
        super().__init__(parent, title)
        self.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        self._provider = NameOnlyIconProvider()  # the dialog does not own it: kept here
        self.setIconProvider(self._provider)
        if start:
            if Path(start).is_dir():
                self.setDirectory(start)
            else:  # a file name, maybe in a folder: what the static functions do with it
                self.selectFile(start)


def _run(dialog: SafeFileDialog, filters: str) -> tuple[str, str]:
    if filters:
        dialog.setNameFilters(filters.split(";;"))
    if not dialog.exec():
        return "", ""
    files = dialog.selectedFiles()
    return (files[0] if files else ""), dialog.selectedNameFilter()


def get_existing_directory(parent: QWidget | None, title: str, start: str = "") -> str:
    """An existing folder chosen (``""`` when cancelled): ``QFileDialog.getExistingDirectory``
    without reading the files listed."""
    dialog = SafeFileDialog(parent, title, start)
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    return _run(dialog, "")[0]


def get_open_file_name(
    parent: QWidget | None, title: str, start: str = "", filters: str = ""
) -> tuple[str, str]:
    """``(file, filter)`` of an existing file chosen (``("", "")`` when cancelled):
    ``QFileDialog.getOpenFileName`` without reading the files listed. ``filters`` as
    Qt's: ``"CSV files (*.csv);;All files (*)"``."""
    dialog = SafeFileDialog(parent, title, start)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    return _run(dialog, filters)


def get_save_file_name(
    parent: QWidget | None, title: str, start: str = "", filters: str = ""
) -> tuple[str, str]:
    """``(file, filter)`` of a file to write (``("", "")`` when cancelled; replacing one
    is confirmed): ``QFileDialog.getSaveFileName`` without reading the files listed."""
    dialog = SafeFileDialog(parent, title, start)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile)
    return _run(dialog, filters)
