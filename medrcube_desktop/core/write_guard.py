"""What no file the app writes may replace, checked in one place for every writer.

:func:`~medrcube_desktop.core.files.atomic_path` (and so every writer built on it: CSV,
JSON, workbooks, figures, PNG renders, screenshots, the launcher) calls
:func:`refuse_protected` on the real file it is about to replace. Refused, whatever the
command and whatever the name it was given under (a symbolic link is judged by the file
it names):

- a SQLite database, write-ahead log or rollback journal (their first bytes: the
  16-byte header ``SQLite format 3\\0`` and the others of
  :data:`~.file_kinds.FOREIGN_SIGNATURES`), and a ``-wal``/``-shm``/``-journal`` file
  beside a database (by name, even empty); a database this process has open is known
  without opening it (:mod:`~.open_databases`: closing a descriptor of it would release
  its connection's locks);
- a benchmark's ``test.json`` (any existing file of that name);
- inside a benchmark this process opened (:func:`protect_benchmark`, which
  ``load_benchmark`` calls): the image and mask files its items name (a DICOM series
  folder's files included), and any existing DICOM or NIfTI file;
- with ``within`` given (the launcher's prefix, an output folder): a file whose real
  path leaves that folder (a link written through to a file elsewhere).

No Qt here.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from medrcube_desktop.core.file_kinds import FOREIGN_SIGNATURES, ITEMS_FILE_NAME
from medrcube_desktop.core.regular_files import (
    SIDECARS,
    NotARegularFile,
    not_a_file,
    read_head,
    same_file,
)
from medrcube_desktop.errors import StoreError

__all__ = ["ProtectedFileError", "protect_benchmark", "protected_roots", "refuse_protected"]


class ProtectedFileError(StoreError):
    """A write refused because its target must never be written (a database, a
    benchmark's file, a file outside the folder the writer may write in)."""


_LOCK = threading.Lock()
_BENCHMARKS: dict[Path, tuple[list, ...]] = {}
"""Real benchmark root → the lists of its items (``Benchmark.items``, ``.restricted``)."""
_ITEM_FILES: dict[Path, frozenset[str]] = {}
"""Real root → real paths of its items' files, computed at the first write under it."""

_HEAD_BYTES = 348
_MEDICAL_KINDS = ("DICOM", "NIfTI")


def protect_benchmark(root: Path, benchmark: Any = None) -> None:
    """Protect the files of a benchmark opened in this process from every writer.

    Parameters
    ----------
    root : Path
        The benchmark root (made real here).
    benchmark : Benchmark or None
        Its items (``items`` and ``restricted``, each with ``source_file``,
        ``image_path``, ``mask_path``): the two lists are held (a command may keep the
        items and drop the Benchmark), the latest for each root; their files are listed
        only when a write lands under ``root``.
    """
    real = Path(os.path.realpath(root))
    lists: tuple[list, ...] = ()
    if benchmark is not None:
        lists = (benchmark.items, getattr(benchmark, "restricted", []))
    with _LOCK:
        _BENCHMARKS[real] = lists
        _ITEM_FILES.pop(real, None)


def protected_roots() -> list[Path]:
    """The real roots of the benchmarks :func:`protect_benchmark` was told of."""
    with _LOCK:
        return list(_BENCHMARKS)


def _item_files(root: Path) -> frozenset[str]:
    """Real paths of the files of the items of the benchmark at ``root`` (cached)."""
    with _LOCK:
        cached = _ITEM_FILES.get(root)
        lists = _BENCHMARKS.get(root, ())
    if cached is not None:
        return cached
    found: set[str] = set()
    for items in lists:
        for item in list(items):
            for path in (item.source_file, item.image_path, getattr(item, "mask_path", None)):
                if path is not None:
                    found.add(os.path.realpath(path))
    files = frozenset(found)
    with _LOCK:
        _ITEM_FILES[root] = files
    return files


def _head(path: Path) -> bytes:
    """The first bytes of the regular file ``path`` (b"" if it cannot be read); opened
    without blocking, so a named pipe is never waited on, and never when it is a
    database this process has open (:func:`~.regular_files.read_head`)."""
    return read_head(path, _HEAD_BYTES)


def _kind(head: bytes) -> str | None:
    for offset, magic, what in FOREIGN_SIGNATURES:
        if head[offset : offset + len(magic)] == magic:
            return what
    return None


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def refuse_protected(path: str | Path, asked: str | Path | None = None, within=None) -> None:
    """Refuse to replace ``path`` when it must never be written (see the module).

    Parameters
    ----------
    path : str or Path
        The file about to be replaced (followed through symbolic links here).
    asked : str or Path or None
        The name the user gave (how messages name it); ``path`` when None.
    within : str or Path or None
        A folder the real file must stay inside (the launcher's prefix).

    Raises
    ------
    ProtectedFileError
        Naming ``asked`` and what it is.
    """
    name = str(asked if asked is not None else path)
    real = os.path.realpath(path)
    if within is not None:
        prefix = os.path.realpath(within)
        if not _inside(real, prefix):
            raise ProtectedFileError(
                f"{name}: leads to {real}, outside {prefix}; a link out of the folder is "
                "never written through (remove it to write here)"
            )
    base = os.path.basename(real)
    for suffix in SIDECARS:
        stem = base[: -len(suffix)] if base.endswith(suffix) else ""
        if stem and _head(Path(real).with_name(stem)).startswith(b"SQLite format 3\x00"):
            raise ProtectedFileError(
                f"{name}: is the {suffix} file SQLite keeps beside the database {stem}; "
                "not written over"
            )
    exists = os.path.lexists(real)
    if exists and base == ITEMS_FILE_NAME:
        raise ProtectedFileError(f"{name}: is a benchmark's {ITEMS_FILE_NAME}; not written over")
    head = _head(Path(real)) if exists else b""
    kind = _kind(head)
    if kind is not None and "SQLite" in kind:
        raise ProtectedFileError(f"{name}: is {kind}; not written over")
    for root in protected_roots():
        if not _inside(real, str(root)):
            continue
        files = _item_files(root)
        parent = os.path.dirname(real)
        if real in files or parent in files:  # an item's file, or a slice of its series
            raise ProtectedFileError(f"{name}: is a file of the benchmark {root}; not written over")
        if kind is not None and any(k in kind for k in _MEDICAL_KINDS):
            raise ProtectedFileError(f"{name}: is {kind} in the benchmark {root}; not written over")


def forget_benchmarks(roots: Iterable[Path] | None = None) -> None:
    """Stop protecting ``roots`` (every benchmark when None); for tests."""
    with _LOCK:
        for root in list(_BENCHMARKS) if roots is None else roots:
            real = Path(os.path.realpath(root))
            _BENCHMARKS.pop(real, None)
            _ITEM_FILES.pop(real, None)


def check_output(path: str | Path, *inputs: str | Path | None) -> None:
    """Refuse, before any work, an output the guarded writer would refuse at the end,
    or one that is one of ``inputs`` (the open study database, even a new one).

    Raises
    ------
    ProtectedFileError
        ``path`` is one of ``inputs`` or their SQLite sidecars
        (:func:`~medrcube_desktop.core.files.same_file`), or :func:`refuse_protected`
        refuses it.
    NotARegularFile
        ``path`` is a device, a named pipe, a socket or a folder.
    """
    for source in inputs:
        if source is not None and same_file(Path(path), Path(source)):
            raise ProtectedFileError(
                f"{path}: is the input {source}; not written over (write the output elsewhere)"
            )
    special = not_a_file(path)
    if special is not None:
        raise NotARegularFile(22, f"{special}: give the path of a file to write", str(path))
    refuse_protected(path)
