"""Render resources/icons/medrcube-desktop.svg to the PNG sizes desktops look up.

Run after changing the SVG (the PNGs are committed)::

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py
"""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

SIZES = (16, 24, 32, 48, 64, 128, 256)
"""Must match medrcube_desktop.core.launcher.ICON_SIZES (tests/core/test_launcher.py)."""
ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"


def main() -> None:
    app = QGuiApplication([])  # noqa: F841 (QSvgRenderer needs one)
    renderer = QSvgRenderer(str(ICONS / "medrcube-desktop.svg"))
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        image.save(str(ICONS / f"medrcube-desktop-{size}.png"), "PNG")


if __name__ == "__main__":
    main()
