"""Desktop integration: the freedesktop launcher, icons and AppStream metainfo that
``medrcube-desktop install-launcher`` writes under ``~/.local/share`` (XDG data home).

The files live in ``resources/desktop`` and ``resources/icons`` (inside the wheel and the
frozen bundle); only the launcher's ``Exec``/``TryExec`` lines change, to start the
installation that wrote them.
"""

from __future__ import annotations

import shutil
import sys
from importlib.resources import files
from pathlib import Path

from medrcube_desktop.errors import MedRCubeError

APP_ID = "medrcube-desktop"
DESKTOP_FILE = f"{APP_ID}.desktop"
METAINFO_FILE = "io.github.medrcube.Desktop.metainfo.xml"
ICON_SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256)
"""PNG sizes in ``resources/icons`` (``packaging/render_icons.py`` renders them)."""
GUI_SCRIPT = "medrcube-desktop-gui"


def _resource(*parts: str):
    # one part at a time: in the frozen bundle files() is a MultiplexedPath, whose
    # joinpath takes a single part on Python 3.11 (a TypeError with two)
    found = files("medrcube_desktop.resources")
    for part in parts:
        found = found.joinpath(part)
    return found


def targets(share: Path) -> dict[Path, object]:
    """Where each file goes under ``share`` (``~/.local/share``) → its resource."""
    found: dict[Path, object] = {
        share / "applications" / DESKTOP_FILE: _resource("desktop", DESKTOP_FILE),
        share / "metainfo" / METAINFO_FILE: _resource("desktop", METAINFO_FILE),
        share / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg": _resource(
            "icons", f"{APP_ID}.svg"
        ),
    }
    for size in ICON_SIZES:
        found[share / f"icons/hicolor/{size}x{size}/apps/{APP_ID}.png"] = _resource(
            "icons", f"{APP_ID}-{size}.png"
        )
    return found


def launch_command() -> list[str]:
    """The command the launcher runs: the frozen executable itself, else the gui script
    beside this Python (or on PATH).

    Raises
    ------
    MedRCubeError
        No ``medrcube-desktop-gui`` is installed with this Python or on PATH.
    """
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).resolve())]
    beside = Path(sys.executable).parent / GUI_SCRIPT
    found = str(beside) if beside.is_file() else shutil.which(GUI_SCRIPT)
    if found is None:
        raise MedRCubeError(f"{GUI_SCRIPT} is not installed with this Python nor on PATH")
    return [str(Path(found).absolute())]


def desktop_entry(command: list[str]) -> str:
    """The launcher's text with ``Exec`` and ``TryExec`` set to ``command``.

    ``Exec`` follows the Desktop Entry Specification 1.5 ("The Exec key"): each argument
    is quoted when it needs to be, a literal ``%`` is written ``%%``, and the whole value
    is then escaped as a string value (a backslash doubled). A program path that holds a
    ``%`` is started through ``env``: GLib looks the first word of ``Exec`` up before it
    expands ``%%`` and hides a launcher whose program it cannot find (GNOME, Xfce,
    Cinnamon), so the path goes to ``env`` as an argument. ``TryExec`` is a plain string
    (no field codes): the path as it is, escaped.

    Raises
    ------
    MedRCubeError
        A part of ``command`` holds a control character (a newline, a tab), which an
        ``Exec`` line cannot carry.
    """
    for part in command:
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in part):
            raise MedRCubeError(
                f"{part!r}: a control character in the program's path; a launcher cannot "
                "start it (install from a folder whose name has none)"
            )
    words = (["env"] if "%" in command[0] else []) + list(command)
    exec_line = " ".join(_desktop_quote(part) for part in words)
    lines = []
    for line in _resource("desktop", DESKTOP_FILE).read_text("utf-8").splitlines():
        if line.startswith("Exec="):
            line = f"Exec={_string_escape(exec_line)}"
        elif line.startswith("TryExec="):
            line = f"TryExec={_string_escape(command[0])}"
        lines.append(line)
    return "\n".join(lines) + "\n"


_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
"""Characters that make an Exec argument need quotes (Desktop Entry spec, "The Exec key")."""


def _desktop_quote(arg: str) -> str:
    """One Exec argument: ``%`` doubled; inside double quotes when it holds a reserved
    character, with ``"``, `````, ``$`` and ``\\`` escaped by a backslash there."""
    arg = arg.replace("%", "%%")
    if arg and not any(c in _RESERVED for c in arg):
        return arg
    return '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'


def _string_escape(value: str) -> str:
    """A desktop-entry string value: a backslash written ``\\\\`` (the spec's escapes of
    string values are undone before the Exec quoting is read)."""
    return value.replace("\\", "\\\\")


def install(share: Path, command: list[str]) -> list[Path]:
    """Write every file of :func:`targets` under ``share``; returns their paths.

    Each file goes through the guarded writer, confined to ``share``: a symbolic link
    already there that leads out of ``share`` is refused, never written through.

    Raises
    ------
    ProtectedFileError
        A target is a link out of ``share`` (or another file never written).
    OSError
        A file cannot be written (the message names it).
    """
    from medrcube_desktop.core.files import atomic_write
    from medrcube_desktop.core.write_guard import refuse_protected

    found = targets(share)
    for target in found:  # every target first: a refusal writes nothing, makes no folder
        refuse_protected(target, target, share)
    written = []
    entry = desktop_entry(command)
    for target, resource in found.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.name == DESKTOP_FILE:
            atomic_write(target, entry, within=share)
        else:
            atomic_write(target, resource.read_bytes(), within=share)  # type: ignore[attr-defined]
        written.append(target)
    return written


def uninstall(share: Path) -> list[Path]:
    """Remove the files :func:`install` writes (the folders stay); returns those removed.

    Every target's folder is checked first: one whose real path leaves ``share`` (a
    symbolic link to a folder elsewhere) refuses the whole uninstall, nothing removed (a
    file of the same name there is someone else's). A target that is itself a link is
    removed as a link (the file it names is kept).

    Raises
    ------
    ProtectedFileError
        A target's folder leads out of ``share``.
    """
    from medrcube_desktop.core.write_guard import refuse_protected

    found = list(targets(share))
    for target in found:
        refuse_protected(target.parent, target, share)
    removed = []
    for target in found:
        if target.is_symlink() or target.is_file():
            target.unlink()
            removed.append(target)
    return removed
