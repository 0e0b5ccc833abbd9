"""Fail unless a wheel holds the packaged resources, the database migrations and the
user guide.

Usage: python packaging/check_wheel.py dist/medrcube_desktop-*.whl
"""

import sys
import zipfile

REQUIRED = (
    "medrcube_desktop/resources/rubric.json",
    "medrcube_desktop/resources/qt_system_libraries.txt",
    "medrcube_desktop/resources/icons/medrcube-desktop.svg",
    "medrcube_desktop/resources/icons/medrcube-desktop-256.png",
    "medrcube_desktop/resources/desktop/medrcube-desktop.desktop",
    "medrcube_desktop/resources/desktop/io.github.medrcube.Desktop.metainfo.xml",
    "medrcube_desktop/resources/themes/light.qss",
    "medrcube_desktop/resources/prompts/evaluation_table9.txt",
    "medrcube_desktop/review_db/migrations/0001_initial.sql",
    "medrcube_desktop/guide/index.md",
    "medrcube_desktop/guide/review.md",
    "medrcube_desktop/guide/img/review.png",
)


def missing(wheel: str) -> list[str]:
    names = set(zipfile.ZipFile(wheel).namelist())
    return [name for name in REQUIRED if name not in names]


if __name__ == "__main__":
    lost = missing(sys.argv[1])
    if lost:
        sys.exit(f"{sys.argv[1]} lacks: {', '.join(lost)}")
