"""The window checks of ``self-test`` and ``--screenshot`` can fail (issue 21: the
self-test passed on a black image area that still said "Rendering…" with a stale slice
number). Offscreen, unfrozen; the render is stubbed to never finish or to return black."""

import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.ui import self_test
from medrcube_desktop.ui.widgets import render_task
from medrcube_desktop.ui.widgets.render_task import RenderTask

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def renders_once_then_never(monkeypatch):
    """Every render after the first one never finishes (nothing is emitted)."""
    real, calls = RenderTask.run, []

    def run(task):
        calls.append(task.item.id)
        if len(calls) == 1:
            real(task)

    monkeypatch.setattr(RenderTask, "run", run)
    return calls


def _on_first_item(monkeypatch, action):
    """Run ``action(window)`` when the self-test's window shows its first item (before
    the self-test's own handler)."""
    real = self_test.build_window

    def build(*args, **kwargs):
        window = real(*args, **kwargs)
        window.first_item_shown.connect(lambda: action(window))
        return window

    monkeypatch.setattr(self_test, "build_window", build)


def test_the_self_test_passes_on_the_item_s_picture(qapp, ct_benchmark, tmp_path):
    done = self_test.commit_one_review(ct_benchmark, tmp_path / "r.db", tmp_path / "s.png")
    shown = done["shown"]
    assert shown["item"] == "ct-1" and shown["slice_label"] == ""  # one slice: no label
    assert shown["correlation"] >= 0.9 and shown["mean_difference"] <= 24
    assert done["reviews"] == 1


def test_the_self_test_fails_while_the_image_still_renders(
    qapp, ct_benchmark, tmp_path, monkeypatch, renders_once_then_never
):
    monkeypatch.setattr(self_test, "TIMEOUT_MS", 3000)
    _on_first_item(monkeypatch, lambda window: window.image.toggle_invert())  # a render never done
    with pytest.raises(MedRCubeError, match="did not finish rendering .*Rendering…"):
        self_test.commit_one_review(ct_benchmark, tmp_path / "r.db", tmp_path / "s.png")


def test_the_self_test_fails_on_a_black_image_area(qapp, ct_benchmark, tmp_path, monkeypatch):
    real = render_task.render_item

    def black(*args, **kwargs):
        result = real(*args, **kwargs)
        rgba = np.zeros_like(result.rgba)
        rgba[..., 3] = 255
        return dataclasses.replace(result, rgba=rgba)

    monkeypatch.setattr(render_task, "render_item", black)
    with pytest.raises(MedRCubeError, match=r"item ct-1: the image area is blank \(one grey"):
        self_test.commit_one_review(ct_benchmark, tmp_path / "r.db", tmp_path / "s.png")


def test_the_self_test_fails_on_another_item_s_slice_label(
    qapp, ct_benchmark, tmp_path, monkeypatch
):
    _on_first_item(monkeypatch, lambda window: window.slice_label.setText("Slice 56 of 189"))
    with pytest.raises(
        MedRCubeError, match="the slice label says 'Slice 56 of 189', the item's is ''"
    ):
        self_test.commit_one_review(ct_benchmark, tmp_path / "r.db", tmp_path / "s.png")


STUCK_AFTER_FIRST_RENDER = """
import sys
from medrcube_desktop.ui import app
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.widgets.render_task import RenderTask

app.SCREENSHOT_WAIT_MS = 2000
real_run, calls = RenderTask.run, []

def run(task):  # every render after the first one never finishes
    calls.append(task.item.id)
    if len(calls) == 1:
        real_run(task)

RenderTask.run = run
real_init = MainWindow.__init__

def init(self, *args, **kwargs):  # the first item is shown, then re-rendered (invert)
    real_init(self, *args, **kwargs)
    self.first_item_shown.connect(self.image.toggle_invert)

MainWindow.__init__ = init
"""


def _screenshot(ct_benchmark, tmp_path, prelude=""):
    """``medrcube-desktop --screenshot`` in its own process, after ``prelude``."""
    shot = tmp_path / "shot.png"
    argv = ["--dataset", str(ct_benchmark), "--db", str(tmp_path / "s.db"),
            "--reviewer", "dr-a", "--screenshot", str(shot)]  # fmt: skip
    code = f"{prelude}\nfrom medrcube_desktop.cli import main\nsys.exit(main({argv!r}))\n"
    result = subprocess.run(
        [sys.executable, "-c", "import sys\n" + code],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    return result, shot


def test_a_screenshot_is_saved_once_the_first_image_is_drawn(ct_benchmark, tmp_path):
    result, shot = _screenshot(ct_benchmark, tmp_path)
    assert result.returncode == 0, result.stderr
    assert shot.stat().st_size > 0


def test_no_screenshot_of_an_image_still_rendering(ct_benchmark, tmp_path):
    result, shot = _screenshot(ct_benchmark, tmp_path, STUCK_AFTER_FIRST_RENDER)
    assert result.returncode == 1
    assert "the first item's image did not finish rendering within 2000 ms" in result.stderr
    assert not shot.exists()
