"""``validate --deep``: every item's image and mask decoded and rendered as the review
window would, so that what only decoding finds (a mask on another grid, a mask of 5,000
labels or of fractional values, a truncated pixel stream, a slice that is not there) is a
problem of the benchmark before anyone opens the item, not a render failure later.

No Qt. Decoding runs on a few threads: pydicom's decoders, Pillow and numpy release the
GIL for the heavy part, and threads need no pickling of items and cannot leave a killed
process behind (the evaluation's process pool had to learn that, ``evaluation.prepare``).
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.problems import Problem
from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.batch import render_to_png

MAX_WORKERS = 4
"""Most decoding threads (more only contend for memory bandwidth on a laptop)."""


@dataclass
class DeepCheckSummary:
    """What :func:`check_pictures` found: ``checked`` items decoded cleanly or not,
    ``problems`` (one per item that failed), whether it was ``cancelled``."""

    checked: int = 0
    problems: list[Problem] = field(default_factory=list)
    cancelled: bool = False

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (part of ``validate --deep --json``)."""
        return {
            "checked": self.checked,
            "problems": [p.to_dict() for p in self.problems],
            "cancelled": self.cancelled,
        }


def _problem(item: Item, exc: Exception) -> Problem:
    """The item's problem, on the field whose file the message names (the mask's when
    its path is in the message: a reader names the file it could not read)."""
    message = str(exc)
    mask = item.mask_path is not None and str(item.mask_path) in message
    where = item.source_file
    if item.root is not None and where.is_relative_to(item.root):
        where = where.relative_to(item.root)  # as the loader names files
    return Problem(where.as_posix(), item.id, "mask_path" if mask else "image_path", message)


def _check(item: Item) -> Problem | None:
    try:
        render_to_png(item.image_path, None, item.mask_path, item.bbox, modality=item.modality)
    except (ImageLoadError, OSError) as exc:  # bad input; anything else is a bug: raised
        return _problem(item, exc)
    return None


def check_pictures(
    items: Sequence[Item],
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
    workers: int | None = None,
) -> DeepCheckSummary:
    """Decode and render every item's image with its mask and box (nothing written).

    A long job (``core.progress``): a :class:`Progress` per item done (unit ``item``,
    ``counts={"problems": N}``), stops between items once ``cancel`` is set (items in
    flight finish). Problems are in item order.

    Parameters
    ----------
    items : sequence of Item
        Items whose records and files already passed (``load_benchmark(...).items``).
    workers : int, optional
        Decoding threads; default ``min(MAX_WORKERS, os.cpu_count())``.

    Raises
    ------
    Exception
        Whatever the renderer raises that is not bad input (ImageLoadError, OSError):
        a bug, not a problem of the benchmark.
    """
    summary = DeepCheckSummary()
    total = len(items)
    workers = workers or min(MAX_WORKERS, os.cpu_count() or 1)
    report(progress, Progress(0, total, "item", "decoding", {"problems": 0}))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="deep-check") as pool:
        pending: deque[tuple[Item, Future[Problem | None]]] = deque()
        queued = iter(items)
        for item in queued:  # a bounded window in flight, so a cancel takes effect soon
            pending.append((item, pool.submit(_check, item)))
            if len(pending) >= 2 * workers:
                _collect(pending.popleft(), summary, progress, total)
            if cancel is not None and cancel.is_set():
                summary.cancelled = True
                break
        while pending:
            _collect(pending.popleft(), summary, progress, total)
    return summary


def _collect(
    entry: tuple[Item, Future[Problem | None]],
    summary: DeepCheckSummary,
    progress: ProgressFn | None,
    total: int,
) -> None:
    item, future = entry
    problem = future.result()
    summary.checked += 1
    if problem is not None:
        summary.problems.append(problem)
    counts = {"problems": len(summary.problems)}
    report(progress, Progress(summary.checked, total, "item", item.id, counts))
