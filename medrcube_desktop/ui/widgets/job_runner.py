"""The one Qt runner of long work: a job on a QThread, a progress bar with ETA, Cancel.

A job is ``job(store, cancel, progress) -> summary``, the same function the CLI drives
with tqdm: it gets a :class:`StudyStore` of its own on the study's file (SQLite
connections belong to the thread that opened them), checks the ``cancel`` event between
units of work and reports :class:`~medrcube_desktop.core.progress.Progress` records. It
never touches a widget (STYLE.md rule 3): records and the result reach the GUI thread as
signals. :class:`JobRunnerView` shows the bar (done / total, rate, time left) and a
Cancel button (Esc while a job runs), and cancels and waits for the job when its dialog
closes. A pane keeps its own status text, built from ``record.detail``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QThread, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from medrcube_desktop.core.progress import Progress
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.widgets.text import format_duration

__all__ = ["Job", "JobRunnerView", "StoreJob", "eta_text"]

log = logging.getLogger(__name__)

Job = Callable[[StudyStore, threading.Event, Callable[[Progress], None]], object]
"""``job(store, cancel, progress) -> summary``."""


class StoreJob(QThread):
    """Runs one job on its own thread and database connection.

    Emits ``progressed(record)`` and ``finished_job(summary, error)`` (``error`` '' on
    success; the summary is ``None`` after an error).
    """

    progressed = Signal(object)
    finished_job = Signal(object, str)

    def __init__(self, db_path: Path, job: Job, parent: QObject) -> None:
        super().__init__(parent)
        self.db_path, self.job = db_path, job
        self.cancel = threading.Event()

    def run(self) -> None:  # noqa: D401 (QThread API)
        result, error = None, ""
        try:
            store = StudyStore(self.db_path)
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


def eta_text(done: int, total: int | None, first_done: int, elapsed_s: float) -> str:
    """``"3 of 40 · 1.50 items/s · about 1 min left"`` (what the bar's label says).

    ``first_done`` is ``done`` of the first record (units a resumed job had done before
    it started count for the total, not for the rate); ``elapsed_s`` seconds since start.
    """
    if total is None:
        return f"{done} done" if done else "Working…"
    rate = (done - first_done) / elapsed_s if elapsed_s > 0 else 0.0
    parts = [f"{done} of {total}"]
    if rate > 0:
        parts.append(f"{rate:.2f} items/s")
        if done < total:
            parts.append(f"{format_duration((total - done) / rate)} left")
    return " · ".join(parts)


class JobRunnerView(QWidget):
    """Progress bar, ETA and Cancel for the long jobs of one dialog, one job at a time.

    Signals: ``progressed(record)`` for each :class:`Progress` (the pane builds its status
    from ``record.detail``), ``finished(summary, error)`` once the job ended (``error``
    '' on success). ``cancelled`` says whether Cancel (or Esc, or closing the dialog)
    stopped the last job. ``hide_when_idle`` hides the whole row between jobs.
    """

    progressed = Signal(object)
    finished = Signal(object, str)

    def __init__(self, dialog: QWidget, hide_when_idle: bool = False) -> None:
        super().__init__(dialog)
        self.dialog = dialog
        self.hide_when_idle = hide_when_idle
        self.worker: StoreJob | None = None
        self.bar = QProgressBar()
        self.eta = QLabel()
        self.eta.setObjectName("jobEta")
        self.cancel_button = QPushButton("Ca&ncel")
        self.cancel_button.setToolTip("Stop the run (Esc); what is stored stays stored")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.eta)
        layout.addWidget(self.cancel_button)
        self._escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), dialog)
        self._escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self._escape.setEnabled(False)  # idle: Esc closes the dialog as usual
        self._escape.activated.connect(self.cancel)
        self._started = 0.0
        self._first_done: int | None = None
        dialog.installEventFilter(self)
        self.setVisible(not hide_when_idle)

    def is_running(self) -> bool:
        """Whether a job is running now."""
        return self.worker is not None and self.worker.isRunning()

    @property
    def cancelled(self) -> bool:
        """Whether the last job was asked to stop."""
        return self.worker is not None and self.worker.cancel.is_set()

    def start(self, db_path: Path, job: Job) -> bool:
        """Run ``job`` on a worker thread with its own connection to ``db_path``.

        Returns False (and starts nothing) while another job runs.
        """
        if self.is_running():
            return False
        self.worker = StoreJob(db_path, job, self)
        self.worker.progressed.connect(self._on_progress)
        self.worker.finished_job.connect(self._on_finished)
        self._started, self._first_done = time.monotonic(), None
        self.bar.setRange(0, 0)  # busy until the first record says how many
        self.eta.setText("")
        self.cancel_button.setEnabled(True)
        self._escape.setEnabled(True)
        self.setVisible(True)
        self.worker.start()
        return True

    def cancel(self) -> None:
        """Ask the running job to stop between two units; what is stored stays stored."""
        if self.is_running():
            self.worker.cancel.set()
            self.eta.setText("Cancelling…")

    def stop(self, wait_ms: int = 60_000) -> None:
        """Cancel a running job and wait for its thread (closing the dialog)."""
        if self.is_running():
            self.worker.cancel.set()
            self.worker.wait(wait_ms)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt override)
        """Closing the dialog cancels the job and waits for it."""
        if watched is self.dialog and event.type() == QEvent.Type.Close:
            self.stop()
        return False

    def _on_progress(self, record: Progress) -> None:
        if self._first_done is None:
            self._first_done = record.done
        if record.total is None:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, max(1, record.total))
            self.bar.setValue(record.done)
        if not self.cancelled:
            elapsed = time.monotonic() - self._started
            self.eta.setText(eta_text(record.done, record.total, self._first_done, elapsed))
        self.progressed.emit(record)

    def _on_finished(self, summary: object, error: str) -> None:
        self.cancel_button.setEnabled(False)
        self._escape.setEnabled(False)
        self.bar.setRange(0, 1)
        self.bar.setValue(0 if self.cancelled else 1)
        self.eta.setText("")
        if self.hide_when_idle:
            self.setVisible(False)
        self.finished.emit(summary, error)
