"""``validate --deep``: every item's image and mask decoded and rendered as the review
window would, so that what only decoding finds (a mask on another grid, a mask of 5,000
labels, of fractional values or that is a picture, a truncated pixel stream, a slice that
is not there, a mask that labels nothing, a box off the image) is a
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

from medrcube_desktop.core.file_checks import require_item_files
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.problems import Problem
from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.render import box_on_slice, compose_rgba

MAX_WORKERS = 4
"""Most decoding threads (more only contend for memory bandwidth on a laptop)."""


@dataclass
class DeepCheckSummary:
    """What :func:`check_pictures` found: ``checked`` items decoded cleanly or not,
    ``clean`` of them without a problem, ``problems`` (one per item that failed to
    decode; else one for a mask that labels no pixel and one for a box off the image),
    whether it was ``cancelled``."""

    checked: int = 0
    clean: int = 0
    problems: list[Problem] = field(default_factory=list)
    cancelled: bool = False

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (part of ``validate --deep --json``)."""
        return {
            "checked": self.checked,
            "clean": self.clean,
            "problems": [p.to_dict() for p in self.problems],
            "cancelled": self.cancelled,
        }


def _problem(item: Item, exc: Exception) -> Problem:
    """The item's problem, on the field whose file the message names (the mask's when
    its path is in the message: a reader names the file it could not read)."""
    message = str(exc)
    mask = item.mask_path is not None and str(item.mask_path) in message
    return _field_problem(item, "mask_path" if mask else "image_path", message)


def _field_problem(item: Item, name: str, message: str) -> Problem:
    where = item.source_file
    if item.root is not None and where.is_relative_to(item.root):
        where = where.relative_to(item.root)  # as the loader names files
    return Problem(where.as_posix(), item.id, name, message)


def _check(item: Item) -> list[Problem]:
    """Decode and render ``item`` as ``render`` would (full resolution, the slice of the
    largest mask area); then what decodes but cannot show the question's region: a mask
    that labels nothing (on that slice, so in the whole volume), a box off the image."""
    try:
        image, mask = require_item_files(item)  # confined now, not at load
        data = load_slice(image, None, mask, item.modality)
        compose_rgba(data, item.bbox)
    except (ImageLoadError, OSError) as exc:  # bad input; anything else is a bug: raised
        return [_problem(item, exc)]
    problems = []
    if item.mask_path is not None and data.mask is not None and not data.mask.any():
        problems.append(
            _field_problem(
                item,
                "mask_path",
                f"{item.mask_path}: the mask labels no pixel: the question's region "
                "cannot be shown",
            )
        )
    if item.bbox is not None and box_on_slice(data, item.bbox) is None:
        h, w = data.stored_shape or data.pixels.shape[:2]
        problems.append(
            _field_problem(
                item,
                "bbox",
                f"the box {list(item.bbox)} lies wholly outside the image ({w}x{h} "
                "pixels, x = column, y = row): the question's region cannot be shown",
            )
        )
    return problems


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
        pending: deque[tuple[Item, Future[list[Problem]]]] = deque()
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
    entry: tuple[Item, Future[list[Problem]]],
    summary: DeepCheckSummary,
    progress: ProgressFn | None,
    total: int,
) -> None:
    item, future = entry
    found = future.result()
    summary.checked += 1
    summary.clean += not found
    summary.problems.extend(found)
    counts = {"problems": len(summary.problems)}
    report(progress, Progress(summary.checked, total, "item", item.id, counts))
