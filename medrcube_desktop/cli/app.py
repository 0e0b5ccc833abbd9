"""The one parser: the window's options, then one subcommand per job.

Each command group is a module (``benchmark``, ``reviews``, ``judge``, ``agreement``,
``evaluate``) that adds its sub-parsers with ``set_defaults(func=…)``; :func:`main`
parses, runs ``args.func(args)`` and turns an error into one line on stderr and an exit
status by outcome (:mod:`medrcube_desktop.cli.common`).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys

from medrcube_desktop import __version__
from medrcube_desktop.cli import (
    agreement,
    benchmark,
    bundle,
    compare,
    evaluate,
    experts,
    judge,
    proposals,
    release,
    rescore,
    reviews,
)
from medrcube_desktop.cli.common import PROG, exit_status
from medrcube_desktop.cli.gui import GUI_OPTIONS, add_gui_options, run_gui
from medrcube_desktop.core.frozen import run_child_if_asked
from medrcube_desktop.core.malloc_tuning import tune_malloc
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.jobs.terminal import Interrupted, JobFailed
from medrcube_desktop.jobs.terminal_output import any_closed, guarded, lost_at_start

GROUPS = (
    benchmark, reviews, judge, agreement, experts, proposals, release, evaluate, compare,
    rescore, bundle,
)  # fmt: skip
"""The command modules, in the order ``--help`` lists their commands."""

NEGATIVE_VALUE_OPTIONS = ("--window", "--bbox")


class Parser(argparse.ArgumentParser):
    """argparse with a usage error in one line on stderr (and, when ``--json`` was asked
    for, ``{"error", "exit_status": 2}`` on stdout), exit status 2."""

    wants_json = False
    """Set by :func:`main` when ``--json`` is among the arguments."""

    def error(self, message: str):  # type: ignore[override]
        from medrcube_desktop.core.names import visible

        line = f"{self.prog}: {message} (see {self.prog} --help)"
        print(visible(line), file=sys.stderr)
        if Parser.wants_json:
            print(json.dumps({"error": line, "exit_status": int(Outcome.BAD_INPUT)}))
        raise SystemExit(Outcome.BAD_INPUT)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: the window's options and every subcommand."""
    parser = Parser(
        prog=PROG,
        description="Review MedRCube benchmark items on the NBME rubric (no subcommand: open "
        "the window), or run a job. Exit status: 0 done, 1 a job failed or was cancelled or a "
        "check found problems, 2 bad usage or input.",
    )
    add_gui_options(parser)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.set_defaults(func=run_gui, command=None)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")
    for group in GROUPS:
        group.add_parsers(sub)
    return parser


def commands(parser: argparse.ArgumentParser | None = None) -> dict[str, argparse.ArgumentParser]:
    """Every runnable command by its full name (``"demo build"``), with its parser."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(p: argparse.ArgumentParser, prefix: str) -> None:
        for action in p._actions:  # argparse keeps sub-parsers only here
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    full = f"{prefix} {name}".strip()
                    if child.get_default("func") is not None:
                        found[full] = child
                    walk(child, full)

    walk(parser or build_parser(), "")
    return found


def join_negative_values(argv: list[str]) -> list[str]:
    """``--window -600,1500`` → ``--window=-600,1500``: argparse would read the value,
    which starts with "-", as an option (CT lung windows have negative centers)."""
    joined: list[str] = []
    for arg in argv:
        if joined and joined[-1] in NEGATIVE_VALUE_OPTIONS and arg.startswith("-"):
            joined[-1] = f"{joined[-1]}={arg}"
        else:
            joined.append(arg)
    return joined


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``medrcube-desktop`` (both the gui and the console script); returns
    the exit status. Usage errors exit 2 through argparse (``SystemExit``); a Ctrl+C
    before a command starts (while the parser is built) is 130, said in one line.

    In a frozen bundle, a command line of a child the app started (fork server, spawn
    worker, engine guard) runs that child instead, before any parsing
    (:func:`~medrcube_desktop.core.frozen.run_child_if_asked`).

    While it runs, stdout and stderr are guarded
    (:mod:`~medrcube_desktop.jobs.terminal_output`): when their reader leaves
    (``… | head``), the running job is cancelled and the status is at least 1; when
    stdout was closed at the start (``>&-``) and the command printed to it, that is said
    on stderr and the status is at least 1.

    glibc's allocator is tuned for rendering first
    (:func:`~medrcube_desktop.core.malloc_tuning.tune_malloc`: no page faults from
    memory handed back between renders)."""
    if argv is None:
        run_child_if_asked()
    tune_malloc()
    with guarded():  # a reader of stdout or stderr that leaves cancels the job: exit 1
        try:
            status = _main(argv)
        except KeyboardInterrupt:  # before _main's own handler is in place: no traceback
            print(f"{PROG}: interrupted", file=sys.stderr)
            return 130
        if "stdout" in lost_at_start():  # ``>&-``: what it printed went nowhere
            print(f"{PROG}: stdout is closed: the output was lost", file=sys.stderr)
            return max(status, int(Outcome.FAILED))
        if any_closed() and status == Outcome.DONE:  # its output did not all arrive
            return int(Outcome.FAILED)
        return status


