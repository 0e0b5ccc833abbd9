"""Opening a study database, and the two paths every query takes: read or write.

A read runs a named query and turns a SQLite or decoding error into a
:class:`~medrcube_desktop.errors.StoreError` naming the file. A write runs inside one
transaction (``BEGIN IMMEDIATE``, so a read-then-write never meets another writer half
way), is rolled back on any error, and fails the same way. The query modules
(:mod:`~medrcube_desktop.store.review_queries`, :mod:`~medrcube_desktop.store.judgments`,
…) never open transactions or translate errors themselves: the facade
:class:`~medrcube_desktop.store.study_store.StudyStore` does, through these.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.migrations import migrate

T = TypeVar("T")

BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another connection's lock before failing (seconds)."""

READ_ERRORS = (sqlite3.Error, UnicodeError, ValueError)
"""What a query may raise that means the file is unusable (locked, corrupt, bad JSON)."""


def utc_now() -> str:
    """Current UTC time as ISO 8601 with offset, second precision."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def open_database(path: Path | None) -> Any:
    """A ``sqlite_utils.Database`` on ``path``, in WAL mode and migrated.

    Parameters
    ----------
    path : Path or None
        SQLite file, created (with its folder) if missing; ``None`` for in memory.
        The connection is in autocommit mode: transactions are explicit
        (:func:`write_transaction`).

    Raises
    ------
    StoreError
        The file cannot be opened, is a folder, is not a SQLite database, or cannot be
        migrated.
    """
    import sqlite_utils

    try:
        if path is None:
            conn = sqlite3.connect(":memory:", isolation_level=None)
        else:
            if path.is_dir():
                raise StoreError(f"{path}: is a folder, not a review database file")
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
        conn.execute("PRAGMA foreign_keys = ON")
        db = sqlite_utils.Database(conn)
        if path is not None:
            _retry_while_busy(db.enable_wal)  # may meet another process's lock
            conn.execute("PRAGMA synchronous = FULL")
        try:
            migrate(conn, path)
        except StoreError:
            conn.close()
            raise
    except (sqlite3.Error, OSError) as exc:
        hint = (
            " (is the file or its folder read-only?)"
            if "unable to open" in str(exc) or "readonly" in str(exc)
            else ""
        )
        raise StoreError(f"{path}: cannot open review database: {exc}{hint}") from exc
    return db


def _retry_while_busy(operation: Callable[[], object], seconds: float = BUSY_TIMEOUT_S) -> None:
    """Run ``operation``; while SQLite says the database is locked, retry for ``seconds``.

    Switching the journal mode can fail with SQLITE_BUSY at once, without waiting on the
    busy timeout, when another process opens the same new file at the same moment.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            operation()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def read(path: Path | None, what: str, query: Callable[[], T]) -> T:
    """Run the read-only ``query()``; an error becomes a StoreError naming the file.

    Raises
    ------
    StoreError
        ``"FILE: cannot WHAT: reason"`` when SQLite or decoding fails.
    """
    try:
        return query()
    except READ_ERRORS as exc:
        raise StoreError(f"{path or ':memory:'}: cannot {what}: {exc}") from exc


@contextmanager
def write_transaction(db: Any, path: Path | None, what: str) -> Iterator[Any]:
    """One write transaction on ``db`` (a ``sqlite_utils.Database``): committed when the
    block ends, rolled back when it raises.

    Inside a transaction already open (an import or a merge calling named queries), the
    block is a savepoint of it instead.

    Raises
    ------
    StoreError
        ``"FILE: cannot WHAT: reason"`` when SQLite or encoding fails; a StoreError
        raised in the block (a refused value) passes through unchanged. Either way
        nothing of the block is written.
    """
    conn = db.conn
    try:
        if conn.in_transaction:
            with db.atomic():
                yield db
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield db
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except READ_ERRORS as exc:
        raise StoreError(f"{path or ':memory:'}: cannot {what}: {exc}") from exc


def set_busy_timeout(db: Any, seconds: float) -> None:
    """How long the next statements wait for another connection's lock (seconds)."""
    # PRAGMA takes no parameters: the value is an int made here, never outside text.
    db.conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
