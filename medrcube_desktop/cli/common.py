"""What every command shares: the database and benchmark options, one policy for opening
a database, ``--json`` and the exit status of an error.

Exit status (DESIGN.md, Interfaces): 0 done; 1 a job failed or was cancelled, a check
found problems, or a write failed on the way (disk full); 2 bad usage or input that
cannot be used (one line on stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

from medrcube_desktop.core.files import (
    SIDECARS,
    describe_missing,
    refuse_overwrite,
    same_file,
)
from medrcube_desktop.core.names import visible
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.core.words import plural
from medrcube_desktop.core.words import verb as agree
from medrcube_desktop.errors import DatasetError, MedRCubeError, StoreError

PROG = "medrcube-desktop"

__all__ = ["SIDECARS", "refuse_overwrite", "same_file"]  # these live in core.files

WRITE_FAILURES = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EFBIG})
"""errno values of a write that failed on the way (the input was fine): exit 1."""

Command = Callable[[argparse.Namespace], int]


def add_command(sub, name: str, func: Command, **kwargs: Any) -> argparse.ArgumentParser:
    """A sub-parser that runs ``func(args)`` (``set_defaults(func=…)``)."""
    parser = sub.add_parser(name, **kwargs)
    parser.set_defaults(func=func, command=name)
    return parser


def add_json(parser: argparse.ArgumentParser, shape: str = "the summary") -> None:
    """``--json``: print ``shape`` as one JSON document on stdout (messages stay on stderr,
    and no progress bar is drawn)."""
    parser.add_argument("--json", action="store_true", help=f"print {shape} as JSON")


def add_db(parser: argparse.ArgumentParser, *, creates: bool) -> None:
    """``--db FILE``, the review database; ``creates``: a missing file is created (and
    said so), else a missing file is an error."""
    parser.add_argument(
        "--db",
        type=Path,
        required=True,
        metavar="FILE",
        help="review database" + (" (created if missing)" if creates else " (must exist)"),
    )


def add_dataset(parser: argparse.ArgumentParser, required: bool = True) -> None:
    """``--dataset DIR``, a benchmark root in the MedRCube layout."""
    parser.add_argument(
        "--dataset", type=Path, required=required, metavar="DIR", help="benchmark root"
    )


def default_of(cls: type, name: str) -> Any:
    """The default of dataclass field ``name``: the one place a setting's default is
    written (``EngineOptions``, ``JudgeConfig``); the parser shows it, never repeats it."""
    for f in fields(cls):
        if f.name == name:
            if f.default is not MISSING:
                return f.default
            if f.default_factory is not MISSING:
                return f.default_factory()
    raise KeyError(f"{cls.__name__} has no default for {name!r}")


@contextlib.contextmanager
def open_database(path: Path, *, create: bool, keep_empty: bool = True) -> Iterator[Any]:
    """The one policy for a command's database.

    A command that only reads (exports, agreement, credibility) never creates a file:
    a missing one is an error. Nor does it change one: the file is opened read-only
    (:mod:`~medrcube_desktop.store.read_only`), so an archived study (mode 0444, a
    read-only folder or medium) is read, and one of an older schema is read through a
    copy migrated in memory, said on stderr. A command that stores results creates it, and says so on
    stderr once its work is done, so a typo in ``--db`` is never silent; when it fails
    before storing anything, the new file is removed again. The store is closed on the
    way out. With ``keep_empty`` False a new file that still holds nothing when the
    work is done is removed too (``import-run`` whose every file was refused), and
    "created" is said only of a file that is kept.

    Raises
    ------
    StoreError
        ``create`` is False and ``path`` is not a file; or it cannot be opened.
    """
    from medrcube_desktop.store import StudyStore

    new = not path.is_file()
    if new:
        missing = describe_missing(path, "review database")
        if missing and (not create or path.exists()):
            raise StoreError(missing)
    elif not create and path.stat().st_size == 0:  # SQLite would make it a database
        raise StoreError(f"{path}: an empty file, not a review database")
    store = StudyStore(path, read_only=not create)
    opened = store.opened_read_only
    if opened is not None and opened.migrated_copy:
        say(
            f"{PROG}: {path} is of an older schema (v{opened.file_version}; this app: "
            f"v{opened.app_version}): read without changing it, through a copy migrated "
            "in memory"
        )
    try:
        yield store
        discard = new and not keep_empty and _holds_nothing(store)  # nothing stored
    except BaseException:
        if new and _holds_nothing(store):  # refused before it stored anything: no trace
            store.close()
            _remove_database(path)
        elif new:
            say(f"{PROG}: created a new review database {path}")
        raise
    finally:
        store.close()
    if opened is not None and opened.changed():
        warn(
            f"{path} was written by another process while it was read: run the command "
            "again for figures of one state"
        )
    if discard:  # no trace of a command that stored nothing
        _remove_database(path)
    elif new:  # after the work, so that a refused input's one line stays the only line
        say(f"{PROG}: created a new review database {path}")


def _remove_database(path: Path) -> None:
    """Remove a database this command created, with its WAL and shared-memory files."""
    for leftover in (path, *(path.with_name(path.name + s) for s in ("-wal", "-shm"))):
        leftover.unlink(missing_ok=True)


def _holds_nothing(store: Any) -> bool:
    try:
        return store.holds_nothing()
    except StoreError:  # a database that cannot even be counted is kept, and named
        return False


def load_items(
    dataset: Path,
    limit: int | None = None,
    verb: str = "used",
    images: bool = True,
    restricted: bool = False,
    skipped_hint: str = "",
) -> tuple[Any, list]:
    """The benchmark at ``dataset`` and its first ``limit`` loadable items; how many
    items the loader refused is said on stderr (they are not ``verb``). With
    ``images=False`` items whose image files are missing are kept
    (:func:`~medrcube_desktop.core.dataset.load_benchmark`). ``restricted=True`` adds
    the restricted items the release ships without their image (text-only work);
    otherwise how many are left out is said, with ``skipped_hint`` (how to include them).

    Raises
    ------
    DatasetError
        ``dataset`` cannot be used at all, or none of its items can be ``verb``.
    """
    from medrcube_desktop.core.dataset import load_benchmark

    if images:
        benchmark = load_benchmark(dataset)
    else:  # what every figure over stored answers is computed from, in the panes too
        from medrcube_desktop.evaluation.compare.inputs import scored_benchmark

        benchmark = scored_benchmark(dataset)
    if benchmark.problems:
        one = not_loaded(benchmark.problems) == (1, 0)
        warn(
            f"{not_loaded_text(benchmark.problems)} cannot be loaded and "
            f"{'is' if one else 'are'} not {verb} ({PROG} validate {dataset} lists them)"
        )
    items = benchmark.items
    n_restricted = len(benchmark.restricted)
    if images and benchmark.restricted:
        if restricted:
            items = items + benchmark.restricted
            say(f"{plural(n_restricted, 'restricted item')} (image not redistributed) included")
        else:
            say(
                f"{plural(n_restricted, 'restricted item')} "
                f"{agree(n_restricted, 'has', 'have')} no image (not redistributed) and "
                f"{agree(n_restricted, 'is', 'are')} not {verb}{skipped_hint}"
            )
    if not items:  # nothing to work on: say why instead of an empty result
        why = []
        if benchmark.problems:
            why.append(f"{not_loaded_text(benchmark.problems)} cannot be loaded")
        if benchmark.restricted and not (images and restricted):
            why.append(
                f"{n_restricted} {agree(n_restricted, 'is', 'are')} restricted{skipped_hint}"
            )
        raise DatasetError(
            f"{dataset}: no item can be {verb}" + (f": {'; '.join(why)}" if why else "")
        )
    return benchmark, items[:limit] if limit else items


def not_loaded(problems: Sequence[Any]) -> tuple[int, int]:
    """(items, files) that ``problems`` (:class:`~medrcube_desktop.core.dataset.Problem`)
    are about: an item with five bad fields is one item, a file-level problem one file."""
    items = {(p.file, p.item) for p in problems if p.item is not None}
    files = {p.file for p in problems if p.item is None}
    return len(items), len(files)


def not_loaded_text(problems: Sequence[Any]) -> str:
    """``3 items (7 problems)``, ``1 item and the items of 1 file (4 problems)``."""
    items, files = not_loaded(problems)
    counted = f"{items} item{'' if items == 1 else 's'}"
    if files:
        counted += f" and the items of {files} file{'' if files == 1 else 's'}"
    return f"{counted} ({len(problems)} problem{'' if len(problems) == 1 else 's'})"


def say(message: str) -> None:
    """A message for people, on stderr (stdout is for results); every line written for
    a terminal goes through :func:`~medrcube_desktop.core.names.visible`, so a name
    holding an escape sequence (from an older database, a file name) is shown, not
    run."""
    print(visible(message), file=sys.stderr)


def warn(message: str) -> None:
    """A warning on stderr, prefixed so that scripts can grep it (made visible as
    :func:`say`)."""
    print(visible(f"{PROG}: warning: {message}"), file=sys.stderr)


def emit(as_json: bool, data: object, text: str | Sequence[str]) -> None:
    """Print ``data`` as JSON with ``--json`` (control characters escaped by ``json``),
    else ``text`` (a line or lines, made visible as :func:`say`)."""
    if as_json:
        print(json.dumps(data))
    elif isinstance(text, str):
        print(visible(text))
    else:
        for line in text:
            print(visible(line))


FAILURES_LISTED = 10
"""Failed items listed one by one on stderr; past that, one line counts them all (7,600
failed items would otherwise flood the terminal; ``--json`` holds every one)."""


def list_failures(failed: Sequence[dict[str, str]]) -> None:
    """One line per failed item on stderr, ``item: reason`` (made visible; only the
    reason for a failure of no item, a whole file), for the first
    :data:`FAILURES_LISTED`; then one line with how many failed and the most frequent
    reason."""
    reasons: dict[str, int] = {}
    for n, failure in enumerate(failed):
        reason = str(failure.get("error") or failure.get("message") or "")
        reasons[reason] = reasons.get(reason, 0) + 1
        if n < FAILURES_LISTED:
            where = failure.get("item", "")  # none for a whole file: the reason names it
            print(visible(f"{where}: {reason}" if where else reason), file=sys.stderr)
    if len(failed) > FAILURES_LISTED:
        reason, count = max(reasons.items(), key=lambda kv: kv[1])
        print(
            visible(
                f"{len(failed):,} items failed (the first {FAILURES_LISTED} listed above; "
                f"--json lists every one); most often ({count:,}): {reason}"
            ),
            file=sys.stderr,
        )


def exit_status(exc: BaseException) -> int:
    """The exit status of an error that ended a command (see the module docstring):
    a write that failed on the way (disk full, I/O error, read-only file system, at any
    depth of the cause chain) is 1; anything else the command could not use is 2."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno in WRITE_FAILURES:
            return Outcome.FAILED
        if isinstance(cause, sqlite3.OperationalError) and any(
            words in str(cause) for words in ("disk is full", "disk I/O error")
        ):
            return Outcome.FAILED
        cause = cause.__cause__ or cause.__context__
    return Outcome.BAD_INPUT if isinstance(exc, MedRCubeError | OSError) else Outcome.FAILED


@contextlib.contextmanager
def terminate_interrupts() -> Iterator[None]:
    """While inside, a SIGTERM (``kill PID``, a scheduler's stop) raises
    ``KeyboardInterrupt`` as Ctrl+C does, so a writer's cleanup runs (``release``
    removes its staging folder) and the command ends "interrupted", status 1. The
    handler before is put back on leaving. Outside the main thread (no signal handler
    may be set there) nothing changes."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
