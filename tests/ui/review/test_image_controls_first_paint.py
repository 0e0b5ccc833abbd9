"""In the real window (issue 25 item 4, first paint): no neighbour is rendered beside the
first item's image; once it is on screen, the neighbours are prefetched as before."""

from __future__ import annotations

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging.render_cache import render_key
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.review import image_controls


def test_the_prefetch_waits_for_the_first_image(qtbot, ct_benchmark, tmp_path, monkeypatch):
    started = []
    real = image_controls.ImageControls._prefetch_neighbours

    def record(self):
        started.append(self._awaited)  # the render in flight when the prefetch starts
        real(self)

    monkeypatch.setattr(image_controls.ImageControls, "_prefetch_neighbours", record)
    benchmark = load_benchmark(ct_benchmark)
    store = StudyStore(tmp_path / "s.db")
    window = MainWindow(ReviewSessionState(benchmark.items, store, "dr-a"), benchmark)
    qtbot.addWidget(window)
    assert started == []  # built, its first render asked for: no prefetch yet
    with qtbot.waitSignal(window.first_item_shown, timeout=10000):
        window.show()
    assert started == [None]  # once, after the first image settled (no render in flight)
    following = window.session.visible[1]
    key = render_key(following, *window.image._display_args(following, None, True, None))
    qtbot.waitUntil(lambda: key in window.image.render_cache, timeout=10000)
    window.step_item(1)  # later items prefetch at once, as before
    assert len(started) == 2
