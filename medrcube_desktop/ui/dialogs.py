"""Small dialogs of the review window, built but not run (the caller decides how)."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from medrcube_desktop.ui.actions import ActionSpec, cheat_sheet_html


def unsaved_changes_box(parent: QWidget, unsaved: list[str]) -> QMessageBox:
    """Discard / Cancel question about uncommitted edits; Cancel is the default, so a
    reviewer used to Enter-to-commit cannot throw work away by reflex."""
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        "Unsaved changes",
        f"{len(unsaved)} item(s) have scores or comments that are not committed "
        f"({', '.join(unsaved[:5])}).",
        QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setInformativeText("Cancel goes back so you can commit them (Enter on each item).")
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    return box


def problems_box(parent: QWidget, problems: list[str]) -> QMessageBox:
    """The benchmark's problems, one per line in the details."""
    box = QMessageBox(
        QMessageBox.Icon.Information,
        "Benchmark problems",
        f"{len(problems)} problems",
        parent=parent,
    )
    box.setDetailedText("\n".join(problems) or "No problems found.")
    return box


def shortcuts_box(parent: QWidget, specs: list[ActionSpec]) -> QMessageBox:
    """Every action and its keys, from the action table."""
    box = QMessageBox(parent)
    box.setWindowTitle("Keyboard shortcuts")
    box.setText(cheat_sheet_html(specs))
    return box
