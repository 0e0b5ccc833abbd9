"""Running a job in a terminal: a tqdm bar on stderr, Ctrl+C cancels and waits.

The job runs on a worker thread while the main thread draws the bar and waits, so
Ctrl+C (delivered to the main thread) only sets the cancel event: the job stops between
units of work and what it stored stays stored. A second Ctrl+C stops waiting at once;
child processes of an engine die with the app (``evaluation/engines/guard.py``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from tqdm import tqdm

from medrcube_desktop.core.names import visible
from medrcube_desktop.core.progress import Cancel, Progress
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.jobs.terminal_output import watch

S = TypeVar("S")

POLL_S = 0.2
"""How often the main thread looks up from waiting (seconds); Ctrl+C lands within it."""


class JobFailed(MedRCubeError):
    """A job that had begun its work failed (exit status 1, not 2: its input was fine).

    The message is the cause's; what the job stored before stays stored.
    """


class Interrupted(MedRCubeError):
    """Ctrl+C twice: the app stopped waiting for the job to wind down."""


def run_in_terminal(
    job: Callable[[Callable[[Progress], None], Cancel], S],
    *,
    quiet: bool = False,
    unit: str = "item",
    on_cancel: str = "cancelling: what is stored stays stored",
) -> S:
    """Run ``job(progress, cancel)`` with a progress bar and return its summary.

    Parameters
    ----------
    job : callable
        The long work; it reports :class:`~medrcube_desktop.core.progress.Progress`
        records and checks ``cancel`` between units.
    quiet : bool
        No bar (``--json``: stdout carries only the JSON, stderr only messages).
    unit : str
        The bar's unit until the first record names one.
    on_cancel : str
        What to print on stderr after the first Ctrl+C, or when the reader of stdout or
        stderr leaves (the command's resume hint;
        :mod:`~medrcube_desktop.jobs.terminal_output`).

    Raises
    ------
    JobFailed
        The job raised after it had reported progress (exit status 1); the cause is
        chained.
    MedRCubeError, OSError
        The job raised before any progress: its input could not be used (exit status 2).
    Interrupted
        Ctrl+C a second time while the job was winding down.
    """
    cancel = Cancel()
    started = threading.Event()
    outcome: dict[str, object] = {}
    bars: list[tqdm] = []  # drawn at the first record: a job refused at once draws none

    def progress(record: Progress) -> None:
        started.set()
        if quiet:
            return
        if not bars:  # sized by the first record: no "0item [00:00, ?item/s]" line first
            bars.append(
                tqdm(
                    total=record.total, initial=record.done, unit=record.unit or unit,
                    file=sys.stderr, dynamic_ncols=True,
                )
            )  # fmt: skip
        bar = bars[0]
        bar.unit = record.unit
        bar.total = record.total
        bar.n = record.done
        postfix: dict[str, object] = dict(record.counts)
        if record.label:
            postfix = {"at": visible(record.label[:30]), **postfix}
        bar.set_postfix(postfix, refresh=False)
        bar.refresh()

    finished = threading.Event()

    def work() -> None:
        try:
            outcome["result"] = job(progress, cancel)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread below
            outcome["error"] = exc
        finally:
            finished.set()

    thread = threading.Thread(target=work, name="medrcube-job", daemon=True)
    thread.start()
    try:
        with watch(cancel, on_cancel):  # a reader of the output that leaves cancels too
            _wait(finished)
    except KeyboardInterrupt:
        cancel.set()
        tqdm.write(visible(f"{on_cancel} (Ctrl+C again to stop waiting)"), file=sys.stderr)
        try:
            _wait(finished)
        except KeyboardInterrupt:
            raise Interrupted("interrupted twice: stopped without waiting") from None
    finally:
        for bar in bars:
            bar.close()
    error = outcome.get("error")
    if isinstance(error, BaseException):
        if started.is_set() and isinstance(error, Exception):
            raise JobFailed(str(error)) from error
        raise error
    return outcome["result"]  # type: ignore[return-value]


def _wait(finished: threading.Event) -> None:
    """Wait for the job in short steps, so that Ctrl+C lands between them.

    An event, not ``Thread.join``: a KeyboardInterrupt inside ``join`` can leave the
    thread looking finished while it still runs (seen on CPython 3.11)."""
    while not finished.wait(POLL_S):
        pass
