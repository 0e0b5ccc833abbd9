"""Where callers have imported the review store from: ``ReviewStore`` (an alias of
:class:`~medrcube_desktop.store.study_store.StudyStore`), ``Review`` and ``utc_now``.

The review row format and its queries are in :mod:`~medrcube_desktop.store.review_queries`.
"""

from __future__ import annotations

from medrcube_desktop.store.database import BUSY_TIMEOUT_S, utc_now
from medrcube_desktop.store.review_queries import Review, review_from_row, review_row
from medrcube_desktop.store.study_store import StudyStore

ReviewStore = StudyStore
"""The name callers still use for :class:`StudyStore` (to be renamed)."""

__all__ = ["BUSY_TIMEOUT_S", "Review", "ReviewStore", "StudyStore", "review_from_row",
           "review_row", "utc_now"]  # fmt: skip
