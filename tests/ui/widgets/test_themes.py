"""The ground-truth line is readable in every theme: WCAG 2.x contrast of 4.5:1 or more."""

import re

import pytest
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication

from medrcube_desktop.ui.review.panes import ItemPane
from medrcube_desktop.ui.widgets.themes import GROUND_TRUTH_COLOURS, THEMES, apply_theme
from tests.ui.review.test_review_binding_window import open_window

WCAG_AA = 4.5


def relative_luminance(hex_colour: str) -> float:
    """WCAG 2.x relative luminance of an sRGB colour ``#rrggbb``."""
    channels = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2.x contrast ratio, 1 to 21."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_formula():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#1a7f37", "#22272e") == pytest.approx(2.96, abs=0.01)  # the old dark
    assert contrast("#1a7f37", "#000000") == pytest.approx(4.13, abs=0.01)  # the old HC


def shown_ground_truth_colour(pane: ItemPane) -> str:
    found = re.search(r"color:(#[0-9a-fA-F]{6})'>[^<]*ground truth", pane.options.text())
    assert found, pane.options.text()
    return found.group(1)


@pytest.mark.parametrize("theme", list(THEMES))
def test_ground_truth_contrast_in_every_theme(qtbot, theme, ct_benchmark):
    from medrcube_desktop.core.dataset import load_benchmark

    app = QApplication.instance()
    apply_theme(app, theme)
    try:
        pane = ItemPane()
        qtbot.addWidget(pane)
        pane.show_item(load_benchmark(ct_benchmark).items[0])
        colour = shown_ground_truth_colour(pane)
        assert colour == GROUND_TRUTH_COLOURS[theme]
        palette = app.palette()
        for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
            background = palette.color(role).name()
            assert contrast(colour, background) >= WCAG_AA, (theme, role, background)
    finally:
        apply_theme(app, "light")


def test_switching_theme_recolours_the_ground_truth(qtbot, ct_benchmark, tmp_path):
    app = QApplication.instance()
    apply_theme(app, "light")
    window, _ = open_window(qtbot, ct_benchmark, tmp_path / "s.db")
    try:
        for theme in ("dark", "high-contrast", "light"):
            window.tools.set_theme(theme)
            background = app.palette().color(QPalette.ColorRole.Window).name()
            # before: the line kept the light theme's green (2.96:1 on dark, 4.13:1 on black)
            assert contrast(shown_ground_truth_colour(window.item_pane), background) >= WCAG_AA
    finally:
        apply_theme(app, "light")
