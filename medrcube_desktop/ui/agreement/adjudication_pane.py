"""Review › Adjudicate disagreements: the queue, every rater's first judgment side by
side, and a choice with a required reason per disagreeing rule.

The queue and the recording are Qt-free (:mod:`medrcube_desktop.review.adjudication`);
this pane only shows them. The adjudicator is the reviewer of the window; in a blind
study the queue lists only items they have committed (the review window's rule), so the
pane never reveals a judgment the review window would still hide. Every text from the
benchmark or the database goes through :func:`~medrcube_desktop.ui.widgets.text.esc`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.adjudication import QueueEntry, adjudicate, build_queue
from medrcube_desktop.store.adjudications import VERDICT
from medrcube_desktop.ui.widgets.screen import fit_to_screen
from medrcube_desktop.ui.widgets.text import esc, esc_lines

if TYPE_CHECKING:
    from collections.abc import Callable

    from medrcube_desktop.review.session import ReviewSessionState

AGAINST_CHOICES = (
    ("experts", "Experts disagree"),
    ("llm", "An expert and the LLM disagree"),
    ("any", "Either"),
)
ON_CHOICES = (("rules", "on any rule"), ("verdict", "on the overall verdict"))
CHOICES = (("", "—"), ("0", "fail"), ("1", "pass"))
DISAGREE = QColor(255, 214, 153)


def item_html(item: Item | None, item_id: str) -> str:
    """Question and options with the ground truth marked (escaped)."""
    if item is None:
        return f"<b>{esc(item_id)}</b> (not in the open benchmark)"
    options = "".join(
        f"<br><b>{esc(letter)}. {esc(text)} ✔ ground truth</b>"
        if letter == item.answer
        else f"<br>{esc(letter)}. {esc(text)}"
        for letter, text in item.options.items()
    )
    return (
        f"<b>{esc(item.id)}</b> · {esc(item.task.abbreviation)} · {esc(item.modality)} · "
        f"{esc(item.region)}<br><b>{esc_lines(item.question)}</b>{options}"
    )


class AdjudicationPane(QDialog):
    """The adjudication queue of the window's study; ``open_item(item_id)`` asks the
    review window to show an item (its image)."""

    open_item = Signal(str)
    saved = Signal(str)  # item id, after an adjudication is stored

    def __init__(self, parent: QWidget, session: Callable[[], ReviewSessionState]) -> None:
        """``session()``: the window's session now (its store, items, reviewer and
        blinding rule; File › Change reviewer binds another: :meth:`refresh` shows the
        queue as the new reviewer may see it)."""
        super().__init__(parent)
        self.setWindowTitle("Adjudicate disagreements")
        self._session = session
        self.adjudicator = QLabel()
        self.entries: list[QueueEntry] = []
        self.hidden_items: list[str] = []  # blind: queued, not yet committed by the viewer
        # restricted items are reviewed on their text: their disagreements are queued too
        self.items = {item.id: item for item in [*self.session.items, *self.session.restricted]}
        self.against = QComboBox()
        for value, title in AGAINST_CHOICES:
            self.against.addItem(title, value)
        self.on = QComboBox()
        for value, title in ON_CHOICES:
            self.on.addItem(title, value)
        self.against.currentIndexChanged.connect(self.refresh)
        self.on.currentIndexChanged.connect(self.refresh)
        self.queue_label = QLabel()
        self.queue_label.setTextFormat(Qt.TextFormat.PlainText)
        self.queue_label.setWordWrap(True)
        self.queue = QListWidget()
        self.queue.setObjectName("adjudicationQueue")
        self.queue.currentRowChanged.connect(self._show_entry)
        self.item_text = QLabel()
        self.item_text.setTextFormat(Qt.TextFormat.RichText)  # escaped by item_html
        self.item_text.setWordWrap(True)
        self.judgments = QTableWidget(0, 0)
        self.judgments.setObjectName("adjudicationJudgments")
        self.judgments.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.judgments.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.comments = QLabel()
        self.comments.setTextFormat(Qt.TextFormat.RichText)  # every value escaped
        self.comments.setWordWrap(True)
        self.form_box = QWidget()
        self.form = QFormLayout(self.form_box)
        self.choices: dict[str, tuple[QComboBox, QLineEdit]] = {}
        self.status = QLabel()
        self.status.setObjectName("adjudicationStatus")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.status.setWordWrap(True)
        self.save_button = QPushButton("&Save adjudication")
        self.save_button.clicked.connect(self.save)
        self.open_button = QPushButton("Show in the review &window")
        self.open_button.clicked.connect(self._open_current)
        self._build_layout()
        self.refresh()

    def _build_layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.against)
        top.addWidget(self.on)
        top.addStretch(1)
        top.addWidget(self.adjudicator)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.queue_label)
        left_layout.addWidget(self.queue, 1)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.item_text)
        right_layout.addWidget(self.judgments, 2)
        right_layout.addWidget(self.comments)
        right_layout.addWidget(QLabel("Adjudicated value and reason, per disagreeing rule:"))
        right_layout.addWidget(self.form_box)
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        right_layout.addLayout(buttons)
        right_layout.addWidget(self.status)
        split = QSplitter()
        split.addWidget(left)
        split.addWidget(right)
        split.setSizes([260, 740])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        fit_to_screen(self, 1100, 780)

    @property
    def session(self) -> ReviewSessionState:
        """The window's session now."""
        return self._session()

    # -- the queue ---------------------------------------------------------------
    def refresh(self, *_args, keep: str | None = None) -> None:
        """Build the queue again (after a save, a change of what is compared, or of the
        window's reviewer)."""
        self.adjudicator.setText(f"Adjudicator: {self.session.reviewer}")
        against = self.against.currentData()
        model = self.session.llm_model or None
        if against != "experts" and model is None:
            self._set_status("There is no LLM judgment in this study to compare with.", True)
            self.entries, self.hidden_items = [], []
        else:
            try:
                queue = build_queue(
                    self.session.store, None, model, against, self.on.currentData(),
                    items=set(self.items), viewer=self.session.reviewer,
                    blind=self.session.study.blind,
                )  # fmt: skip
            except MedRCubeError as exc:
                self._set_status(str(exc), True)
                return
            self.entries, self.hidden_items = queue.entries, queue.hidden_items
            open_count = sum(1 for e in queue.entries if e.open_targets)
            hidden = (
                f"; {queue.hidden} more listed greyed: their judgments stay hidden until you "
                "commit your own review of them"
                if queue.hidden
                else ""
            )
            n = len(queue.entries)
            self.queue_label.setText(f"{n} item{'' if n == 1 else 's'}, {open_count} open{hidden}.")
        self.queue.blockSignals(True)
        self.queue.clear()
        for entry in self.entries:
            state = "open" if entry.open_targets else "✓ adjudicated"
            text = f"{entry.item_id}  ·  {', '.join(entry.rules) or 'verdict'}  ·  {state}"
            if entry.abstained:  # an abstention needs a decision (issue 24)
                text += "  ·  cannot judge"
            row = QListWidgetItem(text)
            row.setData(Qt.ItemDataRole.UserRole, entry.item_id)
            self.queue.addItem(row)
        for item_id in self.hidden_items:  # the id only: no score, no rule
            row = QListWidgetItem(f"{item_id}  ·  review it first")
            row.setData(Qt.ItemDataRole.UserRole, item_id)
            row.setForeground(QBrush(QColor(128, 128, 128)))
            row.setToolTip("Commit your own review of this item to see and adjudicate it")
            self.queue.addItem(row)
        self._fit_queue()
        self.queue.blockSignals(False)
        ids = [e.item_id for e in self.entries]
        if self.entries:
            self.queue.setCurrentRow(ids.index(keep) if keep in ids else 0)
            self._show_entry(self.queue.currentRow())
        else:
            self._show_entry(-1)

    def _fit_queue(self) -> None:
        """Widen the queue to its longest row (at most 420 px), so that it does not
        scroll sideways."""
        metrics = self.queue.fontMetrics()
        texts = [self.queue.item(r).text() for r in range(self.queue.count())]
        widest = max((metrics.horizontalAdvance(t) for t in texts), default=0)
        extra = 2 * self.queue.frameWidth() + self.queue.verticalScrollBar().sizeHint().width()
        self.queue.setMinimumWidth(min(420, max(160, widest + extra + 12)))

    def current_entry(self) -> QueueEntry | None:
        row = self.queue.currentRow()
        return self.entries[row] if 0 <= row < len(self.entries) else None

    def _show_entry(self, row: int) -> None:
        entry = self.entries[row] if 0 <= row < len(self.entries) else None
        hidden = row - len(self.entries)
        self.save_button.setEnabled(entry is not None)
        self.open_button.setEnabled(entry is not None or 0 <= hidden < len(self.hidden_items))
        if entry is None:
            if 0 <= hidden < len(self.hidden_items):
                text = (
                    f"<b>{esc(self.hidden_items[hidden])}</b>: the raters' judgments of this "
                    "item stay hidden until you commit your own review of it (blind study). "
                    "Show it in the review window, review it, then adjudicate it here."
                )
            else:
                text = "Nothing to adjudicate." + (
                    " Review the greyed items first." if self.hidden_items else ""
                )
            self.item_text.setText(text)
            self.judgments.setRowCount(0)
            self.judgments.setColumnCount(0)
            self.comments.setText("")
            self._fill_form(None)
            return
        self.item_text.setText(item_html(self.items.get(entry.item_id), entry.item_id))
        self._fill_table(entry)
        self.comments.setText(
            "<br>".join(
                f"<b>{esc(j.rater)}</b>: {esc_lines(j.comment) if j.comment else '<i>no comment</i>'}"
                for j in entry.judgments
            )
        )
        self._fill_form(entry)

    def _fill_table(self, entry: QueueEntry) -> None:
        targets = [*RULE_IDS, VERDICT]
        self.judgments.setRowCount(len(targets))
        self.judgments.setColumnCount(len(entry.judgments) + 1)
        self.judgments.setHorizontalHeaderLabels(
            [j.rater for j in entry.judgments] + ["adjudicated"]
        )
        self.judgments.setVerticalHeaderLabels(
            [f"{t}{' ≠' if t in entry.rules else ''}" for t in RULE_IDS]
            + ["verdict" + (" ≠" if entry.verdict_differs else "")]
        )
        for r, target in enumerate(targets):
            differs = target in entry.rules or (target == VERDICT and entry.verdict_differs)
            for c, judgment in enumerate(entry.judgments):
                value = judgment.verdict if target == VERDICT else judgment.scores[target]
                cell = QTableWidgetItem(
                    "? cannot judge" if value == CANNOT_JUDGE else "✓ pass" if value else "✗ fail"
                )
                cell.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                if differs:
                    cell.setBackground(QBrush(DISAGREE))
                self.judgments.setItem(r, c, cell)
            settled = entry.adjudicated.get(target)
            text = (
                ""
                if settled is None
                else f"{'✓ pass' if settled.value else '✗ fail'} (rev {settled.revision})"
            )
            cell = QTableWidgetItem(text)
            if settled is not None:
                cell.setToolTip(f"{settled.adjudicator}: {settled.reason}")
            self.judgments.setItem(r, len(entry.judgments), cell)

    def _fill_form(self, entry: QueueEntry | None) -> None:
        while self.form.rowCount():
            self.form.removeRow(0)
        self.choices = {}
        if entry is None:
            return
        for target in [*entry.rules, *([VERDICT] if entry.verdict_differs else [])]:
            choice = QComboBox()
            for value, title in CHOICES:
                choice.addItem(title, value)
            reason = QLineEdit()
            reason.setPlaceholderText("reason (required)")
            settled = entry.adjudicated.get(target)
            if settled is not None:
                choice.setCurrentIndex(choice.findData(str(settled.value)))
                reason.setText(settled.reason)
            row = QHBoxLayout()
            row.addWidget(choice)
            row.addWidget(reason, 1)
            label = f"Rule {target}" if target != VERDICT else "Overall verdict (optional)"
            self.form.addRow(label, row)
            self.choices[target] = (choice, reason)

    # -- saving --------------------------------------------------------------------
    def save(self) -> bool:
        """Record the chosen values; an error is shown and every field kept as typed."""
        entry = self.current_entry()
        if entry is None:
            return False
        values, reasons = {}, {}
        for target, (choice, reason) in self.choices.items():
            settled = entry.adjudicated.get(target)
            if choice.currentData() == "":
                continue
            value = int(choice.currentData())
            if (
                settled is not None
                and settled.value == value
                and settled.reason == reason.text().strip()
            ):
                continue  # unchanged: no new revision
            values[target], reasons[target] = value, reason.text()
        if not values:
            self._set_status("Choose pass or fail for a rule (and give the reason).", True)
            return False
        try:
            stored = adjudicate(
                self.session.store, entry, self.session.reviewer, values, reasons,
                blind=self.session.study.blind,
            )  # fmt: skip
        except MedRCubeError as exc:  # StoreError included: nothing was written
            self._set_status(str(exc), True)
            return False
        self._set_status(
            f"Saved: {', '.join(f'{a.target} = {a.value}' for a in stored)} for "
            f"{esc(entry.item_id)}.",
            False,
            escaped=True,
        )
        self.saved.emit(entry.item_id)
        message = self.status.text()
        self.refresh(keep=entry.item_id)
        self.status.setText(message)
        return True

    def _set_status(self, text: str, error: bool, escaped: bool = False) -> None:
        body = text if escaped else esc(text)
        self.status.setText(f"<span style='color:#b42318'>{body}</span>" if error else body)

    def _open_current(self) -> None:
        row = self.queue.item(self.queue.currentRow()) if self.queue.currentRow() >= 0 else None
        if row is not None:
            self.open_item.emit(row.data(Qt.ItemDataRole.UserRole))
