"""The first launch's check of Qt's system libraries (no Qt, no real loader needed)."""

import sys

import pytest

from medrcube_desktop.core import system_libraries as sl

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")


def test_the_list_has_both_groups_and_the_libraries_issue_16_names():
    libraries = sl.qt_libraries()
    assert {lib.group for lib in libraries} == {"offscreen", "xcb"}
    packages = {lib.package for lib in libraries if lib.group == "xcb"}
    assert {"libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0"} <= packages
    assert all(".so." in lib.soname for lib in libraries)


def test_offscreen_needs_only_the_offscreen_group():
    missing = sl.missing_libraries("offscreen", can_load=lambda soname: False)
    assert missing and {lib.group for lib in missing} == {"offscreen"}


def test_xcb_names_every_missing_library_and_one_install_command():
    absent = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0"}
    missing = sl.missing_libraries("xcb", can_load=lambda soname: soname not in absent)
    assert {lib.soname for lib in missing} == absent
    message = sl.missing_message(missing, "xcb")
    assert "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1" in message
    assert all(lib.soname in message for lib in missing)


def test_nothing_missing_means_no_message_needed():
    assert sl.missing_libraries("xcb", can_load=lambda soname: True) == []


def test_the_platform_follows_qt_qpa_platform_then_the_session():
    assert sl.qt_platform({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"
    assert sl.qt_platform({"QT_QPA_PLATFORM": "xcb:display=:1;wayland"}) == "xcb"
    wayland = {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}
    assert sl.qt_platform(wayland) == "wayland"
    assert sl.qt_platform({}) == "xcb"


def test_the_real_loader_finds_libc_and_not_a_made_up_library():
    assert sl.loadable("libc.so.6")
    assert not sl.loadable("libmedrcube-no-such-library.so.9")


def test_a_list_in_the_files_format_parses_with_comments():
    text = "# header\nxcb libxcb-util.so.1 libxcb-util1  # trailing\n\n"
    assert sl.qt_libraries(text) == [sl.SystemLibrary("xcb", "libxcb-util.so.1", "libxcb-util1")]
