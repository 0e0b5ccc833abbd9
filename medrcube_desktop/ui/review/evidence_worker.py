"""The image-necessity evidence of the review (rule 1.4, issue 24) computed off the GUI
thread: over every stored run it takes about a second at 33 runs, so the window hands
the session a start (:data:`~medrcube_desktop.review.reveal.EvidenceStart`) that runs
the computation as a :class:`~medrcube_desktop.ui.widgets.job_runner.StoreJob` (its own
thread and database connection, the one way the window runs long work) and gives the
result back on the GUI thread. The reveal and the "answerable without the image" queue
say "computing…" meanwhile; the session keeps the result until the runs change."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from medrcube_desktop.core.items import Item
from medrcube_desktop.review.necessity_evidence import Evidence
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.widgets.job_runner import StoreJob

log = logging.getLogger(__name__)

_RUNNING: set[StoreJob] = set()
"""Computations started, held here (not by their worker) so that a window destroyed
without closing never destroys a running thread; the finished ones are let go at the
next start, on the GUI thread."""

Compute = Callable[[StudyStore, Sequence[Item]], Evidence]
"""``compute(store, items) -> evidence``: by default
:func:`~medrcube_desktop.evaluation.compare.necessity.store_evidence`."""


def store_evidence(store: StudyStore, items: Sequence[Item]) -> Evidence:
    """The evidence ``compare`` computes (imported when first needed: the review window
    opens without the evaluation layer's comparison code)."""
    from medrcube_desktop.evaluation.compare.necessity import store_evidence as compute

    return compute(store, list(items))


class EvidenceWorker(QObject):
    """Computes the evidence of ``items`` from the runs in ``db_path`` on a worker
    thread, one computation at a time (a start while one runs is kept and run next).

    ``deliver(generation, evidence, error)`` is called on the GUI thread with each result
    (the session's :meth:`~medrcube_desktop.review.reveal.RevealMixin.evidence_arrived`);
    ``arrived()`` is emitted after it (the window re-applies the queue). ``compute``:
    what computes it (None: this module's :func:`store_evidence`, looked up at each
    start).
    """

    arrived = Signal()

    def __init__(
        self,
        db_path: Path,
        items: Sequence[Item],
        deliver: Callable[[int, Evidence, str], None],
        compute: Compute | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.db_path, self.items = db_path, list(items)
        self.deliver, self.compute = deliver, compute
        self.job: StoreJob | None = None
        self._running: int | None = None  # the generation being computed
        self._next: int | None = None  # asked for while one ran
        self._stopped = False

    def start(self, generation: int) -> None:
        """Compute the evidence for ``generation`` (:data:`EvidenceStart`)."""
        if self._stopped:
            return
        if self.job is not None and self.job.isRunning():
            self._next = generation
            return
        items, compute = self.items, self.compute or store_evidence
        self._running = generation
        job = StoreJob(self.db_path, lambda store, _cancel, _progress: compute(store, items), None)
        job.finished_job.connect(self._finished)  # queued: this object's GUI thread
        _RUNNING.difference_update([j for j in _RUNNING if j.isFinished()])  # here, GUI thread
        _RUNNING.add(job)
        self.job = job
        job.start()

    def is_running(self) -> bool:
        """Whether a computation runs now."""
        return self.job is not None and self.job.isRunning()

    def stop(self, wait_ms: int = 60_000) -> None:
        """Wait for a running computation (the window closes); its result is dropped."""
        self._next = None
        if self.job is not None:
            self.job.wait(wait_ms)
        self._stopped = True  # a result still queued for the GUI thread is dropped

    def _finished(self, evidence: object, error: str) -> None:
        if self._stopped:
            return
        generation, self._running = self._running, None
        self.job = None  # its work is done (its thread may still be ending: _RUNNING)
        if error:
            log.warning("image-necessity evidence not read: %s", error)
        if generation is not None:
            self.deliver(generation, evidence if isinstance(evidence, dict) else {}, error)
        if self._next is not None:
            generation, self._next = self._next, None
            self.start(generation)
        self.arrived.emit()
