"""The window half of ``medrcube-desktop self-test``: open the review window on a
benchmark, commit one review with the keyboard as a reviewer would (P on the image:
every rule PASS, then Enter), save a screenshot and close. The Qt-free half (pixel digests)
is :mod:`medrcube_desktop.demo.self_test`."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from medrcube_desktop import settings
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.ui.app import place_window
from medrcube_desktop.ui.grab import save_grab
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.render_task import render_pool
from medrcube_desktop.ui.window_factory import build_window, load_for_review, open_store

log = logging.getLogger(__name__)

REVIEWER = "self-test"
TIMEOUT_MS = 60_000
"""The first item must be on screen within this time, or the check fails."""
ACTIVE_WAIT_MS = 10_000
"""How long to wait for the window to become active before typing."""


def commit_one_review(root: Path, db_file: Path, screenshot: Path) -> dict[str, object]:
    """Open the window on ``root`` with the fresh database ``db_file``, commit the first
    item's review with P (every rule PASS) and Enter, save a grab of the window to ``screenshot``.

    Returns
    -------
    dict
        ``{"committed": item id, "reviews": N stored, "screenshot": path}``.

    Raises
    ------
    MedRCubeError
        ``db_file`` exists already, the first item never showed, or nothing was stored.
    """
    if db_file.exists():
        raise MedRCubeError(f"{db_file}: the self-test needs a new database")
    app = QApplication.instance() or QApplication(["medrcube-desktop"])
    benchmark = load_for_review(root)
    store = open_store(db_file)
    outcome: dict[str, object] = {}
    try:
        window = build_window(MainWindow, benchmark, store, REVIEWER, settings.Settings())
        place_window(window, unattended=True)  # as a scripted start places it

        def on_first_item() -> None:
            outcome["committed"] = window.session.current.id if window.session.current else None
            window.activateWindow()
            when_active(ACTIVE_WAIT_MS)

        def when_active(left_ms: int) -> None:
            # the keys are window shortcuts: they act only once the window is active
            if QApplication.activeWindow() is not window and left_ms > 0:
                QTimer.singleShot(50, lambda: when_active(left_ms - 50))
                return
            QTest.keyClick(window.image_view, Qt.Key.Key_P)  # every rule PASS
            QTest.keyClick(window.image_view, Qt.Key.Key_Return)  # commit
            QTimer.singleShot(300, grab_and_quit)

        def grab_and_quit() -> None:
            try:
                outcome["screenshot_saved"] = save_grab(window, screenshot)
            except (OSError, MedRCubeError) as exc:
                outcome["screenshot_error"] = str(exc)
            app.quit()

        window.first_item_shown.connect(on_first_item)
        QTimer.singleShot(TIMEOUT_MS, app.quit)
        window.show()
        app.exec()
        window.close()
        reviews = store.latest_reviews(REVIEWER)
    finally:
        render_pool().waitForDone(10_000)
        store.close()
    if "committed" not in outcome:
        raise MedRCubeError(f"the first item was not on screen within {TIMEOUT_MS} ms")
    if outcome["committed"] not in reviews:
        raise MedRCubeError(f"Enter on item {outcome['committed']} stored no review")
    if not outcome.get("screenshot_saved"):
        why = (
            outcome.get("screenshot_error") or f"{screenshot}: the screenshot could not be written"
        )
        raise MedRCubeError(str(why))
    log.info("self-test: review of %s committed to %s", outcome["committed"], db_file)
    return {
        "committed": outcome["committed"],
        "reviews": len(reviews),
        "screenshot": str(screenshot),
    }
