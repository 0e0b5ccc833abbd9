"""Run by tests/ui/review/test_review_binding_crash_recovery.py in a child process that the test kills.

Usage: python -m tests.ui.crash_session BENCHMARK_DIR DB_FILE

Scores with real key presses in a real window: commits the first item, then keeps
toggling rules of the second item forever. After each key it prints one line,
``STEP n committed|draft JSON``, once the session says the edit is saved.
"""

import json
import sys

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.main_window import MainWindow

KEYS = [Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4, Qt.Key.Key_5]


def main() -> None:
    root, db = sys.argv[1], sys.argv[2]
    app = QApplication(sys.argv[:1])
    benchmark = load_benchmark(root)
    window = MainWindow(ReviewSessionState(benchmark.items, StudyStore(db), "dr-k"), benchmark)
    window.show()
    step = {"n": 0}

    def report(kind: str, payload: object) -> None:
        step["n"] += 1
        print(f"STEP {step['n']} {kind} {json.dumps(payload)}", flush=True)

    def commit_first(tries: int = 100) -> None:
        # On a loaded machine the window may not take keys 200 ms after show(): try
        # again every 100 ms (10 s at most) until the commit is saved, then report it.
        QTest.keyClick(window.image_view, Qt.Key.Key_P)
        QTest.keyClick(window.image_view, Qt.Key.Key_Return)
        if not window.session.saved and tries > 0:
            QTimer.singleShot(100, lambda: commit_first(tries - 1))
            return
        report("committed", sorted(window.session.saved))
        QTimer.singleShot(5, toggle)

    def toggle() -> None:
        QTest.keyClick(window.image_view, KEYS[step["n"] % len(KEYS)])
        draft = window.session.draft
        report("draft", {"item": draft.item_id, "scores": draft.scores})
        QTimer.singleShot(5, toggle)

    QTimer.singleShot(200, commit_first)
    app.exec()


if __name__ == "__main__":
    main()
