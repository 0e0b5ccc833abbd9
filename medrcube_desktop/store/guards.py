"""The append-only guards of a study database: checked on every open.

Committed reviews (v7) and adjudications (v5) are append-only at the database: triggers
refuse a DELETE, an UPDATE of their content, and an INSERT (REPLACE included) that would
collide with a stored row (``review_db/migrations/0005_experts.sql``,
``0007_append_only_reviews.sql``). A trigger can be dropped with plain SQL; a file whose
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
)
"""Names of the triggers that keep reviews and adjudications append-only."""

_CREATE = re.compile(r"^CREATE\s+TRIGGER\s+(\w+)", re.IGNORECASE)
_DROP = re.compile(r"^DROP\s+TRIGGER\s+(?:IF\s+EXISTS\s+)?(\w+)", re.IGNORECASE)


def expected_guards(version: int | None = None) -> dict[str, str]:
    """``{trigger name: CREATE TRIGGER statement}`` of each guard as the shipped
    migrations up to ``version`` (default: all) leave it (a later migration's version
    replaces an earlier one)."""
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
            if (match := _CREATE.match(statement)) and match.group(1) in GUARD_TRIGGERS:
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
    """Names of the guard triggers missing from ``conn``'s database, or not as the
    migrations up to its schema version wrote them (``" (changed)"`` added), in :data:`GUARD_TRIGGERS` order."""
    from medrcube_desktop.store.migrations import current_version

    stored = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"))
    broken = []
    for name, sql in expected_guards(current_version(conn)).items():
        if name not in stored:
            broken.append(name)
        elif _normal(stored[name]) != _normal(sql):
            broken.append(f"{name} (changed)")
    return broken


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
        (trigger …): …"``, with the command that restores them.
    """
    broken = broken_guards(conn)
    if not broken:
        return
    where = str(path) if path is not None else ":memory:"
    raise StoreError(
        f"{where}: its append-only guards were removed or changed outside the app "
        f"(trigger {', '.join(broken)}), so its reviews or adjudications may have been "
        "edited; not opened. Check the file against its backups, then put the guards "
        f"back with: medrcube-desktop restore-guards --db {where}"
    )


def restore_guards(conn: sqlite3.Connection) -> list[str]:
    """Drop and create again every missing or changed guard trigger, in one
    transaction; return the names restored (``[]`` when all were there).

    Raises ``sqlite3.Error`` as it comes (the transaction is rolled back).
    """
    from medrcube_desktop.store.migrations import current_version

    broken = [name.split(" ")[0] for name in broken_guards(conn)]
    if not broken:
        return []
    conn.execute("BEGIN IMMEDIATE")
    try:
        for name in broken:
            conn.execute(f'DROP TRIGGER IF EXISTS "{name}"')  # a name of GUARD_TRIGGERS
            conn.execute(expected_guards(current_version(conn))[name])
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return broken


def restore_file(path: Path) -> list[str]:
    """Migrate ``path`` (a backup copy first, as every migration) and put back its
    missing or changed guards (:func:`restore_guards`); return the names restored.

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
