"""The several-experts part of :class:`~medrcube_desktop.store.study_store.StudyStore`:
adjudications and the assignment of items (a mixin, so the facade stays small)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from medrcube_desktop.store import adjudications as adj
from medrcube_desktop.store.adjudications import Adjudication, AssignmentRecord
from medrcube_desktop.store.database import utc_now

T = TypeVar("T")


class ExpertStoreMixin:
    """Adjudications (history kept, latest wins) and the reviewers' assignment."""

    if False:  # pragma: no cover - provided by StudyStore

        def _read(self, what: str, query: Callable[..., T], *args: Any) -> T: ...

        def _write(self, what: str, write: Callable[..., T], *args: Any) -> T: ...

    def save_adjudication(self, adjudication: Adjudication) -> Adjudication:
        """Record an adjudicated value as the next revision of its (item, target) and
        return it as stored. Reviews and LLM judgments are never touched.

        Raises
        ------
        StoreError
            Unknown target, a value not 0/1, an empty reason or adjudicator, or the
            write fails.
        """
        row = adj.adjudication_row(adjudication, utc_now())
        what = f"save the adjudication of item {adjudication.item_id}, {adjudication.target}"
        return adj.from_row(self._write(what, adj.insert_adjudication, row))

    def save_adjudications(self, adjudications: Sequence[Adjudication]) -> list[Adjudication]:
        """Several adjudications (one item's disagreeing rules) in one transaction: all
        are stored or none."""
        when = utc_now()
        rows = [adj.adjudication_row(a, when) for a in adjudications]

        def write(db: Any) -> list[dict[str, Any]]:
            return [adj.insert_adjudication(db, row) for row in rows]

        stored = self._write(f"save {len(rows)} adjudications", write)
        return [adj.from_row(row) for row in stored]

    def adjudications(self) -> dict[str, dict[str, Adjudication]]:
        """The latest adjudication of every (item, target): item → target → it."""
        return self._read("read adjudications", adj.latest_adjudications)

    def adjudication_history(self, item_id: str) -> list[Adjudication]:
        """Every revision of every adjudication of one item."""
        what = f"read the adjudications of item {item_id}"
        return self._read(what, adj.adjudication_history, item_id)

    def save_assignment(
        self,
        reviewers: list[str],
        overlap: float,
        seed: int,
        n_items: int,
        pairs: list[tuple[str, str, bool]],
    ) -> AssignmentRecord:
        """Store an assignment in place of the previous one (one transaction)."""
        what = "save the assignment"
        self._write(what, adj.replace_assignment, reviewers, overlap, seed, n_items, pairs,
                    utc_now())  # fmt: skip
        record = self.assignment()
        assert record is not None
        return record

    def assignment(self) -> AssignmentRecord | None:
        """The study's assignment of items to reviewers, or ``None``."""
        return self._read("read the assignment", adj.assignment)

    def assigned_items(self, reviewer: str) -> set[str] | None:
        """The items assigned to ``reviewer``; ``None`` when the study has no assignment
        or does not name this reviewer (they see every item)."""
        record = self.assignment()
        if record is None or reviewer not in record.items:
            return None
        return set(record.items[reviewer])
