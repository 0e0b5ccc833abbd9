"""``self-test``, ``install-launcher`` and the first launch's library check, from the CLI."""

import json
import sys

import pytest

from medrcube_desktop.cli import gui, main
from medrcube_desktop.core import system_libraries


def test_a_missing_xcb_library_stops_the_window_with_the_install_command(monkeypatch, capsys):
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setenv("DISPLAY", ":0")  # a display: the libraries are checked (issue 21)
    shown = []
    monkeypatch.setattr(gui, "_show_without_qt", shown.append)  # no desktop dialog here
    monkeypatch.setattr(
        system_libraries, "loadable", lambda soname: soname != "libxcb-keysyms.so.1"
    )
    assert main(["--demo"]) == 1
    err = capsys.readouterr().err
    assert "libxcb-keysyms.so.1 (libxcb-keysyms1)" in err
    assert "sudo apt-get install libxcb-keysyms1" in err


def test_self_test_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "x").write_text("")
    assert main(["self-test", "--out", str(tmp_path)]) == 2
    assert "new or empty --out folder" in capsys.readouterr().err


def test_self_test_refuses_an_unreadable_expect_file(tmp_path, capsys):
    assert main(["self-test", "--out", str(tmp_path / "o"), "--expect", str(tmp_path / "no")]) == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux desktop layout")
def test_install_launcher_writes_under_the_prefix(tmp_path, capsys):
    assert main(["install-launcher", "--prefix", str(tmp_path), "--json"]) == 0
    written = json.loads(capsys.readouterr().out)["written"]
    desktop = tmp_path / "share/applications/medrcube-desktop.desktop"
    assert str(desktop) in written and "medrcube-desktop-gui" in desktop.read_text()
    assert main(["install-launcher", "--prefix", str(tmp_path), "--uninstall"]) == 0
    assert not desktop.exists()


def test_no_display_is_said_so_not_blamed_on_a_library(monkeypatch, capsys):
    """Over SSH without X forwarding Qt aborts naming libxcb-cursor0, installed or not."""
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(system_libraries, "loadable", lambda soname: True)
    assert main(["--demo"]) == 1
    err = capsys.readouterr().err
    assert "no display to open the window on" in err and "apt-get" not in err


def test_launcher_resources_resolve_one_part_at_a_time(monkeypatch):
    """In the frozen bundle files() is a MultiplexedPath: joinpath takes one part on
    Python 3.11, so the launcher's files are found part by part."""
    from importlib.resources.readers import MultiplexedPath

    from medrcube_desktop.core import launcher

    real = launcher.files("medrcube_desktop.resources")
    monkeypatch.setattr(launcher, "files", lambda _name: MultiplexedPath(str(real)))
    assert launcher._resource("desktop", launcher.METAINFO_FILE).is_file()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux desktop layout")
def test_install_launcher_follows_xdg_data_home(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["install-launcher"]) == 0
    assert (tmp_path / "data/applications/medrcube-desktop.desktop").is_file()
    assert main(["install-launcher", "--uninstall"]) == 0
    assert not (tmp_path / "data/applications/medrcube-desktop.desktop").exists()
