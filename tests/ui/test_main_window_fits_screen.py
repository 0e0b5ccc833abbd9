"""The review window fits the screens clinicians have (1366 × 768, 1280 × 720): it opens
within the screen's free area, its minimum size shrinks to a smaller screen, a layout
saved on a larger monitor is brought back onto this one, and at 1366 × 768 and at its
minimum size (1024 × 700) every control is on screen, whole, or reachable by scrolling."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from medrcube_desktop import settings
from medrcube_desktop.ui.app import DEFAULT_SIZE
from medrcube_desktop.ui.main_window import MINIMUM_SIZE, MainWindow
from medrcube_desktop.ui.widgets.screen import FRAME_ALLOWANCE, fitted_geometry, fitted_minimum
from medrcube_desktop.ui.widgets.themes import apply_theme
from medrcube_desktop.ui.window_factory import build_window, load_for_review, open_store
from tests.conftest import item, write_benchmark

TASKBAR = 40  # px: a panel along the bottom edge (what availableGeometry leaves out)


# -- the geometry, computed by hand -------------------------------------------------
def test_the_first_window_fits_a_1366_x_768_screen_with_a_taskbar():
    available = QRect(0, 0, 1366, 768 - TASKBAR)
    # 1366 − 8 − 8 = 1350 wide; 728 − 40 (title bar) − 8 = 680 high; placed at (8, 40)
    assert fitted_geometry(QSize(*DEFAULT_SIZE), available) == QRect(8, 40, 1350, 680)
    assert fitted_minimum(MINIMUM_SIZE, available) == QSize(1024, 680)  # 700 would not fit


def test_the_minimum_shrinks_on_1280_x_720_and_a_large_screen_keeps_both():
    assert fitted_minimum(MINIMUM_SIZE, QRect(0, 0, 1280, 720 - TASKBAR)) == QSize(1024, 632)
    assert fitted_minimum(MINIMUM_SIZE, QRect(0, 0, 800, 600)) == QSize(784, 552)
    big = QRect(0, 0, 1920, 1080 - TASKBAR)
    assert fitted_minimum(MINIMUM_SIZE, big) == MINIMUM_SIZE
    # centred in 1904 × 992 starting at (8, 40): left 8 + (1904 − 1360) / 2 = 280
    assert fitted_geometry(QSize(*DEFAULT_SIZE), big) == QRect(280, 106, 1360, 860)


def test_a_saved_layout_is_shrunk_and_moved_back_onto_the_screen():
    small = QRect(0, 0, 1280, 720 - TASKBAR)
    # saved on a 1920 × 1200 monitor: the size shrinks to the room, 1264 × 632 at (8, 40)
    assert fitted_geometry(QRect(100, 50, 1900, 1100), small) == QRect(8, 40, 1264, 632)
    # saved on a second monitor to the right: moved left until its frame is on screen
    # (right edge 1280 − 8 = 1272 → left 472; bottom 680 − 8 = 672 → top 172)
    assert fitted_geometry(QRect(2000, 900, 800, 500), small) == QRect(472, 172, 800, 500)
    # one that fits stays where it was
    assert fitted_geometry(QRect(60, 90, 800, 500), small) == QRect(60, 90, 800, 500)
    # a screen to the left of the primary one (negative coordinates) is honoured
    left = QRect(-1366, 0, 1366, 728)
    assert fitted_geometry(QSize(2000, 2000), left) == QRect(-1358, 40, 1350, 680)


# -- the window on a real (offscreen) screen of that size ----------------------------
def _screen_env(tmp_path, width, height, second=None) -> dict:
    """The environment of a child whose (offscreen) screen is ``width`` × ``height``,
    and a ``second`` (width, height) screen to its right if given."""
    config = tmp_path / f"screen-{width}x{height}.json"
    screens = [{"name": "s", "x": 0, "y": 0, "width": width, "height": height}]
    if second:
        screens.append({"name": "t", "x": width, "y": 0, "width": second[0], "height": second[1]})
    config.write_text(json.dumps({"screens": screens}))
    return dict(os.environ, QT_QPA_PLATFORM=f"offscreen:configfile={config}")


def _open_on_screen(tmp_path, root, width, height, saved=None, second=None) -> dict:
    env = _screen_env(tmp_path, width, height, second)
    args = [sys.executable, "-m", "tests.ui.screen_session", str(root), str(tmp_path / "s.db")]
    done = subprocess.run(
        args + ([saved] if saved else []), env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("width, height", [(1366, 768), (1280, 720)])
def test_the_first_window_opens_within_the_screen(ct_benchmark, tmp_path, width, height):
    shown = _open_on_screen(tmp_path, ct_benchmark, width, height)
    assert shown["available"] == [0, 0, width, height]
    x, y, w, h = shown["geometry"]
    # before: 1360 × 860 on a 768 px screen (the commit button below its edge)
    assert x - FRAME_ALLOWANCE.left() >= 0 and y - FRAME_ALLOWANCE.top() >= 0
    assert x + w + FRAME_ALLOWANCE.right() <= width
    assert y + h + FRAME_ALLOWANCE.bottom() <= height
    assert (w, h) == (width - 16, height - 48)  # as large as the screen allows
    assert shown["minimum"] == [1024, min(700, height - 48)]  # 672 on 1280 × 720


@pytest.mark.parametrize("width, height", [(1366, 768), (1280, 720)])
def test_a_screenshot_run_shows_the_window_that_screen_gets(ct_benchmark, tmp_path, width, height):
    """``--screenshot`` on a screen of that size: the picture is the window as it opens
    there (before: 1360 × 860 whatever the screen, its bottom below a 768 px screen)."""
    from PIL import Image

    shot = tmp_path / "shot.png"
    args = ["--dataset", str(ct_benchmark), "--db", str(tmp_path / "s.db"),
            "--screenshot", str(shot), "--quit-after-ms", "100"]  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "medrcube_desktop", *args], timeout=120,
                          env=_screen_env(tmp_path, width, height), capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert Image.open(shot).size == (width - 16, min(860, height - 48))


def test_a_layout_saved_on_a_larger_monitor_opens_on_this_one(ct_benchmark, tmp_path):
    shown = _open_on_screen(tmp_path, ct_benchmark, 1280, 720, saved="1500,200,1800,1000")
    assert shown["geometry"] == [8, 40, 1264, 672]


# -- every control reachable ---------------------------------------------------------
@pytest.fixture
def long_item_benchmark(tmp_path):
    """A long question, long options, a ground-truth source on a 5-slice volume (the
    slider shown) and a restricted item (its check box in the list pane): the text that
    makes a column need room."""
    import nibabel as nib

    question = (
        "A 64-year-old man presents with progressive dyspnoea and a dry cough over six "
        "months; high-resolution imaging of the chest was obtained at the level shown. "
        "Which finding best explains the pattern seen in the lower lobes of both lungs?"
    )
    options = {
        "option_A": "Honeycombing with traction bronchiectasis, subpleural and basal",
        "option_B": "Ground-glass opacity with a crazy-paving pattern in both upper lobes",
        "option_C": "Centrilobular nodules with a tree-in-bud appearance in the periphery",
        "option_D": "Mosaic attenuation with air trapping seen on expiratory images",
    }
    record = item(
        "long-1", question=question, image="images/vol.nii.gz", gt_answer=options["option_A"],
        source_fact="the report of the original study names usual interstitial pneumonia "
        "and the radiologist's segmentation of the honeycombing in slices 12 to 30",
        task="Disease Diagnosis", **options,
    )  # fmt: skip
    restricted = item("secret", image="images/r.png", restricted=True)
    root = write_benchmark(tmp_path / "long", {"ds1": [record, restricted]})
    volume = np.arange(40 * 30 * 5, dtype=np.float32).reshape(40, 30, 5)  # 5 slices
    (root / "ds1/images").mkdir()
    nib.save(nib.Nifti1Image(volume, np.eye(4)), root / "ds1/images/vol.nii.gz")
    return root


def _window_at(qtbot, root, db, size: QSize, minimum: QSize) -> MainWindow:
    benchmark = load_for_review(root)
    store = open_store(db)
    window = build_window(MainWindow, benchmark, store, "dr-f", settings.Settings())
    qtbot.addWidget(window)
    window.setMinimumSize(minimum)  # what that screen gives (this process's is 800 × 800)
    window.resize(size)
    with qtbot.waitSignal(window.first_item_shown, timeout=10000):
        window.show()
    qtbot.waitExposed(window)
    window.destroyed.connect(store.close)
    assert window.size() == size
    return window


def whole(widget: QWidget, window: QWidget) -> str | None:
    """Why ``widget`` is not shown whole inside ``window`` (None when it is): hidden,
    outside the window, clipped by a parent (a scroll viewport) or its text cut."""
    name = widget.objectName() or type(widget).__name__
    if isinstance(widget, QLabel | QAbstractButton):
        name += f" {widget.text()[:30]!r}"
    if not widget.isVisible():
        return f"{name} is hidden"
    place = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    if not window.rect().contains(place):
        return f"{name} at {place} is outside the window {window.rect()}"
    if widget.visibleRegion().boundingRect() != widget.rect():
        return f"{name}: only {widget.visibleRegion().boundingRect()} of {widget.rect()} shows"
    if isinstance(widget, QLabel) and widget.text():
        if widget.wordWrap() and widget.height() < widget.heightForWidth(widget.width()):
            return f"{name}: {widget.height()} px high, its text needs more"
        if not widget.wordWrap() and widget.width() < widget.minimumSizeHint().width():
            return f"{name}: {widget.width()} px wide, its text needs more"
    if widget.hasHeightForWidth() and widget.height() < widget.heightForWidth(widget.width()):
        return f"{name}: {widget.height()} px high, its text needs more"
    return None


def reachable(widget: QWidget, window: MainWindow) -> str | None:
    """Like :func:`whole`, after scrolling the right column to ``widget`` if it is in it."""
    if window.right_scroll.widget().isAncestorOf(widget):
        window.right_scroll.ensureWidgetVisible(widget, 0, 0)
        QApplication.processEvents()
    return whole(widget, window)


SIZES = {
    # the first window on 1366 × 768 with a taskbar (see the first test)
    "1366x768": (QSize(1350, 680), fitted_minimum(MINIMUM_SIZE, QRect(0, 0, 1366, 728)), 1.0),
    "minimum": (MINIMUM_SIZE, MINIMUM_SIZE, 1.0),  # the window's own minimum: 1024 × 700
    "1366x768-large-text": (QSize(1350, 680), QSize(1024, 680), 1.5),  # View › Larger text
}


@pytest.fixture
def text_scale():
    """Set the text size for one test (View › Larger text); back to 100 % after it."""
    app = QApplication.instance()
    yield lambda scale: apply_theme(app, "light", scale)
    apply_theme(app, "light", 1.0)


@pytest.mark.parametrize("screen", SIZES)
def test_every_control_is_whole_or_reachable(
    qtbot, long_item_benchmark, tmp_path, screen, text_scale
):
    size, minimum, scale = SIZES[screen]
    text_scale(scale)
    window = _window_at(qtbot, long_item_benchmark, tmp_path / "s.db", size, minimum)
    window.list_pane.include_restricted.setChecked(True)  # its check box is shown
    qtbot.wait(50)  # the layouts settle (posted LayoutRequest events)
    window.grab().save(str(tmp_path / f"window-{screen}.png"))
    always = [
        window.rubric_pane.commit_button, window.rubric_pane.comment, window.slice_slider,
        window.slice_label, window.statusBar(), window.progress_label, window.files.db_label,
        window.list_pane.include_restricted, window.image_view,
    ]  # fmt: skip
    problems = [whole(w, window) for w in always]
    # before, at 1024 × 700: the columns needed 1131 px, the right one was cut at the edge
    assert window.central_scroll.horizontalScrollBar().maximum() == 0
    pane = window.item_pane
    rubric = window.rubric_pane
    column = [pane.meta, pane.question, pane.options, pane.source, rubric.keys_hint]
    column += [rubric.buttons[r] for r in rubric.buttons]
    column += [w for w in rubric.findChildren(QLabel) if w.isVisibleTo(rubric) and w.text()]
    problems += [reachable(w, window) for w in column]
    footer = [w for w in rubric.footer.findChildren(QLabel) if w.text()]  # comment's label
    problems += [whole(w, window) for w in footer]
    assert "honeycombing in slices 12 to 30" in pane.source.text()
    # the status bar's longest line: problems so far, restricted items, still checking
    window.benchmark.problems.extend(["a problem"] * 12)
    window._show_problem_count()
    qtbot.wait(50)
    assert "checking image files" in window.problems_label.text()
    window.grab().save(str(tmp_path / f"window-{screen}-status.png"))
    bar = [window.problems_label, window.progress_label, window.files.db_label, window.statusBar()]
    problems += [whole(w, window) for w in bar]
    assert [p for p in problems if p] == []


def test_moved_to_a_smaller_screen_the_minimum_follows(ct_benchmark, tmp_path):
    shown = _open_on_screen(tmp_path, ct_benchmark, 1920, 1080, second=(1280, 720))
    assert shown["minimum"] == [1024, 700]
    assert shown["moved_minimum"] == [1024, 720 - 48]  # 700 would not fit there


@pytest.mark.parametrize("scale", ["1", "1.5"])  # View › Larger text too
def test_after_a_commit_the_reveal_is_in_view_on_1366_x_768(long_item_benchmark, tmp_path, scale):
    """Blind study, first item committed at 1366 × 768 (a real offscreen screen): the
    reveal (the summary, rule 1.4's evidence of four ablation modes, the seven rules'
    table) lies within the right column's viewport, and the summary label is as high as
    its wrapped text needs; a reveal taller than the viewport shows its top (before:
    the column was scrolled to the reveal's one-line
    size of before the commit, its table below the fold)."""
    env = _screen_env(tmp_path, 1366, 768)
    shot = tmp_path / f"reveal-1366x768-{scale}.png"
    args = [sys.executable, "-m", "tests.ui.reveal_session", str(long_item_benchmark),
            str(tmp_path / "s.db"), str(shot), scale]  # fmt: skip
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert not shown["pending"]
    assert "Without the image: right by 4 of 4 models (text-only 1/1, blank 1/1, swapped 1/1, " \
           "noise 1/1)" in shown["title_text"]  # fmt: skip
    viewport = QRect(*shown["viewport"])
    widgets = shown["widgets"]
    assert all(w["visible"] for w in widgets.values()), widgets
    pane, title = QRect(*widgets["pane"]["rect"]), QRect(*widgets["title"]["rect"])
    if pane.height() <= viewport.height():  # whole where it fits: the table too
        for name in ("pane", "title", "table"):
            assert viewport.contains(QRect(*widgets[name]["rect"])), (name, widgets, viewport)
    else:  # else its top: the summary and the evidence at the viewport's top
        assert pane.top() == 0 and viewport.contains(title), (widgets, viewport)
    assert shown["title_height"] >= shown["title_needs"] > 0  # wrapped, never clipped
    assert shot.exists()
