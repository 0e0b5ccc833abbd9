"""The user guide ships with the app (issue 22 item 4): the pages of ``docs/`` are package
data of the wheel (``pyproject.toml``) and data of the frozen bundle
(``packaging/medrcube-desktop.spec``), both as ``medrcube_desktop/guide``, where
:func:`~medrcube_desktop.ui.widgets.user_guide.guide_dir` finds them."""

from __future__ import annotations

import fnmatch
import re
import shutil
import tomllib
from pathlib import Path

import medrcube_desktop
from medrcube_desktop.ui.widgets.user_guide import UserGuideDialog, guide_dir

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"


def _needed() -> set[str]:
    """Every file the guide shows, relative to ``docs/``: its pages and the pictures and
    pages they link (the option tables may not exist yet in a branch: those that do)."""
    needed = {page.name for page in DOCS.glob("*.md")}
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if not target.startswith(("http://", "https://", "../")) and (DOCS / target).exists():
                needed.add(Path(target).as_posix())
    return needed


def _spec_guide_datas() -> list[tuple[str, str]]:
    """The (source, destination folder) pairs the spec's guide lines give."""
    lines = [
        line
        for line in (ROOT / "packaging" / "medrcube-desktop.spec").read_text().splitlines()
        if line.startswith("datas +=") and "medrcube_desktop/guide" in line
    ]
    assert lines, "the spec copies no user guide"
    scope = {"ROOT": ROOT, "datas": []}
    for line in lines:
        exec(line, scope)  # noqa: S102 (the spec's own lines, without PyInstaller)
    return scope["datas"]


def test_the_wheel_holds_every_page_and_picture():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "medrcube_desktop.guide" in config["packages"]
    assert config["package-dir"]["medrcube_desktop.guide"] == "docs"
    patterns = config["package-data"]["medrcube_desktop.guide"]
    needed = _needed()
    assert {"index.md", "review.md", "img/review.png"} <= needed
    left_out = {f for f in needed if not any(fnmatch.fnmatch(f, p) for p in patterns)}
    assert not left_out, left_out


def test_the_bundle_holds_every_page_and_picture_where_the_app_looks(tmp_path, qtbot, monkeypatch):
    # lay the spec's datas out as PyInstaller does (destination folder + file name), then
    # the app, its package there, finds the guide and follows its links
    bundle = tmp_path / "_internal"
    for source, folder in _spec_guide_datas():
        (bundle / folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(source, bundle / folder)
    laid_out = {
        p.relative_to(bundle / "medrcube_desktop" / "guide").as_posix()
        for p in bundle.rglob("*")
        if p.is_file()
    }
    assert _needed() <= laid_out, _needed() - laid_out
    monkeypatch.setattr(
        medrcube_desktop, "__file__", str(bundle / "medrcube_desktop" / "__init__.pyc")
    )
    assert guide_dir() == bundle / "medrcube_desktop" / "guide"
    dialog = UserGuideDialog()
    qtbot.addWidget(dialog)
    assert dialog.folder == bundle / "medrcube_desktop" / "guide"
    assert dialog.title() == "MedRCube Desktop: User guide"
    dialog.browser.anchorClicked.emit(dialog.browser.source().resolved("compare.md"))
    assert (dialog.page(), dialog.title()) == ("compare.md", "Compare models")
    assert dialog.note.text() == ""  # followed inside the guide, not refused


def test_in_a_source_checkout_the_guide_is_docs():
    # an editable install (pip install -e .) runs the package from the source tree
    assert Path(medrcube_desktop.__file__).resolve().parent.parent == ROOT
    assert guide_dir() == DOCS.resolve()
