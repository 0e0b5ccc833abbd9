"""View › Larger / Smaller text: every widget follows at once, and the side panel wraps."""

from PySide6.QtWidgets import QApplication, QWidget

from medrcube_desktop.ui.widgets.themes import FONT_SCALES, apply_theme
from tests.ui.review.test_review_binding_window import open_window


def sizes(window) -> set[float]:
    return {round(w.font().pointSizeF(), 2) for w in window.findChildren(QWidget)}


def test_text_size_follows_each_step_at_once(qtbot, ct_benchmark, tmp_path):
    app = QApplication.instance()
    apply_theme(app, "light", 1.0)
    base = app.font().pointSizeF()
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    for step, expected in ((1, 1.15), (1, 1.3), (-1, 1.15), (-1, 1.0), (-1, 0.85)):
        window.tools.scale_font(step)
        QApplication.processEvents()
        assert window.prefs.font_scale == expected
        # before: every widget kept the previous step's size (Smaller could make text bigger)
        assert sizes(window) == {round(base * expected, 2)}
    apply_theme(app, "light", 1.0)


def test_the_side_panel_wraps_at_large_text(qtbot, ct_benchmark, tmp_path):
    app = QApplication.instance()
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    window.resize(1360, 860)
    try:
        for scale in FONT_SCALES[FONT_SCALES.index(1.3) :]:
            apply_theme(app, "light", scale)
            QApplication.processEvents()
            content = window.right_scroll.widget()
            viewport = window.right_scroll.viewport().width()
            # before: the rule buttons did not wrap, so the panel was wider than its view
            # and the question and options were cut at the right edge
            assert content.minimumSizeHint().width() <= viewport, scale
            assert content.width() <= viewport
            button = window.rubric_pane.buttons["1.4"]
            assert button.text().endswith("not scored")
            assert button.height() >= button.heightForWidth(button.width()) - 1
    finally:
        apply_theme(app, "light", 1.0)
