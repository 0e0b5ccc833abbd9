"""Storage: SQLite through sqlite-utils, schema from ``review_db/migrations/``."""

from medrcube_desktop.store.reviews import Review, ReviewStore, utc_now

__all__ = ["Review", "ReviewStore", "utc_now"]
