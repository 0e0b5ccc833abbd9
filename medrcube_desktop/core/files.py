"""Small file helpers shared by every writer of files: one atomic write, and the
permissions a new file gets."""

from __future__ import annotations

import errno
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from medrcube_desktop.core.regular_files import (
    SIDECARS,
    NotARegularFile,
    not_a_file,
    open_regular,
    read_file_bytes,
    read_file_text,
    same_file,
)
from medrcube_desktop.core.write_guard import refuse_output_folder, refuse_protected
from medrcube_desktop.errors import StoreError

__all__ = [
    "SIDECARS", "STAGING_PREFIX", "NotARegularFile", "as_new_file", "atomic_path",
    "atomic_write", "clear_stale_staging", "current_umask", "describe_missing", "file_stamp",
    "item_files", "not_a_file", "open_regular", "read_file_bytes", "read_file_text",
    "refuse_overwrite", "same_file", "write_folder_all_or_nothing",
]  # fmt: skip

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process umask (read by setting and restoring it, under a lock)."""
    with _UMASK_LOCK:
        mask = os.umask(0)
        os.umask(mask)
    return mask


def as_new_file(path: str | Path) -> None:
    """Give a temporary file (``tempfile.mkstemp`` makes them 0600) the permissions a
    newly created file would have (0666 minus the umask), so an export on a shared drive
    is readable by colleagues as usual."""
    os.chmod(path, 0o666 & ~current_umask())


@contextmanager
def atomic_path(
    path: str | Path, *, durable: bool = True, within: str | Path | None = None
) -> Iterator[Path]:
    """A temporary file beside ``path`` to write; renamed over ``path`` when the block ends.

    The one guarded writer: every file the app writes goes through here (or
    :func:`atomic_write`, :func:`write_folder_all_or_nothing`). Before anything is
    written, :func:`~medrcube_desktop.core.write_guard.refuse_protected` refuses a target
    that must never be written: a SQLite database or its sidecars, a benchmark's
    ``test.json``, an image or volume of a benchmark this process opened, or (with
    ``within``) a file whose real path leaves that folder.

    A symbolic link is followed: the file it names is judged and replaced, the link kept.
    The temporary file is created in that file's folder (so the rename stays on one file
    system and is atomic), named ``.<name>.<pid>-<random>.tmp<suffix>`` (writers that pick
    a format from the extension still see ``path``'s), and given the permissions of the
    file it replaces, or those of a new file (0666 minus the umask) when there is none.
    Temporary files a killed writer left beside ``path`` are removed first, with a note
    in the log, the first time this process writes in that folder
    (:func:`clear_stale_staging`). When the block ends normally the file is
    flushed to disk (``os.fsync``, unless ``durable`` is False) and ``os.replace``-d over
    ``path``: a reader sees the old file or the new one, never half of one. When the
    block raises, the temporary file is removed and ``path`` is left as it was.

    Parameters
    ----------
    path : str or Path
        The file to write; its folder must exist.
    durable : bool
        Flush the new contents to disk before the rename (a crash or power loss then
        leaves the old file or the whole new one). False only for data that is checked
        when read back (the image cache, by digest).
    within : str or Path or None
        A folder the real target must stay inside (the launcher's prefix): a link that
        leads out of it is refused, never written through.

    Yields
    ------
    Path
        The temporary file: write it by name (``workbook.save(tmp)``) or open it.

    Raises
    ------
    NotARegularFile
        ``path`` is a device, a named pipe, a socket or a folder (never replaced).
    ProtectedFileError
        ``path`` must never be written (see above); nothing is written.
    OSError
        The folder cannot hold the temporary file, the write or the rename fails (a full
        disk): the error names ``path`` as asked.
    """
    asked = Path(path)
    # through a symbolic link to the file it names (renaming over the link would replace
    # the link and leave its file as it was); a device, pipe or socket is never replaced
    # by a regular file (``--out /dev/null`` as root replaced the device)
    path = Path(os.path.realpath(asked)) if asked.is_symlink() else asked
    special = not_a_file(path)
    if special is not None:
        raise NotARegularFile(
            errno.EINVAL, f"{special}: give the path of a file to write", str(asked)
        )
    refuse_protected(path, asked, within)
    _sweep_once(path.parent)
    try:
        handle, name = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.{os.getpid()}-", suffix=f".tmp{path.suffix}"
        )
    except OSError as exc:
        raise _naming(exc, asked) from exc
    os.close(handle)
    tmp = Path(name)
    try:
        _take_mode(tmp, path)
        yield tmp
        if durable:
            _fsync_file(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.filename is None or str(tmp) in (exc.filename, exc.filename2):
            raise _naming(exc, asked) from exc  # "No space left" names the file asked for
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _naming(exc: OSError, asked: Path) -> OSError:
    """``exc`` again, naming ``asked`` (a full disk says which file could not be written)."""
    named = OSError(exc.errno, exc.strerror or str(exc), str(asked))
    return named


STALE_AFTER_S = 24 * 3600
"""A staging file or folder of a writer whose process cannot be looked up (another host,
Windows) is stale after this long."""


_STAGED = re.compile(r"\.writing-(\d+)-[^/\\]+|\..+\.(\d+)-[A-Za-z0-9_]+\.tmp[^/\\]*")
"""Names of what a writer stages: a folder writer's ``.writing-<pid>-…`` and
:func:`atomic_path`'s ``.<name>.<pid>-<random>.tmp<suffix>``."""

_SWEPT: set[str] = set()
_SWEPT_LOCK = threading.Lock()


def _writer_gone(pid: int, mtime: float) -> bool:
    """Whether the writer that made a staging entry is gone: its process no longer runs
    (POSIX), else the entry is older than :data:`STALE_AFTER_S`."""
    import time

    if pid == os.getpid():
        return False
    if os.name == "posix":
        try:
            os.kill(pid, 0)  # signal 0: only asks whether the process exists
        except ProcessLookupError:
            return True
        except OSError:  # another user's process: alive
            return False
        return False
    return time.time() - mtime > STALE_AFTER_S


def clear_stale_staging(folder: Path) -> list[Path]:
    """Remove what killed writers left in ``folder``: staged files and folders
    (:data:`_STAGED`) whose process is gone (:func:`_writer_gone`). Each removal is
    logged as a warning (the CLI prints it: "removed … left by a writer that was
    stopped before it finished").

    Returns
    -------
    list of Path
        What was removed.
    """
    import logging

    removed: list[Path] = []
    try:
        with os.scandir(folder) as found:
            entries = [
                (e, m) for e in found if e.name[:1] == "." and (m := _STAGED.fullmatch(e.name))
            ]
    except OSError:
        return removed
    for entry, match in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not _writer_gone(int(match.group(1) or match.group(2)), info.st_mtime):
            continue
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        if not os.path.lexists(path):
            removed.append(path)
            logging.getLogger(__name__).warning(
                "removed %s, left by a writer that was stopped before it finished", path
            )
    return removed


def _sweep_once(folder: Path) -> None:
    """:func:`clear_stale_staging` the first time this process writes into ``folder``
    (an image cache of thousands of entries is not listed again on every write)."""
    key = os.path.realpath(folder)
    with _SWEPT_LOCK:
        if key in _SWEPT:
            return
        _SWEPT.add(key)
    clear_stale_staging(folder)


def atomic_write(
    path: str | Path,
    data: str | bytes,
    *,
    encoding: str = "utf-8",
    newline: str | None = None,
    durable: bool = True,
    within: str | Path | None = None,
) -> Path:
    """Replace ``path`` with ``data`` atomically (see :func:`atomic_path`); return ``path``.

    Parameters
    ----------
    path : str or Path
        The file to write; its folder must exist.
    data : str or bytes
        Bytes are written as they are; text in ``encoding``, with ``newline`` as for
        :func:`open` (None: ``"\\n"`` becomes the platform's line ending).
    durable, within
        See :func:`atomic_path`.

    Raises
    ------
    ProtectedFileError
        See :func:`atomic_path`.
    OSError
        The file cannot be written; ``path`` is then unchanged and no temporary file is
        left behind.
    """
    path = Path(path)
    with atomic_path(path, durable=durable, within=within) as tmp:
        if isinstance(data, bytes):
            tmp.write_bytes(data)
        else:
            with tmp.open("w", encoding=encoding, newline=newline) as out:
                out.write(data)
    return path


def _take_mode(tmp: Path, path: Path) -> None:
    """Give ``tmp`` the permission bits of ``path``, or those of a new file."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        as_new_file(tmp)
    else:
        os.chmod(tmp, mode)


def _fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))  # Windows: a writable handle
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def describe_missing(path: Path, what: str) -> str | None:
    """``"PATH: no such WHAT"``, ``"PATH: is a named pipe, not a file"``, or None when
    ``path`` is a regular file: the one message for an input that is not there."""
    if not path.exists():
        return f"{path}: no such {what}"
    problem = not_a_file(path)
    return f"{path}: {problem}" if problem else None


def item_files(items: Iterable[Any]) -> list[Path]:
    """Every file read for ``items`` (anything with ``source_file``, ``image_path`` and
    ``mask_path``, e.g. :class:`~medrcube_desktop.core.items.Item`): each ``test.json``,
    image and mask, once each, in first-seen order (the ``sources`` of
    :func:`refuse_overwrite`)."""
    found: dict[Path, None] = {}
    for item in items:
        for path in (item.source_file, item.image_path, getattr(item, "mask_path", None)):
            if path is not None:
                found[Path(path)] = None
    return list(found)


def refuse_overwrite(out: Path, *inputs: Path | None, sources: Iterable[Path] = ()) -> None:
    """Refuse an output that is one of the command's inputs (``--out`` naming the
    database would replace it with the export).

    Parameters
    ----------
    out : Path
    *inputs : Path or None
        Databases and other single inputs (checked with their SQLite sidecars).
    sources : iterable of Path
        Many more files read (a benchmark's ``test.json`` files, images and masks:
        :func:`item_files`), compared by device and inode.

    Raises
    ------
    StoreError
        ``out`` is the same file as one of ``inputs``, or as a file SQLite keeps beside
        one (:func:`same_file`: hard links and other spellings of the path count), or
        as one of ``sources``.
    """
    for source in inputs:
        if same_file(out, source):
            raise StoreError(f"{out}: is the input {source}; write the output elsewhere")
    try:
        mine = Path(os.path.realpath(out)).stat()
    except OSError:  # nothing there yet (``..`` after a new folder included): no input
        return
    for source in sources:
        try:
            theirs = os.stat(source)
        except OSError:
            continue
        if (theirs.st_dev, theirs.st_ino) == (mine.st_dev, mine.st_ino):
            raise StoreError(f"{out}: is the input {source}; write the output elsewhere")


def file_stamp(path: str | Path | None) -> tuple[int, ...]:
    """What tells that a file changed, for caches keyed by it: ``(mtime_ns, ctime_ns,
    size, inode)``; for a folder (a DICOM series) also the same of each regular file in
    it, folded into one number. ``()`` for None, ``(-1,)`` when it cannot be read.

    The modification time alone is not enough: ``cp -p``, ``rsync -t`` and unzip keep
    it when they replace a file, and rewriting a slice leaves its folder's time as it
    was; the change time (ctime) moves on every such write and cannot be set back.
    """
    if path is None:
        return ()
    try:
        info = os.stat(path)
        stamp: tuple[int, ...] = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)
        if stat.S_ISDIR(info.st_mode):
            entries = []
            with os.scandir(path) as found:
                for entry in found:
                    if entry.is_file(follow_symlinks=False):
                        e = entry.stat(follow_symlinks=False)
                        entries.append((entry.name, e.st_mtime_ns, e.st_ctime_ns, e.st_size))
            stamp += (hash(tuple(sorted(entries))),)
        return stamp
    except OSError:
        return (-1,)


STAGING_PREFIX = ".writing-"
"""The hidden folder a folder output is staged in (``.writing-<pid>-<random>``)."""


def write_folder_all_or_nothing(
    out: Path, write: Callable[[Path], Sequence[str] | None]
) -> list[Path]:
    """Files of one result written into ``out`` together, or none of them.

    ``write(stage)`` writes every file into ``stage``, a hidden folder inside ``out``
    (``.writing-<pid>-…``: the same file system, writable where ``out`` is), and returns
    their names (or None to keep nothing: a cancel). Then each is renamed into ``out``,
    replacing a file of an earlier result with the same name; the file it replaces is
    first kept (a hard link, else a copy) in the stage. When any rename fails (the last
    one included) the files already moved are put back as they were: ``out`` holds the
    whole earlier result or the whole new one. On any error or a None, ``stage`` is
    removed and ``out`` is left as it was (a folder this call created, ``out`` or a
    parent, removed again while empty: a failed export leaves no empty folder); an error
    naming a file in ``stage`` names that file in ``out``. ``out`` inside a benchmark
    dataset folder is refused before anything is made
    (:func:`~medrcube_desktop.core.write_guard.refuse_output_folder`). A stage a killed run
    left behind is removed first, with a note in the log (:func:`clear_stale_staging`).
    Each target is checked as every write is
    (:func:`~medrcube_desktop.core.write_guard.refuse_protected`, within ``out``).

    Returns
    -------
    list of Path
        The files now in ``out``; ``[]`` when ``write`` returned None.

    Raises
    ------
    ProtectedFileError
        A file of the result would replace one that must never be written.
    OSError
        ``out`` or a file cannot be written; whatever ``write`` raises.
    """
    refuse_output_folder(out)
    created = [folder for folder in (out, *out.parents) if not os.path.lexists(folder)]
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        clear_stale_staging(out)
        stage = Path(tempfile.mkdtemp(dir=out, prefix=f"{STAGING_PREFIX}{os.getpid()}-"))
        try:
            names = write(stage)
            if names is None:
                return []
            for name in names:
                refuse_protected(out / name, out / name, out)
            written = _swap_in(stage, out, list(names))
            return written
        except OSError as exc:  # "No space left" names the output's file, not the stage's
            named = [f for f in (exc.filename, exc.filename2) if f is not None]
            if named and _inside_folder(str(named[0]), str(stage)):
                inner = Path(os.path.relpath(named[0], stage))
                raise OSError(exc.errno, exc.strerror or str(exc), str(out / inner)) from exc
            raise
        finally:
            shutil.rmtree(stage, ignore_errors=True)
    finally:
        if not written:
            _remove_empty(created)


def _inside_folder(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _remove_empty(folders: Sequence[Path]) -> None:
    """Remove each of ``folders`` (innermost first) that is an empty folder, stopping at
    the first that is not: the folders a failed or cancelled write created, never one
    that holds anything."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def _swap_in(stage: Path, out: Path, names: list[str]) -> list[Path]:
    """Rename ``stage/name`` over ``out/name`` for each name; on a failure, put back
    what was moved (the earlier files, kept under ``stage/.previous``) and raise."""
    kept = stage / ".previous"
    kept.mkdir()
    moved: list[tuple[str, bool]] = []
    try:
        for name in names:
            target = out / name
            had = os.path.lexists(target)
            if had:
                try:
                    os.link(target, kept / name, follow_symlinks=False)
                except OSError:  # no hard links here (some network or FAT drives)
                    shutil.copy2(target, kept / name, follow_symlinks=False)
            os.replace(stage / name, target)
            moved.append((name, had))
    except BaseException:
        for name, had in reversed(moved):
            try:
                if had:
                    os.replace(kept / name, out / name)
                else:
                    os.unlink(out / name)
            except OSError as undo:
                import logging

                logging.getLogger(__name__).error(
                    "%s: could not put back the earlier file: %s", out / name, undo
                )
        raise
    return [out / name for name, _ in moved]
