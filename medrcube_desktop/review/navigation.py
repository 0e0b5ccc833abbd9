"""What comes next after a commit: a due intra-rater repeat, else the next visible item.

A mixin of :class:`~medrcube_desktop.review.session.ReviewSessionState` (which sets the
attributes declared below), kept apart so each module stays small.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from medrcube_desktop.core.items import Item
from medrcube_desktop.review.queues import is_repeat_candidate
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import Review


class NavigationMixin:
    """Intra-rater repeats and the item after the current one."""

    reviewer: str
    study: StudySettings
    saved: dict[str, Review]
    visible: list[Item]
    current: Item | None
    _by_id: dict[str, Item]
    file_problems: set[str]
    _first_order: list[str]
    _repeated: set[str]
    _after_repeat: str | None

    if TYPE_CHECKING:

        def has_unsaved_changes(self, item_id: str) -> bool: ...  # the session's

    def due_repeat(self) -> str | None:
        """An item due for its intra-rater repeat, or ``None``.

        An item is repeated when it is one of the study's ``repeat_share`` for this
        reviewer, has a first review followed by at least ``repeat_gap`` other first
        reviews, and has not been repeated yet.
        """
        share, gap = self.study.repeat_share, self.study.repeat_gap
        order = self._first_order
        for position, item_id in enumerate(order):
            if len(order) - 1 - position < gap:
                break
            if (
                item_id in self._by_id
                and item_id not in self.file_problems
                and item_id not in self._repeated
                and not self.has_unsaved_changes(item_id)  # never over a revision draft
                and is_repeat_candidate(self.reviewer, item_id, share)
            ):
                return item_id
        return None

    def next_target(self) -> tuple[str, bool] | None:
        """What to show after a commit: ``(item_id, is_repeat)``, or ``None`` when every
        visible item is reviewed.

        A due intra-rater repeat comes first, and afterwards the reviewer goes on from
        where they were before it. Otherwise the visible item after the current one; past
        the end of the list, the first visible item not reviewed yet (so a list re-ordered
        mid-way still offers every item).
        """
        following = self._after_repeat if self._after_repeat is not None else self.next_item_id()
        repeat = self.due_repeat()
        if repeat is not None and not (self.current is not None and self.current.id == repeat):
            self._after_repeat = following
            return repeat, True
        self._after_repeat = None
        if following is None:
            current = self.current.id if self.current is not None else None
            following = next(
                (i.id for i in self.visible if i.id not in self.saved and i.id != current), None
            )
        return (following, False) if following is not None else None

    def next_item_id(self) -> str | None:
        """The visible item after the current one, or ``None`` at the end of the list."""
        ids = [i.id for i in self.visible]
        if self.current is None or self.current.id not in ids:
            return ids[0] if ids else None
        position = ids.index(self.current.id)
        return ids[position + 1] if position + 1 < len(ids) else None
