"""Opening a study database to read it only: neither the file nor its folder changes.

The read-only commands (``agreement``, the exports, ``compare``, ``credibility --run``,
``adjudicate-queue``) and ``merge`` (for the other files) read a database that may be
archived: of an older schema, with mode 0444, in a read-only folder or on read-only
media. They open it here, never through
:func:`~medrcube_desktop.store.database.open_database` (which switches WAL on and
migrates the file in place).

How the file is read (:func:`read_mode`):

- ``immutable=1`` when the file is in WAL mode and has no ``-wal`` file with content:
  every committed transaction is then in the main file. ``mode=ro`` would create the
  ``-wal`` and ``-shm`` files beside it (and leave them), and cannot open it at all in a
  read-only folder. Immutable takes no locks, so it is safe only while nobody writes the
  main file; a WAL writer that starts meanwhile writes its ``-wal`` first and touches the
  main file only at a checkpoint. Such a change is detected: a read that finds the file
  malformed is tried again with ``mode=ro`` only when the file changed during the read
  (its inode, size or mtime differ) or a ``-wal`` with content appeared, a migrated copy
  whose file changed while it was copied is copied again with ``mode=ro``, and
  :meth:`ReadOnlyOpen.changed` says whether the file changed while it was open (the CLI
  warns). A file that is malformed and did not change is damaged (:data:`DAMAGED`; a
  file shorter than its header says is found before SQLite reads it): never retried,
  since ``mode=ro`` would leave ``-wal`` and ``-shm`` files beside it and read the same
  bytes.
- ``mode=ro`` otherwise (a ``-wal`` with content: a writer has the file open or was
  killed; or a rollback-journal database): SQLite's locks, the pending WAL content read.

A file of an older schema is copied into memory (the backup API) and the copy is
migrated; the file itself is not. A newer schema than the app's is an error. The
connection refuses writes (``PRAGMA query_only``).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medrcube_desktop.core.files import open_regular
from medrcube_desktop.core.open_databases import TrackedConnection, open_database_of, register
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.database import BUSY_TIMEOUT_S
from medrcube_desktop.store.guards import check_guards
from medrcube_desktop.store.migrations import available_migrations, current_version, migrate

IMMUTABLE, LOCKED = "immutable=1", "mode=ro"
"""The two URI parameters :func:`read_mode` chooses between."""

PRIVATE_COPY = "private-copy"
""":func:`read_mode`'s third way: the file and its ``-wal`` copied to a private folder
and read there (:func:`private_copy`)."""

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""


@dataclass(frozen=True)
class ReadOnlyOpen:
    """How a database was opened read-only.

    Attributes
    ----------
    path : Path
        The file.
    file_version, app_version : int
        Schema version of the file, and the newest this app knows.
    mode : str
        :data:`IMMUTABLE`, :data:`LOCKED` or :data:`PRIVATE_COPY` (read into memory).
    fingerprint : tuple of int
        ``(inode, size, mtime in ns)`` of the file when it was opened.
    """

    path: Path
    file_version: int
    app_version: int
    mode: str
    fingerprint: tuple[int, int, int]

    @property
    def migrated_copy(self) -> bool:
        """The file is of an older schema: what is read is a copy migrated in memory."""
        return self.file_version < self.app_version

    def changed(self) -> bool:
        """Whether the file was written (by another process) while an ``immutable=1``
        read had it open, so that reads may mix two states. Always False for a
        ``mode=ro`` read (its locks keep each read consistent) and for a migrated copy
        (checked when it was copied)."""
        if self.mode != IMMUTABLE or self.migrated_copy:
            return False
        try:
            return fingerprint(self.path) != self.fingerprint
        except OSError:
            return True


def fingerprint(path: Path) -> tuple[int, int, int]:
    """``(inode, size, mtime in ns)`` of ``path``: what a write to it changes."""
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def read_mode(path: Path) -> str:
    """How to read ``path`` without creating or changing any file.

    A WAL database that no connection has open (no ``-shm`` file: every connection maps
    one, and the last to close removes it) and whose ``-wal`` is missing or empty has
    everything in the main file: ``immutable=1`` reads it without the ``-wal`` and
    ``-shm`` files that ``mode=ro`` would leave beside it. With a ``-wal`` holding
    commits but no ``-shm`` (a writer was killed): :data:`PRIVATE_COPY`, since
    ``mode=ro`` would create the ``-shm`` beside it. Otherwise ``mode=ro``: a writer may
    be at work (its ``-shm`` exists, so nothing new is made), whose locks keep every read
    consistent (an immutable read raced a checkpoint and found the file malformed).

    A database this process has open (:mod:`~medrcube_desktop.core.open_databases`)
    is read with ``mode=ro`` without opening its file here (that would release the open
    connection's locks): its connection keeps the ``-shm`` there.

    Raises
    ------
    StoreError
        ``path`` cannot be read.
    """
    if open_database_of(path) is not None:
        return LOCKED
    try:
        with open_regular(path) as f:
            header = f.read(20)
        wal = path.with_name(path.name + "-wal")
        wal_empty = not wal.exists() or wal.stat().st_size == 0
        shm = os.path.lexists(path.with_name(path.name + "-shm"))
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    in_wal_mode = header[:16] == SQLITE_MAGIC and header[18:19] == b"\x02"
    if in_wal_mode and not shm:  # no connection has the file open (each maps the -shm)
        return IMMUTABLE if wal_empty else PRIVATE_COPY
    return LOCKED  # a writer may be at work (its -shm is there), or not a WAL file


@contextmanager
def private_copy(path: Path) -> Iterator[Path]:
    """``path`` and its ``-wal`` copied into a private temporary folder, where SQLite
    may fold the ``-wal`` in and make its ``-shm``; removed afterwards.

    Raises
    ------
    OSError
        The files cannot be read or the temporary folder written.
    """
    with tempfile.TemporaryDirectory(prefix="medrcube-read-") as folder:
        copy = Path(folder) / "study.db"
        shutil.copyfile(path, copy)
        wal = path.with_name(path.name + "-wal")
        if wal.exists():
            shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        yield copy


def file_uri(path: Path, mode: str) -> str:
    """The SQLite URI of ``path`` read with ``mode`` (``?`` and ``#`` in names quoted)."""
    return f"{path.absolute().as_uri()}?{mode}"


def open_read_only(path: Path) -> tuple[Any, ReadOnlyOpen]:
    """A ``sqlite_utils.Database`` reading ``path``, which is never written, and how it
    was opened.

    Parameters
    ----------
    path : Path
        An existing review database of any schema version up to the app's.

    Raises
    ------
    StoreError
        ``path`` is missing or a folder, is not a review database, is newer than this
        app, cannot be read (the message says why, with a hint where one helps), or its
        append-only guards were removed or changed.
    """
    import sqlite_utils

    if path.is_dir():
        raise StoreError(f"{path}: is a folder, not a review database file")
    if not path.is_file():
        raise StoreError(f"{path}: no such review database file")
    first = read_mode(path)
    modes = [first] if first != IMMUTABLE else [first, LOCKED]
    before = fingerprint(path)
    if first == IMMUTABLE and truncated(path):
        raise StoreError(f"{path}: cannot read review database: {DAMAGED}")
    for attempt, mode in enumerate(modes):
        try:
            conn, opened = _connect(path, mode)
            break
        except sqlite3.DatabaseError as exc:
            writer = isinstance(exc, _ChangedWhileCopied) or (
                "malformed" in str(exc) and changed_since(path, before)
            )
            if writer and attempt + 1 < len(modes):
                continue  # the file changed under immutable=1: read it with locks
            raise StoreError(f"{path}: cannot read review database: {explain(exc)}") from exc
        except OSError as exc:
            raise StoreError(f"{path}: cannot read review database: {exc}") from exc
    try:
        check_guards(conn, path)
    except StoreError:
        conn.close()
        raise
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA query_only = ON")
    return sqlite_utils.Database(conn), opened


DAMAGED = "the file is damaged (truncated or not fully copied?)"
"""What a database file that SQLite finds malformed, and that no writer changed, is."""


def changed_since(path: Path, before: tuple[int, int, int]) -> bool:
    """Whether a malformed read of ``path`` may be a writer's doing, worth reading again
    with locks: the file's fingerprint differs from ``before``, or a ``-wal`` file with
    content is there now. Otherwise the bytes read are the file's: it is damaged."""
    try:
        if fingerprint(path) != before:
            return True
        wal = path.with_name(path.name + "-wal")
        return wal.exists() and wal.stat().st_size > 0
    except OSError:
        return True


def truncated(path: Path) -> bool:
    """Whether ``path`` is shorter than the page count in its SQLite header says
    (``head -c``, an interrupted copy). The count is used only where the header marks
    it valid (offset 92, "version-valid-for", equals the change counter at offset 24);
    a file that is not SQLite at all is left to SQLite to refuse. False for a database
    this process has open (its file is not opened here: SQLite reads it)."""
    if open_database_of(path) is not None:
        return False
    try:
        with open_regular(path) as f:
            header = f.read(100)
        size = os.stat(path).st_size
    except OSError:
        return False
    if header[:16] != SQLITE_MAGIC:
        return False  # not SQLite: SQLite says so
    if len(header) < 100:
        return True
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if pages == 0 or header[24:28] != header[92:96]:
        return False
    return size < pages * page_size


def explain(exc: BaseException) -> str:
    """SQLite's error, said as what it means for a read-only read."""
    text = str(exc)
    if "malformed" in text:
        return f"{DAMAGED}; SQLite: {text}"
    return f"{text}{_hint(exc)}"


class _ChangedWhileCopied(sqlite3.DatabaseError):
    """The file was written while an immutable read copied it."""


def _connect(path: Path, mode: str) -> tuple[sqlite3.Connection, ReadOnlyOpen]:
    """The connection reading ``path`` (a migrated copy in memory when its schema is
    older); raises sqlite3 errors as they come, StoreError for a wrong version."""
    latest = available_migrations()[-1][0]
    before = fingerprint(path)
    if mode == PRIVATE_COPY:  # read into memory from the private copy, then let it go
        with private_copy(path) as private:
            source = sqlite3.connect(private, isolation_level=None)
            try:
                conn = sqlite3.connect(":memory:", isolation_level=None)
                source.backup(conn)
            finally:
                source.close()
    else:
        conn = sqlite3.connect(
            file_uri(path, mode),
            uri=True,
            isolation_level=None,
            timeout=BUSY_TIMEOUT_S,
            factory=TrackedConnection,
        )
        register(path, conn)  # no code of the app opens this file while conn is open
    try:
        version = current_version(conn)
        if version == 0:
            raise StoreError(f"{path}: not a review database (no schema_migrations table)")
        if version > latest:
            raise StoreError(
                f"{path}: database schema v{version} is newer than this app (v{latest}); "
                "update the app"
            )
        if version < latest and mode == PRIVATE_COPY:
            migrate(conn, None)  # already a copy in memory
        elif version < latest:
            copy = sqlite3.connect(":memory:", isolation_level=None)
            try:
                conn.backup(copy)
                if mode == IMMUTABLE and fingerprint(path) != before:
                    raise _ChangedWhileCopied("the file changed while it was copied")
                migrate(copy, None)
            except BaseException:
                copy.close()
                raise
            conn.close()
            conn = copy
    except BaseException:
        conn.close()
        raise
    return conn, ReadOnlyOpen(path, version, latest, mode, before)


def _hint(exc: BaseException) -> str:
    text = str(exc)
    if "unable to open" in text or "readonly" in text:
        return (
            " (its folder is read-only and its -wal file holds changes: open it once in "
            "the app, or copy it with its -wal file to a writable folder)"
        )
    return ""
