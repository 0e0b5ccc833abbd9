"""A review being edited: scores, comment, tags, undo history, active time."""

from __future__ import annotations

from dataclasses import dataclass, field

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import Review, utc_now
from medrcube_desktop.store.drafts import StoredDraft

Snapshot = tuple[tuple[int | str | None, ...], str, tuple[str, ...]]
"""What undo restores: scores in rubric order, comment, tags."""


class ReviewIncomplete(MedRCubeError):
    """A commit was refused: a rule is not scored, or a comment is missing.

    ``needs_comment`` is True when the missing piece is the comment; ``needs_note`` when
    it is the disagreement note.
    """

    def __init__(self, message: str, needs_comment: bool = False, needs_note: bool = False) -> None:
        super().__init__(message)
        self.needs_comment = needs_comment
        self.needs_note = needs_note


@dataclass
class Draft:
    """Scores, comment and tags being edited for one item (saved as a draft, not committed).

    ``scores`` maps each rule id to 1 (pass), 0 (fail),
    :data:`~medrcube_desktop.core.rubric.CANNOT_JUDGE` (the reviewer abstains: a value
    of its own, committed as such) or ``None`` (not scored yet). A
    fresh item starts unscored so that nothing is passed without a look; a committed item
    starts from its saved scores; an intra-rater repeat (``repeat``) starts unscored again.
    ``dirty`` is True while the draft differs from where it started. ``active_seconds``
    is the active time spent on it (seconds).
    """

    item_id: str
    scores: dict[str, int | str | None]
    comment: str = ""
    tags: list[str] = field(default_factory=list)
    started_at: str = field(default_factory=utc_now)
    dirty: bool = False
    repeat: bool = False
    active_seconds: float = 0.0
    base: Snapshot | None = None
    undo_stack: list[Snapshot] = field(default_factory=list)
    redo_stack: list[Snapshot] = field(default_factory=list)
    last_edit: str = ""

    def __post_init__(self) -> None:
        if self.base is None:
            self.base = self.snapshot()

    def unscored(self) -> list[str]:
        """Rule ids without a score, in rubric order."""
        return [rule for rule in RULE_IDS if self.scores[rule] is None]

    def snapshot(self) -> Snapshot:
        """The editable content, for undo."""
        return tuple(self.scores[r] for r in RULE_IDS), self.comment, tuple(self.tags)

    def restore(self, snapshot: Snapshot) -> None:
        """Put back an earlier :meth:`snapshot`."""
        values, self.comment, tags = snapshot
        self.scores = dict(zip(RULE_IDS, values, strict=True))
        self.tags = list(tags)


def draft_from_stored(stored: StoredDraft, saved: Review | None) -> Draft:
    """A draft read back after a restart: its edits count as unsaved changes, measured
    from the saved review (or from nothing scored)."""
    start = Draft(stored.item_id, {rule: None for rule in RULE_IDS})
    if saved is not None and not stored.repeat:
        start = Draft(stored.item_id, dict(saved.scores), saved.comment, list(saved.tags))
    draft = Draft(
        stored.item_id,
        dict(stored.scores),
        stored.comment,
        list(stored.tags),
        started_at=stored.started_at,
        repeat=stored.repeat,
        active_seconds=stored.active_seconds,
        base=start.snapshot(),
    )
    draft.dirty = True
    return draft
