"""README promises that over SSH without a display the app says so: it must say it
before it checks (and blames) Qt's system libraries (issue 21)."""

import sys

import pytest

from medrcube_desktop.cli import gui, main
from medrcube_desktop.core import system_libraries

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland")


def _no_display_anywhere(monkeypatch, platform=None):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if platform is None:
        monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    else:
        monkeypatch.setenv("QT_QPA_PLATFORM", platform)


@linux_only
@pytest.mark.parametrize("platform", [None, "xcb", "wayland"])
def test_no_display_is_said_before_any_library_is_checked(monkeypatch, capsys, platform):
    """A fresh machine over SSH: no display AND Qt's libraries missing. The user is told
    there is no display, and no library is looked up or named."""
    _no_display_anywhere(monkeypatch, platform)
    looked_up = []
    monkeypatch.setattr(
        system_libraries, "loadable", lambda soname: looked_up.append(soname) or False
    )
    assert main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith("medrcube-desktop: no display to open the window on")
    assert "apt-get" not in err and "lib" not in err.split("(")[0]
    assert looked_up == []


@linux_only
def test_offscreen_needs_no_display_and_still_checks_the_libraries(monkeypatch, capsys):
    _no_display_anywhere(monkeypatch, "offscreen")
    monkeypatch.setattr(system_libraries, "loadable", lambda soname: False)
    assert main(["--demo"]) == 1
    err = capsys.readouterr().err
    assert "no display" not in err and "apt-get" in err


def test_which_platforms_need_a_display():
    if not sys.platform.startswith("linux"):
        assert not gui.no_display("xcb", {})
        return
    assert gui.no_display("xcb", {}) and gui.no_display("wayland", {"DISPLAY": ""})
    assert not gui.no_display("xcb", {"DISPLAY": ":0"})
    assert not gui.no_display("wayland", {"WAYLAND_DISPLAY": "wayland-0"})
    assert not gui.no_display("offscreen", {}) and not gui.no_display("minimal", {})
