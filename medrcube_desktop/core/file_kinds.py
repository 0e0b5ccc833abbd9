"""What a file plainly is, by its first bytes, and the one guard built on it: an export
never replaces a file that is plainly not an export (:func:`refuse_foreign`).

For the commands that read no benchmark (``export-reviews``, ``export-judgments``), which
:func:`~medrcube_desktop.core.files.refuse_overwrite` cannot compare with the
benchmark's own files.
"""

from __future__ import annotations

import os
from pathlib import Path

from medrcube_desktop.core.regular_files import SIDECARS, read_head
from medrcube_desktop.errors import StoreError

FOREIGN_SIGNATURES: tuple[tuple[int, bytes, str], ...] = (
    (0, b"SQLite format 3\x00", "a SQLite database (a study?)"),
    (0, b"\x37\x7f\x06\x82", "a SQLite write-ahead log (a study's unsaved commits)"),
    (0, b"\x37\x7f\x06\x83", "a SQLite write-ahead log (a study's unsaved commits)"),
    (0, b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7", "a SQLite rollback journal"),
    (128, b"DICM", "a DICOM file"),
    (0, b"\x02\x00", "a DICOM file without its preamble"),
    (0, b"\x08\x00", "a DICOM file without its preamble"),
    (0, b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (0, b"\xff\xd8\xff", "a JPEG image"),
    (0, b"II*\x00", "a TIFF image"),
    (0, b"MM\x00*", "a TIFF image"),
    (0, b"\x00\x00\x00\x0cjP  ", "a JPEG 2000 image"),
    (0, b"\x1f\x8b", "a gzip file (a .nii.gz volume?)"),
    (344, b"n+1\x00", "a NIfTI-1 volume"),
    (344, b"ni1\x00", "a NIfTI-1 header"),
    (4, b"n+2\x00", "a NIfTI-2 volume"),
    (4, b"ni2\x00", "a NIfTI-2 header"),
    (0, b"PK\x03\x04", "a zip file (an .xlsx workbook?)"),
)
"""(offset, magic bytes, what the file is): files an export never replaces. Sources: the
SQLite file format (sqlite.org/fileformat.html §1.3 database header, §4.1 rollback journal
header, §4.4 WAL header), DICOM PS3.10 §7.1 (the preamble and "DICM"; without a preamble
a file starts with an element of group 0002 or 0008, little endian), PNG §5.2, JPEG SOI +
marker, TIFF 6.0 §2 (byte order + 42), ISO 15444-1 Annex I (the JP2 signature box),
RFC 1952 (gzip), the NIfTI-1 header (magic at 344) and NIfTI-2 (magic at 4), the zip
local file header (APPNOTE 4.3.7; XLSX is a zip). A CSV or JSON Lines export starts
with text, never with these bytes."""


ITEMS_FILE_NAME = "test.json"
"""A benchmark's items file (``core.dataset.ITEMS_FILE`` is this)."""


def _starts_with(path: Path, magic: bytes) -> bool:
    """Whether ``path`` is a regular file whose first bytes are ``magic`` (read through
    :func:`~.regular_files.read_head`: never a database this process has open)."""
    return path.is_file() and read_head(path, len(magic)) == magic


def refuse_foreign(out: Path, kind: str) -> None:
    """Refuse to replace an existing file that is plainly not an export: a database, an
    image or volume (:data:`FOREIGN_SIGNATURES`), a JSON list (a benchmark's items, a
    results.json: neither export is one), and to write any file named ``test.json``.

    For the commands that read no benchmark (``export-reviews``, ``export-judgments``),
    which :func:`refuse_overwrite` cannot compare with the benchmark's files: one slip of
    ``--out`` must not replace a study or a benchmark with a CSV.

    Raises
    ------
    StoreError
        ``out`` exists and is one of those; the message says what it is and that
        ``kind`` was not written.
    """
    real = Path(os.path.realpath(out))
    for suffix in SIDECARS:  # a database's sidecar by its name, even empty or absent
        stem = real.name[: -len(suffix)] if real.name.endswith(suffix) else ""
        if stem and _starts_with(real.with_name(stem), b"SQLite format 3\x00"):
            raise StoreError(
                f"{out}: is the {suffix} file SQLite keeps beside "
                f"{real.name[: -len(suffix)]}; the {kind} was not written over it"
            )
    if real.name == ITEMS_FILE_NAME and real.exists():
        raise StoreError(f"{out}: is a benchmark's test.json; the {kind} was not written over it")
    if real.name == ITEMS_FILE_NAME:  # even a new one: the folder would look like a benchmark's
        raise StoreError(
            f"{out}: a benchmark's items file is named {ITEMS_FILE_NAME}; write the {kind} "
            "under another name"
        )
    if not real.is_file():
        return
    head = read_head(real, 348)  # b"": the write will say why it cannot open the file
    for offset, magic, what in FOREIGN_SIGNATURES:
        if head[offset : offset + len(magic)] == magic:
            raise StoreError(f"{out}: is {what}; the {kind} was not written over it")
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):  # no export of these is a list
        raise StoreError(
            f"{out}: is a JSON list (a benchmark's items or a results.json?); the {kind} was "
            "not written over it"
        )
