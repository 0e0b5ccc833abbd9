"""install-launcher: Exec lines a GLib desktop can start, and no write through a link out
of the prefix (issue 21, hostile trial)."""

from __future__ import annotations

import os

import pytest

from medrcube_desktop.core import launcher
from medrcube_desktop.core.write_guard import ProtectedFileError


def _string_value(raw: str) -> str:
    """Undo a desktop-entry string value's escapes (spec: \\s \\n \\t \\r \\\\)."""
    out, i = [], 0
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw):
            out.append(
                {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}.get(raw[i + 1], raw[i + 1])
            )
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return "".join(out)


def _split(value: str) -> list[str]:
    """Split an Exec value as g_shell_parse_argv does for the spec's quoting: words
    apart by spaces; inside double quotes a backslash escapes " ` $ and itself."""
    words, word, quoted, i, started = [], [], False, 0, False
    while i < len(value):
        c = value[i]
        if quoted and c == "\\" and i + 1 < len(value) and value[i + 1] in '"`$\\':
            word.append(value[i + 1])
            i += 2
            continue
        if c == '"':
            quoted, started = not quoted, True
        elif c == " " and not quoted:
            if started or word:
                words.append("".join(word))
            word, started = [], False
        else:
            word.append(c)
        i += 1
    if started or word:
        words.append("".join(word))
    return words


def _glib_argv(entry: str) -> tuple[str, list[str]]:
    """What GLib does with Exec (gdesktopappinfo.c): the first word of the value, before
    any field code is expanded, must be a program; then %% becomes % and the line is
    split as a shell would."""
    line = next(v for v in entry.splitlines() if v.startswith("Exec="))
    value = _string_value(line[len("Exec=") :])
    program = _split(value)[0]
    return program, _split(value.replace("%%", "%"))


@pytest.mark.parametrize(
    "path",
    ["/opt/100%/bin/medrcube-desktop-gui", "/home/a b/$HOME/x`y`/gui", "/srv/back\\slash/gui"],
)
def test_exec_line_starts_the_program_as_glib_reads_it(path):
    program, argv = _glib_argv(launcher.desktop_entry([path]))
    assert "%" not in program  # GLib would look up "…100%%…" and hide the launcher
    assert argv[-1] == path
    assert argv[:-1] in ([], ["env"])


def test_tryexec_is_the_path_itself():
    entry = launcher.desktop_entry(["/opt/100%/gui"])
    line = next(v for v in entry.splitlines() if v.startswith("TryExec="))
    assert _string_value(line[len("TryExec=") :]) == "/opt/100%/gui"


def test_a_control_character_in_the_path_is_refused():
    with pytest.raises(launcher.MedRCubeError, match="control character"):
        launcher.desktop_entry(["/opt/a\nb/gui"])


def test_install_never_writes_through_a_link_out_of_the_prefix(tmp_path):
    share = tmp_path / "share"
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    entry = share / "applications" / launcher.DESKTOP_FILE
    entry.parent.mkdir(parents=True)
    entry.symlink_to(outside)
    with pytest.raises(ProtectedFileError, match="outside"):
        launcher.install(share, ["/usr/bin/medrcube-desktop-gui"])
    assert outside.read_text() == "precious\n"
    assert os.path.islink(entry)


def test_install_through_a_link_inside_the_prefix_is_allowed(tmp_path):
    share = tmp_path / "share"
    real = share / "applications" / "real.desktop"
    real.parent.mkdir(parents=True)
    real.write_text("old\n")
    (share / "applications" / launcher.DESKTOP_FILE).symlink_to(real)
    launcher.install(share, ["/usr/bin/medrcube-desktop-gui"])
    assert "Exec=/usr/bin/medrcube-desktop-gui" in real.read_text()
