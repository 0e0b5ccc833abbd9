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
- a benchmark's ``test.json`` or ``MANIFEST.json`` (any existing file of that name);
- any existing file inside a benchmark dataset folder (a folder holding a ``test.json``,
  or under one): its images and masks, whatever their names (:func:`dataset_folder`);
- any existing medical image, judged by its content, whatever its name
  (:func:`medical_image`): DICOM, NIfTI-1/2 (a gzip-compressed ``.nii.gz`` too), NRRD,
  MetaImage (MHA/MHD);
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

__all__ = [
    "MANIFEST_FILE_NAME", "ProtectedFileError", "dataset_folder", "medical_image",
    "benchmark_root_of", "protect_benchmark", "protected_roots", "refuse_benchmark_output",
    "refuse_inside", "refuse_output_folder", "refuse_protected",
]  # fmt: skip


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
MANIFEST_FILE_NAME = "MANIFEST.json"
_GZIP_HEAD_BYTES = 64 * 1024
"""Compressed bytes read to inflate a ``.nii.gz`` header's first 348 bytes."""


def _medical_kind(head: bytes) -> str | None:
    if head[128:132] == b"DICM":
        return "a DICOM file"
    if head[344:348] in (b"n+1\x00", b"ni1\x00"):
        return "a NIfTI-1 volume"
    if head[4:8] in (b"n+2\x00", b"ni2\x00"):
        return "a NIfTI-2 volume"
    if head.startswith(b"NRRD"):
        return "an NRRD volume"
    if head.lstrip().startswith(b"ObjectType"):
        return "a MetaImage (MHA/MHD) volume"
    return None


def medical_image(path: str | Path) -> str | None:
    """What medical image the existing regular file ``path`` is, by its content, or None.

    DICOM: ``DICM`` at byte 128 (PS3.10 §7.1); NIfTI-1: ``n+1\\0``/``ni1\\0`` at byte
    344; NIfTI-2: ``n+2\\0``/``ni2\\0`` at byte 4; NRRD: starts ``NRRD``; MetaImage:
    starts ``ObjectType``. A gzip file (RFC 1952 magic ``1f 8b``) is inflated up to its
    first 348 bytes and judged the same; one named ``.nii.gz``/``.nrrd.gz`` counts even
    when that fails.

    Returns
    -------
    str or None
        E.g. ``"a DICOM file"``; None for anything else (or a file that cannot be read).
    """
    head = read_head(Path(path), _HEAD_BYTES)
    if head[:2] != b"\x1f\x8b":
        return _medical_kind(head)
    import zlib

    raw = read_head(Path(path), _GZIP_HEAD_BYTES)
    try:
        inner = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, _HEAD_BYTES)
    except zlib.error:
        inner = b""
    kind = _medical_kind(inner)
    if kind is None and str(path).lower().endswith((".nii.gz", ".nrrd.gz")):
        kind = "a gzip-compressed volume"
    return kind


def dataset_folder(path: str | Path) -> Path | None:
    """The nearest folder holding a benchmark's ``test.json`` that ``path`` (a file or
    folder, made real here) is in or is, or None.

    Returns
    -------
    Path or None
        That folder (real path).
    """
    folder = Path(os.path.realpath(path))
    for candidate in (folder, *folder.parents):
        if os.path.isfile(candidate / ITEMS_FILE_NAME):
            return candidate
    return None


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
    if exists and base in (ITEMS_FILE_NAME, MANIFEST_FILE_NAME):
        raise ProtectedFileError(f"{name}: is a benchmark's {base}; not written over")
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
    if exists:
        medical = medical_image(real)
        if medical is not None:
            raise ProtectedFileError(f"{name}: is {medical}; not written over")
        dataset = dataset_folder(os.path.dirname(real))
        if dataset is not None:
            raise ProtectedFileError(
                f"{name}: is a file of the benchmark dataset {dataset} (it holds a "
                f"{ITEMS_FILE_NAME}); not written over"
            )


