"""What the review session tells its observers, and what a commit (Enter) did.

Plain Python (no Qt): the session calls its observers synchronously after each change;
the review window subscribes one callback and re-renders what the change names, so no
widget is refreshed by hand after an edit.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from medrcube_desktop.store import Review

__all__ = ["Aspect", "Change", "CommitKind", "CommitOutcome", "Observable", "Observer"]


class Aspect(enum.Enum):
    """Which part of the session state changed."""

    CURRENT = "current"
    """Another item is current, or none (``Change.item_id`` is the new one or None)."""
    DRAFT = "draft"
    """Scores, comment or tags of the item's draft (an edit, undo or redo)."""
    SAVED = "saved"
    """A review of the item was committed (the draft starts again from it)."""
    NOTE = "note"
    """The disagreement note of the item's latest review was stored."""
    FLAG = "flag"
    """The item was flagged or unflagged."""
    VISIBLE = "visible"
    """The filtered, ordered list of visible items changed."""
    JUDGMENTS = "judgments"
    """The LLM judgments were read again (still hidden per the blinding rule)."""


@dataclass(frozen=True)
class Change:
    """One change of a session: its aspect and the item it concerns (``None``: none or
    all)."""

    aspect: Aspect
    item_id: str | None = None


Observer = Callable[[Change], None]
"""``observer(change)``; called on the thread that changed the session."""


class CommitKind(enum.Enum):
    """What Enter did on the current item."""

    COMMITTED = "committed"
    """A review was saved; go on to the next item."""
    REVEALED = "revealed"
    """A review was saved and what the blind study hid is now shown; Enter goes on."""
    NOTE_PENDING = "note pending"
    """Saved and revealed; the reviewer differs from the LLM and the study wants a note
    (Enter with a note stores it and goes on; changed scores commit a new revision)."""
    NOTE_SAVED = "note saved"
    """The pending disagreement note was stored; go on."""
    UNCHANGED = "unchanged"
    """The item is committed and was not edited since: nothing saved; go on."""
    NO_ITEM = "no item"
    """No item is current: nothing happened."""


@dataclass(frozen=True)
class CommitOutcome:
    """The result of :meth:`ReviewSessionState.commit`.

    ``review`` is the review saved (None when nothing was saved); ``note_rules`` the rules
    a pending note is about (``NOTE_PENDING`` only).
    """

    kind: CommitKind
    review: Review | None = None
    note_rules: tuple[str, ...] = ()

    @property
    def goes_on(self) -> bool:
        """Whether the reviewer moves on to the next item now."""
        return self.kind in (CommitKind.COMMITTED, CommitKind.NOTE_SAVED, CommitKind.UNCHANGED)


class Observable:
    """A plain observer list: ``subscribe(fn)``, ``unsubscribe(fn)``, ``_notify(...)``.

    Observers are called in subscription order; an exception in one propagates to the
    caller of the change (nothing is swallowed).
    """

    _observers: list[Observer]

    def subscribe(self, observer: Observer) -> None:
        """Call ``observer(change)`` after every change from now on."""
        if not hasattr(self, "_observers"):
            self._observers = []
        self._observers.append(observer)

    def unsubscribe(self, observer: Observer) -> None:
        """Stop calling ``observer`` (no error when it was not subscribed)."""
        observers = getattr(self, "_observers", [])
        if observer in observers:
            observers.remove(observer)

    def _notify(self, aspect: Aspect, item_id: str | None = None) -> None:
        change = Change(aspect, item_id)
        for observer in list(getattr(self, "_observers", [])):
            observer(change)
