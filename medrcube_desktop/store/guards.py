"""The append-only guards of a study database: checked on every open.

Committed reviews (v7), adjudications (v5), proposed corrections and their decisions
(v9) are append-only at the database: triggers refuse a DELETE, an UPDATE of their
content, and an INSERT (REPLACE included) that would collide with a stored row
(``review_db/migrations/0005_experts.sql``, ``0007_append_only_reviews.sql``,
``0009_proposals.sql``). A trigger can be dropped with plain SQL; a file whose
guards are missing, or are not the ones the migrations wrote, may hold changed first
judgments, so every open (writing or read only, :func:`check_guards`) refuses it with a
message naming the file and the triggers, and says how to put them back
(:func:`restore_guards`, the ``restore-guards`` command) once the user has looked.
"""

from __future__ import annotations

import re
import sqlite3
from functools import cache
from pathlib import Path

from medrcube_desktop.errors import StoreError

GUARD_TRIGGERS = (
    "adjudications_never_updated",
    "adjudications_never_deleted",
    "adjudications_never_replaced",
    "reviews_never_deleted",
    "reviews_never_replaced",
    "reviews_never_changed",
    "reviews_first_judgment_kept",
    "reviews_revision_kept",
    "reviews_uid_kept",
    "reviews_abstained_never_changed",
    "reviews_abstained_checked",
    "proposals_never_updated",
    "proposals_never_deleted",
    "proposals_never_replaced",
    "proposal_decisions_never_updated",
    "proposal_decisions_never_deleted",
    "proposal_decisions_never_replaced",
    "proposal_decisions_not_the_authors",
)
"""Names of the triggers that keep reviews, adjudications, proposals and their
decisions append-only (v5, v7, v8, v9), and refuse an abstention (v11) that is not
one. Every other
trigger the migrations create (``reviews_uid_default``) is checked as these are, and a
trigger no migration created is refused (it could change rows the guards let through)."""

_CREATE = re.compile(r"^CREATE\s+TRIGGER\s+(\w+)", re.IGNORECASE)
_DROP = re.compile(r"^DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(\w+)", re.IGNORECASE)


def expected_guards(version: int | None = None) -> dict[str, str]:
    """``{trigger name: CREATE TRIGGER statement}`` of every trigger (the guards and
    ``reviews_uid_default``) as the shipped migrations up to ``version`` (default: all)
    leave it (a later migration's version replaces an earlier one)."""
    from medrcube_desktop.store.migrations import available_migrations

    return dict(
        _guards_of(tuple(m for m in available_migrations() if version is None or m[0] <= version))
    )


@cache
def _guards_of(migrations: tuple[tuple[int, str, str], ...]) -> tuple[tuple[str, str], ...]:
    from medrcube_desktop.store.migrations import _statements

    found: dict[str, str] = {}
    for _, _, sql in migrations:
        for statement in map(_without_leading_comments, _statements(sql)):
            if match := _CREATE.match(statement):
                found[match.group(1)] = statement
            elif match := _DROP.match(statement):
                found.pop(match.group(1), None)
    return tuple(found.items())


def _without_leading_comments(statement: str) -> str:
    """A statement without the ``--`` comment lines before it (SQLite stores a trigger's
    text from its CREATE)."""
    lines = statement.splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("--")):
        lines.pop(0)
    return "\n".join(lines)


def _normal(sql: str | None) -> str:
    """SQL text with runs of white space made one space, a trailing ``;`` dropped."""
    return " ".join((sql or "").split()).rstrip(";").strip()


def broken_guards(conn: sqlite3.Connection) -> list[str]:
    """The triggers of ``conn``'s database that are not as the migrations up to its
    schema version left them: each missing one by name, a changed one with
    ``" (changed)"``, one no migration created (on any table) with ``" (not the app's)"``;
    in migration order, foreign ones last by name."""
    return [name + why for name, why in _broken(conn)]


