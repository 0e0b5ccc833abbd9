"""The side panes: item list with filters, the question with its options, the rubric."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import Rubric
from medrcube_desktop.core.taxonomy import task_by_abbreviation
from medrcube_desktop.review.session import ALL, STATUS_REVIEWED, STATUS_UNREVIEWED, ItemFilter

ITEM_ID_ROLE = Qt.ItemDataRole.UserRole


class ItemListPane(QWidget):
    """Filters (task, modality, region, dataset, reviewed) above the list of items."""

    filter_changed = Signal(object)  # ItemFilter
    item_chosen = Signal(str)  # item id

    def __init__(self, choices: dict[str, list[str]], parent=None) -> None:
        super().__init__(parent)
        form = QFormLayout()
        self.combos: dict[str, QComboBox] = {}
        for key, title in (
            ("task", "&Task"),
            ("modality", "&Modality"),
            ("region", "&Region"),
            ("dataset", "&Dataset"),
        ):
            combo = QComboBox()
            combo.addItem("All", ALL)
            for value in choices.get(key, []):
                label = f"{value} — {task_by_abbreviation(value).name}" if key == "task" else value
                combo.addItem(label, value)
            combo.currentIndexChanged.connect(self._emit_filter)
            self.combos[key] = combo
            form.addRow(title, combo)
        status = QComboBox()
        status.addItem("All", ALL)
        status.addItem("Unreviewed", STATUS_UNREVIEWED)
        status.addItem("Reviewed", STATUS_REVIEWED)
        status.currentIndexChanged.connect(self._emit_filter)
        self.combos["status"] = status
        form.addRow("&Status", status)
        self.list = QListWidget()
        self.list.setObjectName("itemList")
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.currentItemChanged.connect(self._on_current)
        self.count_label = QLabel()
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.count_label)
        layout.addWidget(self.list, 1)

    def current_filter(self) -> ItemFilter:
        """The filter the combo boxes describe now."""
        return ItemFilter(**{key: combo.currentData() for key, combo in self.combos.items()})

    def _emit_filter(self) -> None:
        self.filter_changed.emit(self.current_filter())

    def set_items(self, items: list[Item], states: dict[str, str], current_id: str | None) -> None:
        """Fill the list without emitting ``item_chosen``; keep ``current_id`` selected.

        ``states`` maps item ids to a mark: ``"✓"`` committed, ``"✎"`` unsaved edits.
        """
        self.list.blockSignals(True)
        self.list.clear()
        for item in items:
            entry = QListWidgetItem(self._label(item, states.get(item.id, "")))
            entry.setData(ITEM_ID_ROLE, item.id)
            entry.setToolTip(item.question)
            self.list.addItem(entry)
            if item.id == current_id:
                self.list.setCurrentItem(entry)
        self.list.blockSignals(False)
        self.count_label.setText(f"{len(items)} items shown")

    def set_mark(self, item: Item, mark: str) -> None:
        """Show ``mark`` ("✓", "✎" or "") in front of one item."""
        for row in range(self.list.count()):
            entry = self.list.item(row)
            if entry.data(ITEM_ID_ROLE) == item.id:
                entry.setText(self._label(item, mark))

    def select(self, item_id: str) -> None:
        """Highlight one item without emitting ``item_chosen``."""
        for row in range(self.list.count()):
            if self.list.item(row).data(ITEM_ID_ROLE) == item_id:
                self.list.blockSignals(True)
                self.list.setCurrentRow(row)
                self.list.blockSignals(False)
                self.list.scrollToItem(self.list.item(row))
                return

    @staticmethod
    def _label(item: Item, mark: str) -> str:
        return f"{mark or '·'}  {item.id}  {item.task.name} · {item.modality}"

    def _on_current(self, entry: QListWidgetItem | None, _previous) -> None:
        if entry is not None:
            self.item_chosen.emit(entry.data(ITEM_ID_ROLE))


class ItemPane(QWidget):
    """The question, options A–D with the ground truth marked, and the item's facts."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.meta = QLabel()
        self.meta.setObjectName("itemMeta")
        self.meta.setWordWrap(True)
        self.source = QLabel()
        self.source.setObjectName("sourceFact")
        self.source.setWordWrap(True)
        self.source.setStyleSheet("color: #57606a")
        self.question = QLabel()
        self.question.setObjectName("question")
        self.question.setWordWrap(True)
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.options = QLabel()
        self.options.setObjectName("options")
        self.options.setWordWrap(True)
        self.options.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.meta, self.question, self.options, self.source):
            layout.addWidget(widget)

    def show_item(self, item: Item) -> None:
        """Show an item's facts, question, options (ground truth marked) and source."""
        self.meta.setText(
            f"<b>{escape(item.id)}</b> · {escape(item.task.name)} ({item.task.abbreviation}, "
            f"{item.task.level.value} level) · {escape(item.modality)} · {escape(item.region)} · {escape(item.dataset)}"
        )
        self.question.setText(item.question)
        rows = []
        for letter, text in item.options.items():
            if letter == item.answer:
                rows.append(
                    f"<p><b style='color:#1a7f37'>{letter}. {escape(text)}  ✔ ground truth</b></p>"
                )
            else:
                rows.append(f"<p>{letter}. {escape(text)}</p>")
        self.options.setText("".join(rows))
        fact = item.extra.get("source_fact")
        self.source.setText(f"Ground truth source: {fact}" if isinstance(fact, str) else "")
        self.source.setVisible(isinstance(fact, str))

    def show_nothing(self, message: str) -> None:
        """No current item: show why instead."""
        self.meta.setText(message)
        for label in (self.question, self.options, self.source):
            label.setText("")


