"""The benchmark's file checks on a worker thread, after the first item is on screen.

The window loads a benchmark with record checks only
(:func:`~medrcube_desktop.ui.window_factory.load_for_review`); this thread then drives
the Qt-free generator :meth:`~medrcube_desktop.core.dataset.Benchmark.check_files` and
hands each problem to the GUI thread as a signal (it never touches a widget). The window
adds the problems to ``benchmark.problems`` and its status bar counts them as they come.
"""

from __future__ import annotations

import logging
import threading

from PySide6.QtCore import QObject, QThread, Signal

from medrcube_desktop.core.dataset import Benchmark

__all__ = ["FileCheckThread"]

log = logging.getLogger(__name__)

_BATCH = 64  # problems per signal: a benchmark with 1,000 missing files stays responsive


class FileCheckThread(QThread):
    """Runs ``benchmark.check_files()``.

    Emits ``found(problems)`` (a list of ``Problem``) as problems are found, and
    ``checked(error)`` at the end (``error`` '' when every item was checked; the
    exception's text when the pass stopped on one, which is logged too).
    """

    found = Signal(object)
    checked = Signal(str)

    def __init__(self, benchmark: Benchmark, parent: QObject) -> None:
        super().__init__(parent)
        self.benchmark = benchmark
        self.cancel = threading.Event()

    def run(self) -> None:  # noqa: D401 (QThread API)
        error = ""
        batch = []
        try:
            for problem in self.benchmark.check_files(self.cancel):
                batch.append(problem)
                if len(batch) >= _BATCH:
                    self.found.emit(batch)
                    batch = []
        except Exception as exc:  # noqa: BLE001 - said in the window, and logged
            log.exception("checking the benchmark's files failed")
            error = f"{type(exc).__name__}: {exc}"
        if batch:
            self.found.emit(batch)
        self.checked.emit(error)

    def stop(self) -> None:
        """Cancel the pass and wait for the thread (the window is closing)."""
        self.cancel.set()
        self.wait()
