"""Items whose files fail their checks, found after the session started.

The review window loads a benchmark with record checks only and checks the files on a
worker thread once the first item is shown (``Benchmark.check_files``). An item found
with a file problem (a missing image, a mask of the wrong kind) is not loadable, as
``validate`` counts: it leaves the visible list and the progress total, so the window's
counts agree with ``validate``. The item on screen stays until the reviewer moves on
(its error is shown there); reviews already committed stay stored.

A mixin of :class:`~medrcube_desktop.review.session.ReviewSessionState` (which sets the
attributes declared below), kept apart so each module stays small.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from medrcube_desktop.core.items import Item
from medrcube_desktop.review.flow import Aspect

__all__ = ["FileProblemsMixin"]


class FileProblemsMixin:
    """Leaving out the items whose files fail their checks."""

    file_problems: set[str]
    """Ids of the session's items found with a file problem."""
    visible: list[Item]
    current: Item | None
    _by_id: dict[str, Item]

    if TYPE_CHECKING:

        def _notify(self, aspect: Aspect, item_id: str | None = None) -> None: ...

    def files_failed(self, item_ids: Iterable[str]) -> None:
        """Items found with a file problem: they leave the visible list (the current one
        once the reviewer moves on) and the progress total. Ids that are not items of
        the session (records left out at load) are ignored."""
        new = {i for i in item_ids if i in self._by_id} - self.file_problems
        if not new:
            return
        self.file_problems |= new
        self._list_without_file_problems()

    def left_out_for_files(self) -> int:
        """How many of the session's items are left out for a file problem."""
        return len(self.file_problems)

    def listable(self, items: list[Item]) -> list[Item]:
        """``items`` without those with a file problem (the current item kept)."""
        if not self.file_problems:
            return items
        current = self.current.id if self.current is not None else None
        bad = self.file_problems
        return [item for item in items if item.id not in bad or item.id == current]

    def _list_without_file_problems(self) -> None:
        """Drop the items with a file problem from the visible list (not the current
        one); tell the observers when the list changed."""
        kept = self.listable(self.visible)
        if len(kept) != len(self.visible):
            self.visible = kept
        self._notify(Aspect.VISIBLE)  # the count line says how many were left out
