"""The corrections part of the review window (``window.corrections``): Review › Propose
correction… for the item on screen, and the line under the question that counts its open
proposals. It is given what it uses at construction, never the window.

The domain rules are :mod:`medrcube_desktop.review.proposing`'s: a proposal is built from
the item and its record as ``test.json`` holds it (read on the worker that stores it),
checked against the item (the box inside the image, the labels of the slice's shape) and
refused in a blind study before the reviewer's own commit of the item. The menu entry is
enabled only after that commit, so the refusal is what a stale window meets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStatusBar, QWidget

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.imaging.edit_slice import EditSlice
from medrcube_desktop.review.corrections import KINDS, Proposal
from medrcube_desktop.ui.corrections.propose_dialog import ProposeDialog
from medrcube_desktop.ui.corrections.saving import StoreWriter

if TYPE_CHECKING:
    from medrcube_desktop.core.items import Item
    from medrcube_desktop.review.session import ReviewSessionState

STATUS_MS = 8000


def store_proposal(store, item: Item, draft: Proposal, edit: EditSlice | None) -> Proposal:
    """Build ``draft``'s proposal for ``item`` (its record read now) and store it; run on
    the worker with its own store.

    Raises
    ------
    CorrectionError
        The change does not fit the item, its record cannot be read, or the study is
        blind and the author has not committed the item.
    StoreError
        A bad rule, reason or author, or the write fails.
    """
    from medrcube_desktop.review.proposing import build_proposal, propose

    size = None if edit is None else (edit.stored_shape[1], edit.stored_shape[0])
    proposal = build_proposal(
        item,
        draft.kind,
        draft.rule,
        draft.reason,
        draft.author,
        draft.change,
        draft.mask_labels,
        image_size=size,
        slice_shape=None if edit is None else edit.stored_shape,
        current_labels=_current_labels(edit),
    )
    return propose(store, proposal)


def _current_labels(edit: EditSlice | None):
    """The labels the edited slice holds now, in stored rows and columns (a proposal
    must differ from them): the item's mask undisplayed, zeros without a mask."""
    if edit is None:
        return None
    import numpy as np

    from medrcube_desktop.imaging.edit_slice import stored_labels

    if edit.labels is None:
        return np.zeros(edit.stored_shape, np.uint8)
    return stored_labels(edit.labels, edit.transform)


def failed_rules(session: ReviewSessionState, item_id: str) -> list[str]:
    """The rules the reviewer's committed review of ``item_id`` fails (0), in rubric
    order; empty without a review."""
    saved = session.saved.get(item_id)
    if saved is None:
        return []
    return [rule for rule in RULE_IDS if saved.scores.get(rule) == 0]


class CorrectionsControls(QObject):
    """Propose a correction for the current item; say how many are open on it.

    ``session()`` is the window's session now; ``load_slice(item)`` (on the GUI thread)
    gives the function that reads the slice the window shows as the editors need it
    (run on the render pool, so the window's choices are taken first); ``show_line(text)``
    puts the count under the question (``""`` hides it); ``proposals_changed(item_id)``
    after a proposal is stored (the queue, when open, reads it again).
    """

    def __init__(
        self,
        parent: QWidget,
        session: Callable[[], ReviewSessionState],
        status: QStatusBar,
        load_slice: Callable[[Item], Callable[[], EditSlice]],
        show_line: Callable[[str], None],
        proposals_changed: Callable[[str], None],
    ) -> None:
        super().__init__(parent)
        self._parent, self._session, self.status = parent, session, status
        self.load_slice, self.show_line = load_slice, show_line
        self.proposals_changed = proposals_changed
        self.writer = StoreWriter(session().store, self)
        self.dialog: ProposeDialog | None = None

    @property
    def session(self) -> ReviewSessionState:
        """The window's session now."""
        return self._session()

    def can_propose(self) -> bool:
        """An item is on screen and, in a blind study, the reviewer has committed it."""
        session = self.session
        current = session.current
        if current is None:
            return False
        return not session.study.blind or current.id in session.saved

    def propose(self, kind: str | None = None) -> str:
        """Review › Propose correction…: the dialog for the current item (``kind``: the
        page it opens on, one of :data:`KINDS`). What happened, for the status bar."""
        session = self.session
        item = session.current
        if item is None:
            return "No item on screen"
        if not self.can_propose():
            return "Blind study: commit your review of the item before proposing a correction"
        if self.dialog is not None and self.dialog.isVisible():
            if self.dialog.item.id == item.id:
                self.dialog.raise_()
                return ""
            self.dialog.reject()  # another item now: nothing of it was stored
        dialog = ProposeDialog(
            self._parent, item, session.reviewer, self.load_slice(item), self._save
        )
        if kind in KINDS:
            dialog.set_kind(kind)
        failed = failed_rules(session, item.id)
        if failed:  # the rule the reviewer failed is what a correction answers, likely
            dialog.rule.setCurrentIndex(dialog.rule.findData(failed[0]))
        if session.text_only(item.id):
            dialog.image_message.setText("This item ships without its image: text kinds only.")
        dialog.submitted.connect(self._submitted)
        self.dialog = dialog
        dialog.show()
        return ""

    def _save(self, draft: Proposal, done, failed) -> None:
        item = self.session.current if self.dialog is None else self.dialog.item
        edit = self.dialog.edit if self.dialog is not None else None
        self.writer.store = self.session.store
        self.writer.run(lambda store: store_proposal(store, item, draft, edit), done, failed)

    def _submitted(self, stored: Proposal) -> None:
        self.status.showMessage(
            f"Proposal saved: {stored.kind.replace('_', ' ')} of item {stored.item_id} "
            f"(rule {stored.rule}); another expert accepts or rejects it (Review › Proposals…).",
            STATUS_MS,
        )
        self.refresh_line()
        self.proposals_changed(stored.item_id)

    def refresh_line(self) -> None:
        """The line under the question: the current item's open proposals (those the
        reviewer may see), or nothing."""
        session = self.session
        current = session.current
        if current is None:
            self.show_line("")
            return
        try:
            proposals = session.store.proposals(current.id)
            latest = session.store.latest_decisions() if proposals else {}
        except StoreError as exc:
            self.show_line(f"Proposals of item {current.id} cannot be read: {exc}")
            return
        from medrcube_desktop.review.proposing import shown_proposals

        shown = shown_proposals(
            proposals, session.reviewer, session.study.blind, set(session.saved)
        )
        open_ = [p for p in shown if p.uid not in latest]
        decided = len(shown) - len(open_)
        if not shown:
            self.show_line("")
            return
        parts = []
        if open_:
            parts.append(f"{len(open_)} open proposal{'s' if len(open_) != 1 else ''}")
        if decided:
            parts.append(f"{decided} decided")
        self.show_line(" · ".join(parts))

    def close(self) -> None:
        """The window closes: a proposal being stored is finished first."""
        self.writer.wait()
