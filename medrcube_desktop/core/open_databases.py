"""The SQLite databases this process has open, so that no code of the app ever opens
one of their files with ``open()``.

SQLite's locks on a database (and on its ``-shm``) are POSIX advisory locks, which
belong to the process and the file, not to the descriptor: closing *any* descriptor
of the file in the process releases *all* of them (sqlite.org/howtocorrupt.html §2.2).
A header sniff of the open study (``open(path).read(16)``, then close) therefore drops
the window's locks; the next process that closes its connection then believes it is
the last one, checkpoints and deletes the ``-wal`` and ``-shm``, and the window's next
commit goes to a deleted ``-wal``: lost at the next crash. The connections the store
keeps (:func:`~medrcube_desktop.store.database.open_database`, the read-only opens)
are made with :class:`TrackedConnection` and told here (:func:`register`);
:func:`~medrcube_desktop.core.regular_files.open_regular` (the one way the app opens a
file it reads) refuses such a file and its sidecars (:class:`OpenDatabaseFile`), and
the checks that only want to know *whether* a file is a database ask
:func:`open_database_of` first.

A closed connection, or one garbage-collected, no longer counts: the registry holds
weak references. No Qt here.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
import weakref
from pathlib import Path

__all__ = [
    "OpenDatabaseFile", "TrackedConnection", "open_database_of", "refuse_open_database", "register",
]  # fmt: skip

SIDECAR_SUFFIXES = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside a database, each opened (and locked) by SQLite itself."""


class TrackedConnection(sqlite3.Connection):
    """A ``sqlite3.Connection`` that can be weakly referenced (the built-in cannot), so
    that :func:`register` can follow it without keeping it open, and that says when it
    was closed (:attr:`is_closed`) without a call into SQLite (which a connection made
    in another thread may refuse)."""

    is_closed = False

    def close(self) -> None:
        """Close the connection (``sqlite3.Connection.close``); it stops counting."""
        self.is_closed = True
        super().close()


class OpenDatabaseFile(OSError):
    """A read refused because the file is a SQLite database this process has open (or
    its ``-wal``/``-shm``/``-journal``): opening and closing it would release the
    connection's locks. ``str()`` is ``"PATH: is the database open in this app ..."``."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


_LOCK = threading.Lock()
_OPEN: dict[tuple[int, int], list[weakref.ref]] = {}
"""(st_dev, st_ino) of a database file → weak references to its connections."""


def register(path: str | Path, conn: TrackedConnection) -> None:
    """Record that ``conn`` holds the database file ``path`` open.

    Parameters
    ----------
    path : str or Path
        The database file (an existing one: SQLite has just opened it).
    conn : TrackedConnection
        Its connection; it stops counting once closed or collected.

    Raises
    ------
    OSError
        ``path`` cannot be looked at (``os.stat``).
    """
    info = os.stat(path)
    with _LOCK:
        _OPEN.setdefault((info.st_dev, info.st_ino), []).append(weakref.ref(conn))


def _is_open(ref: weakref.ref) -> bool:
    conn = ref()
    return conn is not None and not conn.is_closed


def _registered(path: str | Path) -> bool:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    key = (info.st_dev, info.st_ino)
    with _LOCK:
        refs = [ref for ref in _OPEN.get(key, []) if _is_open(ref)]
        if refs:
            _OPEN[key] = refs
        else:
            _OPEN.pop(key, None)
        return bool(refs)


def open_database_of(path: str | Path) -> Path | None:
    """The database open in this process that ``path`` is, or whose ``-wal``, ``-shm``
    or ``-journal`` it is (by its name beside the database, even when it does not
    exist); None otherwise. Looks only with ``os.stat`` (symbolic links followed, hard
    links count): never opens a file."""
    if _registered(path):
        return Path(path)
    name = os.path.basename(os.fspath(path))
    for suffix in SIDECAR_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            stem = Path(os.path.realpath(path)).with_name(name[: -len(suffix)])
            if _registered(stem):
                return stem
    return None


def refuse_open_database(path: str | Path) -> None:
    """Raise :class:`OpenDatabaseFile` when ``path`` is a database open in this process
    or one of its sidecars (:func:`open_database_of`): it must not be opened."""
    database = open_database_of(path)
    if database is None:
        return
    what = (
        "the database" if Path(database) == Path(path) else f"a sidecar of the database {database}"
    )
    raise OpenDatabaseFile(
        errno.EBUSY,
        f"is {what} open in this app; not opened as a file (that would release SQLite's locks)",
        str(path),
    )
