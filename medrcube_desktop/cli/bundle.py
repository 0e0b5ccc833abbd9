"""Commands about the installed app itself: ``self-test`` (what a frozen bundle must
prove) and ``install-launcher`` (the desktop menu entry, icon and AppStream metainfo)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from medrcube_desktop import __version__
from medrcube_desktop.cli.common import add_command, add_json, emit, say
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.errors import MedRCubeError

REPORT_NAME = "self-test.json"


def add_parsers(sub) -> None:
    """Add this group's commands to the sub-parser group ``sub``."""
    test = add_command(
        sub, "self-test", cmd_self_test,
        help="prove this installation works: decoders, demo, window, database",
        description="Build the demo into OUT/demo, render a JPEG 2000, a JPEG-LS and an RLE "
        "DICOM, a NIfTI volume with its mask and a 16-bit PNG, open the window on the demo "
        "(offscreen when there is no display), commit one review to the new database OUT/review.sqlite, save "
        "OUT/screenshot.png, run evaluate (with image workers) and judge against a local "
        "OpenAI-compatible endpoint with fixed answers and render-batch and compare --out, each started as a "
        "user would and checked (OUT/jobs.sqlite, OUT/rendered, OUT/compare), and write "
        "OUT/self-test.json (the pixel digests). Exit status: 0 "
        "every check passed, 1 one failed (or differs from --expect), 2 OUT not empty.",
    )  # fmt: skip
    test.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="a new or empty folder"
    )
    test.add_argument(
        "--expect",
        type=Path,
        metavar="JSON",
        help="a self-test.json of another installation (the unfrozen app): pixels must match",
    )
    add_json(test, "the report (also written to OUT/self-test.json)")

    launcher = add_command(
        sub, "install-launcher", cmd_install_launcher,
        help="add the app to the desktop's menu (launcher, icons, AppStream metainfo)",
        description="Write the freedesktop launcher, the icons (SVG and PNG 16 to 256) and "
        "the AppStream metainfo under PREFIX/share (default $XDG_DATA_HOME or ~/.local/share), "
        "with the launcher "
        "starting this installation (the bundle's executable, or medrcube-desktop-gui).",
    )  # fmt: skip
    launcher.add_argument(
        "--prefix",
        type=Path,
        metavar="DIR",
        help="install under DIR/share (default: $XDG_DATA_HOME, else ~/.local/share)",
    )
    launcher.add_argument(
        "--uninstall", action="store_true", help="remove the files an earlier run wrote"
    )
    add_json(launcher, '{"written": [...]} or {"removed": [...]}')


def cmd_self_test(args: argparse.Namespace) -> int:
    """``self-test --out DIR``: every check in turn; the report says which failed."""
    out: Path = args.out
    check_self_test_folder(out)
    expected = _read_expected(args.expect) if args.expect else None
    _offscreen_without_display()
    out.mkdir(parents=True, exist_ok=True)
    # the window must neither read nor change the user's settings or data folders
    os.environ["MEDRCUBE_CONFIG_DIR"] = str(out / "config")
    os.environ["MEDRCUBE_DATA_DIR"] = str(out / "data")
    report = _run_checks(out)
    if expected is not None:
        from medrcube_desktop.demo.self_test import compare_digests

        differ = compare_digests(report["pixels"], expected.get("pixels", {}))
        report["problems"] += [f"pixels differ: {line}" for line in differ]
        report["compared_with"] = str(args.expect)
    report["passed"] = not report["problems"]
    from medrcube_desktop.core.files import atomic_write

    atomic_write(out / REPORT_NAME, json.dumps(report, indent=2) + "\n")
    lines = [
        f"{name}: {d['source']} {d['shape']} mean {d['mean']}"
        for name, d in report["pixels"].items()
    ]
    lines += [f"problem: {p}" for p in report["problems"]]
    lines.append(
        f"self-test {'passed' if report['passed'] else 'FAILED'}; report in {out / REPORT_NAME}"
    )
    emit(args.json, report, lines)
    return Outcome.DONE if report["passed"] else Outcome.FAILED


SELF_TEST_TRACES = (REPORT_NAME, "demo", "review.sqlite", "jobs.sqlite", "config", "data")
"""What a self-test writes in its folder (one that stopped half-way leaves some)."""


