"""The rubric pane: the seven sub-principles (keys 1–7 score them, Alt+1–7 or a
right-click say "cannot judge"), the revealed LLM verdict beside each, the comment box
with its quick tags, and the commit button."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import QKeySequence, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.rubric import CANNOT_JUDGE, Rubric

ITEM_ID_ROLE = Qt.ItemDataRole.UserRole


class CommentEdit(QPlainTextEdit):
    """Comment box where Enter commits the review and Shift+Enter starts a new line."""

    submitted = Signal()

    _ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # One undo history for scores and comment: the window's Undo/Redo, not the box's.
        self.setUndoRedoEnabled(False)

    def event(self, event) -> bool:  # noqa: D401 (Qt override)
        # Enter, like every single key, is the box's (ui/widgets/text_keys.py): it fires once.
        # Undo/Redo reach the window's actions (one history for scores and comment).
        if event.type() == QEvent.Type.ShortcutOverride and (
            event.matches(QKeySequence.StandardKey.Undo)
            or event.matches(QKeySequence.StandardKey.Redo)
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


class RuleButton(QPushButton):
    """A push button whose text wraps (a rule's name at large text sizes), so the pane
    never asks for more width than the window gives it; a right-click emits
    ``abstain_requested`` ("cannot judge", issue 24)."""

    abstain_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._text = ""
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addWidget(self.label)
        policy = QSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt name)
        """Show ``text`` (``&&`` as one ``&``, as a button would show it)."""
        self._text = text
        self.label.setText(text.replace("&&", "&"))
        self.updateGeometry()

    def text(self) -> str:
        return self._text

    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt override)
        self.abstain_requested.emit()
        event.accept()

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return self.layout().sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt override)
        return QSize(80, self.layout().minimumSize().height())

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt override)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt override)
        return self.layout().totalHeightForWidth(width)


SCORE_LOOK = {
    1: ("PASS", "#1a7f37"),
    0: ("FAIL", "#b42318"),
    CANNOT_JUDGE: ("CANNOT JUDGE", "#6639ba"),
    None: ("not scored", "#6e7781"),
}
"""Text and colour of each score state (colours readable with white text)."""


class RubricPane(QWidget):
    """The seven sub-principles (keys 1–7 score them), a comment box and the commit button."""

    toggled = Signal(str)  # rule id
    abstained = Signal(str)  # rule id: "cannot judge" asked for (right-click)
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
        self.keys_hint.setWordWrap(True)
        layout.addWidget(self.keys_hint)
        self.rule_keys = {rule.id: str(n) for n, rule in enumerate(rubric.rules, start=1)}
        self.buttons: dict[str, RuleButton] = {}
        self.compare_labels: dict[str, QLabel] = {}
        principle = None
        for rule in rubric.rules:
            if rule.principle != principle:
                principle = rule.principle
                heading = QLabel(
                    f"<b>Principle {principle}: {escape(rubric.principles[principle])}</b>"
                )
                heading.setWordWrap(True)
                layout.addWidget(heading)
            button = RuleButton()
            button.setObjectName(f"rule_{rule.id}")
            button.setToolTip(f"{rule.id} {rule.name}\n\n{rule.description}")
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys stay with the review
            button.clicked.connect(self._toggler(rule.id))
            button.abstain_requested.connect(self._abstainer(rule.id))
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
        comment_label.setWordWrap(True)  # large text in a narrow column: two lines, not cut
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
        self.saved_label.setTextFormat(Qt.TextFormat.PlainText)  # messages name items as written
        self.saved_label.setWordWrap(True)
        footer.addWidget(self.saved_label)

    def _toggler(self, rule_id: str):
        """A no-argument slot for one rule's button (clicked(bool) is not passed on)."""

        def slot() -> None:
            self.toggled.emit(rule_id)

        return slot

    def _abstainer(self, rule_id: str):
        """A no-argument slot for one rule's right-click ("cannot judge")."""

        def slot() -> None:
            self.abstained.emit(rule_id)

        return slot

    def _request_commit(self) -> None:
        self.commit_requested.emit()

    def show_keys(
        self,
        rule_keys: dict[str, str],
        pass_key: str,
        commit_key: str,
        abstain_keys: dict[str, str] | None = None,
    ) -> None:
        """Name the keys as mapped (Help › Customise shortcuts) in the pane's labels;
        ``abstain_keys``: the "cannot judge" key of each rule (default Alt+1…Alt+7)."""
        self.rule_keys = rule_keys
        keys = [rule_keys[rule.id] for rule in self.rubric.rules]
        span = f"{keys[0]}–{keys[-1]}" if keys == [str(n) for n in range(1, 8)] else " ".join(keys)
        abstain = [(abstain_keys or {}).get(rule.id, "—") for rule in self.rubric.rules]
        default = [f"Alt+{n}" for n in range(1, 8)]
        abstain_span = "Alt+1–7" if abstain == default else " ".join(abstain)
        self.keys_hint.setText(
            f"Keys {span}: fail a rule (again: pass) · {abstain_span} or right-click: cannot "
            f"judge (again: unscored) · {pass_key}: pass every unscored rule"
        )
        self.commit_button.setText(f"Commit and next  ({commit_key})")
        self.comment_label.setText(
            f"&Comment ({commit_key} commits, Shift+{commit_key} new line, Esc leaves):"
        )

    def show_scores(self, scores: dict[str, int | str | None]) -> None:
        """Reflect draft scores: green PASS, red FAIL, purple CANNOT JUDGE, grey "not
        scored"."""
        for rule in self.rubric.rules:
            key = self.rule_keys.get(rule.id, "")
            text, colour = SCORE_LOOK[scores[rule.id]]
            name = rule.name.replace("&", "&&")  # a single & would become a mnemonic
            button = self.buttons[rule.id]
            button.setText(f"{key}   {rule.id} {name}   —   {text}")
            button.setStyleSheet(
                "QPushButton { text-align: left; padding: 4px; border-radius: 3px; color: white; "
                f"background: {colour}; }} QLabel {{ color: white; background: transparent; }}"
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

    def show_tags(self, scores: dict[str, int | str | None], chosen: list[str]) -> None:
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
