"""Opening a study database, and the two paths every query takes: read or write.

A read runs a named query and turns a SQLite or decoding error into a
:class:`~medrcube_desktop.errors.StoreError` naming the file. A write runs inside one
transaction (``BEGIN IMMEDIATE``, so a read-then-write never meets another writer half
way), is rolled back on any error, and fails the same way. A write that finds another
connection writing (several runs, a long import) waits: SQLite's busy timeout, then
``BEGIN IMMEDIATE`` tried again with backoff for up to :data:`WRITE_WAIT_S` in all, so a
paid answer is not dropped because another process held the file for a few seconds. The query modules
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

from medrcube_desktop.core.open_databases import TrackedConnection, register
from medrcube_desktop.errors import StoreBusy, StoreError
from medrcube_desktop.store.guards import check_guards
from medrcube_desktop.store.migrations import migrate

T = TypeVar("T")

BUSY_TIMEOUT_S = 5.0
"""How long one statement waits for another connection's lock (seconds, SQLite's busy
timeout); a write transaction then tries again (:data:`WRITE_WAIT_S`)."""

WRITE_WAIT_S = 60.0
"""How long a write transaction waits in all for another connection's write lock
(seconds): past it the write fails with "database is locked". A connection given a
shorter busy timeout (:func:`set_busy_timeout`, the window's best-effort writes) does
not try again."""

WINDOW_WRITE_WAIT_S = 2.0
"""How long a write of the review window waits for another connection's write lock
(seconds): the GUI thread is not frozen for :data:`WRITE_WAIT_S`; past it the write
fails with :class:`~medrcube_desktop.errors.StoreBusy` (the draft kept, try again)."""

BUSY_MESSAGE = "the database is busy (another process is writing): try again"
"""What a write that gave up waiting for the lock says, after the file and the write."""

_RETRY_FIRST_S, _RETRY_MAX_S = 0.05, 1.0
"""Backoff between tries of ``BEGIN IMMEDIATE`` (seconds, doubling)."""

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
        The file cannot be opened, is a folder, is not a SQLite database, cannot be
        migrated, or its append-only guards were removed or changed
        (:func:`~medrcube_desktop.store.guards.check_guards`).
    """
    import sqlite_utils

    try:
        if path is None:
            conn = sqlite3.connect(":memory:", isolation_level=None)
        else:
            if path.is_dir():
                raise StoreError(f"{path}: is a folder, not a review database file")
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                path, isolation_level=None, timeout=BUSY_TIMEOUT_S, factory=TrackedConnection
            )
            register(path, conn)  # never opened as a file while conn is open (its locks)
        conn.execute("PRAGMA foreign_keys = ON")
        db = sqlite_utils.Database(conn)
        if path is not None:
            _retry_while_busy(db.enable_wal)  # may meet another process's lock
            conn.execute("PRAGMA synchronous = FULL")
        try:
            migrate(conn, path)
            check_guards(conn, path)
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
    StoreBusy
        Another connection held the write lock past the wait (``"FILE: cannot WHAT:``
        :data:`BUSY_MESSAGE`).
    """
    conn = db.conn
    try:
        if conn.in_transaction:
            with db.atomic():
                yield db
            return
        _begin_immediate(conn)
        try:
            yield db
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise StoreBusy(f"{path or ':memory:'}: cannot {what}: {BUSY_MESSAGE}") from exc
        raise StoreError(f"{path or ':memory:'}: cannot {what}: {exc}") from exc
    except READ_ERRORS as exc:
        raise StoreError(f"{path or ':memory:'}: cannot {what}: {exc}") from exc


def _begin_immediate(conn: sqlite3.Connection, wait_s: float | None = None) -> None:
    """``BEGIN IMMEDIATE``, tried again while another connection holds the write lock,
    for ``wait_s`` seconds in all (default :data:`WRITE_WAIT_S`; no retry when the
    connection's busy timeout was shortened for a best-effort write).

    Nothing of the transaction has run yet when it is retried, so retrying is safe.
    """
    if wait_s is None:
        busy_ms = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        wait_s = WRITE_WAIT_S if busy_ms >= BUSY_TIMEOUT_S * 1000 else 0.0
    deadline = time.monotonic() + wait_s
    pause = _RETRY_FIRST_S
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            return
        except sqlite3.OperationalError as exc:
            text = str(exc)
            left = deadline - time.monotonic()
            if ("locked" not in text and "busy" not in text) or left <= 0:
                raise
            time.sleep(min(pause, left))
            pause = min(pause * 2, _RETRY_MAX_S)


def set_busy_timeout(db: Any, seconds: float) -> None:
    """How long the next statements wait for another connection's lock (seconds)."""
    # PRAGMA takes no parameters: the value is an int made here, never outside text.
    db.conn.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")
