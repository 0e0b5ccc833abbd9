"""The window half of ``medrcube-desktop self-test``: open the review window on a
benchmark, wait until the first item's image has finished rendering, check that the image
area shows that item's picture and slice, commit one review with the keyboard as a
reviewer would (P on the image: every rule PASS, then Enter), save a screenshot of the
committed review and close. The Qt-free half (pixel digests)
is :mod:`medrcube_desktop.demo.self_test`."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from medrcube_desktop import settings
from medrcube_desktop.demo.shown_image import compare_shown, expected_slice_label
from medrcube_desktop.errors import ImageLoadError, MedRCubeError
from medrcube_desktop.imaging.render import render_item
from medrcube_desktop.ui.app import place_window
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.widgets.grab import save_grab
from medrcube_desktop.ui.widgets.render_task import DISPLAY_MAX_SIDE, render_pool
from medrcube_desktop.ui.window_factory import build_window, load_for_review, open_store

log = logging.getLogger(__name__)

REVIEWER = "self-test"
TIMEOUT_MS = 60_000
"""The first item must be on screen, and its image rendered, within this time, or the
check fails."""
ACTIVE_WAIT_MS = 10_000
"""How long to wait for the window to become active before typing."""


def commit_one_review(root: Path, db_file: Path, screenshot: Path) -> dict[str, object]:
    """Open the window on ``root`` with the fresh database ``db_file``; on the first item,
    once its image has finished rendering, press P (every rule PASS), check the image area
    against the library render of the same item and the slice label against its slice
    (:func:`check_shown`), commit with Enter, then (once the item shown next has rendered)
    save a grab of the window to ``screenshot``.

    Returns
    -------
    dict
        ``{"committed": item id, "reviews": N stored, "screenshot": path, "shown": the
        comparison's facts and slice label}``.

    Raises
    ------
    MedRCubeError
        ``db_file`` exists already, the first item never showed or never finished
        rendering, its image area is blank or not its picture, the slice label is not its
        slice's, or nothing was stored.
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
        deadline = _drive(app, window, screenshot, outcome)
        window.show()
        app.exec()
        deadline.stop()  # not left to end a later event loop of this application
        outcome["over"] = True  # and no step still waiting acts after it
        window.close()
        # Closing the last window posts a Quit event that would end the next event loop of
        # this application at once (an in-process caller's, pytest-qt's waitSignal): drop it.
        QCoreApplication.removePostedEvents(app, QEvent.Type.Quit)
        reviews = store.latest_reviews(REVIEWER)
    finally:
        render_pool().waitForDone(10_000)
        store.close()
    return _outcome(outcome, reviews, screenshot, db_file)


def _drive(app, window: MainWindow, screenshot: Path, outcome: dict) -> QTimer:
    """Connect the steps: first item → active → P → settled → check → Enter → settled →
    grab → quit.
    Returns the running timer that quits after :data:`TIMEOUT_MS` whatever happened."""

    def on_first_item() -> None:
        outcome["committed"] = window.session.current.id if window.session.current else None
        window.activateWindow()
        when_active(ACTIVE_WAIT_MS)

    def when_active(left_ms: int) -> None:
        # the keys are window shortcuts: they act only once the window is active
        if outcome.get("over"):
            return
        if QApplication.activeWindow() is not window and left_ms > 0:
            QTimer.singleShot(50, lambda: when_active(left_ms - 50))
            return
        QTest.keyClick(window.image_view, Qt.Key.Key_P)  # every rule PASS
        window.image.when_image_settled(TIMEOUT_MS, check_and_commit)

    def check_and_commit(settled: bool) -> None:
        if outcome.get("over"):
            return
        outcome["settled"] = settled
        if settled:
            outcome["shown"], outcome["shown_problems"] = check_shown(window)
        QTest.keyClick(window.image_view, Qt.Key.Key_Return)  # commit (stored before it returns)
        # the grab shows the committed review ("1 of N reviewed"), once the item Enter
        # moved to has rendered
        window.image.when_image_settled(TIMEOUT_MS, grab_and_quit)

    def grab_and_quit(_settled: bool) -> None:
        if outcome.get("over"):
            return
        try:  # through the guarded writer: never over the study database or a benchmark file
            outcome["screenshot_saved"] = save_grab(window, screenshot)
        except (OSError, MedRCubeError) as exc:
            outcome["screenshot_error"] = str(exc)
        app.quit()

    window.first_item_shown.connect(on_first_item)
    deadline = QTimer(window)
    deadline.setSingleShot(True)
    deadline.timeout.connect(app.quit)
    deadline.start(TIMEOUT_MS)
    return deadline


def _outcome(outcome: dict, reviews: dict, screenshot: Path, db_file: Path) -> dict[str, object]:
    if "committed" not in outcome:
        raise MedRCubeError(f"the first item was not on screen within {TIMEOUT_MS} ms")
    if not outcome.get("settled"):
        raise MedRCubeError(
            f"item {outcome['committed']}: its image did not finish rendering within "
            f"{TIMEOUT_MS} ms (the window still said Rendering…)"
        )
    if outcome.get("shown_problems"):
        raise MedRCubeError(f"item {outcome['committed']}: " + "; ".join(outcome["shown_problems"]))
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
        "shown": outcome["shown"],
    }


def check_shown(window: MainWindow) -> tuple[dict[str, object], list[str]]:
    """Whether the window shows its current item: the image area's pixels against the
    library render of the same item (:func:`~medrcube_desktop.demo.shown_image.compare_shown`,
    overlay on, the file's own window, as an item opens) and the slice label against that
    render's slice.

    Returns
    -------
    (facts, problems) : (dict, list of str)
        ``facts``: the item, the slice label shown and expected, the comparison's
        figures; ``problems``: one line per failed check (empty: it shows the item).
    """
    item = window.session.current
    if item is None:
        return {}, ["no item is shown"]
    if window.session.text_only(item.id):
        return {"item": item.id, "text_only": True}, []
    try:
        expected = render_item(item, max_side=DISPLAY_MAX_SIDE)
    except ImageLoadError as exc:
        return {"item": item.id}, [f"the library cannot render it: {exc}"]
    view = window.image_view
    area = view.shown_image_rect()
    grabbed = view.viewport().grab(area).toImage() if not area.isEmpty() else None
    shown = qimage_to_rgba(grabbed) if grabbed is not None else np.zeros((0, 0, 4), np.uint8)
    facts, problems = compare_shown(shown, expected.rgba)
    label = window.slice_label.text()
    wanted = expected_slice_label(expected.slice_index, expected.slice_count)
    if label != wanted:
        problems.append(f"the slice label says {label!r}, the item's is {wanted!r}")
    return {"item": item.id, "slice_label": label, **facts}, problems


def qimage_to_rgba(image: QImage) -> np.ndarray:
    """The pixels of ``image`` as an ``(H, W, 4) uint8`` RGBA array (a copy)."""
    converted = image.convertToFormat(QImage.Format.Format_RGBA8888)
    width, height = converted.width(), converted.height()
    row = np.frombuffer(converted.constBits(), np.uint8, converted.bytesPerLine() * height)
    return (
        row.reshape(height, converted.bytesPerLine())[:, : 4 * width]
        .reshape(height, width, 4)
        .copy()
    )
