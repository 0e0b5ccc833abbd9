"""Dialogs no taller than the screen: what does not fit scrolls."""

from PySide6.QtWidgets import QApplication, QScrollArea

from medrcube_desktop.ui.dialogs import shortcuts_box
from medrcube_desktop.ui.widgets.screen import available_size
from medrcube_desktop.ui.widgets.themes import apply_theme
from tests.ui.review.test_review_binding_window import open_window


def test_the_shortcuts_sheet_scrolls_within_the_screen(qtbot, ct_benchmark, tmp_path):
    app = QApplication.instance()
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    apply_theme(app, "light", 1.75)
    try:
        box = shortcuts_box(window, window.actions_table, window.qactions)
        qtbot.addWidget(box)
        box.show()
        qtbot.waitExposed(box)
        free = available_size(box)
        # before: a message box as tall as its text, its last rows below the screen
        assert box.height() <= free.height() and box.width() <= free.width()
        scroll = box.findChild(QScrollArea, "shortcutScroll")
        sheet = scroll.widget()
        if sheet.sizeHint().height() > scroll.viewport().height():
            assert scroll.verticalScrollBar().maximum() > 0  # every row reachable
        assert "Keyboard shortcuts" in box.windowTitle()
        box.grab().save(str(tmp_path / "sheet.png"))
    finally:
        apply_theme(app, "light", 1.0)


def test_the_panes_fit_the_screen(qtbot, ct_benchmark, tmp_path):
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    for pane in (window.open_evaluate_pane(), window.open_agreement_pane(),
                 window.open_compare_pane()):  # fmt: skip
        free = available_size(pane)
        assert pane.height() <= free.height()  # (the offscreen screen is 800 px wide)
        pane.close()
    pairs = window.panes.get("evaluate").pairs_view
    assert pairs.detail_scroll.widgetResizable()  # the pair detail scrolls
