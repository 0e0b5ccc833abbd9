"""Review-session state: which items are listed, which is current, the draft scores.

Plain Python (glue-style state object): the Qt views only display it and call its
methods, so the whole review flow is testable without a window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from medrcube_desktop.core.items import Item
from medrcube_desktop.review.rubric import RULE_IDS
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


@dataclass
class Draft:
    """Scores and comment being edited for the current item (not yet committed)."""

    item_id: str
    scores: dict[str, int]
    comment: str = ""
    started_at: str = field(default_factory=utc_now)


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
    """

    def __init__(self, items: Sequence[Item], store: ReviewStore, reviewer: str) -> None:
        self.items = list(items)
        self.store = store
        self.reviewer = reviewer
        self.saved: dict[str, Review] = store.latest_reviews(reviewer)
        self.filter = ItemFilter()
        self.visible: list[Item] = list(self.items)
        self.current: Item | None = None
        self.draft: Draft | None = None

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
    def select(self, item_id: str) -> Item:
        """Make an item current; the draft starts from the saved review, else all pass.

        Raises ``KeyError`` for an id that is not in the benchmark.
        """
        item = next((i for i in self.items if i.id == item_id), None)
        if item is None:
            raise KeyError(item_id)
        self.current = item
        saved = self.saved.get(item_id)
        if saved is not None:
            self.draft = Draft(item_id, dict(saved.scores), saved.comment)
        else:
            self.draft = Draft(item_id, {rule: 1 for rule in RULE_IDS})
        self.store.set_state(f"last_item:{self.reviewer}", item_id)
        return item

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
        """Flip one rule of the draft between pass (1) and fail (0); return the new value."""
        if self.draft is None:
            raise RuntimeError("no current item")
        self.draft.scores[rule_id] = 1 - self.draft.scores[rule_id]
        return self.draft.scores[rule_id]

    def set_comment(self, text: str) -> None:
        """Replace the draft comment."""
        if self.draft is not None:
            self.draft.comment = text

    def commit(self) -> Review:
        """Save the draft as a committed review at once and return it.

        Raises
        ------
        RuntimeError
            No item is current.
        StoreError
            The database write failed (the draft is kept so nothing is lost).
        """
        if self.draft is None or self.current is None:
            raise RuntimeError("no current item")
        review = self.store.save_review(
            Review(
                reviewer=self.reviewer,
                item_id=self.draft.item_id,
                scores=dict(self.draft.scores),
                comment=self.draft.comment.strip(),
                started_at=self.draft.started_at,
                committed_at=utc_now(),
            )
        )
        self.saved[review.item_id] = review
        return review

    def next_item_id(self) -> str | None:
        """The visible item after the current one, or ``None`` at the end of the list."""
        ids = [i.id for i in self.visible]
        if self.current is None or self.current.id not in ids:
            return ids[0] if ids else None
        position = ids.index(self.current.id)
        return ids[position + 1] if position + 1 < len(ids) else None
