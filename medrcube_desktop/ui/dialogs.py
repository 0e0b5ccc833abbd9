"""Small dialogs of the review window, built but not run (the caller decides how)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHeaderView,
    QKeySequenceEdit,
    QLabel,
    QMessageBox,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.dataset import RESTRICTED_NOTE
from medrcube_desktop.core.words import plural
from medrcube_desktop.core.words import verb as agree
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.ui.actions import (
    ActionSpec,
    cheat_sheet_html,
    effective_keys,
    keymap_conflicts,
)
from medrcube_desktop.ui.widgets.screen import fit_to_screen


def problems_box(
    parent: QWidget,
    problems: list[str],
    restricted: list[str] | None = None,
    checking: bool = False,
) -> QMessageBox:
    """The benchmark's problems, one per line in the details; the restricted items
    (image not redistributed: not faults) in a list of their own below them.
    ``checking``: the files are still being checked, more problems may come."""
    restricted = restricted or []
    text = plural(len(problems), "problem")
    if checking:
        text += " so far (the image files are still being checked)"
    if restricted:
        text += (
            f"\n{plural(len(restricted), 'item')} without "
            f"{agree(len(restricted), 'its', 'their')} image, which the release does not "
            f"redistribute ({RESTRICTED_NOTE}); {agree(len(restricted), 'not a problem', 'not problems')}"
        )
    box = QMessageBox(QMessageBox.Icon.Information, "Benchmark problems", text, parent=parent)
    details = "\n".join(problems) or "No problems found."
    if restricted:
        details += f"\n\nWithout their image ({RESTRICTED_NOTE}):\n" + "\n".join(restricted)
    box.setDetailedText(details)
    return box


def shortcuts_box(
    parent: QWidget, specs: list[ActionSpec], actions: dict[str, QAction] | None = None
) -> QDialog:
    """Every action and its keys (as remapped), from the action table, in a scroll area
    no taller than the screen (at large text sizes the sheet is taller than most)."""
    box = QDialog(parent)
    box.setWindowTitle("Keyboard shortcuts")
    sheet = QLabel(cheat_sheet_html(specs, actions))
    sheet.setObjectName("shortcutSheet")
    sheet.setTextFormat(Qt.TextFormat.RichText)  # built from the table: every title escaped
    scroll = QScrollArea()
    scroll.setObjectName("shortcutScroll")
    scroll.setWidget(sheet)
    scroll.setWidgetResizable(True)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    buttons.rejected.connect(box.reject)
    layout = QVBoxLayout(box)
    layout.addWidget(scroll, 1)
    layout.addWidget(buttons)
    wanted = sheet.sizeHint()
    fit_to_screen(box, wanted.width() + 60, wanted.height() + 90)
    return box


class ShortcutsDialog(QDialog):
    """Remap the keys of every action (Help › Customise shortcuts…).

    Each row holds a key editor with the action's current first key; a second default
    key (e.g. Enter beside Return) is kept while the first is unchanged. ``overrides()``
    gives the mapping to store: only actions whose keys differ from the defaults.
    """

    def __init__(self, parent: QWidget, specs: list[ActionSpec], current: dict[str, list[str]]):
        super().__init__(parent)
        self.setWindowTitle("Customise shortcuts")
        self.specs = specs
        self.current = current
        self.table = QTableWidget(len(specs), 2)
        self.table.setObjectName("shortcutTable")
        self.table.setHorizontalHeaderLabels(["Action", "Key"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.editors: dict[str, QKeySequenceEdit] = {}
        for row, spec in enumerate(specs):
            title = QTableWidgetItem(f"{spec.title}  ({spec.menu})")
            title.setFlags(Qt.ItemFlag.ItemIsEnabled)
            self.table.setItem(row, 0, title)
            keys = effective_keys(spec, current)
            editor = QKeySequenceEdit(QKeySequence(keys[0]) if keys else QKeySequence())
            if hasattr(editor, "setMaximumSequenceLength"):  # Qt 6.5+: one key, not a chord
                editor.setMaximumSequenceLength(1)
            if hasattr(editor, "setClearButtonEnabled"):  # Qt 6.4+: a way to unbind
                editor.setClearButtonEnabled(True)
            editor.setObjectName(f"key_{spec.id}")
            self.table.setCellWidget(row, 1, editor)
            self.editors[spec.id] = editor
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b42318")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        buttons.accepted.connect(self._accept_if_no_conflict)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            self._restore_defaults
        )
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel(
                "Click a key cell and press the new key. The ✕ in the cell removes the key. "
                "A second default key (Enter beside Return) stays while the first is unchanged."
            )
        )
        layout.addWidget(self.table)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        fit_to_screen(self, 620, 640)

    def _restore_defaults(self) -> None:
        for spec in self.specs:
            first = spec.shortcuts[0] if spec.shortcuts else ""
            self.editors[spec.id].setKeySequence(QKeySequence(first))

    def overrides(self) -> dict[str, list[str]]:
        """Action id → keys, for the actions whose keys are not the defaults."""
        result: dict[str, list[str]] = {}
        for spec in self.specs:
            text = (
                self.editors[spec.id]
                .keySequence()
                .toString(QKeySequence.SequenceFormat.PortableText)
            )
            default_first = (
                QKeySequence(spec.shortcuts[0]).toString(QKeySequence.SequenceFormat.PortableText)
                if spec.shortcuts
                else ""
            )
            if text == default_first:
                continue
            result[spec.id] = [text] if text else []
        return result

    def _accept_if_no_conflict(self) -> None:
        conflicts = keymap_conflicts(self.specs, self.overrides())
        if conflicts:
            self.message.setText("The same key is used twice: " + "; ".join(conflicts[:4]))
            return
        self.accept()


class StudySettingsDialog(QDialog):
    """The study's protocol (blinding, comment rules, repeats), stored in the database."""

    def __init__(self, parent: QWidget, study: StudySettings, models: list[str]):
        super().__init__(parent)
        self.setWindowTitle("Study settings")
        self.blind = QCheckBox(
            "Blind review: hide the LLM judgment and other reviewers until I commit"
        )
        self.blind.setChecked(study.blind)
        from medrcube_desktop.review.reviewer_files import BLINDING_NOTE

        self.blind_note = QLabel(BLINDING_NOTE)
        self.blind_note.setWordWrap(True)
        self.on_fail = QCheckBox("A failed rule needs a comment")
        self.on_fail.setChecked(study.require_comment_on_fail)
        self.on_disagree = QCheckBox("Disagreeing with the LLM judgment needs a comment")
        self.on_disagree.setChecked(study.require_comment_on_disagreement)
        self.share = QDoubleSpinBox()
        self.share.setRange(0, 100)
        self.share.setSuffix(" %")
        self.share.setValue(study.repeat_share * 100)
        self.gap = QSpinBox()
        self.gap.setRange(1, 10_000)
        self.gap.setValue(max(1, study.repeat_gap))
        self.idle = QSpinBox()
        self.idle.setRange(5, 3600)
        self.idle.setSuffix(" s")
        self.idle.setValue(int(study.idle_after_s))
        self.model = QComboBox()
        self.model.addItem("Most judged model", "")
        for name in models:
            self.model.addItem(name, name)
        self.model.setCurrentIndex(max(0, self.model.findData(study.llm_model)))
        form = QFormLayout(self)
        form.addRow(self.blind)
        form.addRow(self.blind_note)
        form.addRow(self.on_fail)
        form.addRow(self.on_disagree)
        form.addRow("Items shown twice (intra-rater)", self.share)
        form.addRow("…after at least this many other items", self.gap)
        form.addRow("Idle after (not counted in active time)", self.idle)
        form.addRow("LLM judgments of", self.model)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def settings(self) -> StudySettings:
        """The settings as edited."""
        return StudySettings(
            blind=self.blind.isChecked(),
            require_comment_on_fail=self.on_fail.isChecked(),
            require_comment_on_disagreement=self.on_disagree.isChecked(),
            repeat_share=self.share.value() / 100,
            repeat_gap=self.gap.value(),
            llm_model=self.model.currentData(),
            idle_after_s=float(self.idle.value()),
        )
