"""Merging the several-experts tables (v5): adjudications and the assignment.

Used by :func:`medrcube_desktop.store.merging.merge`, inside its transaction.

- ``adjudications`` are recognised by ``uid``: a row is copied only when the target
  lacks it, so merging a file again adds nothing. Rows are never changed (triggers), so
  the target's revisions stay as they are; the copied revisions of an (item, target)
  follow the target's highest one, in the other file's revision order, so the other
  file's latest stays its latest. When both files hold revisions of an (item, target)
  the other lacks (two adjudicators decided it apart), the merged history is said in a
  conflict: the other file's latest is now the latest.
- The assignment (``assignment_settings``, ``assignments``) is copied when the target
  has none. Two different assignments (reviewers, overlap, seed, items or rows) are a
  conflict: the target's is kept and the message says what differs.
"""

from __future__ import annotations

import json
from typing import Any

ADJUDICATION_COLUMNS = (
    "uid", "item_id", "target", "value", "reason", "adjudicator", "revision", "resolves",
    "created_at", "app_version",
)  # fmt: skip


def merge_adjudications(db: Any, source: Any, label: str) -> tuple[int, list[str]]:
    """Copy ``source``'s adjudications the target ``db`` lacks; return how many were
    added and the conflicts (one line each, naming ``label``, the other file)."""
    columns = ", ".join(ADJUDICATION_COLUMNS)
    have = {row[0] for row in db.execute("SELECT uid FROM adjudications")}
    theirs = [
        dict(zip(ADJUDICATION_COLUMNS, values, strict=True))
        for values in source.execute(
            f"SELECT {columns} FROM adjudications ORDER BY item_id, target, revision"
        )
    ]
    their_uids = {row["uid"] for row in theirs}
    added, conflicts = 0, []
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in theirs:
        if row["uid"] not in have:
            groups.setdefault((row["item_id"], row["target"]), []).append(row)
    for (item_id, target), rows in groups.items():
        mine = db.execute(
            "SELECT uid, revision FROM adjudications WHERE item_id = ? AND target = ? "
            "ORDER BY revision",
            [item_id, target],
        ).fetchall()
        top = mine[-1][1] if mine else 0
        for offset, row in enumerate(rows, start=1):
            db["adjudications"].insert({**row, "revision": top + offset})
        added += len(rows)
        apart = [uid for uid, _ in mine if uid not in their_uids]
        if apart:
            last = rows[-1]
            conflicts.append(
                f"{label}: item {item_id} {_target_name(target)} was adjudicated in both "
                f"databases apart ({len(apart)} revision(s) only in the study, {len(rows)} "
                f"only in this file): this file's became revisions {top + 1}–"
                f"{top + len(rows)}, so the latest is now {last['adjudicator']}'s value "
                f"{last['value']} ({last['created_at']}); record a new revision if another "
                "should stand"
            )
    return added, conflicts


def _target_name(target: str) -> str:
    return "the verdict" if target == "verdict" else f"rule {target}"


def merge_assignment(db: Any, source: Any, label: str) -> tuple[int, list[str]]:
    """Copy ``source``'s assignment when the target ``db`` has none; return the rows
    added and the conflict (two different assignments: the target's is kept). A
    reviewer's part of the target's assignment (``assign --databases``: the same split,
    some of its reviewers and their rows) is no conflict."""
    theirs = _assignment(source)
    if theirs is None:
        return 0, []
    mine = _assignment(db)
    if mine is None:
        settings, rows = theirs
        db["assignment_settings"].insert({"id": 1, **settings})
        db["assignments"].insert_all(
            {"reviewer": r, "item_id": i, "overlap": o} for r, i, o in rows
        )
        return len(rows), []
    if _same(mine, theirs) or _part_of(theirs, mine):
        return 0, []
    return 0, [
        f"{label}: its assignment ({_describe(theirs)}) differs from the study's "
        f"({_describe(mine)}): the study's is kept; run `assign` again to choose one"
    ]


def _assignment(db: Any) -> tuple[dict, list[tuple[str, str, int]]] | None:
    row = db.execute(
        "SELECT reviewers, overlap, seed, n_items, created_at FROM assignment_settings"
    ).fetchone()
    if row is None:
        return None
    keys = ("reviewers", "overlap", "seed", "n_items", "created_at")
    rows = db.execute("SELECT reviewer, item_id, overlap FROM assignments ORDER BY rowid")
    return dict(zip(keys, row, strict=True)), [tuple(r) for r in rows]


def _same(a: tuple[dict, list], b: tuple[dict, list]) -> bool:
    """The same split (the time it was stored aside)."""
    keys = ("reviewers", "overlap", "seed", "n_items")
    return all(a[0][k] == b[0][k] for k in keys) and sorted(a[1]) == sorted(b[1])


def _part_of(part: tuple[dict, list], whole: tuple[dict, list]) -> bool:
    """Whether ``part`` is some reviewers' share of the split ``whole``: the same
    overlap, seed and item count, reviewers among its reviewers, rows among its rows."""
    keys = ("overlap", "seed", "n_items")
    return (
        all(part[0][k] == whole[0][k] for k in keys)
        and set(json.loads(part[0]["reviewers"])) <= set(json.loads(whole[0]["reviewers"]))
        and set(part[1]) <= set(whole[1])
    )


def _describe(assignment: tuple[dict, list]) -> str:
    settings, rows = assignment
    reviewers = ", ".join(json.loads(settings["reviewers"]))
    return (
        f"reviewers {reviewers}, overlap {settings['overlap']:g}, seed {settings['seed']}, "
        f"{settings['n_items']} items, {len(rows)} rows, made {settings['created_at']}"
    )
