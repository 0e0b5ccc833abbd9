"""Review-session state: which items are listed, which is current, the draft scores.

Plain Python (glue-style state object): the Qt views only display it and call its
methods, so the whole review flow is testable without a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store.reviews import Review, ReviewStore, utc_now

ALL = ""
"""Filter value meaning "no restriction"."""

STATUS_REVIEWED = "reviewed"
STATUS_UNREVIEWED = "unreviewed"


@dataclass
class ItemFilter:
    """Restrictions on the item list; ``ALL`` ("") means none.

    ``task`` is a Table 6 abbreviation; ``status`` is ``ALL``, ``"reviewed"`` or
    ``"unreviewed"`` (for the session's reviewer).
    """

    task: str = ALL
    modality: str = ALL
    region: str = ALL
    dataset: str = ALL
    status: str = ALL


class ReviewIncomplete(MedRCubeError):
    """A commit was refused: a rule is not scored, or a failed rule has no comment.

    ``needs_comment`` is True when the missing piece is the comment.
    """

    def __init__(self, message: str, needs_comment: bool = False) -> None:
        super().__init__(message)
        self.needs_comment = needs_comment


@dataclass
class Draft:
    """Scores and comment being edited for one item (not yet committed).

    ``scores`` maps each rule id to 1 (pass), 0 (fail) or ``None`` (not scored yet). A
    fresh item starts unscored so that nothing is passed without a look; a committed item
    starts from its saved scores. ``dirty`` is True once the reviewer changed something.
    """

    item_id: str
    scores: dict[str, int | None]
    comment: str = ""
    started_at: str = field(default_factory=utc_now)
    dirty: bool = False

    def unscored(self) -> list[str]:
        """Rule ids without a score, in rubric order."""
        return [rule for rule in RULE_IDS if self.scores[rule] is None]


class ReviewSessionState:
    """One reviewer working through one benchmark.

    Parameters
    ----------
    items : sequence of Item
        The benchmark's loadable items, in benchmark order.
    store : ReviewStore
        Where committed reviews go (written at once).
    reviewer : str
        Name stored with each review.
    require_comment_on_fail : bool
        When True (default) a review with a failed rule cannot be committed without a
        comment.

    Raises
    ------
    StoreError
        The reviewer's saved reviews cannot be read.
    """

    def __init__(
        self,
        items: Sequence[Item],
        store: ReviewStore,
        reviewer: str,
        require_comment_on_fail: bool = True,
    ) -> None:
        self.items = list(items)
        self._by_id = {item.id: item for item in self.items}
        self.store = store
        self.reviewer = reviewer
        self.require_comment_on_fail = require_comment_on_fail
        self.saved: dict[str, Review] = store.latest_reviews(reviewer)
        self.filter = ItemFilter()
        self.visible: list[Item] = list(self.items)
        self.current: Item | None = None
        self.drafts: dict[str, Draft] = {}

    # -- listing --------------------------------------------------------------
    def choices(self, attribute: str) -> list[str]:
        """Sorted distinct values of ``task`` (abbreviation), ``modality``, ``region`` or ``dataset``."""
        values = {
            item.task.abbreviation if attribute == "task" else getattr(item, attribute)
            for item in self.items
        }
        return sorted(values)

    def set_filter(self, item_filter: ItemFilter) -> list[Item]:
        """Apply a filter; return the visible items (benchmark order)."""
        self.filter = item_filter
        self.visible = [item for item in self.items if self._matches(item)]
        return self.visible

    def _matches(self, item: Item) -> bool:
        f = self.filter
        if f.task and item.task.abbreviation != f.task:
            return False
        if (f.modality and item.modality != f.modality) or (f.region and item.region != f.region):
            return False
        if f.dataset and item.dataset != f.dataset:
            return False
        if f.status == STATUS_REVIEWED:
            return item.id in self.saved
        if f.status == STATUS_UNREVIEWED:
            return item.id not in self.saved
        return True

    def progress(self) -> tuple[int, int]:
        """(reviewed, total) over the whole benchmark for this reviewer."""
        ids = {item.id for item in self.items}
        return len(ids & set(self.saved)), len(ids)

    # -- current item -----------------------------------------------------------
    @property
    def draft(self) -> Draft | None:
        """The draft of the current item (kept when the reviewer moves to another item)."""
        return self.drafts.get(self.current.id) if self.current is not None else None

    def select(self, item_id: str) -> Item:
        """Make an item current, keeping any unsaved draft of it.

        A new draft starts from the saved review, else with every rule unscored.
        Raises ``KeyError`` for an id that is not in the benchmark.
        """
        item = self._by_id[item_id]
        if item_id not in self.drafts:
            saved = self.saved.get(item_id)
            if saved is not None:
                self.drafts[item_id] = Draft(item_id, dict(saved.scores), saved.comment)
            else:
                self.drafts[item_id] = Draft(item_id, {rule: None for rule in RULE_IDS})
        draft = self.drafts[item_id]
        if not draft.dirty:  # the review of this item (re)starts now
            draft.started_at = utc_now()
        self.current = item
        return item

    def clear_current(self) -> None:
        """No item is current (for example when no item matches the filters)."""
        self.current = None

    def remember_position(self) -> None:
        """Store the current item as where this reviewer resumes (raises StoreError)."""
        if self.current is not None:
            self.store.set_state_quickly(f"last_item:{self.reviewer}", self.current.id)

    def is_saved_unchanged(self, item_id: str) -> bool:
        """True when the item is committed and its draft was not edited since."""
        return item_id in self.saved and not self.has_unsaved_changes(item_id)

    def has_unsaved_changes(self, item_id: str) -> bool:
        """True when the item has edits that are not committed."""
        draft = self.drafts.get(item_id)
        return draft is not None and draft.dirty

    def resume_item_id(self) -> str | None:
        """Item to open first: the last one this reviewer was on, else the first unreviewed."""
        last = self.store.get_state(f"last_item:{self.reviewer}")
        if last and any(i.id == last for i in self.visible):
            return last
        for item in self.visible:
            if item.id not in self.saved:
                return item.id
        return self.visible[0].id if self.visible else None

    def toggle(self, rule_id: str) -> int:
        """Score one rule: unscored → fail (0), fail → pass (1), pass → fail.

        Returns the new value. Raises ``RuntimeError`` when no item is current.
        """
        draft = self._current_draft()
        value = 1 if draft.scores[rule_id] == 0 else 0
        draft.scores[rule_id] = value
        draft.dirty = True
        return value

    def pass_unscored(self) -> list[str]:
        """Score every unscored rule as pass (1); return the rules changed."""
        draft = self._current_draft()
        changed = draft.unscored()
        for rule in changed:
            draft.scores[rule] = 1
        draft.dirty = draft.dirty or bool(changed)
        return changed

    def set_comment(self, text: str) -> None:
        """Replace the draft comment."""
        draft = self.draft
        if draft is not None and draft.comment != text:
            draft.comment = text
            draft.dirty = True

    def _current_draft(self) -> Draft:
        if self.draft is None:
            raise RuntimeError("no current item")
        return self.draft

    def commit(self) -> Review:
        """Save the draft as a committed review at once and return it.

        Raises
        ------
        RuntimeError
            No item is current.
        ReviewIncomplete
            A rule is unscored, or a rule failed without a comment while
            ``require_comment_on_fail`` is set.
        StoreError
            The database write failed (the draft is kept so nothing is lost).
        """
        draft = self._current_draft()
        unscored = draft.unscored()
        if unscored:
            raise ReviewIncomplete(
                f"item {draft.item_id}: score rule{'s' if len(unscored) > 1 else ''} "
                f"{', '.join(unscored)} first (P passes every unscored rule)"
            )
        failed = [rule for rule in RULE_IDS if draft.scores[rule] == 0]
        if failed and self.require_comment_on_fail and not draft.comment.strip():
            raise ReviewIncomplete(
                f"item {draft.item_id}: rule{'s' if len(failed) > 1 else ''} {', '.join(failed)} "
                "failed: say why in the comment",
                needs_comment=True,
            )
        review = self.store.save_review(
            Review(
                reviewer=self.reviewer,
                item_id=draft.item_id,
                scores={rule: int(value) for rule, value in draft.scores.items()},  # type: ignore[arg-type]
                comment=draft.comment.strip(),
                started_at=draft.started_at,
                committed_at=utc_now(),
            )
        )
        self.saved[review.item_id] = review
        self.drafts[review.item_id] = Draft(review.item_id, dict(review.scores), review.comment)
        return review

    def next_item_id(self) -> str | None:
        """The visible item after the current one, or ``None`` at the end of the list."""
        ids = [i.id for i in self.visible]
        if self.current is None or self.current.id not in ids:
            return ids[0] if ids else None
        position = ids.index(self.current.id)
        return ids[position + 1] if position + 1 < len(ids) else None
