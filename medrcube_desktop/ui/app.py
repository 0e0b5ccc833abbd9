"""Starting the Qt application: choose benchmark, database and reviewer, open the window."""

from __future__ import annotations

import logging
import os
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QSize, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from medrcube_desktop import settings
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.widgets.render_task import render_pool
from medrcube_desktop.ui.widgets.screen import fit_window
from medrcube_desktop.ui.widgets.themes import apply_theme
from medrcube_desktop.ui.window_factory import build_window, load_for_review, open_store
from medrcube_desktop.ui.window_tools import restore_window_state

log = logging.getLogger(__name__)
DEFAULT_SIZE = (1360, 860)
"""The first window's size (logical pixels) where the screen's free area allows it, less
on a smaller screen (see :func:`place_window`)."""

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
    """Reviewer name: the stored one when :func:`~medrcube_desktop.core.names.check_name`
    takes it (normalised), else asked in a dialog until given or cancelled."""
    from medrcube_desktop.core.names import check_name

    if stored:
        try:
            return check_name(stored, "reviewer name")
        except ValueError as exc:
            log.warning("stored reviewer name not used (asked again): %s", exc)
    prompt = "Your name (stored with every review):"
    while True:
        name, ok = QInputDialog.getText(None, "Reviewer", prompt)
        if not ok:
            return None
        try:
            return check_name(name, "reviewer name")
        except ValueError as exc:
            prompt = (
                "A name is needed: every review carries its reviewer. Your name:"
                if not name.strip()
                else f"{exc}. Your name:"
            )


def run_app(
    dataset: Path | None,
    db_path: Path | None = None,
    reviewer: str | None = None,
    screenshot: Path | None = None,
    quit_after_ms: int | None = None,
    reopened: bool = False,
    passed_over: list[str] | tuple[str, ...] = (),
    fallbacks: list | tuple = (),
) -> int:
    """Open the review window and run the event loop; returns the exit status.

    ``reopened``: ``dataset`` is the benchmark opened last (a plain start); the status bar
    says so and names it. ``passed_over``: why newer entries of File › Open Recent could
    not be reopened (said in the status bar, or before the folder dialog when nothing
    could be reopened). ``fallbacks``: the next entries of File › Open Recent
    (:class:`~medrcube_desktop.settings.RecentStudy`, newest first) that a plain start
    falls through to when the reopened one's benchmark or database cannot be opened (a
    read-only database), with a note.

    Raises
    ------
    MedRCubeError
        For an unusable benchmark or database when no window can be shown (the CLI
        prints it on one line).
    """
    app = QApplication.instance() or QApplication(sys.argv[:1])
    try:
        said = StartNotes(reopened, tuple(passed_over), tuple(fallbacks))
        return _run(app, dataset, db_path, reviewer, screenshot, quit_after_ms, said)
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


@dataclass(frozen=True)
class StartNotes:
    """What the start-up tells the user: whether the benchmark is the one opened last
    (``reopened``) and why newer recent entries were passed over (``passed_over``)."""

    reopened: bool = False
    passed_over: tuple[str, ...] = ()
    fallbacks: tuple = ()
    """The next recent entries to reopen should this one not open (:func:`run_app`)."""

    def status_text(self, benchmark) -> str:
        """The status bar's sentence once the window is shown ("" when nothing to say);
        short, as the progress and the database name share the bar."""
        gone = "; ".join(self.passed_over)
        if self.reopened and gone:
            return f"Reopened the last benchmark still there, {benchmark.name}: {gone}."
        if self.reopened:
            return (
                f"Reopened the last benchmark: {benchmark.name} "
                "(File › Open Recent lists the others)."
            )
        return f"The last benchmark could not be reopened: {gone}." if gone else ""


def _run(app, dataset, db_path, reviewer, screenshot, quit_after_ms, said=None) -> int:
    global _UNATTENDED
    app.setApplicationName("MedRCube Desktop")
    app.setOrganizationName("MedRCube")
    sys.excepthook = _excepthook
    unattended = screenshot is not None or quit_after_ms is not None
    _UNATTENDED = unattended
    said = said or StartNotes()
    prefs = settings.Settings.load()
    gone = "; ".join(said.passed_over)
    if dataset is None and not unattended:
        if gone:  # said before the dialog, or the user would wonder why it is asked
            QMessageBox.information(
                None, "Last benchmark not found", f"{gone[0].upper()}{gone[1:]}: choose one."
            )
        from medrcube_desktop.ui.widgets.file_dialogs import get_existing_directory

        chosen = get_existing_directory(None, "Open a MedRCube benchmark folder")
        dataset = Path(chosen) if chosen else None
    if dataset is None:
        raise MedRCubeError(
            (f"{gone}; " if gone else "") + "no benchmark given: use --demo or --dataset DIR"
        )
    benchmark, store, said = _open_study(dataset, db_path, said)
    try:
        return _run_study(
            app, benchmark, store, reviewer, prefs, screenshot, quit_after_ms, said, unattended
        )
    finally:
        store.close()


