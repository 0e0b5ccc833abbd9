"""The window's own options (``medrcube-desktop [--demo | --dataset DIR] …``) and opening
it; Qt is imported only when the window opens."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import PROG

GUI_OPTIONS = (
    "demo", "with_examples", "dataset", "db", "reviewer", "screenshot", "quit_after_ms"
)  # fmt: skip
"""The window's options; each is stored as ``window_<name>``, apart from a command's own
option of the same name, so one given before a command is seen (a usage error)."""


def milliseconds(text: str) -> int:
    """argparse type: a delay in ms that Qt timers accept (0 to 2**31 - 1)."""
    from medrcube_desktop.cli.argtypes import whole

    value = whole(text)
    if not 0 <= value < 2**31:
        raise argparse.ArgumentTypeError(f"must be between 0 and {2**31 - 1} ms, got {value}")
    return value


def add_gui_options(parser: argparse.ArgumentParser) -> None:
    """The options of the window (the parser's own, before any subcommand)."""
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--demo",
        dest="window_demo",
        action="store_true",
        help="open the demo benchmark (built once from real public images)",
    )
    source.add_argument(
        "--dataset",
        dest="window_dataset",
        type=Path,
        metavar="DIR",
        help="benchmark root folder (MedRCube layout)",
    )
    parser.add_argument(
        "--with-examples",
        dest="window_with_examples",
        action="store_true",
        help="with --demo: open its examples study (stored runs, two experts' reviews, LLM "
        "judgments, an adjudication; built once, beside the demo)",
    )
    parser.add_argument(
        "--db",
        dest="window_db",
        type=Path,
        metavar="FILE",
        help="review database (default: one per benchmark in the user data folder)",
    )
    parser.add_argument(
        "--reviewer",
        dest="window_reviewer",
        type=argtypes.new_name,
        metavar="NAME",
        help="reviewer name (asked once if not given)",
    )
    parser.add_argument(
        "--screenshot",
        dest="window_screenshot",
        type=Path,
        metavar="PNG",
        help="save a grab of the window once the first item is shown",
    )
    parser.add_argument(
        "--quit-after-ms",
        dest="window_quit_after_ms",
        type=milliseconds,
        metavar="N",
        help="exit N milliseconds after the first item is shown",
    )


def run_gui(args: argparse.Namespace) -> int:
    """Resolve the benchmark and database, then open the review window; its exit status.

    ``--demo --with-examples`` opens the demo on its examples study
    (:func:`_examples_study`); ``--with-examples`` without ``--demo``, or with ``--db``,
    is bad usage (MedRCubeError, status 2).

    With neither ``--demo`` nor ``--dataset``, the benchmark opened last is reopened with
    the database it was opened with (``Settings.last_study``; the window says which), and
    an entry that is gone is passed over with a word.

    Status 1 before anything else when there is no display, or when Qt's system
    libraries are missing (named, with the command that installs them; the display is
    checked first: :func:`check_qt_libraries`)."""
    from medrcube_desktop import settings
    from medrcube_desktop.errors import MedRCubeError

    if args.window_with_examples and not args.window_demo:
        raise MedRCubeError("--with-examples goes with --demo")
    if args.window_with_examples and args.window_db is not None:
        raise MedRCubeError("--demo --with-examples opens its own study; leave out --db")
    if not check_qt_libraries():
        return 1

    root: Path | None
    db_path: Path | None = args.window_db
    reopened: settings.RecentStudy | None = None
    passed_over: list[str] = []
    fallbacks: list[settings.RecentStudy] = []  # the next entries, should one not open
    if args.window_demo:
        from medrcube_desktop.demo.build import ensure_demo

        root = ensure_demo(settings.demo_benchmark_dir())
        if args.window_with_examples:
            db_path = _examples_study(root)
    elif args.window_dataset is not None:
        root = args.window_dataset
    else:  # a plain start: the benchmark opened last, with its database
        candidates, passed_over = settings.Settings.load().reopen_candidates()
        reopened, fallbacks = (candidates[0], candidates[1:]) if candidates else (None, [])
        root = Path(reopened.dataset) if reopened else None
        if reopened is not None and db_path is None:
            db_path = reopened.database()
    from medrcube_desktop.ui.app import run_app  # Qt is imported only here

    return run_app(
        dataset=root,
        db_path=db_path,
        reviewer=args.window_reviewer,
        screenshot=args.window_screenshot,
        quit_after_ms=args.window_quit_after_ms,
        reopened=reopened is not None,
        passed_over=passed_over,
        fallbacks=fallbacks if args.window_db is None else [],
    )


def _examples_study(root: Path) -> Path:
    """The demo's examples study (:func:`~medrcube_desktop.demo.examples.ensure_examples`),
    built beside the demo on first use, said on stderr (it takes seconds)."""
    from medrcube_desktop.demo.examples import ensure_examples, examples_db_path

    db = examples_db_path(root)
    if not db.is_file():
        print(f"{PROG}: building the demo's examples study in {db} …", file=sys.stderr)
    return ensure_examples(root, db)


HEADLESS_PLATFORMS = frozenset({"offscreen", "minimal", "minimalegl", "vnc", "eglfs", "linuxfb"})
"""Qt platform plugins that need no display server (DISPLAY or WAYLAND_DISPLAY)."""


def no_display(platform: str, environ: dict[str, str] | None = None) -> bool:
    """Whether the window has nowhere to open: Linux, a platform that needs a display
    server (``xcb``, ``wayland``; not one of :data:`HEADLESS_PLATFORMS`), and neither
    ``DISPLAY`` nor ``WAYLAND_DISPLAY`` set (over SSH without ``-X``, say)."""
    env = os.environ if environ is None else environ
    return (
        sys.platform.startswith("linux")
        and platform not in HEADLESS_PLATFORMS
        and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    )


def check_qt_libraries() -> bool:
    """False, after telling the user why, when Qt could not open the window.

    First whether there is a display at all (:func:`no_display`; Qt would abort naming
    libxcb-cursor0 even when it is installed, and the missing libraries do not matter
    until there is one), then which of Qt's system libraries are missing: on stderr and,
    when started from a desktop menu (no terminal), in a dialog of the desktop's own if
    one of its tools is there."""
    from medrcube_desktop.core.system_libraries import (
        missing_libraries,
        missing_message,
        qt_platform,
    )

    platform = qt_platform()
    if no_display(platform):
        print(
            f"{PROG}: no display to open the window on (DISPLAY and WAYLAND_DISPLAY "
            "are not set; over SSH use ssh -X). Without a screen: "
            "QT_QPA_PLATFORM=offscreen with --screenshot FILE --quit-after-ms 3000, "
            "or a command (medrcube-desktop --help).",
            file=sys.stderr,
        )
        return False
    missing = missing_libraries(platform)
    if not missing:
        return True
    message = missing_message(missing, platform)
    print(message, file=sys.stderr)
    if os.environ.get("DISPLAY") and not sys.stderr.isatty():
        _show_without_qt(message)
    return False


DIALOG_TOOLS = (
    ("zenity", "--error", "--no-markup", "--title=MedRCube Desktop", "--text"),
    ("kdialog", "--title", "MedRCube Desktop", "--error"),
    ("xmessage", "-center"),
)
"""Desktop tools that can show an error without Qt, tried in order."""


def _show_without_qt(message: str) -> None:
    for tool, *options in DIALOG_TOOLS:
        if shutil.which(tool):
            subprocess.Popen([tool, *options, message], start_new_session=True)  # noqa: S603
            return
