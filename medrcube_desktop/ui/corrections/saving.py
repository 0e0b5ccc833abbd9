"""Storing a proposal or a decision off the GUI thread, the moment it is submitted.

A :class:`~medrcube_desktop.ui.widgets.job_runner.StoreJob` opens its own connection to
the study's file (SQLite connections belong to their thread), completes the proposal
with the item's record as it is in its ``test.json`` (read there, not on the GUI
thread) and stores it; the result or the error comes back to the GUI thread as a
signal. A store in memory (tests) has no file to open twice: it is written at once on
the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.ui.widgets.job_runner import StoreJob

Work = Callable[[Any], object]
"""``work(store) -> result``, run with a store of its own."""


class StoreWriter(QObject):
    """Runs store writes for one pane or dialog, each on its own thread, in order of
    submission; keeps each job until it ends.

    ``store`` is the window's store (its ``path`` is opened again on the worker; an
    in-memory store is written on the GUI thread).
    """

    def __init__(self, store: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self._jobs: list[StoreJob] = []
        self._pending: list[_Pending] = []

    def run(
        self, work: Work, done: Callable[[object], None], failed: Callable[[str], None]
    ) -> None:
        """``work(store)`` off the GUI thread; then ``done(result)`` or
        ``failed(message)`` on the GUI thread."""
        path = getattr(self.store, "path", None)
        if path is None:  # in memory: the one connection there is
            try:
                result = work(self.store)
            except MedRCubeError as exc:
                failed(str(exc))
                return
            done(result)
            return
        job = StoreJob(path, lambda store, _cancel, _progress: work(store), self)
        pending = _Pending(self, job, done, failed)
        job.finished_job.connect(pending.finished)  # a QObject's method: queued to here
        self._jobs.append(job)
        self._pending.append(pending)
        job.start()

    def _ended(self, pending: _Pending) -> None:
        self._jobs.remove(pending.job)
        self._pending.remove(pending)
        pending.job.wait()
        pending.job.deleteLater()
        pending.deleteLater()

    def busy(self) -> bool:
        """Whether a write is still under way."""
        return bool(self._jobs)

    def wait(self, ms: int = 5000) -> None:
        """Wait for the writes under way (the dialog or window closes)."""
        for job in list(self._jobs):
            job.wait(ms)


class _Pending(QObject):
    """One write under way: its callbacks, called on the GUI thread when it ends."""

    def __init__(
        self,
        writer: StoreWriter,
        job: StoreJob,
        done: Callable[[object], None],
        failed: Callable[[str], None],
    ) -> None:
        super().__init__(writer)
        self.writer, self.job, self.done, self.failed = writer, job, done, failed

    def finished(self, result: object, error: str) -> None:
        self.writer._ended(self)
        if error:
            self.failed(error)
        else:
            self.done(result)
