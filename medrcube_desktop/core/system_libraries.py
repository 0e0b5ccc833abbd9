"""Which system libraries Qt needs on Linux and which are missing, before Qt is imported.

Qt aborts the first launch when its xcb (X11) plugin cannot load a library, and names
only ``libxcb-cursor0`` even when others are missing too. The window checks first
(:func:`missing_libraries`) and names every missing Debian package and the command that
installs them (:func:`missing_message`). The list has one home,
``resources/qt_system_libraries.txt``, which ``.ci/run`` reads as well.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

LIST_FILE = "qt_system_libraries.txt"


@dataclass(frozen=True)
class SystemLibrary:
    """One library Qt loads: ``group`` ``"offscreen"`` (QtGui itself) or ``"xcb"``
    (the X11 plugin), its soname (``libxcb-icccm.so.4``) and its Debian package."""

    group: str
    soname: str
    package: str


def qt_libraries(text: str | None = None) -> list[SystemLibrary]:
    """The list in ``resources/qt_system_libraries.txt`` (or ``text`` in that format)."""
    if text is None:
        text = files("medrcube_desktop.resources").joinpath(LIST_FILE).read_text("utf-8")
    found = []
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if fields:
            group, soname, package = fields
            found.append(SystemLibrary(group, soname, package))
    return found


def qt_platform(environ: dict[str, str] | None = None) -> str:
    """The platform plugin Qt will pick: ``QT_QPA_PLATFORM`` (its first choice), else
    ``"wayland"`` in a Wayland session, else ``"xcb"``."""
    env = os.environ if environ is None else environ
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def loadable(soname: str) -> bool:
    """True when the dynamic loader finds and loads ``soname`` (with what it needs); in
    the frozen bundle a copy inside it counts."""
    candidates = [soname]
    bundled = getattr(sys, "_MEIPASS", None)
    if bundled:
        candidates.insert(0, str(Path(bundled) / soname))
    for name in candidates:
        try:
            ctypes.CDLL(name)
        except OSError:
            continue
        return True
    return False


def missing_libraries(
    platform: str | None = None,
    can_load: Callable[[str], bool] | None = None,
    libraries: Iterable[SystemLibrary] | None = None,
) -> list[SystemLibrary]:
    """The libraries Qt will need on ``platform`` that ``can_load`` cannot load.

    The ``offscreen`` group is always needed on Linux; the ``xcb`` group only when the
    platform is ``xcb``. Not Linux: nothing (the wheels carry what they need).
    ``can_load`` defaults to :func:`loadable`.
    """
    can_load = can_load or loadable
    if not sys.platform.startswith("linux"):
        return []
    platform = qt_platform() if platform is None else platform
    wanted = [lib for lib in (libraries or qt_libraries())
              if lib.group == "offscreen" or (lib.group == "xcb" and platform == "xcb")]  # fmt: skip
    return [lib for lib in wanted if not can_load(lib.soname)]


def install_command(missing: Iterable[SystemLibrary]) -> str:
    """``sudo apt-get install …`` for the missing packages, in list order, once each."""
    packages = dict.fromkeys(lib.package for lib in missing)
    return "sudo apt-get install " + " ".join(packages)


def missing_message(missing: list[SystemLibrary], platform: str) -> str:
    """What the user reads: what is missing and the one command that installs it."""
    names = ", ".join(f"{lib.soname} ({lib.package})" for lib in missing)
    return (
        f"MedRCube Desktop cannot open its window: Qt's {platform} platform needs system "
        f"libraries that are not installed: {names}.\n"
        f"On Debian or Ubuntu install them with:\n    {install_command(missing)}"
    )
