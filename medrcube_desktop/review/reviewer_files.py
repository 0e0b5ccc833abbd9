"""One database per reviewer for a blind study (issue 21).

Blinding is kept by the review window: it shows nothing of other raters' judgments of an
item before the reviewer's own commit. It cannot be kept against a reviewer who holds the
study's database: the analyst's commands (``agreement``, ``export-reviews``,
``adjudicate-queue``) print every rater's scores from it. A blind study therefore gives
each reviewer their own database, which holds the assignment, the study settings and the
agreement studies' samples, and nothing any rater has judged (no review, no LLM judgment), and the analyst folds the
reviewers' files back with ``merge`` (the assignment is the same, so it merges without a
conflict). :func:`write_reviewer_databases` writes those files; :data:`BLINDING_NOTE` is
what the window and the docs say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

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

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def file_name(reviewer: str) -> str:
    """``reviewer`` as a database file name: characters other than letters, digits,
    ``.``, ``_`` and ``-`` become ``_``, and ``.db`` is added ("Dr. Ana Lü" →
    ``Dr._Ana_L.db``)."""
    stem = _UNSAFE.sub("_", reviewer.strip()).strip("._") or "reviewer"
    return f"{stem}.db"


def reviewer_paths(folder: Path, reviewers: Sequence[str]) -> dict[str, Path]:
    """``folder/<reviewer>.db`` for each of ``reviewers`` (:func:`file_name`).

    Raises
    ------
    MedRCubeError
        Two reviewers map to one file name, or a file is already there (a reviewer's
        work is never overwritten).
    """
    paths = {name: folder / file_name(name) for name in reviewers}
    seen: dict[Path, str] = {}
    for name, path in paths.items():
        if path in seen:
            raise MedRCubeError(
                f"reviewers {seen[path]!r} and {name!r} would share the file {path}; "
                "rename one; nothing written"
            )
        seen[path] = name
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
    """Write each reviewer's database (:func:`reviewer_paths`): the whole assignment
    ``record``, the study settings (``settings_json``, the ``study.settings`` value) and
    the agreement studies' samples (``studies``, so the window can list a study's
    items), nothing any rater judged.

    Raises
    ------
    StoreError
        A database cannot be created or written.
    """
    from medrcube_desktop.review.study import STATE_KEY

    rows = [
        (name, item_id, item_id in record.overlap_items)
        for name, ids in record.items.items()
        for item_id in ids
    ]
    for path in paths.values():
        store = StudyStore(path)
        try:
            store.save_assignment(list(record.reviewers), record.overlap, record.seed,
                                  record.n_items, rows)  # fmt: skip
            if settings_json:
                store.set_state(STATE_KEY, settings_json)
            for study in studies:
                store.save_study(study.name, study.seed, study.stratify,
                                 list(study.item_ids), study.created_at)  # fmt: skip
        finally:
            store.close()
