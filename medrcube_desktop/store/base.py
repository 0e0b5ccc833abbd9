"""What every group of store queries shares: the connection and error translation."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from medrcube_desktop.errors import StoreError

T = TypeVar("T")


class StoreBase:
    """Base of :class:`~medrcube_desktop.store.reviews.ReviewStore` and its query mixins.

    Subclasses set ``db`` (a ``sqlite_utils.Database``) and ``path``.
    """

    db: Any  # sqlite_utils.Database
    path: Path | None

    @property
    def conn(self) -> sqlite3.Connection:
        """The underlying sqlite3 connection (autocommit mode; transactions are explicit)."""
        return self.db.conn

    def _read(self, query: Callable[[], T], what: str) -> T:
        """Run ``query()``; turn any SQLite or encoding error into a StoreError naming the file."""
        try:
            return query()
        except (sqlite3.Error, UnicodeError, ValueError) as exc:
            raise StoreError(f"{self.path or ':memory:'}: cannot {what}: {exc}") from exc