def check_self_test_folder(out: Path) -> None:
    """Raise :class:`MedRCubeError` (exit status 2) unless ``out`` is missing or an empty
    folder, saying whether it holds an earlier self-test (one of :data:`SELF_TEST_TRACES`,
    left by a self-test that stopped half-way too)."""
    path = Path(os.path.realpath(out))
    if not path.exists():
        return
    if not path.is_dir():
        raise MedRCubeError(f"self-test needs a new or empty --out folder ({out} is a file)")
    names = {child.name for child in path.iterdir()}
    if not names:
        return
    why = (
        "holds a previous self-test: remove it or choose another"
        if names & set(SELF_TEST_TRACES)
        else "is not empty: choose another"
    )
    raise MedRCubeError(f"self-test needs a new or empty --out folder ({out} {why})")


def _offscreen_without_display() -> None:
    """With no display to open the window on (:func:`~medrcube_desktop.cli.gui.no_display`,
    the window command's own check), the self-test's window opens offscreen, and says so:
    Qt would abort on the display server it cannot reach."""
    from medrcube_desktop.cli.gui import no_display
    from medrcube_desktop.core.system_libraries import qt_platform

    if no_display(qt_platform()):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        say(
            "self-test: no display (DISPLAY and WAYLAND_DISPLAY are not set): "
            "the window opens offscreen"
        )


def _read_expected(path: Path) -> dict:
    try:
        from medrcube_desktop.core.files import read_file_text

        data = json.loads(read_file_text(path))  # a named pipe is refused, never waited on
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MedRCubeError(f"{path}: not a readable self-test report: {exc}") from exc
    if not isinstance(data, dict):
        raise MedRCubeError(f"{path}: not a self-test report")
    return data


def _run_checks(out: Path) -> dict:
    """Demo, pixels, window, jobs: each step's failure is a problem in the report, not a crash."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.demo.build import build_demo
    from medrcube_desktop.demo.self_test import render_checks

    report: dict = {
        "version": __version__,
        "frozen": bool(getattr(sys, "frozen", False)),
        "pixels": {},
        "problems": [],
        "seconds": {},
    }
    steps = {}
    started = time.perf_counter()
    try:
        benchmark = load_benchmark(build_demo(out / "demo"))
        report["demo_items"] = len(benchmark.items)
        report["problems"] += [f"demo: {p}" for p in benchmark.problems]
        steps["demo"] = time.perf_counter()
        digests = render_checks(benchmark.items)
        report["pixels"] = {name: d.to_dict() for name, d in digests.items()}
        steps["render"] = time.perf_counter()
        from medrcube_desktop.ui.self_test import commit_one_review  # Qt only here

        report["window"] = commit_one_review(
            benchmark.root, out / "review.sqlite", out / "screenshot.png"
        )
        steps["window"] = time.perf_counter()
    except (MedRCubeError, OSError, ImportError) as exc:
        report["problems"].append(f"{type(exc).__name__}: {exc}")
    if "demo" in steps:  # the jobs' checks whether the window's passed or not
        from medrcube_desktop.demo.job_checks import run_job_checks

        try:
            report["jobs"], found = run_job_checks(out / "demo", out)
            report["problems"] += found
        except (MedRCubeError, OSError) as exc:
            report["problems"].append(f"jobs: {type(exc).__name__}: {exc}")
        steps["jobs"] = time.perf_counter()
    last = started
    for name, when in steps.items():
        report["seconds"][name] = round(when - last, 2)
        last = when
    say(f"self-test checks took {time.perf_counter() - started:.1f} s")
    return report


def cmd_install_launcher(args: argparse.Namespace) -> int:
    """``install-launcher``: write (or remove) the desktop integration files."""
    from medrcube_desktop.core import launcher

    share = data_home() if args.prefix is None else args.prefix / "share"
    if args.uninstall:
        removed = launcher.uninstall(share)
        emit(args.json, {"removed": [str(p) for p in removed]}, [f"removed {p}" for p in removed])
        return Outcome.DONE
    written = launcher.install(share, launcher.launch_command())
    emit(args.json, {"written": [str(p) for p in written]}, [f"wrote {p}" for p in written])
    return Outcome.DONE


def data_home() -> Path:
    """Where the desktop looks for a user's launchers: ``$XDG_DATA_HOME`` when it is an
    absolute path, else ``~/.local/share`` (XDG Base Directory Specification 0.8)."""
    import os

    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if value and Path(value).is_absolute() else Path.home() / ".local" / "share"