def _main(argv: list[str] | None) -> int:
    argv = join_negative_values(list(sys.argv[1:] if argv is None else argv))
    from medrcube_desktop.core.names import VisibleFormatter

    before = set(logging.getLogger().handlers)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    for handler in set(logging.getLogger().handlers) - before:  # the terminal's, just made
        handler.setFormatter(VisibleFormatter("%(levelname)s %(name)s: %(message)s"))
    for chatty in ("httpx", "httpx2", "httpcore", "openai"):  # one line per request otherwise
        logging.getLogger(chatty).setLevel(logging.WARNING)
    parser = build_parser()
    Parser.wants_json = "--json" in argv
    args = parser.parse_args(argv)
    if args.command is not None:
        given = [
            f"--{name.replace('_', '-')}"
            for name in GUI_OPTIONS
            if getattr(args, f"window_{name}") is not None
            and getattr(args, f"window_{name}") is not False  # 0 ms is given, False is not
        ]
        if given:
            parser.error(
                f"{', '.join(given)} before {args.command}: an option of the window; a "
                "command's own options go after it"
            )
    try:
        return int(args.func(args))
    except (JobFailed, Interrupted) as exc:
        return _failed(args, str(exc), Outcome.FAILED)
    except MedRCubeError as exc:  # bad input, an unusable file or database
        return _failed(args, str(exc), exit_status(exc))
    except BrokenPipeError as exc:
        if exc.filename is None:  # stdout's reader left (``… | head``): nothing to say
            return _stdout_gone()
        return _failed(args, os_error_message(exc), exit_status(exc))
    except OSError as exc:  # an unusable path, a failed write
        return _failed(args, os_error_message(exc), exit_status(exc))
    except KeyboardInterrupt:  # Ctrl+C outside a job (loading a benchmark, say)
        return _failed(args, "interrupted", Outcome.FAILED)


def _stdout_gone() -> int:
    """Exit quietly when the program reading stdout has closed it (Python documentation,
    "Note on SIGPIPE"): stdout is pointed at the null device, so the flush at exit raises
    no second BrokenPipeError, and the status is 1."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout has no descriptor (a test's capture)
        pass
    return int(Outcome.FAILED)


def os_error_message(exc: OSError) -> str:
    """``FILE: what is wrong`` for an ``OSError`` (not Python's ``[Errno 17] File exists:
    'x'``); a folder that cannot be made because a file has its name is said so."""
    if exc.filename is None or not exc.strerror:
        return str(exc)
    if isinstance(exc, FileExistsError | NotADirectoryError):
        return f"{exc.filename}: is a file where a folder is needed"
    where = f"{exc.filename}" + (f" → {exc.filename2}" if exc.filename2 else "")
    return f"{where}: {exc.strerror}"


def _failed(args: argparse.Namespace, message: str, status: int) -> int:
    """One line on stderr; with ``--json`` also ``{"error", "exit_status"}`` on stdout, so
    that a script reading stdout always gets one JSON document."""
    from medrcube_desktop.core.names import visible

    print(visible(f"{PROG}: {message}"), file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "exit_status": int(status)}))
    return status
