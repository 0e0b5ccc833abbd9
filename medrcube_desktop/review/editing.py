"""Editing the current item's draft: scores, comment, tags, undo and redo, the flag.

A mixin of :class:`~medrcube_desktop.review.session.ReviewSessionState` (which sets the
attributes declared below), kept apart so each module stays small. Every edit is saved as
a draft at once and then told to the observers (also when the save failed: the edit
stays on screen).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from medrcube_desktop.core.rubric import CANNOT_JUDGE
from medrcube_desktop.review.draft import Draft, Snapshot
from medrcube_desktop.review.flow import Aspect
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.drafts import StoredDraft


class DraftEditingMixin:
    """Score, comment, tag, undo, redo and flag edits of the current item."""

    store: StudyStore
    reviewer: str
    flagged: set[str]

    if TYPE_CHECKING:

        @property
        def draft(self) -> Draft | None: ...

        @property
        def _position_key(self) -> str: ...

        def activity(self) -> None: ...

        def _notify(self, aspect: Aspect, item_id: str | None = None) -> None: ...

    def toggle(self, rule_id: str) -> int:
        """Score one rule: unscored → fail (0), fail → pass (1), pass → fail; "cannot
        judge" → fail.

        Returns the new value. Raises ``RuntimeError`` when no item is current and
        ``StoreError`` when the draft cannot be saved (the edit stays on screen).
        """
        draft = self._current_draft()
        value = 1 if draft.scores[rule_id] == 0 else 0
        self._edit("score", lambda d: d.scores.__setitem__(rule_id, value))
        return value

    def abstain(self, rule_id: str) -> int | str | None:
        """Say "cannot judge" on one rule (issue 24): any state → :data:`CANNOT_JUDGE`,
        and again → unscored (``None``), so a slip is undone with the same key.

        Returns the new value. An abstained rule is neither pass nor fail: the commit
        stores it as its own value and the item has no all-pass verdict. Raises as
        :meth:`toggle`.
        """
        draft = self._current_draft()
        value = None if draft.scores[rule_id] == CANNOT_JUDGE else CANNOT_JUDGE
        self._edit("score", lambda d: d.scores.__setitem__(rule_id, value))
        return value

    def pass_unscored(self) -> list[str]:
        """Score every unscored rule as pass (1); return the rules changed."""
        changed = self._current_draft().unscored()
        if changed:
            self._edit("score", lambda d: d.scores.update(dict.fromkeys(changed, 1)))
        return changed

    def set_comment(self, text: str) -> None:
        """Replace the draft comment (consecutive comment edits undo as one step)."""
        draft = self.draft
        if draft is not None and draft.comment != text:
            self._edit("comment", lambda d: setattr(d, "comment", text))

    def toggle_tag(self, tag: str) -> bool:
        """Add or remove a quick tag; return True when it is now set."""
        draft = self._current_draft()
        on = tag not in draft.tags
        self._edit("tag", lambda d: d.tags.append(tag) if on else d.tags.remove(tag))
        return on

    def undo(self) -> bool:
        """Undo the last score, comment or tag edit of the current item; False if none."""
        draft = self._current_draft()
        return self._step(draft, draft.undo_stack, draft.redo_stack)

    def redo(self) -> bool:
        """Redo the last undone edit of the current item; False if none."""
        draft = self._current_draft()
        return self._step(draft, draft.redo_stack, draft.undo_stack)

    def _step(self, draft: Draft, source: list[Snapshot], target: list[Snapshot]) -> bool:
        """Restore the last snapshot of ``source``, keeping the present one in ``target``."""
        if not source:
            return False
        target.append(draft.snapshot())
        draft.restore(source.pop())
        draft.last_edit = ""
        try:
            self._persist(draft)
        finally:  # a failed save still changed what is on screen
            self._notify(Aspect.DRAFT, draft.item_id)
        return True

    def _edit(self, kind: str, change: Callable[[Draft], object]) -> None:
        draft = self._current_draft()
        self.activity()
        if not (kind == "comment" and draft.last_edit == "comment"):  # typing is one step
            draft.undo_stack.append(draft.snapshot())
        draft.redo_stack.clear()
        draft.last_edit = kind
        change(draft)
        try:
            self._persist(draft)
        finally:  # a failed save keeps the edit on screen (shown as not saved)
            self._notify(Aspect.DRAFT, draft.item_id)

    def _persist(self, draft: Draft) -> None:
        """Save the draft (or drop it when back where it started) at once."""
        draft.dirty = draft.snapshot() != draft.base or draft.repeat
        if draft.dirty:
            self.store.save_draft(
                StoredDraft(
                    self.reviewer,
                    draft.item_id,
                    dict(draft.scores),
                    draft.comment,
                    tuple(draft.tags),
                    draft.repeat,
                    draft.active_seconds,
                    draft.started_at,
                    utc_now(),
                ),
                position_key=self._position_key,
            )
        else:
            self.store.delete_draft(self.reviewer, draft.item_id)

    def _current_draft(self) -> Draft:
        if self.draft is None:
            raise RuntimeError("no current item")
        return self.draft

    def toggle_flag(self) -> bool:
        """Flag or unflag the current item (saved at once); return True when flagged."""
        item_id = self._current_draft().item_id
        on = item_id not in self.flagged
        self.store.set_flag(self.reviewer, item_id, on, utc_now())
        (self.flagged.add if on else self.flagged.discard)(item_id)
        self._notify(Aspect.FLAG, item_id)
        return on
