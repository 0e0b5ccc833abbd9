"""Starting the Qt application: choose benchmark, database and reviewer, open the window."""

from __future__ import annotations

import logging
import sys
import time
import traceback
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox

from medrcube_desktop import settings
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.render_task import render_pool
from medrcube_desktop.ui.themes import apply_theme
from medrcube_desktop.ui.window_factory import build_window, load_for_review, open_store
from medrcube_desktop.ui.window_tools import restore_window_state

log = logging.getLogger(__name__)
DEFAULT_SIZE = (1360, 860)
SCREENSHOT_PAUSE_MS = 300
"""``--screenshot``: the pause after the first item is shown before looking at its image."""
SCREENSHOT_WAIT_MS = 60_000
"""``--screenshot``: how long the first item's image may take to finish rendering; a grab
is saved only once it has (never of "Rendering…")."""

_UNATTENDED = False


def _excepthook(exc_type, exc, tb) -> None:
    """Log what slips through to the event loop and tell the user; never swallow it.

    In unattended runs (``--screenshot``/``--quit-after-ms``) no dialog could be answered:
    the app exits with status 1 instead.
    """
    log.error("unhandled error:\n%s", "".join(traceback.format_exception(exc_type, exc, tb)))
    app = QApplication.instance()
    if app is None or app.closingDown():
        return
    if _UNATTENDED:
        app.exit(1)
    else:
        QMessageBox.critical(
            None, "Unexpected error", f"{exc_type.__name__}: {exc}\n\nDetails are in the log."
        )


def ask_reviewer(stored: str | None) -> str | None:
    """Reviewer name: the stored one, else asked in a dialog until given or cancelled."""
    if stored:
        return stored
    prompt = "Your name (stored with every review):"
    while True:
        name, ok = QInputDialog.getText(None, "Reviewer", prompt)
        if not ok:
            return None
        if name.strip():
            return name.strip()
        prompt = "A name is needed: every review carries its reviewer. Your name:"


def run_app(
    dataset: Path | None,
    db_path: Path | None = None,
    reviewer: str | None = None,
    screenshot: Path | None = None,
    quit_after_ms: int | None = None,
) -> int:
    """Open the review window and run the event loop; returns the exit status.

    Raises
    ------
    MedRCubeError
        For an unusable benchmark or database when no window can be shown (the CLI
        prints it on one line).
    """
    app = QApplication.instance() or QApplication(sys.argv[:1])
    try:
        return _run(app, dataset, db_path, reviewer, screenshot, quit_after_ms)
    except MedRCubeError as exc:
        # Started from a desktop menu there is no terminal: say it in a dialog too.
        if screenshot is None and quit_after_ms is None:
            QMessageBox.critical(None, "MedRCube Desktop cannot start", str(exc))
        raise
    except BaseException:
        # Raised outside the event loop: let Python print it; no dialog at exit.
        sys.excepthook = sys.__excepthook__
        raise
    finally:
        # Render workers run Python code: let them finish before the interpreter may exit,
        # or an error raised here could leave the process hanging at shutdown.
        render_pool().waitForDone(10_000)


def _run(app, dataset, db_path, reviewer, screenshot, quit_after_ms) -> int:
    global _UNATTENDED
    app.setApplicationName("MedRCube Desktop")
    app.setOrganizationName("MedRCube")
    sys.excepthook = _excepthook
    unattended = screenshot is not None or quit_after_ms is not None
    _UNATTENDED = unattended
    prefs = settings.Settings.load()
    if dataset is None and not unattended:
        chosen = QFileDialog.getExistingDirectory(None, "Open a MedRCube benchmark folder")
        dataset = Path(chosen) if chosen else None
    if dataset is None:
        raise MedRCubeError("no benchmark given: use --demo or --dataset DIR")
    benchmark = load_for_review(dataset)
    for problem in benchmark.problems:
        log.warning("benchmark problem: %s", problem)
    name = reviewer or (prefs.reviewer if unattended else ask_reviewer(prefs.reviewer))
    if name and not unattended:
        prefs.reviewer = name  # typed by the user (option or dialog): remember it
    elif not name:
        if not unattended:
            raise MedRCubeError("no reviewer name given: start again, or pass --reviewer NAME")
        name = "unattended"  # a placeholder for scripted runs; never remembered
    prefs.last_dataset = str(benchmark.root)
    prefs.save()
    store = open_store(Path(db_path or settings.default_db_path(benchmark.root)))
    log.info("reviews are saved in %s", store.path)
    try:
        return _show_window(app, benchmark, store, name, prefs, screenshot, quit_after_ms)
    finally:
        store.close()


def _show_window(app, benchmark, store, name, prefs, screenshot, quit_after_ms) -> int:
    unattended = screenshot is not None or quit_after_ms is not None
    apply_theme(app, prefs.theme, prefs.font_scale)
    window = build_window(MainWindow, benchmark, store, name, prefs)
    if unattended or not restore_window_state(window):
        window.resize(*DEFAULT_SIZE)  # scripted runs always get the same size
    result = {"status": 0}
    if unattended:
        _schedule_unattended(window, screenshot, quit_after_ms, result)
    window.show()
    status = app.exec()
    return status or result["status"]


def _schedule_unattended(
    window: MainWindow, screenshot: Path | None, quit_after_ms: int | None, result: dict
) -> None:
    """Once the first item is shown and its image has finished rendering: save a grab of
    the window, then quit (``quit_after_ms`` after the first item at the earliest).

    A screenshot that cannot be written, or an image still rendering after
    :data:`SCREENSHOT_WAIT_MS` (no grab of "Rendering…" is saved), sets
    ``result["status"]`` to 1.
    """

    def on_first_item() -> None:
        shown_at = time.monotonic()

        def quit_later() -> None:
            waited_ms = int((time.monotonic() - shown_at) * 1000)
            QTimer.singleShot(max(0, (quit_after_ms or 0) - waited_ms), app_quit)

        def grab_when_settled(settled: bool) -> None:
            if not settled:
                log.error(
                    "the first item's image did not finish rendering within %d ms: no "
                    "screenshot saved to %s", SCREENSHOT_WAIT_MS, screenshot,
                )  # fmt: skip
                result.update(status=1)
            else:
                result.update(status=0 if _grab(window, screenshot) else 1)
            quit_later()

        if screenshot is None:
            quit_later()
            return
        # a short pause first: the window's layout and paint settle after the first show
        QTimer.singleShot(
            SCREENSHOT_PAUSE_MS,
            lambda: window.when_image_settled(SCREENSHOT_WAIT_MS, grab_when_settled),
        )

    window.first_item_shown.connect(on_first_item)


def app_quit() -> None:
    """Quit the application's event loop."""
    QApplication.instance().quit()


def _grab(window: MainWindow, path: Path) -> bool:
    """Save a grab of the window as PNG; log and return False when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.error("could not save screenshot to %s: %s", path, exc)
        return False
    if not window.grab().save(str(path), "PNG"):  # PNG whatever the file name says
        log.error("could not save screenshot to %s", path)
        return False
    log.info("screenshot saved to %s", path)
    return True
