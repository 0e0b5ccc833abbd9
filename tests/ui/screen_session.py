"""Run by tests/ui/test_main_window_fits_screen.py in a child process whose offscreen screen
has the size under test (``QT_QPA_PLATFORM=offscreen:configfile=...``: the screen of a
Qt application cannot change once it runs).

Usage: python -m tests.ui.screen_session BENCHMARK_DIR DB_FILE [SAVED_X,Y,W,H]

Opens the first window as the app does (``ui.app.place_window``); with SAVED, a window
layout with that geometry is stored first, as a window closed on a larger monitor
leaves it. Prints one line of JSON: the screen's free area, the window's geometry and
its minimum size, once the first item is on screen.
"""

import json
import sys
from pathlib import Path

from PySide6.QtCore import QRect, QTimer
from PySide6.QtWidgets import QApplication

from medrcube_desktop import settings
from medrcube_desktop.ui.app import place_window
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.window_factory import build_window, load_for_review, open_store
from medrcube_desktop.ui.window_tools import save_window_state


def rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def main() -> None:
    root, db = Path(sys.argv[1]), Path(sys.argv[2])
    app = QApplication(sys.argv[:1])
    benchmark = load_for_review(root)
    store = open_store(db)
    if len(sys.argv) > 3:
        earlier = build_window(MainWindow, benchmark, store, "dr-s", settings.Settings())
        earlier.setMinimumSize(0, 0)
        earlier.setGeometry(QRect(*map(int, sys.argv[3].split(","))))
        save_window_state(earlier)
        earlier.deleteLater()
    window = build_window(MainWindow, benchmark, store, "dr-s", settings.Settings())
    place_window(window)

    def report() -> None:
        shown = {
            "available": rect(window.screen().availableGeometry()),
            "geometry": rect(window.geometry()),
            "minimum": [window.minimumWidth(), window.minimumHeight()],
        }
        others = [s for s in app.screens() if s is not window.screen()]
        if others:  # moved to the second screen, as a user drags it there
            window.windowHandle().setScreen(others[0])
            app.processEvents()
            shown["moved_minimum"] = [window.minimumWidth(), window.minimumHeight()]
        print(json.dumps(shown), flush=True)
        app.quit()

    window.first_item_shown.connect(lambda: QTimer.singleShot(0, report))
    window.show()
    app.exec()
    store.close()


if __name__ == "__main__":
    main()
