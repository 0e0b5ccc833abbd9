"""Long jobs off the GUI thread, each with a database connection of its own.

SQLite connections belong to the thread that opened them, so a job gets a fresh
:class:`ReviewStore` on the same file. The job reports progress through ``report``
(delivered to the GUI thread as ``progressed``) and checks ``cancel``; it never
touches a widget (STYLE.md rule 3).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QThread, Signal

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store.reviews import ReviewStore

log = logging.getLogger(__name__)

Job = Callable[[ReviewStore, threading.Event, Callable[[object], None]], object]
"""``job(store, cancel, report) -> result``."""


class StoreJob(QThread):
    """Runs one job; emits ``progressed(payload)`` and ``finished_job(result, error)``
    (``error`` '' on success; the result is ``None`` after an error)."""

    progressed = Signal(object)
    finished_job = Signal(object, str)

    def __init__(self, db_path: Path, job: Job, parent: QObject) -> None:
        super().__init__(parent)
        self.db_path, self.job = db_path, job
        self.cancel = threading.Event()

    def run(self) -> None:  # noqa: D401 (QThread API)
        result, error = None, ""
        try:
            store = ReviewStore(self.db_path)
            try:
                result = self.job(store, self.cancel, self.progressed.emit)
            finally:
                store.close()
        except MedRCubeError as exc:
            error = str(exc)
        except Exception as exc:  # noqa: BLE001 - shown where the job was started, and logged
            log.exception("background job failed")
            error = f"{type(exc).__name__}: {exc}"
        self.finished_job.emit(result, error)
