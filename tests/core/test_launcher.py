"""The desktop launcher, icons and AppStream metainfo: well formed, installed where the
desktop looks (XDG data home), starting this installation."""

import configparser
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from medrcube_desktop.core import launcher

ROOT = Path(__file__).resolve().parents[2]
DESKTOP = ROOT / "resources" / "desktop" / launcher.DESKTOP_FILE
METAINFO = ROOT / "resources" / "desktop" / launcher.METAINFO_FILE


def _entry(text: str) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys are case-sensitive
    parser.read_string(text)
    return parser["Desktop Entry"]


def test_the_desktop_file_has_what_a_menu_needs():
    entry = _entry(DESKTOP.read_text())
    assert entry["Type"] == "Application" and entry["Icon"] == launcher.APP_ID
    assert entry["Exec"] == launcher.GUI_SCRIPT and entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";")


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="no desktop-file-utils")
def test_desktop_file_validate_accepts_it():
    result = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_the_metainfo_is_appstream_shaped_and_launches_the_desktop_file():
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    for tag in ("id", "name", "summary", "metadata_license", "project_license", "description"):
        assert root.find(tag) is not None, tag
    assert root.find("launchable").text == launcher.DESKTOP_FILE
    assert re.fullmatch(r"[a-z]+(\.[A-Za-z0-9_-]+){2,}", root.find("id").text)


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="no appstream")
def test_appstreamcli_validates_the_metainfo():
    result = subprocess.run(
        ["appstreamcli", "validate", "--no-net", "--explain", str(METAINFO)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_icon_size_is_there_and_matches_the_renderer():
    icons = ROOT / "resources" / "icons"
    for size in launcher.ICON_SIZES:
        png = (icons / f"medrcube-desktop-{size}.png").read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert int.from_bytes(png[16:20], "big") == int.from_bytes(png[20:24], "big") == size
    renderer = (ROOT / "packaging" / "render_icons.py").read_text()
    assert f"SIZES = {launcher.ICON_SIZES}" in renderer
    ET.parse(icons / "medrcube-desktop.svg")


def test_install_writes_under_share_with_this_command_and_uninstall_removes(tmp_path):
    share = tmp_path / "share"
    command = [str(tmp_path / "my app" / "medrcube-desktop")]
    written = launcher.install(share, command)
    assert (share / "applications" / launcher.DESKTOP_FILE) in written
    assert (share / "icons/hicolor/256x256/apps/medrcube-desktop.png").is_file()
    assert (share / "icons/hicolor/scalable/apps/medrcube-desktop.svg").is_file()
    assert (share / "metainfo" / launcher.METAINFO_FILE).is_file()
    entry = _entry((share / "applications" / launcher.DESKTOP_FILE).read_text())
    assert entry["Exec"] == f'"{command[0]}"' and entry["TryExec"] == command[0]
    assert set(launcher.uninstall(share)) == set(written)
    assert not any(p.is_file() for p in share.rglob("*"))


def test_percent_signs_in_exec_are_doubled():
    # started through env: GLib looks the first word up before it expands %%
    assert launcher.desktop_entry(["/opt/100%/app"]).count("Exec=env /opt/100%%/app") == 1
