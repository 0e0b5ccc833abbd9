"""The side panes: item list with filters, the question with its options, the rubric."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeySequence, QTextCursor
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
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
from medrcube_desktop.review.queues import (
    ALL,
    ORDER_BENCHMARK,
    ORDER_RANDOM,
    STATUS_CHOICES,
    ItemFilter,
)

ITEM_ID_ROLE = Qt.ItemDataRole.UserRole


class SearchEdit(QLineEdit):
    """The search box: Enter hands the keys back to the review (``returnPressed``)
    instead of committing the current item."""

    def event(self, event) -> bool:  # noqa: D401 (Qt override)
        if event.type() == QEvent.Type.ShortcutOverride and event.key() in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
        ):
            event.accept()  # claim Enter before the window's "commit" shortcut
            return True
        return super().event(event)


class ItemListPane(QWidget):
    """Queue filters (task, modality, region, dataset, status, search, order) above the
    list of items."""

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
        status.setObjectName("queue")
        for value, title in STATUS_CHOICES:
            status.addItem(title, value)
        status.currentIndexChanged.connect(self._emit_filter)
        self.combos["status"] = status
        form.addRow("&Queue", status)
        study = QComboBox()
        study.setObjectName("studyFilter")
        self.combos["study"] = study
        self.set_studies(choices.get("study", []))
        study.currentIndexChanged.connect(self._emit_filter)
        form.addRow("S&tudy", study)
        order = QComboBox()
        order.addItem("Benchmark order", ORDER_BENCHMARK)
        order.addItem("Random order (fixed per reviewer)", ORDER_RANDOM)
        order.currentIndexChanged.connect(self._emit_filter)
        self.combos["order"] = order
        form.addRow("&Order", order)
        self.search = SearchEdit()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Search question and options (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._emit_filter)
        form.addRow("Searc&h", self.search)
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

    def set_studies(self, names: list[str]) -> None:
        """Offer these agreement studies in the Study filter (keeping the choice)."""
        combo = self.combos["study"]
        chosen = combo.currentData()
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("All items", ALL)
        for name in names:
            combo.addItem(name, name)
        combo.setCurrentIndex(max(0, combo.findData(chosen)))
        combo.blockSignals(False)

    def current_filter(self) -> ItemFilter:
        """The filter the combo boxes describe now."""
        values = {key: combo.currentData() for key, combo in self.combos.items()}
        return ItemFilter(**values, text=self.search.text())

    def _emit_filter(self) -> None:
        self.filter_changed.emit(self.current_filter())

    def set_items(self, items: list[Item], states: dict[str, str], current_id: str | None) -> None:
        """Fill the list without emitting ``item_chosen``; keep ``current_id`` selected.

        ``states`` maps item ids to a mark: ``"✓"`` committed, ``"✎"`` a draft, with
        ``"⚑"`` added for a flagged item.
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
        self.count_label.setToolTip("✓ committed · ✎ draft saved, not committed · ⚑ flagged")

    def set_mark(self, item: Item, mark: str) -> None:
        """Show ``mark`` (see :meth:`set_items`) in front of one item."""
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
        self.source.setProperty("muted", True)
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
        dark = QApplication.palette().window().color().lightness() < 128
        green = "#3fb950" if dark else "#1a7f37"  # readable on the theme's background
        rows = []
        for letter, text in item.options.items():
            if letter == item.answer:
                rows.append(
                    f"<p><b style='color:{green}'>{letter}. {escape(text)}  ✔ ground truth</b></p>"
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

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # One undo history for scores and comment: the window's Undo/Redo, not the box's.
        self.setUndoRedoEnabled(False)

    def event(self, event) -> bool:  # noqa: D401 (Qt override)
        if event.type() == QEvent.Type.ShortcutOverride:
            # Claim Enter before the window's "commit" shortcut sees it, so it fires once.
            if event.key() in self._ENTER_KEYS:
                event.accept()
                return True
            # Let Undo/Redo reach the window's actions.
            if event.matches(QKeySequence.StandardKey.Undo) or event.matches(
                QKeySequence.StandardKey.Redo
            ):
                event.ignore()
                return False
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
    tag_toggled = Signal(str)

    def __init__(self, rubric: Rubric, tags: dict[str, tuple[str, ...]], parent=None) -> None:
        super().__init__(parent)
        self.rubric = rubric
        self.rule_tags = tags
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.keys_hint = QLabel()
        self.keys_hint.setObjectName("keysHint")
        layout.addWidget(self.keys_hint)
        self.rule_keys = {rule.id: str(n) for n, rule in enumerate(rubric.rules, start=1)}
        self.buttons: dict[str, QPushButton] = {}
        self.compare_labels: dict[str, QLabel] = {}
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
            compare = QLabel()  # the revealed LLM verdict beside the reviewer's own
            compare.setObjectName(f"compare_{rule.id}")
            compare.setMinimumWidth(0)
            self.compare_labels[rule.id] = compare
            row = QHBoxLayout()
            row.addWidget(button, 1)
            row.addWidget(compare)
            layout.addLayout(row)
            description = QLabel(rule.description)
            description.setWordWrap(True)
            description.setProperty("muted", True)
            description.setContentsMargins(22, 0, 0, 4)
            layout.addWidget(description)
        # The comment, commit button and status live in ``footer``, which the window keeps
        # in view below the scrolling rules.
        self.footer = QWidget()
        footer = QVBoxLayout(self.footer)
        footer.setContentsMargins(0, 0, 0, 0)
        comment_label = QLabel("&Comment (Enter commits, Shift+Enter new line, Esc leaves):")
        self.comment_label = comment_label
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
        self.tags_row = QListWidget()  # wraps like a row of chips
        self.tags_row.setObjectName("tagsRow")
        self.tags_row.setFlow(QListWidget.Flow.LeftToRight)
        self.tags_row.setWrapping(True)
        self.tags_row.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.tags_row.setSpacing(2)
        self.tags_row.setMaximumHeight(48)
        self.tags_row.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.tags_row.setToolTip("Quick tags for the failed rules (click to add to the review)")
        self.tags_row.itemChanged.connect(self._tag_changed)
        footer.addWidget(self.tags_row)
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

    def show_keys(self, rule_keys: dict[str, str], pass_key: str, commit_key: str) -> None:
        """Name the keys as mapped (Help › Customise shortcuts) in the pane's labels."""
        self.rule_keys = rule_keys
        keys = [rule_keys[rule.id] for rule in self.rubric.rules]
        span = f"{keys[0]}–{keys[-1]}" if keys == [str(n) for n in range(1, 8)] else " ".join(keys)
        self.keys_hint.setText(
            f"Keys {span}: fail a rule (again: pass) · {pass_key}: pass every unscored rule"
        )
        self.commit_button.setText(f"Commit and next  ({commit_key})")
        self.comment_label.setText(
            f"&Comment ({commit_key} commits, Shift+{commit_key} new line, Esc leaves):"
        )

    def show_scores(self, scores: dict[str, int | None]) -> None:
        """Reflect draft scores: green PASS, red FAIL, grey "not scored"."""
        for rule in self.rubric.rules:
            key = self.rule_keys.get(rule.id, "")
            text, colour = SCORE_LOOK[scores[rule.id]]
            name = rule.name.replace("&", "&&")  # a single & would become a mnemonic
            button = self.buttons[rule.id]
            button.setText(f"{key}   {rule.id} {name}   —   {text}")
            button.setStyleSheet(
                "QPushButton { text-align: left; padding: 4px; border-radius: 3px; color: white; "
                f"background: {colour}; }}"
            )

    def show_comparison(self, name: str, scores: dict[str, int] | None, differs: list[str]) -> None:
        """Beside each rule: ``name``'s verdict, "≠" in red where it differs; nothing
        (and no text held) when ``scores`` is None."""
        for rule_id, label in self.compare_labels.items():
            if scores is None:
                label.clear()
                label.setVisible(False)
                continue
            verdict = SCORE_LOOK[scores[rule_id]][0]
            if rule_id in differs:
                label.setText(f"<b style='color:#e5534b'>≠ LLM {verdict}</b>")
            else:
                label.setText(f"LLM {verdict}")
            label.setToolTip(f"{name}: {verdict}")
            label.setVisible(True)

    def show_tags(self, scores: dict[str, int | None], chosen: list[str]) -> None:
        """Quick tags of the failed rules (and any chosen tag) as check boxes."""
        wanted: list[str] = []
        for rule in self.rubric.rules:
            if scores[rule.id] == 0:
                wanted += [t for t in self.rule_tags.get(rule.id, ()) if t not in wanted]
        wanted += [t for t in chosen if t not in wanted]
        self.tags_row.blockSignals(True)
        self.tags_row.clear()
        for tag in wanted:
            entry = QListWidgetItem(tag)
            entry.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsUserCheckable)
            entry.setCheckState(Qt.CheckState.Checked if tag in chosen else Qt.CheckState.Unchecked)
            self.tags_row.addItem(entry)
        self.tags_row.blockSignals(False)
        self.tags_row.setVisible(bool(wanted))

    def tag_items(self) -> dict[str, bool]:
        """Tags on offer and whether each is chosen (for tests and accessibility)."""
        return {
            self.tags_row.item(row).text(): self.tags_row.item(row).checkState()
            == Qt.CheckState.Checked
            for row in range(self.tags_row.count())
        }

    def _tag_changed(self, entry: QListWidgetItem) -> None:
        self.tag_toggled.emit(entry.text())

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
