"""Storage: SQLite through sqlite-utils, schema from ``review_db/migrations/``.

:class:`StudyStore` is the one facade; the named queries behind it are split by domain
(``review_queries``, ``drafts``, ``flags_notes``, ``judgments``, ``studies``,
``evaluation``, ``app_state``; locks in ``locks``).
"""

from medrcube_desktop.store.database import utc_now
from medrcube_desktop.store.review_queries import Review
from medrcube_desktop.store.study_store import StudyStore

__all__ = ["Review", "StudyStore", "utc_now"]
