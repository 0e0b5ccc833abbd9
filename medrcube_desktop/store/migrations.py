"""Forward-only schema migrations from ``review_db/migrations/NNNN_name.sql``.

Each migration runs inside one transaction and is recorded in ``schema_migrations``.
Before an existing database file is migrated it is copied to ``FILE.bak-v<version>``
(DESIGN.md: "Schema migrations run forward only, inside a transaction, after a backup
copy of the file").
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path

from medrcube_desktop.errors import StoreError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def available_migrations() -> list[tuple[int, str, str]]:
    """``(version, file name, SQL)`` of every shipped migration, in version order."""
    folder = files("medrcube_desktop.review_db").joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        match = _NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.name, entry.read_text("utf-8")))
    found.sort()
    versions = [v for v, _, _ in found]
    if versions != list(range(1, len(versions) + 1)):
        raise StoreError(f"migrations are not numbered 1..n without gaps: {versions}")
    return found


def current_version(conn: sqlite3.Connection) -> int:
    """Highest applied migration version, 0 for an empty database."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection, path: Path | None) -> int:
    """Apply every pending migration; return the new schema version.

    Parameters
    ----------
    conn : sqlite3.Connection
        Open connection (autocommit is handled here with explicit BEGIN/COMMIT).
    path : Path or None
        The database file, backed up before migrating a non-empty database; ``None``
        for an in-memory database.

    Raises
    ------
    StoreError
        The database is newer than this app, or a migration fails (it is rolled back).
    """
    migrations = available_migrations()
    latest = migrations[-1][0] if migrations else 0
    version = current_version(conn)
    if version > latest:
        raise StoreError(
            f"{path}: database schema v{version} is newer than this app (v{latest}); update the app"
        )
    if version == latest:
        return version
    if path is not None and version > 0:
        _backup(conn, path.with_name(f"{path.name}.bak-v{version}"))
    try:
        # Take the write lock first, then re-read the version: another process may have
        # migrated the same file meanwhile (two windows opening a new study at once).
        conn.execute("BEGIN IMMEDIATE")
        version = current_version(conn)
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations "
            "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        for number, name, sql in (m for m in migrations if m[0] > version):
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                (number, name, datetime.now(UTC).isoformat()),
            )
        conn.execute("COMMIT")
    except sqlite3.Error as exc:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise StoreError(f"{path or ':memory:'}: migration to v{latest} failed: {exc}") from exc
    return latest


def _backup(conn: sqlite3.Connection, target: Path) -> None:
    """Copy the database (WAL content included) with SQLite's online backup API."""
    dest = sqlite3.connect(target)
    try:
        conn.backup(dest)
    finally:
        dest.close()


def _statements(sql: str) -> list[str]:
    """Split a migration into complete statements (``executescript`` would commit on its
    own); ``sqlite3.complete_statement`` keeps ``;`` inside strings and triggers intact."""
    statements, current = [], ""
    for line in sql.splitlines(keepends=True):
        if not current and line.lstrip().startswith("--"):
            continue
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
