"""Review › Proposals…: the queue of proposed corrections (issue 23, item 2).

It lists the proposals (item, kind, rule, author, reason, date, status; open ones by
default, filtered by status, kind and text), shows the selected one's change from what
to what and the history of its decisions, opens its item in the review window, and
records a decision with its required reason: Accept or Reject by anyone but the author,
Withdraw by the author alone (the store refuses the rest too). In a blind study the
proposals on items the viewer has not committed are hidden, as the review window hides
others' judgments. Decisions are stored off the GUI thread (:mod:`.saving`); every text
from the database goes through :func:`~medrcube_desktop.ui.widgets.text.esc`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from medrcube_desktop.core.names import same_name
from medrcube_desktop.review.corrections import (
    ACCEPTED,
    KINDS,
    REJECTED,
    WITHDRAWN,
    Proposal,
)
from medrcube_desktop.review.proposal_export import change_line
from medrcube_desktop.review.proposing import decide, shown_proposals
from medrcube_desktop.ui.corrections.saving import StoreWriter
from medrcube_desktop.ui.widgets.screen import fit_to_screen
from medrcube_desktop.ui.widgets.text import esc
from medrcube_desktop.ui.widgets.themes import error_colour

if TYPE_CHECKING:
    from medrcube_desktop.review.session import ReviewSessionState

STATUSES = ("open", ACCEPTED, REJECTED, WITHDRAWN)
COLUMNS = ("Item", "Kind", "Rule", "Author", "Reason", "Date", "Status")


def local_time(iso: str) -> str:
    """An ISO 8601 UTC timestamp as local time, ``2026-12-03 12:57`` (as stored when it
    cannot be read)."""
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


class ProposalsPane(QDialog):
    """The proposals of the window's study. ``open_item(item_id)`` asks the review
    window to show an item; ``decided(item_id)`` after a decision is stored."""

    open_item = Signal(str)
    decided = Signal(str)

    def __init__(self, parent: QWidget | None, session: Callable[[], ReviewSessionState]) -> None:
        """``session()``: the window's session now (its store, reviewer and blinding)."""
        super().__init__(parent)
        self.setWindowTitle("Proposed corrections")
        self._session = session
        self.writer = StoreWriter(self.session.store, self)
        self.rows: list[tuple[Proposal, str]] = []  # (proposal, status), as listed
        self.hidden = 0
        self.status_filter = QComboBox()
        self.status_filter.setObjectName("proposalStatusFilter")
        for value, title in (
            ("open", "Open"), (ACCEPTED, "Accepted"), (REJECTED, "Rejected"),
            (WITHDRAWN, "Withdrawn"), ("", "All"),
        ):  # fmt: skip
            self.status_filter.addItem(title, value)
        self.kind_filter = QComboBox()
        self.kind_filter.setObjectName("proposalKindFilter")
        self.kind_filter.addItem("Every kind", "")
        for kind in KINDS:
            self.kind_filter.addItem(kind.replace("_", " "), kind)
        self.search = QLineEdit()
        self.search.setObjectName("proposalSearch")
        self.search.setPlaceholderText("Filter: item, author or reason")
        self.search.setClearButtonEnabled(True)
        for box in (self.status_filter, self.kind_filter):
            box.currentIndexChanged.connect(self.refresh)
        self.search.textChanged.connect(self.refresh)
        self.count = QLabel()
        self.count.setObjectName("proposalCount")
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("proposalTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(header.fontMetrics().horizontalAdvance("Status") + 24)
        self.table.itemSelectionChanged.connect(self._show_selected)
        self.table.cellDoubleClicked.connect(lambda *_: self._open_current())
        self.detail = QLabel()
        self.detail.setObjectName("proposalDetail")
        self.detail.setTextFormat(Qt.TextFormat.RichText)  # every value escaped
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason = QLineEdit()
        self.reason.setObjectName("decisionReason")
        self.reason.setPlaceholderText("Reason for the decision (required)")
        self.accept_button = QPushButton("&Accept")
        self.reject_button = QPushButton("Re&ject")
        self.withdraw_button = QPushButton("&Withdraw")
        self.open_button = QPushButton("Show in the review &window")
        self.accept_button.clicked.connect(lambda: self.decide(ACCEPTED))
        self.reject_button.clicked.connect(lambda: self.decide(REJECTED))
        self.withdraw_button.clicked.connect(lambda: self.decide(WITHDRAWN))
        self.open_button.clicked.connect(self._open_current)
        for button in (self.accept_button, self.reject_button, self.withdraw_button,
                       self.open_button):  # fmt: skip
            button.setAutoDefault(False)  # Enter in the dialog never accepts nor rejects
            button.setDefault(False)
        self.message = QLabel()
        self.message.setObjectName("proposalPaneMessage")
        self.message.setTextFormat(Qt.TextFormat.RichText)
        self.message.setWordWrap(True)
        self._build_layout()
        fit_to_screen(self, 1100, 680)
        self.refresh()
        self.reason.setFocus()  # the first focus: Enter types on, never decides

    @property
    def session(self) -> ReviewSessionState:
        """The window's session now."""
        return self._session()

    def _build_layout(self) -> None:
        filters = QHBoxLayout()
        filters.addWidget(self.status_filter)
        filters.addWidget(self.kind_filter)
        filters.addWidget(self.search, 1)
        filters.addWidget(self.count)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.detail, 1)
        right_layout.addWidget(self.reason)
        buttons = QHBoxLayout()
        for button in (self.accept_button, self.reject_button, self.withdraw_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        right_layout.addLayout(buttons)
        right_layout.addWidget(self.message)
        splitter = QSplitter()
        splitter.addWidget(self.table)
        splitter.addWidget(right)
        splitter.setSizes([640, 440])
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(splitter, 1)

    # -- the list ---------------------------------------------------------------
    def refresh(self) -> None:
        """Read the proposals again and list those the filters keep (the selection is
        kept where it is still listed)."""
        selected = self.selected()
        session, store = self.session, self.session.store
        self.writer.store = store  # File › Change reviewer may bind another session
        everything = store.proposals()
        shown = shown_proposals(
            everything, session.reviewer, session.study.blind, set(session.saved)
        )
        self.hidden = len(everything) - len(shown)
        status_wanted = self.status_filter.currentData()
        kind_wanted = self.kind_filter.currentData()
        text = self.search.text().strip().lower()
        latest = store.latest_decisions()  # one query, not one per proposal
        rows = []
        for proposal in shown:
            status = latest[proposal.uid].decision if proposal.uid in latest else "open"
            if status_wanted and status != status_wanted:
                continue
            if kind_wanted and proposal.kind != kind_wanted:
                continue
            haystack = f"{proposal.item_id} {proposal.author} {proposal.reason}".lower()
            if text and text not in haystack:
                continue
            rows.append((proposal, status))
        self.rows = rows
        self._fill_table(selected.uid if selected else None)
        hidden = (
            f" · {self.hidden} hidden until you commit their items (blind study)"
            if self.hidden
            else ""
        )
        self.count.setText(f"{len(rows)} listed of {len(everything)}{hidden}")

    def _fill_table(self, keep_uid: str | None) -> None:
        table = self.table
        table.blockSignals(True)
        table.setRowCount(len(self.rows))
        again = None
        for row, (proposal, status) in enumerate(self.rows):
            values = (
                proposal.item_id,
                proposal.kind.replace("_", " "),
                proposal.rule,
                proposal.author,
                proposal.reason.replace("\n", " "),
                local_time(proposal.created_at),
                status,
            )
            for column, value in enumerate(values):
                cell = QTableWidgetItem(value)
                cell.setToolTip(proposal.reason if column == 4 else value)
                table.setItem(row, column, cell)
            if proposal.uid == keep_uid:
                again = row
        table.blockSignals(False)
        if again is not None:
            table.selectRow(again)
        elif self.rows:
            table.selectRow(0)
        self._show_selected()

    def selected(self) -> Proposal | None:
        """The proposal selected in the list, or None."""
        row = self.table.currentRow()
        if 0 <= row < len(self.rows) and self.table.selectedItems():
            return self.rows[row][0]
        return None

    def select_item(self, item_id: str) -> None:
        """Select the first listed proposal of ``item_id`` (the window's line opens it)."""
        for row, (proposal, _status) in enumerate(self.rows):
            if proposal.item_id == item_id:
                self.table.selectRow(row)
                return

    # -- the selected proposal ----------------------------------------------------
    def _show_selected(self) -> None:
        proposal = self.selected()
        self._enable(proposal)
        if proposal is None:
            self.detail.setText("No proposal listed." if not self.rows else "")
            return
        history = self.session.store.decisions(proposal.uid)
        lines = [
            f"<b>{esc(proposal.item_id)}</b> · {esc(proposal.kind.replace('_', ' '))} · "
            f"rule {esc(proposal.rule)} · by {esc(proposal.author)} · "
            f"{esc(local_time(proposal.created_at))}",
            f"<p>{esc(change_line(proposal))}</p>",  # the words of proposals list
            f"<p><b>Reason:</b> {esc(proposal.reason)}</p>",
            "<p><b>Decisions</b> (the latest counts):</p>",
        ]
        if same_name(proposal.author, self.session.reviewer):  # "DR-A" is dr-a
            lines.insert(
                3,
                "<p><i>Your own proposal: another expert accepts or rejects it; you may "
                "withdraw it while it is open.</i></p>",
            )
        if history:
            lines += [
                f"{d.revision}. <b>{esc(d.decision)}</b> by {esc(d.decider)}, "
                f"{esc(local_time(d.created_at))}: {esc(d.reason)}<br>"
                for d in history
            ]
        else:
            lines.append("none yet (open)")
        self.detail.setText("".join(lines))

    def _enable(self, proposal: Proposal | None) -> None:
        status = next((s for p, s in self.rows if p is proposal), "")
        own = proposal is not None and same_name(proposal.author, self.session.reviewer)
        free = not self.writer.busy()
        decidable = proposal is not None and not own and status != WITHDRAWN and free
        self.accept_button.setEnabled(decidable)
        self.reject_button.setEnabled(decidable)
        self.withdraw_button.setEnabled(own and status == "open" and free)
        self.open_button.setEnabled(proposal is not None)
        why = "Your own proposal: another expert decides it (you may withdraw it)." if own else ""
        self.accept_button.setToolTip(why)
        self.reject_button.setToolTip(why)

    def decide(self, decision: str) -> None:
        """Store ``decision`` on the selected proposal with the typed reason."""
        proposal = self.selected()
        if proposal is None:
            return
        reason = self.reason.text().strip()
        if not reason:
            self._say(f"item {proposal.item_id} field reason: a decision needs a reason", True)
            self.reason.setFocus()
            return
        uid, decider = proposal.uid, self.session.reviewer
        self._say("Saving…")
        self.writer.run(
            lambda store: decide(store, uid, decision, reason, decider),
            lambda stored: self._decided(proposal, stored),
            self._not_decided,
        )
        self._enable(proposal)

    def _decided(self, proposal: Proposal, stored: object) -> None:
        decision = getattr(stored, "decision", "")
        self.reason.clear()
        self._say(f"{proposal.item_id}: {decision} (revision {getattr(stored, 'revision', '')}).")
        self.refresh()
        self.decided.emit(proposal.item_id)

    def _not_decided(self, message: str) -> None:
        self._say(f"Not saved: {message}", True)
        self._enable(self.selected())  # the reason is kept: try again or choose another

    def _open_current(self) -> None:
        proposal = self.selected()
        if proposal is not None:
            self.open_item.emit(proposal.item_id)

    def _say(self, text: str, error: bool = False) -> None:
        colour = f" style='color:{error_colour()}'" if error else ""
        self.message.setText(f"<span{colour}>{esc(text)}</span>")

    def closeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        """A decision under way is finished first (it is stored, never lost)."""
        self.writer.wait()
        super().closeEvent(event)
