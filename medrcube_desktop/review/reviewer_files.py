"""One database per reviewer for a blind study (issue 21).

Blinding is kept by the review window: it shows nothing of other raters' judgments of an
item before the reviewer's own commit. It cannot be kept against a reviewer who holds the
study's database: the analyst's commands (``agreement``, ``export-reviews``,
``adjudicate-queue``) print every rater's scores from it. A blind study therefore gives
each reviewer their own database, which holds their part of the assignment (their
items only: no other reviewer's name or list), the study settings and the agreement
studies' samples, and nothing any rater has judged (no review, no LLM judgment), and the
analyst folds the reviewers' files back with ``merge`` (a part of the study's assignment
merges without a conflict; merge warns when one reviewer's file holds another's reviews). :func:`write_reviewer_databases` writes those files; :data:`BLINDING_NOTE` is
what the window and the docs say.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from medrcube_desktop.core.names import visible
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import AssignmentRecord
from medrcube_desktop.store.studies import StudyRecord

BLINDING_NOTE = (
    "Blinding hides judgments in this window only: anyone who holds this database file "
    "can print every rater's scores with the command line. For a blind study give each "
    "reviewer their own database (assign --databases DIR writes one per reviewer, with "
    "the assignment and these settings) and merge the files once all have committed."
)
"""What the study settings dialog and README say about blinding and database files."""

_HOSTILE = re.compile(r"[^\w.-]+")
"""Runs of characters a file name should not hold: anything but Unicode letters and
digits (``str.isalnum``), ``_``, ``.`` and ``-``: separators (``/``, ``\\``), what
Windows refuses (``:*?"<>|``), white space, controls and format characters."""

STEM_BYTES = 120
"""UTF-8 bytes of a reviewer's name kept in a file name at most (file systems allow 255
per name; a cut name gets ``-`` and :data:`HASH_CHARS` of its hash, and ``.db``)."""

HASH_CHARS = 8
"""Hexadecimal digits of the name's SHA-256 added when a name is cut or two collide."""

_RESERVED = re.compile(r"(?i)^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$")
"""Names Windows gives to devices, whatever the extension."""


def _digest(reviewer: str) -> str:
    import hashlib

    full = unicodedata.normalize("NFC", reviewer)
    return hashlib.sha256(full.encode("utf-8")).hexdigest()[:HASH_CHARS]


def file_name(reviewer: str, hashed: bool = False) -> str:
    """``reviewer`` as a database file name.

    The name in composed form (NFC) keeps its letters and digits in any script
    (``李明`` → ``李明.db``, ``café`` → ``café.db``); every run of other characters but
    ``.``, ``_`` and ``-`` becomes one ``_`` ("Dr. Ana Lü" → ``Dr._Ana_Lü.db``, "../x"
    → ``x.db``). A name longer than :data:`STEM_BYTES` in UTF-8 is cut there, a
    Windows device name (``CON``, ``nul``) or a name left empty is kept apart, and those
    and every ``hashed`` one end in ``-`` and :data:`HASH_CHARS` hexadecimal digits of
    the full name's SHA-256, so two names cut alike still differ.

    Parameters
    ----------
    reviewer : str
    hashed : bool
        Add the hash whatever the name (:func:`reviewer_paths` asks it for names whose
        files would otherwise differ only in case, or be one).

    Returns
    -------
    str
        ``<stem>.db``, at most ``STEM_BYTES + 1 + HASH_CHARS + 3`` bytes in UTF-8.
    """
    stem = _HOSTILE.sub("_", unicodedata.normalize("NFC", reviewer)).strip("._-")
    cut = stem.encode("utf-8")[:STEM_BYTES].decode("utf-8", "ignore").rstrip("._-")
    if hashed or cut != stem or not cut or _RESERVED.match(cut):
        cut = f"{cut or 'reviewer'}-{_digest(reviewer)}"
    return f"{cut}.db"


def reviewer_paths(folder: Path, reviewers: Sequence[str]) -> dict[str, Path]:
    """``folder/<reviewer>.db`` for each of ``reviewers`` (:func:`file_name`).

    Two reviewers whose file names would be one on a case-insensitive file system
    (equal after ``str.casefold``: ``Ab`` and ``ab``, ``a b`` and ``a/b``) each get the
    hash of their full name in theirs (``file_name(name, hashed=True)``).

    Raises
    ------
    MedRCubeError
        Two reviewers still map to one file name (the same name twice), or a file is
        already there (a reviewer's work is never overwritten).
    """
    plain = {name: file_name(name) for name in reviewers}
    counts = Counter(stem.casefold() for stem in plain.values())
    paths = {
        name: folder / (file_name(name, hashed=True) if counts[stem.casefold()] > 1 else stem)
        for name, stem in plain.items()
    }
    seen: dict[str, str] = {}
    for name, path in paths.items():
        key = path.name.casefold()
        if key in seen:
            raise MedRCubeError(
                f"reviewers '{visible(seen[key])}' and '{visible(name)}' would share the "
                f"file {folder / path.name}; rename one; nothing written"
            )
        seen[key] = name
    present = [str(p) for p in paths.values() if p.exists() or p.is_symlink()]
    if present:
        raise MedRCubeError(
            f"{present[0]}: already exists (a reviewer's database is never overwritten); "
            "choose another --databases folder; nothing written"
        )
    return paths


def write_reviewer_databases(
    paths: dict[str, Path],
    record: AssignmentRecord,
    settings_json: str | None,
    studies: Sequence[StudyRecord] = (),
) -> None:
    """Write each reviewer's database (:func:`reviewer_paths`): that reviewer's part of
    the assignment ``record`` (the split's overlap, seed and item count, the reviewer as
    its one name, their items only), the study settings (``settings_json``, the ``study.settings`` value) and
    the agreement studies' samples (``studies``, so the window can list a study's
    items), nothing any rater judged.

    Raises
    ------
    StoreError
        A database cannot be created or written.
    """
    from medrcube_desktop.review.study import STATE_KEY

    for name, path in paths.items():
        rows = [(name, i, i in record.overlap_items) for i in record.items.get(name, ())]
        store = StudyStore(path)
        try:
            store.save_assignment([name], record.overlap, record.seed, record.n_items,
                                  rows)  # fmt: skip
            if settings_json:
                store.set_state(STATE_KEY, settings_json)
            for study in studies:
                store.save_study(study.name, study.seed, study.stratify,
                                 list(study.item_ids), study.created_at)  # fmt: skip
        finally:
            store.close()
