"""Key/value state of a study database (``app_state``): the resume position, study
settings, the locks of long jobs (:mod:`~medrcube_desktop.store.locks`).

Named queries over a ``sqlite_utils.Database``, run by
:class:`~medrcube_desktop.store.study_store.StudyStore`.
"""

from __future__ import annotations

from typing import Any


def get_state(db: Any, key: str) -> str | None:
    """Value of ``key``, or ``None`` when unset."""
    row = db.execute("SELECT value FROM app_state WHERE key = ?", [key]).fetchone()
    return row[0] if row else None


def set_state(db: Any, key: str, value: str) -> None:
    """Set ``key`` to ``value``, replacing what was there."""
    db["app_state"].upsert({"key": key, "value": value}, pk="key")


def delete_state_if(db: Any, key: str, value: str) -> None:
    """Drop ``key`` if it still holds ``value`` (another holder's value stays)."""
    db.execute("DELETE FROM app_state WHERE key = ? AND value = ?", [key, value])