class CommentEdit(QPlainTextEdit):
    """Comment box where Enter commits the review and Shift+Enter starts a new line."""

    submitted = Signal()

    _ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)

    def event(self, event) -> bool:  # noqa: D401 (Qt override)
        # Claim Enter before the window's "commit" shortcut sees it, so it fires once.
        if event.type() == QEvent.Type.ShortcutOverride and event.key() in self._ENTER_KEYS:
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802 (Qt override)
        shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        if event.key() in self._ENTER_KEYS and not shift:
            self.submitted.emit()
            return
        super().keyPressEvent(event)


SCORE_LOOK = {
    1: ("PASS", "#1a7f37"),
    0: ("FAIL", "#b42318"),
    None: ("not scored", "#6e7781"),
}
"""Text and colour of each score state (colours readable with white text)."""


class RubricPane(QWidget):
    """The seven sub-principles (keys 1–7 score them), a comment box and the commit button."""

    toggled = Signal(str)  # rule id
    comment_edited = Signal(str)
    commit_requested = Signal()

    def __init__(self, rubric: Rubric, parent=None) -> None:
        super().__init__(parent)
        self.rubric = rubric
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(
            QLabel("Keys 1–7: fail a rule (again: pass) · P: pass every unscored rule")
        )
        self.buttons: dict[str, QPushButton] = {}
        principle = None
        for rule in rubric.rules:
            if rule.principle != principle:
                principle = rule.principle
                layout.addWidget(
                    QLabel(f"<b>Principle {principle}: {escape(rubric.principles[principle])}</b>")
                )
            button = QPushButton()
            button.setObjectName(f"rule_{rule.id}")
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            button.setToolTip(f"{rule.id} {rule.name}\n\n{rule.description}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the review
            button.clicked.connect(self._toggler(rule.id))
            self.buttons[rule.id] = button
            layout.addWidget(button)
            description = QLabel(rule.description)
            description.setWordWrap(True)
            description.setStyleSheet("color: #57606a; font-size: 11px; margin: 0 0 4px 22px")
            layout.addWidget(description)
        # The comment, commit button and status live in ``footer``, which the window keeps
        # in view below the scrolling rules.
        self.footer = QWidget()
        footer = QVBoxLayout(self.footer)
        footer.setContentsMargins(0, 0, 0, 0)
        comment_label = QLabel("&Comment (Enter commits, Shift+Enter new line, Esc leaves):")
        footer.addWidget(comment_label)
        self.comment = CommentEdit()
        self.comment.submitted.connect(self.commit_requested.emit)
        comment_label.setBuddy(self.comment)
        self.comment.setObjectName("comment")
        self.comment.setPlaceholderText("Required when a rule fails: why, and what to fix")
        self.comment.setMaximumHeight(70)
        self.comment.textChanged.connect(
            lambda: self.comment_edited.emit(self.comment.toPlainText())
        )
        footer.addWidget(self.comment)
        self.commit_button = QPushButton("Commit and next  (Enter)")
        self.commit_button.setObjectName("commit")
        self.commit_button.clicked.connect(self._request_commit)
        footer.addWidget(self.commit_button)
        self.saved_label = QLabel()
        self.saved_label.setObjectName("savedLabel")
        self.saved_label.setWordWrap(True)
        footer.addWidget(self.saved_label)

    def _toggler(self, rule_id: str):
        """A no-argument slot for one rule's button (clicked(bool) is not passed on)."""

        def slot() -> None:
            self.toggled.emit(rule_id)

        return slot

    def _request_commit(self) -> None:
        self.commit_requested.emit()

    def show_scores(self, scores: dict[str, int | None]) -> None:
        """Reflect draft scores: green PASS, red FAIL, grey "not scored"."""
        for key, rule in enumerate(self.rubric.rules, start=1):
            text, colour = SCORE_LOOK[scores[rule.id]]
            name = rule.name.replace("&", "&&")  # a single & would become a mnemonic
            button = self.buttons[rule.id]
            button.setText(f"{key}   {rule.id} {name}   —   {text}")
            button.setStyleSheet(
                "QPushButton { text-align: left; padding: 4px; border-radius: 3px; color: white; "
                f"background: {colour}; }}"
            )

    def show_comment(self, text: str) -> None:
        """Put a draft's comment in the box (cursor at the end) without signalling an edit."""
        self.comment.blockSignals(True)
        self.comment.setPlainText(text)
        self.comment.moveCursor(QTextCursor.MoveOperation.End)  # typing adds to the end
        self.comment.blockSignals(False)

    def show_status(self, text: str, problem: bool = False) -> None:
        """The line under the commit button: what is saved, or why a commit was refused."""
        self.saved_label.setStyleSheet("color: #b42318; font-weight: bold" if problem else "")
        self.saved_label.setText(text)
