"""Drafts, flags and disagreement notes: the per-keystroke side of a review session.

A draft is written on every edit (DESIGN.md: "a crash loses at most the edit in
progress") and deleted in the transaction that commits the review. Queries are a mixin of
:class:`~medrcube_desktop.store.reviews.ReviewStore`, which provides ``conn`` and
``_read``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.base import StoreBase


@dataclass(frozen=True)
class StoredDraft:
    """An uncommitted review as saved.

    Attributes
    ----------
    reviewer, item_id : str
    scores : dict[str, int | None]
        Rule id to 1 (pass), 0 (fail) or ``None`` (not scored yet); all seven rules.
    comment : str
    tags : tuple of str
    repeat : bool
        True when the draft is an intra-rater repeat of a committed item.
    active_seconds : float
        Active time spent on the draft so far (seconds).
    started_at, updated_at : str
        ISO 8601 UTC timestamps.
    """

    reviewer: str
    item_id: str
    scores: dict[str, int | None]
    comment: str
    tags: tuple[str, ...]
    repeat: bool
    active_seconds: float
    started_at: str
    updated_at: str


class DraftQueries(StoreBase):
    """Draft, flag and disagreement-note queries (mixed into ``ReviewStore``)."""

    def save_draft(self, draft: StoredDraft, position_key: str | None = None) -> None:
        """Write (replace) a draft at once; with ``position_key``, also store the item as
        the resume position (``app_state``) in the same transaction.

        Raises
        ------
        StoreError
            A score is not 0, 1 or None, active seconds are negative, or the write fails.
        """
        if set(draft.scores) != set(RULE_IDS) or any(
            v not in (0, 1, None) for v in draft.scores.values()
        ):
            raise StoreError(f"item {draft.item_id}: draft scores must be 0, 1 or unscored")
        if not (math.isfinite(draft.active_seconds) and draft.active_seconds >= 0):
            raise StoreError(f"item {draft.item_id}: active seconds must be >= 0")
        row = (
            draft.reviewer,
            draft.item_id,
            json.dumps(draft.scores),
            draft.comment,
            json.dumps(list(draft.tags), ensure_ascii=False),
            int(draft.repeat),
            round(draft.active_seconds, 3),
            draft.started_at,
            draft.updated_at,
        )

        def write() -> None:
            with self.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.execute(
                    "INSERT OR REPLACE INTO drafts (reviewer, item_id, scores, comment, tags, "
                    "repeat, active_seconds, started_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    row,
                )
                if position_key:
                    self.conn.execute(
                        "INSERT INTO app_state (key, value) VALUES (?, ?) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (position_key, draft.item_id),
                    )

        self._read(write, f"save the draft of item {draft.item_id}")

    def drafts(self, reviewer: str) -> dict[str, StoredDraft]:
        """Every saved draft of ``reviewer``, by item id (raises StoreError)."""

        def query() -> dict[str, StoredDraft]:
            rows = self.conn.execute(
                "SELECT item_id, scores, comment, tags, repeat, active_seconds, started_at, "
                "updated_at FROM drafts WHERE reviewer = ?",
                (reviewer,),
            ).fetchall()
            found = {}
            for item_id, scores, comment, tags, repeat, active, started, updated in rows:
                parsed = json.loads(scores)
                found[item_id] = StoredDraft(
                    reviewer,
                    item_id,
                    {rule: parsed.get(rule) for rule in RULE_IDS},
                    comment,
                    tuple(json.loads(tags)),
                    bool(repeat),
                    float(active),
                    started,
                    updated,
                )
            return found

        return self._read(query, "read drafts")

    def delete_draft(self, reviewer: str, item_id: str) -> None:
        """Drop a draft (the reviewer discarded their edits; raises StoreError)."""

        def write() -> None:
            self.conn.execute(
                "DELETE FROM drafts WHERE reviewer = ? AND item_id = ?", (reviewer, item_id)
            )

        self._read(write, f"discard the draft of item {item_id}")

    def set_flag(self, reviewer: str, item_id: str, flagged: bool, when: str) -> None:
        """Flag or unflag an item for a reviewer, at once (raises StoreError).

        An unflag is kept as a row with ``flagged = 0`` and its time, so that ``merge``
        lets the later of two changes win.
        """

        def write() -> None:
            self.conn.execute(
                "INSERT INTO flags (reviewer, item_id, flagged, changed_at) VALUES (?,?,?,?) "
                "ON CONFLICT (reviewer, item_id) DO UPDATE SET flagged = excluded.flagged, "
                "changed_at = excluded.changed_at",
                (reviewer, item_id, int(flagged), when),
            )

        self._read(write, f"flag item {item_id}")

    def flags(self, reviewer: str) -> set[str]:
        """Ids of the items ``reviewer`` has flagged (raises StoreError)."""
        return self._read(
            lambda: {
                r[0]
                for r in self.conn.execute(
                    "SELECT item_id FROM flags WHERE reviewer = ? AND flagged = 1", (reviewer,)
                )
            },
            "read flags",
        )

    def add_disagreement_note(
        self, review_uid: str, model: str, rules: list[str], comment: str, when: str
    ) -> None:
        """Store why a reviewer keeps scores that disagree with the revealed LLM judgment.

        One note per committed review (a second note replaces the first); the review row
        itself is never changed. Raises StoreError.
        """

        def write() -> None:
            self.conn.execute(
                "INSERT OR REPLACE INTO disagreement_notes (review_uid, model, rules, comment, "
                "created_at) VALUES (?,?,?,?,?)",
                (review_uid, model, json.dumps(rules), comment, when),
            )

        self._read(write, "save the disagreement note")

    def noted_review_uids(self, reviewer: str) -> set[str]:
        """uids of ``reviewer``'s reviews that have a disagreement note (raises StoreError)."""
        return self._read(
            lambda: {
                r[0]
                for r in self.conn.execute(
                    "SELECT n.review_uid FROM disagreement_notes n JOIN reviews r "
                    "ON r.uid = n.review_uid WHERE r.reviewer = ?",
                    (reviewer,),
                )
            },
            "read disagreement notes",
        )

    def disagreement_notes(self, reviewer: str) -> dict[str, str]:
        """Disagreement notes of ``reviewer``'s reviews, by item id (raises StoreError)."""
        return self._read(
            lambda: {
                item: comment
                for item, comment in self.conn.execute(
                    "SELECT r.item_id, n.comment FROM disagreement_notes n JOIN reviews r "
                    "ON r.uid = n.review_uid WHERE r.reviewer = ? ORDER BY r.revision",
                    (reviewer,),
                )
            },
            "read disagreement notes",
        )
