"""Flags and disagreement notes: what a reviewer attaches to an item or to a review.

``flags`` holds one row per (reviewer, item), an unflag included, so that ``merge`` lets
the later change win. ``disagreement_notes`` holds one note per committed review: why
the reviewer keeps scores that disagree with the revealed LLM judgment (the review row
itself is never changed). Named queries over a ``sqlite_utils.Database``, run by
:class:`~medrcube_desktop.store.study_store.StudyStore`.
"""

from __future__ import annotations

import json
from typing import Any


def upsert_flag(db: Any, reviewer: str, item_id: str, flagged: bool, when: str) -> None:
    """Set whether ``reviewer`` flags ``item_id``, changed at ``when`` (ISO 8601 UTC)."""
    db["flags"].upsert(
        {"reviewer": reviewer, "item_id": item_id, "flagged": int(flagged), "changed_at": when},
        pk=("reviewer", "item_id"),
    )


def flags(db: Any, reviewer: str) -> set[str]:
    """Ids of the items ``reviewer`` has flagged (and not unflagged since)."""
    rows = db.execute("SELECT item_id FROM flags WHERE reviewer = ? AND flagged = 1", [reviewer])
    return {r[0] for r in rows}


def replace_note(
    db: Any, review_uid: str, model: str, rules: list[str], comment: str, when: str
) -> None:
    """Store the disagreement note of one review, replacing an earlier one
    (``sqlite3.IntegrityError`` when no review has that uid)."""
    db["disagreement_notes"].insert(
        {
            "review_uid": review_uid,
            "model": model,
            "rules": json.dumps(rules),
            "comment": comment,
            "created_at": when,
        },
        replace=True,
    )


def noted_review_uids(db: Any, reviewer: str) -> set[str]:
    """uids of ``reviewer``'s reviews that have a disagreement note."""
    rows = db.execute(
        "SELECT n.review_uid FROM disagreement_notes n JOIN reviews r ON r.uid = n.review_uid "
        "WHERE r.reviewer = ?",
        [reviewer],
    )
    return {r[0] for r in rows}


def disagreement_notes(db: Any, reviewer: str) -> dict[str, str]:
    """The note of ``reviewer``'s reviews, by item id (the latest revision's note wins)."""
    rows = db.execute(
        "SELECT r.item_id, n.comment FROM disagreement_notes n JOIN reviews r "
        "ON r.uid = n.review_uid WHERE r.reviewer = ? ORDER BY r.revision",
        [reviewer],
    )
    return dict(rows.fetchall())
