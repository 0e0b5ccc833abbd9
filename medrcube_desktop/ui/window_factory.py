"""Opening a study database and building a review window on it: the start-up and
File › Open do it the same way (the window's class is passed in, so nothing here imports
the window)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from medrcube_desktop import settings
from medrcube_desktop.core.dataset import Benchmark, load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore

if TYPE_CHECKING:
    from medrcube_desktop.ui.main_window import MainWindow


def open_store(db_file: Path) -> StudyStore:
    """The study database at ``db_file`` (created when missing) for the window.

    Raises
    ------
    MedRCubeError
        The file is read-only (said now, not at the first keystroke: "Draft NOT saved").
    StoreError
        It cannot be opened as a study database.
    """
    db_file = db_file.expanduser()
    if db_file.exists() and not os.access(db_file, os.W_OK):
        raise MedRCubeError(
            f"{db_file}: the review database is read-only; reviews could not be saved"
        )
    return StudyStore(db_file)


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
    window_class: type[MainWindow],
    benchmark: Benchmark,
    store: StudyStore,
    name: str,
    prefs: settings.Settings,
) -> MainWindow:
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
