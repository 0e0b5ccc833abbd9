"""Scoring in the review window: rules, comment, tags, flag, undo, commit, reveal.

A mixin of :class:`~medrcube_desktop.ui.main_window.MainWindow`, which provides the
widgets (``rubric_pane``, ``reveal_pane``, ``list_pane``, ``image_view``) and the
session; kept apart so each module stays small. Every edit goes through the session,
which saves it as a draft at once; a failed save is shown, never hidden.
"""

from __future__ import annotations

import logging
import math

from PySide6.QtWidgets import QMessageBox

from medrcube_desktop.errors import StoreError
from medrcube_desktop.review.session import ReviewIncomplete

log = logging.getLogger(__name__)


def format_duration(seconds: float) -> str:
    """``about 3 h 05 min``, ``about 12 min`` (rounded up) or ``under 1 min``."""
    if seconds < 60:
        return "under 1 min"
    minutes = math.ceil(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h {minutes:02d} min" if hours else f"about {minutes} min"


class ReviewControls:
    """Key 1–7, P, F, Ctrl+Z/Ctrl+Shift+Z, tags, Enter (commit), the reveal and its note."""

    def _guarded(self, edit) -> bool:
        """Run a session edit; show a failed draft save in the status bar. True if run."""
        if self.session.current is None:
            return False
        try:
            edit()
        except StoreError as exc:
            log.error("draft not saved: %s", exc)
            self.statusBar().showMessage(f"Draft NOT saved: {exc}", 15000)
        return True

    def toggle_rule(self, rule_id: str) -> None:
        """Key 1–7: score one rule of the current item (unscored → fail → pass → fail)."""
        if self._guarded(lambda: self.session.toggle(rule_id)):
            self._draft_changed()

    def pass_unscored(self) -> None:
        """Key P: pass every rule of the current item that is not scored yet."""
        if self._guarded(self.session.pass_unscored):
            self._draft_changed()

    def _comment_edited(self, text: str) -> None:
        if self._guarded(lambda: self.session.set_comment(text)):
            self._draft_changed(scores=False)

    def _tag_toggled(self, tag: str) -> None:
        if self._guarded(lambda: self.session.toggle_tag(tag)):
            self._draft_changed()

    def undo(self) -> None:
        """Ctrl+Z: undo the last score, comment or tag edit of the current item."""
        if self.session.current is not None and self._guarded(self.session.undo):
            self._draft_changed(comment=True)

    def redo(self) -> None:
        """Ctrl+Shift+Z / Ctrl+Y: redo what Undo took back."""
        if self.session.current is not None and self._guarded(self.session.redo):
            self._draft_changed(comment=True)

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
        if self.session.current is None:
            return
        try:
            on = self.session.toggle_flag()
        except StoreError as exc:
            self.statusBar().showMessage(f"Flag NOT saved: {exc}", 15000)
            return
        self.list_pane.set_mark(self.session.current, self._mark(self.session.current.id))
        self.statusBar().showMessage(
            f"{self.session.current.id} {'flagged' if on else 'unflagged'}.", 4000
        )
        self._show_saved_status()

    def _draft_changed(self, scores: bool = True, comment: bool = False) -> None:
        draft = self.session.draft
        if scores or comment:
            self.rubric_pane.show_scores(draft.scores)
            self.rubric_pane.show_tags(draft.scores, draft.tags)
        if comment:
            self.rubric_pane.show_comment(draft.comment)
        self.list_pane.set_mark(self.session.current, self._mark(self.session.current.id))
        self._show_saved_status()
        self._refresh_actions()
        if self.session.is_revealed(self.session.current.id):  # the comparison follows edits
            self._show_reveal()

    def _mark(self, item_id: str) -> str:
        if self.session.has_unsaved_changes(item_id):
            mark = "✎"
        else:
            mark = "✓" if item_id in self.session.saved else ""
        return f"{mark}⚑" if item_id in self.session.flagged else mark

    def _show_reveal(self) -> None:
        """The reveal pane for the current item: hidden (blind) or side by side."""
        current = self.session.current
        reveal = self.session.reveal(current.id) if current is not None else None
        if reveal is None:
            self.rubric_pane.show_comparison("", None, [])
            draft = self.session.draft
            self.reveal_pane.show_hidden(
                draft is not None and draft.repeat, anything=current is not None
            )
            return
        self.rubric_pane.show_comparison(reveal.llm_model, reveal.llm, reveal.disagreements)
        pending = self.session.note_needed
        rules = pending[1] if pending and pending[0].item_id == current.id else None
        self.reveal_pane.show_reveal(reveal, rules)

    def commit(self) -> None:
        """Enter: save the draft at once; reveal the LLM judgment, then go on."""
        current = self.session.current
        if current is None:
            self.statusBar().showMessage("No item to commit.", 4000)
            return
        if self.session.note_needed and not self.session.has_unsaved_changes(current.id):
            self._save_note(self.reveal_pane.note.text())
            return  # (changed scores instead: they are committed below as a new revision)
        if self.session.is_saved_unchanged(current.id):
            # nothing new to save: Enter only moves on (no duplicate revision)
            self.statusBar().showMessage("Nothing changed since the last commit.", 3000)
            self._go_next(None)
            return
        was_hidden = self.session.reveal(current.id) is None
        try:
            review = self.session.commit()
        except ReviewIncomplete as exc:
            self.rubric_pane.show_status(str(exc), problem=True)
            if exc.needs_comment:
                self.rubric_pane.comment.setFocus()
            return
        except StoreError as exc:
            log.exception("commit failed")
            QMessageBox.critical(
                self, "Review not saved", f"{exc}\n\nYour scores are still on screen."
            )
            return
        self.list_pane.set_mark(current, self._mark(current.id))
        self._update_progress()
        what = "repeat" if review.repeat else f"revision {review.revision}"
        self.statusBar().showMessage(f"Saved {review.item_id} ({what}).", 4000)
        reveal = self.session.reveal(current.id)
        if (
            was_hidden
            and not review.repeat
            and reveal is not None
            and (reveal.llm is not None or reveal.others)
        ):
            # Blind study: show what was hidden before going on; Enter continues.
            self.rubric_pane.show_scores(self.session.draft.scores)
            self._show_reveal()
            self._show_saved_status()
            self.right_scroll.ensureWidgetVisible(self.reveal_pane)
            if self.session.note_needed:
                rules = ", ".join(self.session.note_needed[1])
                self.rubric_pane.show_status(
                    f"Saved ({what}). You differ from {self.session.llm_model} on {rules}: "
                    "say why in the box above the comment and press Enter, or change your "
                    "scores and press Enter to commit them.",
                    problem=True,
                )
                self.reveal_pane.note.setFocus()
            else:
                self.rubric_pane.show_status(f"Saved ({what}). Revealed below; Enter: next item.")
                self.image_view.setFocus()
            return
        self._go_next(review.revision)

    def _save_note(self, text: str) -> None:
        """The disagreement note (Enter in its box, or Enter while it is pending)."""
        try:
            self.session.add_disagreement_note(text)
        except ReviewIncomplete as exc:
            self.rubric_pane.show_status(str(exc), problem=True)
            self.reveal_pane.note.setFocus()
            return
        except StoreError as exc:
            QMessageBox.critical(self, "Note not saved", f"{exc}\n\nYour note is still on screen.")
            return
        self.statusBar().showMessage("Disagreement note saved.", 4000)
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