def _broken(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """:func:`broken_guards` as (trigger name, ``""`` / ``" (changed)"`` / ``" (not the
    app's)"``)."""
    from medrcube_desktop.store.migrations import current_version

    stored = dict(
        conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
    )
    expected = expected_guards(current_version(conn))
    broken = []
    for name, sql in expected.items():
        if name not in stored:
            broken.append((name, ""))
        elif _normal(stored[name]) != _normal(sql):
            broken.append((name, " (changed)"))
    broken += [(name, " (not the app's)") for name in stored if name not in expected]
    return broken


def renumbered_items(conn: sqlite3.Connection, limit: int = 3) -> list[str]:
    """``"reviewer/item (revisions 1, 3, 99)"`` for up to ``limit`` (reviewer, item)
    pairs whose revisions are not exactly 1..n: the app only ever leaves 1..n (a commit
    takes the next number, renumber_revisions sets 1..n), so a gap or a number above n
    is an UPDATE made outside the app."""
    rows = conn.execute(
        "SELECT reviewer, item_id, group_concat(revision, ', ') FROM "
        "(SELECT reviewer, item_id, revision FROM reviews ORDER BY reviewer, item_id, revision) "
        "GROUP BY reviewer, item_id HAVING MAX(revision) <> COUNT(*) LIMIT ?",
        [limit],
    ).fetchall()
    return [f"{reviewer}/{item} (revisions {numbers})" for reviewer, item, numbers in rows]


def check_guards(conn: sqlite3.Connection, path: Path | None) -> None:
    """Refuse a database whose append-only guards are missing or changed.

    Parameters
    ----------
    conn : sqlite3.Connection
        A database migrated to the current schema.
    path : Path or None
        The file, named in the message (``None``: in memory).

    Raises
    ------
    StoreError
        ``"FILE: its append-only guards were removed or changed outside the app
        (trigger …): …"``, with the command that restores them (a trigger no migration
        created counts: ``"NAME (not the app's)"``); or ``"FILE: review revisions were
        renumbered outside the app (…)"`` when an item's revisions are not 1..n
        (:func:`renumbered_items`).
    """
    broken = broken_guards(conn)
    where = str(path) if path is not None else ":memory:"
    if not broken:
        renumbered = renumbered_items(conn)
        if renumbered:
            raise StoreError(
                f"{where}: review revisions were renumbered outside the app "
                f"({'; '.join(renumbered)}), so an item's history may be out of order; "
                "not opened. Restore the file from a backup"
            )
        return
    raise StoreError(
        f"{where}: its append-only guards were removed or changed outside the app "
        f"(trigger {', '.join(broken)}), so its reviews, adjudications or proposals may have been "
        "edited; not opened. Check the file against its backups, then put the guards "
        f"back with: medrcube-desktop restore-guards --db {where}"
    )


def restore_guards(conn: sqlite3.Connection) -> list[str]:
    """Drop and create again every missing or changed trigger, and drop every trigger
    no migration created, in one transaction; return the names restored and, for each
    trigger dropped, ``"NAME (not the app's, dropped)"`` (``[]`` when all were in place).

    Raises ``sqlite3.Error`` as it comes (the transaction is rolled back).
    """
    from medrcube_desktop.store.migrations import current_version

    broken = _broken(conn)
    if not broken:
        return []
    expected = expected_guards(current_version(conn))
    conn.execute("BEGIN IMMEDIATE")
    try:
        for name, _ in broken:
            quoted = name.replace('"', '""')
            conn.execute(f'DROP TRIGGER IF EXISTS "{quoted}"')
            if name in expected:
                conn.execute(expected[name])
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return [name if name in expected else f"{name} (not the app's, dropped)" for name, _ in broken]


def restore_file(path: Path) -> list[str]:
    """Migrate ``path`` (a backup copy first, as every migration) and put back its
    missing or changed guards, dropping triggers the app did not create
    (:func:`restore_guards`); return what was restored or dropped.

    Raises
    ------
    StoreError
        ``path`` is not an existing review database file, or SQLite fails (naming it).
    """
    from medrcube_desktop.store.migrations import current_version, migrate

    if not path.is_file():
        raise StoreError(f"{path}: no such review database file")
    try:
        conn = sqlite3.connect(path, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open review database: {exc}") from exc
    try:
        if current_version(conn) == 0:
            raise StoreError(f"{path}: not a review database (no schema_migrations table)")
        migrate(conn, path)
        return restore_guards(conn)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot restore the append-only guards: {exc}") from exc
    finally:
        conn.close()
