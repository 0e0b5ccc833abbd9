"""A folder dialog that takes a new folder's name and creates it (export destinations).

``QFileDialog.getExistingDirectory`` refuses a folder that does not exist yet ("Directory
not found"): a reviewer who types ``agreement-2024`` to export into had to create it
elsewhere first. :class:`FolderDialog` creates the typed folder (parents included) when
it is accepted, and says why when it cannot, leaving the dialog open.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from medrcube_desktop.ui.widgets.file_dialogs import SafeFileDialog

__all__ = ["FolderDialog", "choose_folder"]


class FolderDialog(SafeFileDialog):
    """Choose a folder, existing or new (created on accept).

    Qt's own dialog (not the platform's), so that :meth:`accept` sees the typed name on
    every desktop; it never opens the files it lists (:class:`SafeFileDialog`: the
    study database beside the report is not). ``created`` is the folder made on
    accept, or None.
    """

    def __init__(self, parent: QWidget | None = None, title: str = "", start: str = "") -> None:
        super().__init__(parent, title, start)
        self.setFileMode(QFileDialog.FileMode.Directory)
        self.setOption(QFileDialog.Option.ShowDirsOnly, False)
        self.setLabelText(QFileDialog.DialogLabel.Accept, "Choose")
        self.setLabelText(QFileDialog.DialogLabel.FileName, "Folder (new or existing):")
        self.created: Path | None = None
        self.error = ""  # the last reason a folder could not be created (tests)

    def chosen(self) -> Path | None:
        """The folder selected or typed (absolute), or None."""
        files = self.selectedFiles()
        return Path(files[0]) if files and files[0] else None

    def accept(self) -> None:
        """Create the chosen folder when it does not exist, then accept; when it cannot
        be created (no permission, a file in the way), say why and stay open."""
        target = self.chosen()
        if target is not None and not target.exists():
            try:
                target.mkdir(parents=True)
            except OSError as exc:
                self.error = f"Could not create the folder {target}: {exc.strerror or exc}."
                QMessageBox.critical(self, self.windowTitle() or "Folder", self.error)
                return
            self.created = target
        super().accept()


def choose_folder(parent: QWidget | None, title: str, start: str = "") -> Path | None:
    """Ask for a folder to write into, existing or new (created); None when cancelled."""
    dialog = FolderDialog(parent, title, start)
    if not dialog.exec():
        return None
    return dialog.chosen()
