"""Adjudicated verdicts (``adjudications``, v5) and the assignment of items among
reviewers (``assignments``, ``assignment_settings``, v5).

Named queries over a ``sqlite_utils.Database``, run by
:class:`~medrcube_desktop.store.study_store.StudyStore`. An adjudication is never
changed nor deleted (triggers refuse it): a revised one is the next ``revision`` of its
(item, target), and the latest revision wins. No query here touches ``reviews`` or
``judgments``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from medrcube_desktop import __version__
from medrcube_desktop.core.names import has_text as _has_text
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError

VERDICT = "verdict"
"""The target of an adjudication of the item's overall verdict (all seven pass)."""

TARGETS: tuple[str, ...] = (*RULE_IDS, VERDICT)
"""What an adjudication can settle: a rule id or the overall verdict."""


@dataclass(frozen=True)
class Adjudication:
    """One adjudicated value.

    Attributes
    ----------
    item_id : str
        The item's benchmark id.
    target : str
        A rule id (``"1.3"``) or ``"verdict"`` (:data:`TARGETS`).
    value : int
        0 (fail) or 1 (pass).
    reason : str
        Why (required, never empty).
    adjudicator : str
        Who decided.
    resolves : list of dict
        The judgments it settles: ``{"rater", "kind" ("review" or "llm"), "uid",
        "revision", "value"}`` each.
    revision : int
        1 for the first adjudication of (item, target), then 2, 3…
    """

    item_id: str
    target: str
    value: int
    reason: str
    adjudicator: str
    resolves: list[dict[str, Any]] = field(default_factory=list)
    revision: int = 0
    uid: str = ""
    created_at: str = ""
    app_version: str = ""


def adjudication_row(adj: Adjudication, when: str) -> dict[str, Any]:
    """The row of a new adjudication (revision filled in by :func:`insert_adjudication`).

    Raises
    ------
    StoreError
        Unknown target, a value not 0/1, an empty reason or adjudicator.
    """
    if adj.target not in TARGETS:
        raise StoreError(f"cannot adjudicate {adj.target!r}: one of {', '.join(TARGETS)}")
    if adj.value not in (0, 1) or isinstance(adj.value, bool):
        raise StoreError(f"item {adj.item_id}, {adj.target}: the value must be 0 or 1")
    if not isinstance(adj.item_id, str) or not adj.item_id.strip():
        raise StoreError("an adjudication needs the item's id")
    if not _has_text(adj.reason):
        raise StoreError(f"item {adj.item_id}, {adj.target}: an adjudication needs a reason")
    if not _has_text(adj.adjudicator):
        raise StoreError("an adjudication needs the adjudicator's name")
    return {
        "uid": adj.uid or uuid.uuid4().hex,
        "item_id": adj.item_id,
        "target": adj.target,
        "value": int(adj.value),
        "reason": adj.reason.strip(),
        "adjudicator": adj.adjudicator.strip(),
        "resolves": json.dumps(adj.resolves, sort_keys=True),
        "created_at": adj.created_at or when,
        "app_version": adj.app_version or __version__,
    }


def insert_adjudication(db: Any, row: dict[str, Any]) -> dict[str, Any]:
    """Insert ``row`` as the next revision of its (item, target); inside a transaction."""
    found = db.execute(
        "SELECT MAX(revision) FROM adjudications WHERE item_id = ? AND target = ?",
        [row["item_id"], row["target"]],
    ).fetchone()
    row = {**row, "revision": int(found[0] or 0) + 1}
    db["adjudications"].insert(row)
    return row


def from_row(row: dict[str, Any]) -> Adjudication:
    """An :class:`Adjudication` from a stored row."""
    return Adjudication(
        item_id=row["item_id"],
        target=row["target"],
        value=int(row["value"]),
        reason=row["reason"],
        adjudicator=row["adjudicator"],
        resolves=json.loads(row["resolves"] or "[]"),
        revision=int(row["revision"]),
        uid=row["uid"],
        created_at=row["created_at"],
        app_version=row["app_version"],
    )


def latest_adjudications(db: Any) -> dict[str, dict[str, Adjudication]]:
    """The latest revision of every adjudicated (item, target): item → target → it."""
    rows = db.query(
        "SELECT a.* FROM adjudications a JOIN (SELECT item_id, target, MAX(revision) AS r "
        "FROM adjudications GROUP BY item_id, target) m ON a.item_id = m.item_id "
        "AND a.target = m.target AND a.revision = m.r ORDER BY a.item_id, a.target"
    )
    out: dict[str, dict[str, Adjudication]] = {}
    for row in rows:
        out.setdefault(row["item_id"], {})[row["target"]] = from_row(row)
    return out


def adjudication_history(db: Any, item_id: str) -> list[Adjudication]:
    """Every adjudication of one item, by target and then oldest revision first."""
    rows = db.query(
        "SELECT * FROM adjudications WHERE item_id = ? ORDER BY target, revision", [item_id]
    )
    return [from_row(row) for row in rows]


# ---------------------------------------------------------------------- assignment


@dataclass(frozen=True)
class AssignmentRecord:
    """A stored assignment: who reviews which items.

    ``items`` maps each reviewer to their item ids (benchmark order of the split);
    ``overlap_items`` are the items given to two reviewers.
    """

    reviewers: tuple[str, ...]
    overlap: float
    seed: int
    n_items: int
    created_at: str
    items: dict[str, tuple[str, ...]]
    overlap_items: frozenset[str]


def replace_assignment(
    db: Any,
    reviewers: list[str],
    overlap: float,
    seed: int,
    n_items: int,
    pairs: list[tuple[str, str, bool]],
    when: str,
) -> None:
    """Store an assignment in place of any previous one; inside a transaction.

    ``pairs`` are ``(reviewer, item_id, is_overlap)``. Reviews are not touched.
    """
    db.execute("DELETE FROM assignments")
    db.execute("DELETE FROM assignment_settings")
    db["assignment_settings"].insert(
        {
            "id": 1,
            "reviewers": json.dumps(reviewers),
            "overlap": overlap,
            "seed": seed,
            "n_items": n_items,
            "created_at": when,
        }  # fmt: skip
    )
    db["assignments"].insert_all(
        {"reviewer": r, "item_id": i, "overlap": int(o)} for r, i, o in pairs
    )


def assignment(db: Any) -> AssignmentRecord | None:
    """The stored assignment, or ``None`` when the study has none."""
    row = db.execute(
        "SELECT reviewers, overlap, seed, n_items, created_at FROM assignment_settings"
    ).fetchone()
    if row is None:
        return None
    reviewers = tuple(json.loads(row[0]))
    items: dict[str, list[str]] = {name: [] for name in reviewers}
    overlap_items = set()
    for reviewer, item_id, is_overlap in db.execute(
        "SELECT reviewer, item_id, overlap FROM assignments ORDER BY rowid"
    ):
        items.setdefault(reviewer, []).append(item_id)
        if is_overlap:
            overlap_items.add(item_id)
    return AssignmentRecord(
        reviewers,
        float(row[1]),
        int(row[2]),
        int(row[3]),
        row[4],
        {name: tuple(ids) for name, ids in items.items()},
        frozenset(overlap_items),
    )