def _open_study(dataset, db_path, said: StartNotes):
    """The benchmark and its database; a plain start whose reopened entry cannot be
    opened (its database read-only, say) falls through to the next recent entry, the
    reason added to ``said``'s passed-over notes. Returns ``(benchmark, store, said)``.

    Raises
    ------
    MedRCubeError
        The benchmark or database cannot be opened, and no recent entry is left to try.
    """
    import dataclasses

    while True:
        try:
            benchmark = load_for_review(dataset)
            database = Path(db_path or settings.default_db_path(benchmark.root))
            _import_reader_ahead(benchmark, database)
            store = open_store(database)
        except MedRCubeError as exc:
            if not (said.reopened and said.fallbacks):
                raise
            entry, *rest = said.fallbacks
            log.warning("recent entry not reopened: %s", exc)
            said = dataclasses.replace(
                said, passed_over=(*said.passed_over, str(exc)), fallbacks=tuple(rest)
            )
            dataset, db_path = Path(entry.dataset), entry.database()
            continue
        for problem in benchmark.problems:
            log.warning("benchmark problem: %s", problem)
        return benchmark, store, said


def _run_study(app, benchmark, store, reviewer, prefs, screenshot, quit_after_ms, said,
               unattended) -> int:  # fmt: skip
    name = reviewer or (prefs.reviewer if unattended else ask_reviewer(prefs.reviewer))
    if name and not unattended:
        prefs.reviewer = name  # typed by the user (option or dialog): remember it
    elif not name:
        if not unattended:
            raise MedRCubeError("no reviewer name given: start again, or pass --reviewer NAME")
        name = "unattended"  # a placeholder for scripted runs; never remembered
    _decode_first_item(benchmark, store, name)
    prefs.remember_study(benchmark.root, store.path)  # File › Open Recent, the next start
    prefs.save()
    log.info("reviews are saved in %s", store.path)
    if screenshot is not None:  # refused now, not after the window is shown
        from medrcube_desktop.core.write_guard import check_output

        check_output(screenshot, store.path)
    return _show_window(
        app, benchmark, store, name, prefs, screenshot, quit_after_ms,
        said.status_text(benchmark),
    )  # fmt: skip


def _import_reader_ahead(benchmark, database: Path) -> None:
    """Import the first item's image reader while the database opens (issue 25, first
    paint); its decode starts once the reviewer's item is known (:func:`_decode_first_item`).
    A database not made yet holds no reviewer's position, so the window opens on the
    first item: that one is decoded now, while the new database is made (its migrations
    took as long as the decode); :func:`_decode_first_item` then finds it decoding (one
    decode, :func:`~medrcube_desktop.imaging.render.load_slice_cached`)."""
    from medrcube_desktop.imaging.decode_ahead import decode_ahead, import_reader_ahead

    first = benchmark.items[0] if benchmark.items else None
    if database.exists():
        import_reader_ahead(first)
    else:
        decode_ahead(first)


def _decode_first_item(benchmark, store, reviewer: str) -> None:
    """Decode the picture the window will open on while it is built (issue 25, first
    paint): its first render then only composes the cached slice."""
    from medrcube_desktop.imaging.decode_ahead import decode_ahead, first_item
    from medrcube_desktop.review.session import position_key

    try:
        last = store.get_state(position_key(reviewer))
    except MedRCubeError:  # the window reads it again and says why it cannot
        last = None
    decode_ahead(first_item(benchmark.items, last))


def _show_window(app, benchmark, store, name, prefs, screenshot, quit_after_ms, said="") -> int:
    unattended = screenshot is not None or quit_after_ms is not None
    apply_theme(app, prefs.theme, prefs.font_scale)
    window = build_window(MainWindow, benchmark, store, name, prefs)
    place_window(window, unattended)
    result = {"status": 0}
    if unattended:
        _schedule_unattended(window, screenshot, quit_after_ms, result)
    window.show()
    if said:
        log.info("%s", said)
        window.statusBar().showMessage(said, 20000)
    status = app.exec()
    return status or result["status"]


def place_window(window: MainWindow, unattended: bool = False) -> None:
    """Size and place the first window within the screen's free area: the layout saved
    last time (shrunk and moved onto this screen where it no longer fits: saved on a
    larger monitor), else :data:`DEFAULT_SIZE`, shrunk where the screen is smaller.

    A scripted run (``unattended``) never restores a saved layout: it gets DEFAULT_SIZE
    within the screen, so its picture is the window a user of that screen sees; on Qt's
    offscreen platform with no screen configured (an 800 × 800 screen nobody sees) it
    gets DEFAULT_SIZE as it is. ``QT_QPA_PLATFORM=offscreen:configfile=screen.json``
    gives the offscreen platform a screen of a chosen size.
    """
    if unattended and not screen_configured():
        window.resize(*DEFAULT_SIZE)
    elif not unattended and restore_window_state(window):
        fit_window(window)
    else:
        fit_window(window, QSize(*DEFAULT_SIZE))


def screen_configured() -> bool:
    """Whether the screen is one someone sees or chose: any platform but ``offscreen``,
    or ``offscreen`` given a ``configfile`` (its screens' sizes)."""
    if QGuiApplication.platformName() != "offscreen":
        return True
    return "configfile=" in os.environ.get("QT_QPA_PLATFORM", "")


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
            lambda: window.image.when_image_settled(SCREENSHOT_WAIT_MS, grab_when_settled),
        )

    window.first_item_shown.connect(on_first_item)


def app_quit() -> None:
    """Quit the application's event loop."""
    QApplication.instance().quit()


def _grab(window: MainWindow, path: Path) -> bool:
    """Save a grab of the window as PNG through the guarded writer (never over the study
    database or a benchmark's file); log and return False when it cannot be written."""
    from medrcube_desktop.ui.widgets.grab import save_grab

    try:
        save_grab(window, path)
    except (OSError, MedRCubeError) as exc:
        log.error("could not save screenshot to %s: %s", path, exc)
        return False
    log.info("screenshot saved to %s", path)
    return True
