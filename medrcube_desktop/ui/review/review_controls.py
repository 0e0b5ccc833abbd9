"""Scoring in the review window: rules, comment, tags, flag, undo, commit, the note.

A part the window owns (``window.scoring``), given the widgets, the session and the way
to show another item at construction. Each handler only calls the session, which saves the edit at
once, decides what Enter does (:meth:`ReviewSessionState.commit` returns the outcome)
and tells the window's :class:`~medrcube_desktop.ui.review.review_binding.ReviewBinding` what to
re-render. Here remain the messages and the focus that follow an outcome; a failed save
is shown, never hidden.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QPoint, QTimer
from PySide6.QtWidgets import QMessageBox, QScrollArea, QStatusBar, QWidget

from medrcube_desktop.errors import StoreError
from medrcube_desktop.review.flow import CommitKind, CommitOutcome
from medrcube_desktop.review.session import ReviewIncomplete

if TYPE_CHECKING:
    from medrcube_desktop.review.session import ReviewSessionState
    from medrcube_desktop.ui.review.reveal_pane import RevealPane
    from medrcube_desktop.ui.review.rubric_pane import RubricPane
    from medrcube_desktop.ui.widgets.image_view import ImageView

__all__ = ["ReviewControls"]

REVEAL_MARGIN = 8
"""Pixels kept above and below the reveal when the column is scrolled to it."""

log = logging.getLogger(__name__)


class ReviewControls:
    """Key 1–7, P, F, Ctrl+Z/Ctrl+Shift+Z, tags, Enter (commit), the disagreement note."""

    def __init__(
        self,
        session: Callable[[], ReviewSessionState],
        rubric_pane: RubricPane,
        reveal_pane: RevealPane,
        image_view: ImageView,
        right_scroll: QScrollArea,
        status: QStatusBar,
        show_item: Callable[..., None],
        parent: QWidget,
    ) -> None:
        """``session()`` is the window's session now; ``show_item(item_id, repeat=False)``
        moves the window to an item; ``parent`` owns the message boxes."""
        self._session = session
        self.rubric_pane, self.reveal_pane = rubric_pane, reveal_pane
        self.image_view, self.right_scroll, self.status = image_view, right_scroll, status
        self.show_item, self.parent = show_item, parent
        rubric_pane.toggled.connect(self.toggle_rule)
        rubric_pane.abstained.connect(self.abstain_rule)
        rubric_pane.comment_edited.connect(self.comment_edited)
        rubric_pane.commit_requested.connect(self.commit)
        rubric_pane.tag_toggled.connect(self._tag_toggled)
        reveal_pane.note_submitted.connect(self._save_note)

    @property
    def session(self) -> ReviewSessionState:
        """The window's session now."""
        return self._session()

    def _guarded(self, edit) -> bool:
        """Run a session edit; show a failed draft save in the status bar. True if run."""
        if self.session.current is None:
            return False
        try:
            edit()
        except StoreError as exc:
            log.error("draft not saved: %s", exc)
            self.status.showMessage(f"Draft NOT saved: {exc}", 15000)
        return True

    def toggle_rule(self, rule_id: str) -> str:
        """Key 1–7: score one rule of the current item (unscored → fail → pass → fail);
        what it did, for the status bar ("Rule 1.1 passed")."""
        done: list[int] = []
        if not self._guarded(lambda: done.append(self.session.toggle(rule_id))):
            return "No item is shown: nothing to score"
        if not done:  # the save failed; the status bar says so already
            return ""
        return f"Rule {rule_id} {'passed' if done[0] else 'failed'}"

    def abstain_rule(self, rule_id: str) -> str:
        """Alt+1–7 (or a right-click on the rule): "cannot judge" one rule of the current
        item (again: unscored); what it did, for the status bar."""
        done: list[object] = []
        if not self._guarded(lambda: done.append(self.session.abstain(rule_id))):
            return "No item is shown: nothing to score"
        if not done:
            return ""
        if done[0] is None:
            return f"Rule {rule_id}: not scored"
        return f"Rule {rule_id}: cannot judge (neither pass nor fail)"

    def pass_unscored(self) -> str:
        """Key P: pass every rule of the current item that is not scored yet; what it
        did, for the status bar ("Passed the unscored rules 1.2, 2.1")."""
        done: list[list[str]] = []
        if not self._guarded(lambda: done.append(self.session.pass_unscored())):
            return "No item is shown: nothing to score"
        if not done:
            return ""
        changed = done[0]
        if not changed:
            return "Every rule is scored already: nothing changed"
        return f"Passed the unscored rule{'' if len(changed) == 1 else 's'} {', '.join(changed)}"

    def comment_edited(self, text: str) -> None:
        self._guarded(lambda: self.session.set_comment(text))

    def _tag_toggled(self, tag: str) -> None:
        self._guarded(lambda: self.session.toggle_tag(tag))

    def undo(self) -> None:
        """Ctrl+Z: undo the last score, comment or tag edit of the current item."""
        self._guarded(self.session.undo)

    def redo(self) -> None:
        """Ctrl+Shift+Z / Ctrl+Y: redo what Undo took back."""
        self._guarded(self.session.redo)

    def can_undo(self) -> bool:
        """Whether Undo has something to take back (the action's enabled-when)."""
        draft = self.session.draft
        return draft is not None and bool(draft.undo_stack)

    def can_redo(self) -> bool:
        """Whether Redo has something to put back."""
        draft = self.session.draft
        return draft is not None and bool(draft.redo_stack)

    def toggle_flag(self) -> None:
        """Key F: flag the item for a second look (or unflag it); saved at once."""
        current = self.session.current
        if current is None:
            return
        try:
            on = self.session.toggle_flag()
        except StoreError as exc:
            self.status.showMessage(f"Flag NOT saved: {exc}", 15000)
            return
        self.status.showMessage(f"{current.id} {'flagged' if on else 'unflagged'}.", 4000)

    def commit(self) -> str | None:
        """Enter: what the session decides (commit, reveal, ask for a note, go on).

        Returns why nothing was saved, for the status bar, or None (the outcome's own
        messages say what was saved)."""
        noting = self.session.enter_saves_note()
        from_comment = self.rubric_pane.comment.hasFocus()  # Enter typed in the comment box
        try:
            outcome = self.session.commit(self.reveal_pane.note.text())
        except ReviewIncomplete as exc:
            self.rubric_pane.show_status(str(exc), problem=True)
            if exc.needs_note:
                self.reveal_pane.note.setFocus()
            elif exc.needs_comment:
                self.rubric_pane.comment.setFocus()
            message = self._refusal(exc, from_comment)
            self.status.showMessage(message, 10000)  # Enter did something: say what
            return message
        except StoreError as exc:
            log.exception("commit failed")
            what = "Note" if noting else "Review"
            shown = "note" if noting else "scores"
            QMessageBox.critical(
                self.parent, f"{what} not saved", f"{exc}\n\nYour {shown} are still on screen."
            )
            return f"{what} NOT saved: {exc}"
        self._show_outcome(outcome)
        return None

    def _refusal(self, exc: ReviewIncomplete, from_comment: bool) -> str:
        """The status bar's words for a refused commit. Enter in the comment box commits
        (Shift+Enter is the new line), so when it is refused there the words say both:
        ``Score every rule to commit (3 left); Shift+Enter for a new line``."""
        draft = self.session.draft
        left = len(draft.unscored()) if draft is not None else 0
        if left and not (exc.needs_comment or exc.needs_note):
            message = f"Score every rule to commit ({left} left)"
        else:
            message = f"Not committed: {exc}"
        return message + ("; Shift+Enter for a new line" if from_comment else "")

    def _show_outcome(self, outcome: CommitOutcome) -> None:
        """The messages and the focus that follow what Enter did."""
        kind, review = outcome.kind, outcome.review
        if kind is CommitKind.NO_ITEM:
            self.status.showMessage("No item to commit.", 4000)
            return
        if kind is CommitKind.NOTE_SAVED:
            self.status.showMessage("Disagreement note saved.", 4000)
        elif kind is CommitKind.UNCHANGED:
            self.status.showMessage("Nothing changed since the last commit.", 3000)
        if review is None:
            self._go_next(None)
            return
        what = "repeat" if review.repeat else f"revision {review.revision}"
        self.status.showMessage(f"Saved {review.item_id} ({what}).", 4000)
        if kind is CommitKind.COMMITTED:
            self._go_next(review.revision)
            return
        # Blind study: what was hidden is shown before going on; Enter continues.
        self.bring_reveal_into_view()
        if kind is CommitKind.NOTE_PENDING:
            self.rubric_pane.show_status(
                f"Saved ({what}). You differ from {self.session.llm_model} on "
                f"{', '.join(outcome.note_rules)}: say why in the box above the comment and "
                "press Enter, or change your scores and press Enter to commit them.",
                problem=True,
            )
            self.reveal_pane.note.setFocus()
        else:
            self.rubric_pane.show_status(f"Saved ({what}). Revealed below; Enter: next item.")
            self.image_view.setFocus()

    def bring_reveal_into_view(self) -> None:
        """Scroll the right column so that the reveal is in view: whole where it fits,
        else its top (the summary and rule 1.4's evidence). Done once the column's
        layout has settled: at once, the reveal still has the size of the one line
        it had before the commit (at 1366 × 768 its table was left below the fold)."""
        QTimer.singleShot(0, self._scroll_to_reveal)

    def _scroll_to_reveal(self) -> None:
        column = self.right_scroll.widget()
        if column is None or not self.reveal_pane.isVisible():
            return
        self.reveal_pane.layout().activate()  # its new height, now (a label grew)
        column.layout().activate()  # and the column's, with it
        # the scroll area resizes the column, and so its scroll range, on the column's
        # posted LayoutRequest: handled now, or the range ends short of the new height
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        top = self.reveal_pane.mapTo(column, QPoint(0, 0)).y()
        height, view = self.reveal_pane.height(), self.right_scroll.viewport().height()
        bar = self.right_scroll.verticalScrollBar()
        if height + 2 * REVEAL_MARGIN <= view:
            self.right_scroll.ensureWidgetVisible(self.reveal_pane, 0, REVEAL_MARGIN)
        elif height <= view:  # whole, without the margins
            bar.setValue(top + height - view)
        else:  # its top: the summary and rule 1.4's evidence (Qt's own would centre it)
            bar.setValue(top)

    def _save_note(self, text: str) -> None:
        """Enter in the note box: store the disagreement note and go on."""
        try:
            self.session.add_disagreement_note(text)
        except ReviewIncomplete as exc:
            self.rubric_pane.show_status(str(exc), problem=True)
            self.reveal_pane.note.setFocus()
            return
        except StoreError as exc:
            QMessageBox.critical(
                self.parent, "Note not saved", f"{exc}\n\nYour note is still on screen."
            )
            return
        self.status.showMessage("Disagreement note saved.", 4000)
        self._go_next(None)

    def _go_next(self, revision: int | None) -> None:
        target = self.session.next_target()
        if target is None:
            self.rubric_pane.show_status(
                "End of the list."
                if revision is None
                else f"Saved: revision {revision}. End of the list."
            )
        else:
            self.show_item(*target)
        self.image_view.setFocus()  # keys 1–7 score the next item, not the comment box
