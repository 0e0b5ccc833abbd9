"""Light, dark and high-contrast themes and font scaling for the whole application."""

from __future__ import annotations

import logging
from importlib.resources import files

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

THEMES: dict[str, str] = {"light": "Light", "dark": "Dark", "high-contrast": "High contrast"}
"""Theme id → menu title. Style sheets are ``resources/themes/<id>.qss``."""

FONT_SCALES: tuple[float, ...] = (0.85, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0)
"""Font scale steps offered by View › Larger / Smaller text."""

GROUND_TRUTH_COLOURS: dict[str, str] = {
    "light": "#176f2c",  # 5.5:1 on the window colour #efefef, 6.3:1 on white
    "dark": "#3fb950",  # 5.9:1 on #22272e
    "high-contrast": "#7ee787",  # 13.7:1 on black
}
"""Colour of the ground-truth option in each theme: at least 4.5:1 (WCAG 2.x AA) against
the theme's window and base colours (tests/ui/widgets/test_themes.py computes it)."""

ERROR_COLOURS: dict[str, str] = {"light": "#b42318", "dark": "#ff7b72", "high-contrast": "#ff8f8f"}
"""A warning's colour per theme (4.5:1 or more on the window colour; checked in
tests/ui/compare/test_pane.py)."""

log = logging.getLogger(__name__)
_BASE_POINT_SIZE: list[float] = []
_APPLIED: list[str] = ["light"]  # the theme apply_theme set last


def current_theme() -> str:
    """The theme :func:`apply_theme` set last (``"light"`` before any)."""
    return _APPLIED[0]


def ground_truth_colour() -> str:
    """The ground-truth colour of the theme in use."""
    return GROUND_TRUTH_COLOURS[current_theme()]


def error_colour() -> str:
    """The warning colour of the theme in use."""
    return ERROR_COLOURS[current_theme()]


def _palette(theme: str) -> QPalette:
    if theme == "light":
        return QApplication.style().standardPalette()
    if theme == "dark":
        colours = {
            QPalette.ColorRole.Window: "#22272e",
            QPalette.ColorRole.WindowText: "#e6edf3",
            QPalette.ColorRole.Base: "#1c2128",
            QPalette.ColorRole.AlternateBase: "#2d333b",
            QPalette.ColorRole.Text: "#e6edf3",
            QPalette.ColorRole.Button: "#2d333b",
            QPalette.ColorRole.ButtonText: "#e6edf3",
            QPalette.ColorRole.Highlight: "#316dca",
            QPalette.ColorRole.HighlightedText: "#ffffff",
            QPalette.ColorRole.ToolTipBase: "#2d333b",
            QPalette.ColorRole.ToolTipText: "#e6edf3",
            QPalette.ColorRole.PlaceholderText: "#9da7b3",
            QPalette.ColorRole.Link: "#6cb6ff",
        }
    else:  # high contrast
        colours = {
            QPalette.ColorRole.Window: "#000000",
            QPalette.ColorRole.WindowText: "#ffffff",
            QPalette.ColorRole.Base: "#000000",
            QPalette.ColorRole.AlternateBase: "#1a1a1a",
            QPalette.ColorRole.Text: "#ffffff",
            QPalette.ColorRole.Button: "#000000",
            QPalette.ColorRole.ButtonText: "#ffffff",
            QPalette.ColorRole.Highlight: "#ffff00",
            QPalette.ColorRole.HighlightedText: "#000000",
            QPalette.ColorRole.ToolTipBase: "#000000",
            QPalette.ColorRole.ToolTipText: "#ffffff",
            QPalette.ColorRole.PlaceholderText: "#d0d0d0",
            QPalette.ColorRole.Link: "#ffff00",
        }
    palette = QPalette()
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    return palette


def apply_theme(app: QApplication, theme: str, font_scale: float = 1.0) -> None:
    """Set the palette, style sheet and font size of every window.

    Parameters
    ----------
    theme : str
        A key of :data:`THEMES`; an unknown one falls back to light (logged).
    font_scale : float
        Multiplier of the platform's default font size (clamped to 0.5–3).
    """
    if theme not in THEMES:
        log.warning("unknown theme %r; using light", theme)
        theme = "light"
    _APPLIED[0] = theme
    app.setStyle("Fusion")  # the same look on every platform, and palettes apply fully
    app.setPalette(_palette(theme))
    if not _BASE_POINT_SIZE:
        _BASE_POINT_SIZE.append(app.font().pointSizeF())
    font = QFont(app.font())
    font.setPointSizeF(_BASE_POINT_SIZE[0] * min(max(font_scale, 0.5), 3.0))
    app.setFont(font)
    # The style sheet last: setting it re-polishes every widget with the font set above
    # (the other way round, widgets kept the previous size: text lagged one step).
    sheet = files("medrcube_desktop.resources").joinpath("themes").joinpath(f"{theme}.qss")
    app.setStyleSheet(sheet.read_text("utf-8"))
