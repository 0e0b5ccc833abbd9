"""Merging proposed corrections and their decisions (v9).

Used by :func:`medrcube_desktop.store.merging.merge`, inside its transaction. Each
reviewer may propose and decide in their own file (``assign --databases``); ``merge``
brings the proposals and decisions back into the study.

- ``proposals`` are recognised by ``uid``: one the target lacks is copied as it is (its
  record as it was, its mask labels), in the other file's order; merging again adds
  nothing. A proposal is never changed, so one both files hold is the same proposal.
- ``proposal_decisions`` are recognised by ``uid`` too. The decisions copied onto a
  proposal follow the target's highest revision of it, in the other file's revision
  order, so the other file's latest stays its latest. When both files decided a proposal
  apart, the merged history is said in a conflict: the other file's latest is now the
  latest. The database's triggers still refuse a decision by the proposal's author
  (other than a withdrawal).
"""

from __future__ import annotations

from typing import Any

PROPOSAL_COLUMNS = (
    "uid", "item_id", "kind", "rule", "reason", "author", "change", "record_before",
    "source_file", "mask_labels", "created_at", "app_version",
)  # fmt: skip
DECISION_COLUMNS = (
    "uid", "proposal_uid", "revision", "decision", "reason", "decider", "created_at",
    "app_version",
)  # fmt: skip


def _rows(conn: Any, columns: tuple[str, ...], sql_tail: str) -> list[dict[str, Any]]:
    cursor = conn.execute(f"SELECT {', '.join(columns)} {sql_tail}")
    return [dict(zip(columns, values, strict=True)) for values in cursor]


def merge_proposals(db: Any, source: Any, label: str) -> tuple[int, int, list[str]]:
    """Copy ``source``'s proposals and decisions the target ``db`` lacks; return how many
    proposals and decisions were added and the conflicts (one line each, naming
    ``label``, the other file)."""
    have = {row[0] for row in db.execute("SELECT uid FROM proposals")}
    proposals = [
        row
        for row in _rows(source, PROPOSAL_COLUMNS, "FROM proposals ORDER BY id")
        if row["uid"] not in have
    ]
    for row in proposals:
        db["proposals"].insert(row)
    theirs = _rows(
        source, DECISION_COLUMNS, "FROM proposal_decisions ORDER BY proposal_uid, revision"
    )
    their_uids = {row["uid"] for row in theirs}
    known = {row[0] for row in db.execute("SELECT uid FROM proposal_decisions")}
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in theirs:
        if row["uid"] not in known:
            groups.setdefault(row["proposal_uid"], []).append(row)
    added, conflicts = 0, []
    for proposal_uid, rows in groups.items():
        mine = db.execute(
            "SELECT uid, revision FROM proposal_decisions WHERE proposal_uid = ? ORDER BY revision",
            [proposal_uid],
        ).fetchall()
        top = mine[-1][1] if mine else 0
        for offset, row in enumerate(rows, start=1):
            db["proposal_decisions"].insert({**row, "revision": top + offset})
        added += len(rows)
        apart = [uid for uid, _ in mine if uid not in their_uids]
        if apart:
            last = rows[-1]
            conflicts.append(
                f"{label}: proposal {proposal_uid} was decided in both databases apart "
                f"({len(apart)} decision(s) only in the study, {len(rows)} only in this "
                f"file): this file's became revisions {top + 1}–{top + len(rows)}, so the "
                f"latest is now {last['decider']}'s {last['decision']} "
                f"({last['created_at']}); decide again if another should stand"
            )
    return len(proposals), added, conflicts
