"""The contract of long work: one progress record, one cancel event, one summary shape.

Every long job (render a benchmark, build the demo, judge, evaluate) reports a
:class:`Progress` through one callable and stops when its cancel event is set; it returns
a summary with ``to_dict()``, ``failed`` and ``cancelled``. The terminal runner
(``cli/terminal.py``: tqdm, Ctrl+C) and the Qt runner (``ui/widgets/job_runner.py``: progress bar,
ETA, Cancel) are the only two consumers, so a new job gets both for free.

The record sits in ``core`` because the domain layers build it; ``jobs`` (the job
functions the CLI and the GUI share) sits above them (DESIGN.md, Architecture).
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "Cancel",
    "Outcome",
    "Progress",
    "ProgressFn",
    "Summary",
    "outcome_of",
    "report",
]

Cancel = threading.Event
"""Set it to stop a job between units of work; what is stored stays stored."""


@dataclass(frozen=True)
class Progress:
    """Where a job stands.

    Attributes
    ----------
    done : int
        Units finished (answered, failed or rendered), ``0 <= done <= total``.
    total : int or None
        Units this run will do; ``None`` while unknown (a busy indicator).
    unit : str
        What a unit is ("item", "image"), for the progress bar.
    label : str
        What is being done now (an item id, a file name), short.
    counts : mapping of str to int or float
        Running counts the job wants shown beside the bar (``failed``, ``correct``,
        ``tokens``); their order is kept.
    detail : object or None
        A snapshot of the job's own state for a pane that shows more (``EvalProgress``,
        ``JudgeSummary``); a copy, so the receiving thread may keep it.
    """

    done: int
    total: int | None
    unit: str = "item"
    label: str = ""
    counts: Mapping[str, int | float] = field(default_factory=dict)
    detail: object | None = None

    @property
    def fraction(self) -> float | None:
        """``done / total`` in [0, 1], or None while the total is unknown (or 0)."""
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


ProgressFn = Callable[[Progress], None]
"""``progress(record)``; called from the job's thread, so it must not touch a widget."""


def report(progress: ProgressFn | None, record: Progress) -> None:
    """Send ``record`` when there is someone to send it to."""
    if progress is not None:
        progress(record)


class Summary(Protocol):
    """What a job returns: its figures as JSON-ready data, what failed, whether it was
    cancelled. ``failed`` lists ``{"item", ...}`` records (the item id and the reason)."""

    cancelled: bool

    @property
    def failed(self) -> list[dict[str, str]]: ...

    def to_dict(self) -> dict[str, object]: ...


class Outcome(enum.IntEnum):
    """How a command ended; the value is its exit status (DESIGN.md, Interfaces)."""

    DONE = 0
    """Every unit done, every check passed."""
    FAILED = 1
    """A unit failed, a check found problems, or the job was cancelled."""
    BAD_INPUT = 2
    """Bad usage or input the job could not start on (one line on stderr)."""


def outcome_of(summary: Summary) -> Outcome:
    """``FAILED`` when a unit failed or the job was cancelled, else ``DONE``."""
    return Outcome.FAILED if summary.failed or summary.cancelled else Outcome.DONE
