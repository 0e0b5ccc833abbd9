"""Drafts (``drafts``): the per-keystroke side of a review session.

A draft is written on every edit (DESIGN.md: "a crash loses at most the edit in
progress") and deleted in the transaction that commits the review. Named queries over a
``sqlite_utils.Database``, run by :class:`~medrcube_desktop.store.study_store.StudyStore`
(errors to StoreError, writes in a transaction).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.errors import StoreError


@dataclass(frozen=True)
class StoredDraft:
    """An uncommitted review as saved.

    Attributes
    ----------
    reviewer, item_id : str
    scores : dict[str, int | None]
        Rule id to 1 (pass), 0 (fail), ``CANNOT_JUDGE`` (the expert abstains; the JSON
        string ``"cannot judge"``) or ``None`` (not scored yet); all seven rules.
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
    scores: dict[str, int | str | None]
    comment: str
    tags: tuple[str, ...]
    repeat: bool
    active_seconds: float
    started_at: str
    updated_at: str


def draft_row(draft: StoredDraft) -> dict[str, Any]:
    """The ``drafts`` columns of a draft (scores and tags as JSON, seconds to 1 ms).

    Raises
    ------
    StoreError
        A score is not 0, 1 or None, or active seconds are negative or not finite.
    """
    if set(draft.scores) != set(RULE_IDS) or any(
        v not in (0, 1, None, CANNOT_JUDGE) for v in draft.scores.values()
    ):
        raise StoreError(
            f"item {draft.item_id}: draft scores must be 0, 1, {CANNOT_JUDGE!r} or unscored"
        )
    if not (math.isfinite(draft.active_seconds) and draft.active_seconds >= 0):
        raise StoreError(f"item {draft.item_id}: active seconds must be >= 0")
    return {
        "reviewer": draft.reviewer,
        "item_id": draft.item_id,
        "scores": json.dumps(draft.scores),
        "comment": draft.comment,
        "tags": json.dumps(list(draft.tags), ensure_ascii=False),
        "repeat": int(draft.repeat),
        "active_seconds": round(draft.active_seconds, 3),
        "started_at": draft.started_at,
        "updated_at": draft.updated_at,
    }


def replace_draft(db: Any, row: dict[str, Any]) -> None:
    """Write a :func:`draft_row`, replacing the reviewer's draft of the item."""
    db["drafts"].insert(row, replace=True)


def delete_draft(db: Any, reviewer: str, item_id: str) -> None:
    """Drop the draft of one item by one reviewer (nothing when there is none)."""
    db.execute("DELETE FROM drafts WHERE reviewer = ? AND item_id = ?", [reviewer, item_id])


def drafts(db: Any, reviewer: str) -> dict[str, StoredDraft]:
    """Every saved draft of ``reviewer``, by item id (``ValueError`` on broken JSON)."""
    found = {}
    for row in db.query("SELECT * FROM drafts WHERE reviewer = ?", [reviewer]):
        parsed = json.loads(row["scores"])
        found[row["item_id"]] = StoredDraft(
            reviewer,
            row["item_id"],
            {rule: parsed.get(rule) for rule in RULE_IDS},
            row["comment"],
            tuple(json.loads(row["tags"])),
            bool(row["repeat"]),
            float(row["active_seconds"]),
            row["started_at"],
            row["updated_at"],
        )
    return found
