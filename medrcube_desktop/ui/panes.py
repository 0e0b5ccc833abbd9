"""The side panes: item list with filters, the question with its options, the rubric."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, Qt, Signal
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
from medrcube_desktop.review.rubric import Rubric
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
                combo.addItem(value, value)
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
        self.list.currentItemChanged.connect(self._on_current)
        self.count_label = QLabel()
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.count_label)
        layout.addWidget(self.list, 1)

    def current_filter(self) -> ItemFilter:
        return ItemFilter(**{key: combo.currentData() for key, combo in self.combos.items()})

    def _emit_filter(self) -> None:
        self.filter_changed.emit(self.current_filter())

    def set_items(self, items: list[Item], reviewed: set[str], current_id: str | None) -> None:
        """Fill the list without emitting ``item_chosen``; keep ``current_id`` selected."""
        self.list.blockSignals(True)
        self.list.clear()
        for item in items:
            entry = QListWidgetItem(self._label(item, item.id in reviewed))
            entry.setData(ITEM_ID_ROLE, item.id)
            entry.setToolTip(item.question)
            self.list.addItem(entry)
            if item.id == current_id:
                self.list.setCurrentItem(entry)
        self.list.blockSignals(False)
        self.count_label.setText(f"{len(items)} items shown")

    def mark_reviewed(self, item_id: str, item: Item) -> None:
        for row in range(self.list.count()):
            entry = self.list.item(row)
            if entry.data(ITEM_ID_ROLE) == item_id:
                entry.setText(self._label(item, True))

    def select(self, item_id: str) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(ITEM_ID_ROLE) == item_id:
                self.list.blockSignals(True)
                self.list.setCurrentRow(row)
                self.list.blockSignals(False)
                self.list.scrollToItem(self.list.item(row))
                return

    @staticmethod
    def _label(item: Item, reviewed: bool) -> str:
        return f"{'✓' if reviewed else '·'}  {item.id}  [{item.task.abbreviation}] {item.modality}"

    def _on_current(self, entry: QListWidgetItem | None, _previous) -> None:
        if entry is not None:
            self.item_chosen.emit(entry.data(ITEM_ID_ROLE))


class ItemPane(QWidget):
    """The question, options A–D with the ground truth marked, and the item's facts."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.meta = QLabel()
        self.meta.setObjectName("itemMeta")
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
        for widget in (self.meta, self.question, self.options):
            layout.addWidget(widget)

    def show_item(self, item: Item) -> None:
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


class RubricPane(QWidget):
    """Seven pass/fail toggles (keys 1–7), a comment box and the commit button."""

    toggled = Signal(str)  # rule id
    comment_edited = Signal(str)
    commit_requested = Signal()

    def __init__(self, rubric: Rubric, parent=None) -> None:
        super().__init__(parent)
        self.rubric = rubric
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.buttons: dict[str, QPushButton] = {}
        principle = None
        for key, rule in enumerate(rubric.rules, start=1):
            if rule.principle != principle:
                principle = rule.principle
                layout.addWidget(
                    QLabel(f"<b>Principle {principle}: {escape(rubric.principles[principle])}</b>")
                )
            button = QPushButton()
            button.setObjectName(f"rule_{rule.id}")
            button.setCheckable(True)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            button.setToolTip(
                f"{rule.id} {rule.name}\n\n{rule.description}\n\nKey {key} toggles pass/fail."
            )
            button.clicked.connect(lambda _checked=False, rid=rule.id: self.toggled.emit(rid))
            self.buttons[rule.id] = button
            layout.addWidget(button)
        comment_label = QLabel("&Comment (Enter commits, Shift+Enter new line, Esc leaves):")
        layout.addWidget(comment_label)
        self.comment = CommentEdit()
        self.comment.submitted.connect(self.commit_requested.emit)
        comment_label.setBuddy(self.comment)
        self.comment.setObjectName("comment")
        self.comment.setPlaceholderText("Why a rule failed, what to fix…")
        self.comment.setMaximumHeight(90)
        self.comment.textChanged.connect(
            lambda: self.comment_edited.emit(self.comment.toPlainText())
        )
        layout.addWidget(self.comment)
        self.commit_button = QPushButton("Commit and next  (Enter)")
        self.commit_button.setObjectName("commit")
        self.commit_button.clicked.connect(self.commit_requested.emit)
        layout.addWidget(self.commit_button)
        self.saved_label = QLabel()
        self.saved_label.setObjectName("savedLabel")
        self.saved_label.setWordWrap(True)
        layout.addWidget(self.saved_label)

    def show_scores(self, scores: dict[str, int]) -> None:
        """Reflect draft scores: checked = fail (red), unchecked = pass (green)."""
        for key, rule in enumerate(self.rubric.rules, start=1):
            passed = scores[rule.id] == 1
            button = self.buttons[rule.id]
            button.setChecked(not passed)
            name = rule.name.replace("&", "&&")  # a single & would become a mnemonic
            button.setText(f"{key}   {rule.id} {name}   —   {'PASS' if passed else 'FAIL'}")
            button.setStyleSheet(
                "QPushButton { text-align: left; padding: 4px; border-radius: 3px; color: white; "
                f"background: {'#1a7f37' if passed else '#b42318'}; }}"
            )

    def show_comment(self, text: str) -> None:
        self.comment.blockSignals(True)
        self.comment.setPlainText(text)
        self.comment.blockSignals(False)
