"""Named agreement studies: a seeded sample of items (``studies``, ``study_items``).

Named queries over a ``sqlite_utils.Database``, run by
:class:`~medrcube_desktop.store.study_store.StudyStore`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from medrcube_desktop.errors import StoreError


@dataclass(frozen=True)
class StudyRecord:
    """A stored study: its name, seed, stratification and items in sampling order."""

    name: str
    seed: int
    stratify: str
    created_at: str
    item_ids: tuple[str, ...]


def add_study_items(
    db: Any, name: str, seed: int, stratify: str, item_ids: list[str], when: str
) -> None:
    """Create study ``name``, or add items to it when it exists with the same seed and
    stratification; run inside a write transaction.

    Items already in the study keep their position; new ones are appended in the order
    given, ``when`` (ISO 8601 UTC) as their time.

    Raises
    ------
    StoreError
        The name exists with another seed or stratification.
    """
    row = db.execute("SELECT seed, stratify FROM studies WHERE name = ?", [name]).fetchone()
    if row is None:
        db["studies"].insert({"name": name, "seed": seed, "stratify": stratify, "created_at": when})
    elif (row[0], row[1]) != (seed, stratify):
        raise StoreError(
            f"study {name!r} exists with seed {row[0]} and stratify "
            f"{row[1] or 'none'}: extend it with the same, or pick another name"
        )
    have = set(study_item_ids(db, name))
    new = [item_id for item_id in dict.fromkeys(item_ids) if item_id not in have]
    db["study_items"].insert_all(
        {"study": name, "item_id": item_id, "position": position, "added_at": when}
        for position, item_id in enumerate(new, start=len(have))
    )


def study_item_ids(db: Any, name: str) -> tuple[str, ...]:
    """The items of study ``name`` in sampling order (empty for no such study)."""
    rows = db.execute("SELECT item_id FROM study_items WHERE study = ? ORDER BY position", [name])
    return tuple(r[0] for r in rows)


def study(db: Any, name: str) -> StudyRecord | None:
    """A study by name, or ``None``."""
    row = db.execute(
        "SELECT seed, stratify, created_at FROM studies WHERE name = ?", [name]
    ).fetchone()
    if row is None:
        return None
    return StudyRecord(name, int(row[0]), row[1], row[2], study_item_ids(db, name))


def study_names(db: Any) -> list[str]:
    """Names of every study, oldest first (by ``created_at``)."""
    return [r[0] for r in db.execute("SELECT name FROM studies ORDER BY created_at")]
