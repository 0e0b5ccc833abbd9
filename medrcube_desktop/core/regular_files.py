"""Reading a file safely, and telling files apart: the one way the app opens a file
it reads (:func:`open_regular`), what a path is when it is not a regular file, and
whether two paths name one file (a database and its SQLite sidecars included).

Imported by :mod:`.files` (which re-exports every name) and by :mod:`.write_guard`; it
imports neither, so the writers and their guard share it without an import cycle.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from medrcube_desktop.core.open_databases import open_database_of, refuse_open_database

_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISDIR, "a folder"),
)


def not_a_file(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as a file, or None when it is a regular file (or
    cannot be looked at: the read that follows then says why).

    Opening a named pipe blocks until something writes to it, and a device or a socket
    never ends: every reader checks here first, so only regular files are read.

    Returns
    -------
    str or None
        ``"is a named pipe, not a file"`` (or a socket, a device, a folder): the path is
        followed through symbolic links.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    for test, kind in _SPECIAL_KINDS:
        if test(mode):
            return f"is {kind}, not a file"
    return "is not a regular file"


class NotARegularFile(OSError):
    """A path that is a named pipe, a socket, a device or a folder where a file is read
    (an ``OSError``, so a reader's own handler names the path); ``str()`` is
    ``"PATH: is a named pipe, not a file"``."""

    def __str__(self) -> str:
        if self.filename is not None and self.strerror:
            return f"{self.filename}: {self.strerror}"
        return super().__str__()


def open_regular(path: str | Path) -> BinaryIO:
    """Open ``path`` for reading in binary, only if it is a regular file: the one way
    the app opens a file it reads.

    The file is opened without blocking (``O_NONBLOCK``: a named pipe opens at once
    instead of waiting for a writer) and the open file is looked at (``fstat``) before
    anything is read, so a pipe, device or socket put in a file's place, even between a
    check and the open, is refused and never read.

    A SQLite database this process has open, or its ``-wal``/``-shm``, is never
    opened (:mod:`~medrcube_desktop.core.open_databases`: closing the descriptor would
    release the connection's locks, and another process would then delete its
    ``-wal``).

    Returns
    -------
    BinaryIO
        An open binary file (a context manager); the caller closes it.

    Raises
    ------
    NotARegularFile
        ``path`` is a named pipe, a device, a socket or a folder; the message names it.
    OpenDatabaseFile
        ``path`` is a database open in this process, or one of its sidecars.
    OSError
        It cannot be opened (missing, no permission).
    """
    refuse_open_database(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    flags |= getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError as exc:
        raise NotARegularFile(errno.EISDIR, "is a folder, not a file", str(path)) from exc
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((k for test, k in _SPECIAL_KINDS if test(mode)), "not a regular file")
            raise NotARegularFile(errno.EINVAL, f"is {kind}, not a file", str(path))
        if getattr(os, "O_NONBLOCK", 0):  # POSIX: reads of the file block as usual again
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_file_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``, once it is known to be a regular file (a named pipe would
    block the read for ever): :func:`open_regular`, then read.

    Raises
    ------
    NotARegularFile
        ``path`` is something else; the message names it and says what it is.
    OSError
        The file cannot be read.
    """
    with open_regular(path) as handle:
        return handle.read()


def read_file_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The text of the regular file ``path`` (see :func:`read_file_bytes`), decoded with
    ``encoding`` (universal newlines, as :meth:`Path.read_text`).

    Raises
    ------
    NotARegularFile, OSError
        As :func:`read_file_bytes`.
    UnicodeDecodeError
        The bytes are not ``encoding``.
    """
    import io

    return io.TextIOWrapper(io.BytesIO(read_file_bytes(path)), encoding=encoding).read()


SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file (sqlite.org/fileformat.html §1.3)."""


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of the regular file ``path``, read through
    :func:`open_regular`; b"" when it cannot be read (missing, a pipe, no permission).

    A database this process has open is not opened (that would release its locks):
    its first bytes are known, :data:`SQLITE_MAGIC` is returned (cut to ``size``). Its
    ``-wal``/``-shm`` give b"" (callers recognise them by name beside the database).
    """
    database = open_database_of(path)
    if database is not None:
        return SQLITE_MAGIC[:size] if Path(database) == Path(path) else b""
    try:
        with open_regular(path) as handle:
            return handle.read(size)
    except OSError:
        return b""


SIDECARS = ("-wal", "-shm", "-journal")
"""Files SQLite keeps beside a database; writing over one of them damages the database."""


def same_file(out: Path, source: Path | None) -> bool:
    """Whether writing ``out`` would write over ``source`` or over a file SQLite keeps
    beside it (``-wal``, ``-shm``, ``-journal``).

    Both paths are first made real (``os.path.realpath``: symbolic links followed, and
    ``..`` taken out, also after folders that do not exist yet, which a writer would
    create: ``new/../study.db`` is ``study.db``); then they are the same file when the
    real paths are equal or ``os.path.samefile`` says so (hard links). ``out`` is a
    sidecar of ``source`` when it is ``X-wal`` (``-shm``, ``-journal``) for an ``X``
    that is ``source``, by whichever name SQLite opened it under.
    """
    if source is None:
        return False
    real_out, real_source = Path(os.path.realpath(out)), Path(os.path.realpath(source))
    if real_out == real_source:
        return True
    try:
        if real_out.exists() and real_source.exists() and real_out.samefile(real_source):
            return True
    except OSError:  # a path that cannot be looked at: compared by name only, above
        pass
    return any(
        real_out.name.endswith(suffix)
        and len(real_out.name) > len(suffix)
        and same_file(real_out.with_name(real_out.name[: -len(suffix)]), real_source)
        for suffix in SIDECARS
    )
