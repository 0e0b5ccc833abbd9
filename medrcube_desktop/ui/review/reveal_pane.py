"""The reveal: the LLM judgment and other reviewers' scores beside the reviewer's own.

Blinding is enforced by what this pane is given: before the reviewer commits it is
handed nothing but the fact that something is hidden, so no widget holds a judgment that
could be read (not even a hidden one).
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.necessity_evidence import evidence_text
from medrcube_desktop.review.session import Reveal

DISAGREE_BRUSH = QBrush(QColor(180, 35, 24, 70))
"""Row background of a rule where the reviewer and the LLM differ."""


def _cell(score: int | str | None) -> QTableWidgetItem:
    text = {1: "PASS", 0: "FAIL", None: "—", CANNOT_JUDGE: "CANNOT JUDGE"}[score]
    cell = QTableWidgetItem(text)
    cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
    return cell


def evidence_line(reveal: Reveal) -> str:
    """The reveal's line of rule 1.4's evidence (issue 24), a ``<br>`` first: the
    sentence of :func:`~medrcube_desktop.review.necessity_evidence.evidence_text`,
    "computing…" while the worker computes it, why it could not be read, or ""."""
    if reveal.evidence_pending:
        return "<br>Image-necessity evidence (rule 1.4): computing…"
    if reveal.evidence_error:
        return f"<br>Image-necessity evidence not read: {escape(reveal.evidence_error)}"
    return f"<br>{escape(evidence_text(reveal.evidence))}" if reveal.evidence else ""


class RevealPane(QWidget):
    """Side-by-side judgments per rule, disagreements marked, and the disagreement note.

    Emits ``note_submitted(text)`` when the reviewer presses Enter in the note box.
    """

    note_submitted = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setObjectName("revealTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)  # names in it are escaped
        self.title.setWordWrap(True)
        self.table = QTableWidget()
        self.table.setObjectName("revealTable")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.note = QLineEdit()
        self.note.setObjectName("disagreementNote")
        self.note.setPlaceholderText(
            "You differ from the LLM: why do you keep your scores? (Enter saves and goes on)"
        )
        self.note.returnPressed.connect(lambda: self.note_submitted.emit(self.note.text()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.table)
        # ``note`` is placed by the window, above the comment box, so it is always in view.
        self.show_hidden(False)

    def _clear(self) -> None:
        self.table.clear()
        self.table.setRowCount(0)
        self.table.setColumnCount(0)
        self.table.setVisible(False)
        self.note.clear()
        self.note.setVisible(False)

    def show_hidden(self, repeat: bool, anything: bool = True) -> None:
        """Blind: say that judgments are hidden; hold none of them."""
        self._clear()
        if repeat:
            text = (
                "<b>Repeat:</b> this item comes back to measure intra-rater agreement. "
                "Score it afresh; your earlier scores and the LLM judgment stay hidden "
                "until you commit."
            )
        elif anything:
            text = (
                "LLM judgment and other reviewers' scores: hidden until you commit (blind review)."
            )
        else:
            text = ""
        self.title.setText(text)
        self.title.setVisible(bool(text))

    def show_reveal(self, reveal: Reveal, note_rules: list[str] | None = None) -> None:
        """Rules as rows; you, the LLM and each other reviewer as columns.

        ``note_rules``: the reviewer must say why they disagree on these rules (the
        note box is shown and focused by the window).
        """
        self._clear()
        columns: list[tuple[str, dict[str, int | None]]] = []
        if reveal.mine:
            columns.append(("You", reveal.mine))
        if reveal.llm is not None:
            columns.append((reveal.llm_model, reveal.llm))
        columns += [(name, dict(scores)) for name, scores in sorted(reveal.others.items())]
        evidence = evidence_line(reveal)  # rule 1.4's: models right without the image
        if len(columns) <= 1:
            self.title.setText("No LLM judgment or other review of this item yet." + evidence)
            self.title.setVisible(True)
            return
        self.table.setVisible(True)
        self.table.setColumnCount(len(columns) + 1)
        self.table.setHorizontalHeaderLabels(["", *(name for name, _ in columns)])
        self.table.setRowCount(len(RULE_IDS))
        self.table.setVerticalHeaderLabels(list(RULE_IDS))
        for row, rule in enumerate(RULE_IDS):
            differs = rule in reveal.disagreements
            mark = QTableWidgetItem("≠" if differs else "")
            mark.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            self.table.setItem(row, 0, mark)
            mine = reveal.mine.get(rule)
            for column, (_name, scores) in enumerate(columns, start=1):
                cell = _cell(scores.get(rule))
                other = scores.get(rule)
                if (  # an abstention (yours or theirs) is no disagreement
                    column > 1
                    and mine not in (None, CANNOT_JUDGE)
                    and other not in (None, mine, CANNOT_JUDGE)
                ):
                    cell.setBackground(DISAGREE_BRUSH)  # differs from you
                    cell.setText(f"≠ {cell.text()}")
                self.table.setItem(row, column, cell)
            if differs:
                mark.setBackground(DISAGREE_BRUSH)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Fixed)
        self.table.setColumnWidth(0, 28)
        height = self.table.horizontalHeader().height() + 2 * self.table.frameWidth()
        height += sum(self.table.rowHeight(r) for r in range(self.table.rowCount()))
        self.table.setFixedHeight(height)  # every rule in view, no inner scrolling
        if any(score is None for score in reveal.mine.values()):
            summary = (
                f"Not blind (curation pass): {escape(reveal.llm_model)}'s judgment is shown "
                "while you score."
                if reveal.llm is not None
                else "Not blind (curation pass): other reviewers' scores are shown."
            )
        elif reveal.llm is None:
            summary = "Revealed: other reviewers' scores (no LLM judgment of this item)."
        else:
            # a rule the reviewer could not judge is neither agreement nor disagreement
            unjudged = [r for r in RULE_IDS if reveal.mine.get(r) == CANNOT_JUDGE]
            judged = "every rule" if not unjudged else "every rule you judged"
            if reveal.disagreements:
                summary = (
                    f"Revealed: you and {escape(reveal.llm_model)} differ on "
                    f"<b>{', '.join(reveal.disagreements)}</b> (marked ≠)."
                )
            else:
                summary = f"Revealed: you and {escape(reveal.llm_model)} agree on {judged}."
            if unjudged:
                summary += f" You could not judge <b>{', '.join(unjudged)}</b>."
        self.title.setText(summary + evidence)
        self.title.setVisible(True)
        if note_rules:
            self.note.setVisible(True)
