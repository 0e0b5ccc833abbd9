"""Opening a study database and building a review window on it: the start-up and
File › Open do it the same way (the window's class is passed in, so nothing here imports
the window)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TypeVar

from medrcube_desktop import settings
from medrcube_desktop.core.dataset import Benchmark, load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.database import WINDOW_WRITE_WAIT_S

Window = TypeVar("Window")
"""The review window's class (``ui/main_window.MainWindow``), passed in: nothing here
imports it, so the window may build windows here (File › Open) without a cycle."""


def open_store(db_file: Path) -> StudyStore:
    """The study database at ``db_file`` (created when missing) for the window.

    A file is read-only for the window when the system refuses to write it, or when its
    mode gives no one the write bit (0444: archived), and likewise its folder; the mode
    bits are honoured as the owner's intent whoever runs the app (root, in a container,
    passes every permission check, and would otherwise migrate an archived study and
    write its ``.bak`` copy into a read-only folder).

    Raises
    ------
    MedRCubeError
        The file, or the folder its ``-wal`` and ``-shm`` files go in, is read-only
        (said now, not at the first keystroke: "Draft NOT saved"; the window writes).
    StoreError
        It cannot be opened as a study database.
    """
    db_file = db_file.expanduser()
    if db_file.exists():
        folder = db_file.parent
        sidecars = all(db_file.with_name(db_file.name + s).exists() for s in ("-wal", "-shm"))
        if not writable(db_file):
            raise MedRCubeError(f"{db_file}: the review database is read-only; {READ_ONLY_HINT}")
        if not _write_bit(folder) or (not sidecars and not os.access(folder, os.W_OK)):
            raise MedRCubeError(
                f"{db_file}: its folder {folder} is read-only, and the window needs to "
                f"write beside the database; {READ_ONLY_HINT}"
            )
    store = StudyStore(db_file)
    store.wait_for_writes(WINDOW_WRITE_WAIT_S)  # the GUI thread never waits a minute
    return store


def writable(path: Path) -> bool:
    """Whether the window may write ``path``: the system lets this process write it, and
    its mode gives someone the write bit (see :func:`open_store`)."""
    return os.access(path, os.W_OK) and _write_bit(path)


def _write_bit(path: Path) -> bool:
    """Whether the mode of ``path`` gives its owner, group or others the write bit."""
    try:
        return bool(stat.S_IMODE(path.stat().st_mode) & WRITE_BITS)
    except OSError:
        return False


WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


READ_ONLY_HINT = (
    "reviews could not be saved. The read-only commands (agreement, export-reviews, "
    "adjudicate-queue, compare, …) read it without changing it; to review, copy it to a "
    "writable folder"
)
"""What a read-only study database still allows (the window's message)."""


def load_for_review(root: Path) -> Benchmark:
    """The benchmark at ``root`` as a review window opens it: record checks only, so the
    first item is on screen at about the cost of reading the JSON; the window checks
    the files on a worker thread once it is (``ui/file_checks.py``), and the renderer
    checks each item's files before reading them.

    Raises
    ------
    DatasetError
        ``root`` is not a usable benchmark folder.
    """
    return load_benchmark(root, check_files=False)


def build_window(
    window_class: type[Window],
    benchmark: Benchmark,
    store: StudyStore,
    name: str,
    prefs: settings.Settings,
) -> Window:
    """A review window on ``benchmark`` and ``store`` for reviewer ``name``, remembering
    what the user changes in ``prefs`` (not shown yet). File › Open builds its windows
    here too."""
    window = window_class(
        ReviewSessionState(benchmark.items, store, name, restricted=benchmark.restricted),
        benchmark,
        neurological=prefs.neurological,
        prefs=prefs,
    )
    window.reviewer_changed.connect(lambda new: _remember_reviewer(prefs, new))
    window.convention_changed.connect(lambda on: _remember_convention(prefs, on))
    window.preferences_changed.connect(prefs.save)
    window.list_pane.include_restricted.setChecked(prefs.include_restricted)
    window.list_pane.include_restricted.toggled.connect(lambda on: _remember_restricted(prefs, on))
    return window


def _remember_restricted(prefs: settings.Settings, on: bool) -> None:
    prefs.include_restricted = on
    prefs.save()


def _remember_convention(prefs: settings.Settings, neurological: bool) -> None:
    prefs.neurological = neurological
    prefs.save()


def _remember_reviewer(prefs: settings.Settings, name: str) -> None:
    prefs.reviewer = name
    prefs.save()