def refuse_output_folder(out: str | Path) -> None:
    """Refuse an output folder inside a benchmark dataset folder (:func:`dataset_folder`:
    it holds a ``test.json`` or is under one, a symbolic link followed): a report's
    files would be mixed with the benchmark's.

    Raises
    ------
    ProtectedFileError
        Naming ``out`` and the dataset folder.
    """
    dataset = dataset_folder(out)
    if dataset is not None:
        raise ProtectedFileError(
            f"{out}: is inside the benchmark dataset {dataset} (it holds a {ITEMS_FILE_NAME}); "
            "write the output elsewhere"
        )


def _is_inside(path: str, folder: str) -> bool:
    """Whether the real path ``path`` is ``folder`` or under it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def benchmark_root_of(path: str | Path) -> Path | None:
    """The benchmark root that ``path`` (made real) is or is in, or None: the nearest
    folder holding a ``MANIFEST.json`` (a release's own mark, looked for in every
    folder above), or the nearest folder of ``path`` that exists when it holds a
    sub-folder holding a ``test.json`` (:func:`dataset_folder` finds the dataset
    folders themselves).

    The second rule looks at that one folder only: a folder above it is not made a
    benchmark by some sub-folder holding a ``test.json`` (a dataset kept in one's home
    folder, or in ``/tmp``, made every output anywhere below it "inside the benchmark").
    """
    folder = Path(os.path.realpath(path))
    nearest: Path | None = None
    for candidate in (folder, *folder.parents):
        if os.path.isfile(candidate / MANIFEST_FILE_NAME):
            return candidate
        if nearest is None and os.path.isdir(candidate):
            nearest = candidate
            try:
                with os.scandir(candidate) as entries:
                    if any(
                        e.is_dir() and os.path.isfile(os.path.join(e.path, ITEMS_FILE_NAME))
                        for e in entries
                    ):
                        return candidate
            except OSError:  # not readable: not a benchmark we can see
                continue
    return None


def refuse_inside(
    out: str | Path,
    folder: str | Path | None,
    what: str,
    advice: str = "write the output elsewhere",
) -> None:
    """Refuse an output ``out`` (a file or folder, not written yet) that is ``folder``,
    lies inside it or holds it (real paths, symbolic links followed): the one check of
    every command that must leave an input folder as it is (``release``, ``compare
    --release-diff``, ``proposals export``).

    Parameters
    ----------
    out : path
        The output as given (named in the message).
    folder : path or None
        The folder not to write in (None: nothing to check).
    what : str
        What ``folder`` is, for the message (``"the source benchmark"``).
    advice : str
        The message's end.

    Raises
    ------
    ProtectedFileError
        ``"OUT: is inside WHAT FOLDER; ADVICE"`` or ``"OUT: holds WHAT FOLDER; ADVICE"``.
    """
    if folder is None:
        return
    real_out, real_folder = os.path.realpath(out), os.path.realpath(folder)
    if _is_inside(real_out, real_folder):
        raise ProtectedFileError(f"{out}: is inside {what} {folder}; {advice}")
    if _is_inside(real_folder, real_out):
        raise ProtectedFileError(f"{out}: holds {what} {folder}; {advice}")


def refuse_benchmark_output(out: str | Path) -> None:
    """Refuse an output inside any benchmark: a dataset folder (:func:`refuse_output_folder`)
    or a benchmark's root (:func:`benchmark_root_of`), for a command that is given no
    ``--dataset`` (``proposals export``).

    Raises
    ------
    ProtectedFileError
        Naming ``out`` and the benchmark.
    """
    refuse_output_folder(out)
    root = benchmark_root_of(out)
    if root is not None:
        raise ProtectedFileError(
            f"{out}: is inside the benchmark {root} (its datasets hold {ITEMS_FILE_NAME}); "
            "write the output elsewhere"
        )


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
