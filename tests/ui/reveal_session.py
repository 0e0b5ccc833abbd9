"""Run by tests/ui/test_main_window_fits_screen.py in a child process whose offscreen screen
has the size under test (``QT_QPA_PLATFORM=offscreen:configfile=...``): the review
window opened as the app opens it, on a study with an LLM judgment and ablation runs of
four modes (the longest evidence line), the first item committed in a blind study so
that the reveal (the LLM's judgment, the evidence of rule 1.4) is shown.

Usage: python -m tests.ui.reveal_session BENCHMARK_DIR DB_FILE SCREENSHOT_PNG [TEXT_SCALE]

TEXT_SCALE: View › Larger text's scale (1.5), 1 when left out.

Prints one line of JSON once the evidence arrived: for each of the reveal's widgets,
its rectangle in the right column's viewport and the viewport's; the title label's
height and the height its text needs at its width; the title's text.
"""

import json
import sys
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QTimer
from PySide6.QtWidgets import QApplication

from medrcube_desktop import settings
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from medrcube_desktop.store.judgments import Judgment
from medrcube_desktop.ui.app import place_window
from medrcube_desktop.ui.main_window import MainWindow
from medrcube_desktop.ui.window_factory import build_window, load_for_review, open_store

MODES = ("image", "text-only", "blank", "swapped", "noise")


def prepare(store, items) -> None:
    """An LLM judgment failing 1.4 of every item; per mode a run right on every item."""
    for it in items:
        scores = dict.fromkeys(RULE_IDS, 1) | {"1.4": 0}
        store.save_judgment(Judgment(it.id, "gpt-5.1", scores, created_at=utc_now()))
    for mode in MODES:
        name = f"m-{mode}"
        run = RunRecord(name, "import", f"M-{mode}", {}, "", "t", utc_now(),
                        text_only=mode == "text-only", image_mode=mode)  # fmt: skip
        store.replace_run(run, [
            ResponseRecord(name, it.id, it.answer, it.answer, "t", True, it.answer, True,
                           utc_now()) for it in items
        ])  # fmt: skip


def rect(r: QRect) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def main() -> None:
    root, db, shot = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    app = QApplication(sys.argv[:1])
    if len(sys.argv) > 4:
        from medrcube_desktop.ui.widgets.themes import apply_theme

        apply_theme(app, "light", float(sys.argv[4]))
    benchmark = load_for_review(root)
    store = open_store(db)
    prepare(store, benchmark.items)
    window = build_window(MainWindow, benchmark, store, "dr-s", settings.Settings())
    place_window(window)
    reveal = window.reveal_pane
    viewport = window.right_scroll.viewport()

    def report() -> None:
        app.processEvents()
        window.grab().save(shot)
        shown = {"viewport": rect(viewport.rect()), "widgets": {}}
        for name, widget in (("title", reveal.title), ("table", reveal.table),
                             ("pane", reveal)):  # fmt: skip
            place = QRect(widget.mapTo(viewport, QPoint(0, 0)), widget.size())
            shown["widgets"][name] = {"rect": rect(place), "visible": widget.isVisible()}
        title = reveal.title
        shown["title_height"] = title.height()
        shown["title_needs"] = title.heightForWidth(title.width())
        shown["title_text"] = title.text()
        shown["pending"] = getattr(window.session, "evidence_pending", False)
        print(json.dumps(shown), flush=True)
        app.quit()

    def commit() -> None:
        window.session.pass_unscored()  # every rule scored: pass
        window.scoring.commit()  # Enter: commit, the reveal shown
        wait_for_evidence()

    def wait_for_evidence() -> None:
        if getattr(window.session, "evidence_pending", False):
            QTimer.singleShot(20, wait_for_evidence)
        else:
            QTimer.singleShot(100, report)  # the layouts settle

    window.first_item_shown.connect(lambda: QTimer.singleShot(0, commit))
    window.show()
    app.exec()
    store.close()


if __name__ == "__main__":
    main()
