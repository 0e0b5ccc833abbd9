"""install-launcher never deletes or creates anything through a folder that links out of
the prefix, and a refused install writes nothing (issue 21, second hostile trial)."""

from __future__ import annotations

import pytest

from medrcube_desktop.core import launcher
from medrcube_desktop.core.write_guard import ProtectedFileError


def test_uninstall_never_deletes_through_a_folder_linked_out_of_the_prefix(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    theirs = victim / launcher.DESKTOP_FILE
    theirs.write_text("[Desktop Entry]\nName=theirs\n")
    share = tmp_path / "prefix" / "share"
    share.mkdir(parents=True)
    (share / "applications").symlink_to(victim)
    with pytest.raises(ProtectedFileError, match="outside"):
        launcher.uninstall(share)
    assert theirs.read_text() == "[Desktop Entry]\nName=theirs\n"


def test_a_refused_install_writes_nothing_and_makes_no_folder_outside(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    share = tmp_path / "prefix" / "share"
    share.mkdir(parents=True)
    (share / "icons").symlink_to(outside)
    with pytest.raises(ProtectedFileError, match="outside"):
        launcher.install(share, ["/usr/bin/medrcube-desktop-gui"])
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in share.iterdir()) == ["icons"]


def test_uninstall_inside_the_prefix_still_removes_the_files(tmp_path):
    share = tmp_path / "share"
    written = launcher.install(share, ["/usr/bin/medrcube-desktop-gui"])
    assert sorted(launcher.uninstall(share)) == sorted(written)
    assert not any(p.exists() for p in written)
