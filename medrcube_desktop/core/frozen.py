"""The frozen bundle's executable is also the interpreter of every process the app starts.

Unfrozen, the app's children run ``python -c "from multiprocessing.forkserver import
main; ..."`` (the image workers' fork server and its resource tracker), ``python
--multiprocessing-fork ...`` (spawn, off Linux) and ``python -m
medrcube_desktop.evaluation.engines.guard ...`` (the engine guard and model workers). In
the bundle ``sys.executable`` is the app itself, so those command lines reach the app's
own entry point; :func:`run_child_if_asked` must see them before the command line is
parsed as the app's (which would exit with a usage error, the parent then stopping with
``EOFError`` and no answer). It is the first thing ``packaging/entry.py`` and
:func:`medrcube_desktop.cli.main` do.

Sources: Python's ``multiprocessing.spawn.freeze_support`` and ``get_command_line``
(the spawn child's ``--multiprocessing-fork`` argv), ``multiprocessing.forkserver`` and
``multiprocessing.resource_tracker`` (their ``-c`` commands), PyInstaller's
``pyi_rth_multiprocessing`` run-time hook (the same patterns, which
``multiprocessing.freeze_support()`` runs in a PyInstaller bundle).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

RESOURCE_TRACKER = re.compile(r"from multiprocessing\.resource_tracker import main;main\((\d+)\)")
"""The ``-c`` command of the resource tracker, exactly (``resource_tracker.py``:
``'from multiprocessing.resource_tracker import main;main(%d)'``)."""

FORKSERVER = re.compile(
    r"from multiprocessing\.forkserver import main; main\((\d+), (\d+), (\[.*\]), \*\*(\{.*\})\)"
)
"""The ``-c`` command of the fork server, exactly (``forkserver.py``:
``'from multiprocessing.forkserver import main; main(%d, %d, %r, **%r)'``: the
listener's and the alive pipe's descriptors, the preloaded modules (a list of str) and
``main_path``/``sys_path``)."""

SPAWN_FLAG = "--multiprocessing-fork"
"""argv[1] of a spawn child of a frozen executable (``multiprocessing.spawn``)."""

SPAWN_KEYS = frozenset({"tracker_fd", "pipe_handle", "parent_pid"})
"""The ``NAME=VALUE`` arguments after :data:`SPAWN_FLAG` (``spawn.get_command_line``
writes ``'%s=%r'``; each value an int, or ``None``)."""

OWN_MODULES = frozenset(
    {
        "medrcube_desktop.evaluation.engines.guard",
        "medrcube_desktop.evaluation.engines.model_worker",
    }
)
"""The only modules ``EXE -m MODULE ARGS`` runs: the engine guard and the model worker
(``evaluation/engines/worker_engine.py``'s ``GUARD`` and ``WORKER``)."""


class MalformedChild(ValueError):
    """A command line that says it is a spawn child's (``--multiprocessing-fork``) but is
    not one Python builds; ``str()`` says which argument."""


@dataclass(frozen=True)
class Child:
    """A recognised child command line: ``role`` (``"resource_tracker"``,
    ``"forkserver"``, ``"spawn"``, ``"module"``) and what it is run with: the positional
    ``args`` and keyword ``kwds`` of the multiprocessing ``main`` (or the module's
    ``[MODULE, *ARGS]``)."""

    role: str
    args: tuple[Any, ...] = ()
    kwds: dict[str, Any] = field(default_factory=dict)


def is_frozen() -> bool:
    """Whether this process runs from a frozen bundle (PyInstaller sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


def _interpreter_flags() -> list[str]:
    """The interpreter flags a child of this executable is given (the same executable
    with the same flags: ``util._args_from_interpreter_flags``, which both
    ``resource_tracker`` and ``forkserver`` put before ``-c``)."""
    from multiprocessing import util

    flags = util._args_from_interpreter_flags()  # type: ignore[attr-defined]  # noqa: SLF001
    return list(flags)  # the builder's own (not in typeshed)


def _helper(code: str) -> Child | None:
    """The multiprocessing helper whose ``-c`` command is exactly ``code``, or None."""
    if match := RESOURCE_TRACKER.fullmatch(code):
        return Child("resource_tracker", (int(match[1]),))
    if match := FORKSERVER.fullmatch(code):
        try:
            preload = ast.literal_eval(match[3])
            data = ast.literal_eval(match[4])
        except (ValueError, SyntaxError):
            return None
        if (
            isinstance(preload, list)
            and all(isinstance(name, str) for name in preload)
            and isinstance(data, dict)
            and set(data) <= {"main_path", "sys_path"}
        ):
            return Child("forkserver", (int(match[1]), int(match[2]), preload), data)
    return None


def _spawn(args: Sequence[str]) -> Child:
    """The spawn child of ``EXE --multiprocessing-fork *args``.

    Raises
    ------
    MalformedChild
        An argument is not ``NAME=VALUE`` with NAME one of :data:`SPAWN_KEYS` (each at
        most once) and VALUE an int or ``None``.
    """
    kwds: dict[str, int | None] = {}
    for arg in args:
        name, equals, value = arg.partition("=")
        if not equals or name not in SPAWN_KEYS or name in kwds:
            raise MalformedChild(
                f"{SPAWN_FLAG} {arg!r}: not a spawn child's argument (NAME=VALUE, NAME one "
                f"of {', '.join(sorted(SPAWN_KEYS))}, each once)"
            )
        if value == "None":
            kwds[name] = None
        elif re.fullmatch(r"-?\d+", value):
            kwds[name] = int(value)
        else:
            raise MalformedChild(f"{SPAWN_FLAG} {arg!r}: {name} must be a number or None")
    return Child("spawn", (), kwds)


def parse_child(argv: Sequence[str]) -> Child | None:
    """The child process a command line asks for, when it is exactly one the app or
    Python's multiprocessing builds; None for any other (a user's, for argparse).

    Recognised, and nothing else: ``[EXE, *FLAGS, "-c", CODE]`` with FLAGS this
    interpreter's flags and CODE the resource tracker's or the fork server's command
    (:data:`RESOURCE_TRACKER`, :data:`FORKSERVER`, with their parameters' types);
    ``[EXE, "--multiprocessing-fork", "NAME=VALUE"...]`` (spawn, frozen); ``[EXE, "-m",
    MODULE, *ARGS]`` with MODULE one of :data:`OWN_MODULES`.

    Parameters
    ----------
    argv : sequence of str
        The whole command line, ``argv[0]`` the executable.

    Returns
    -------
    Child or None

    Raises
    ------
    MalformedChild
        ``argv[1]`` is ``--multiprocessing-fork`` and what follows is not what
        ``multiprocessing.spawn`` writes.
    """
    args = list(argv[1:])
    if len(args) >= 2 and args[-2] == "-c" and args[:-2] == _interpreter_flags():
        return _helper(args[-1])
    if args and args[0] == SPAWN_FLAG:
        return _spawn(args[1:])
    if len(args) >= 2 and args[0] == "-m" and args[1] in OWN_MODULES:
        return Child("module", (args[1], *args[2:]))
    return None


def child_role(argv: Sequence[str]) -> str | None:
    """What a command line asks of the executable, when it is a child's and not a user's.

    Parameters
    ----------
    argv : sequence of str
        The whole command line, ``argv[0]`` the executable.

    Returns
    -------
    str or None
        ``"multiprocessing"`` (a ``-c`` helper: fork server, resource tracker),
        ``"spawn"`` (a spawned worker), ``"module"`` (``-m`` one of :data:`OWN_MODULES`),
        or None for a user's command line (:func:`parse_child`).

    Raises
    ------
    MalformedChild
        A malformed spawn child's command line.
    """
    child = parse_child(argv)
    if child is None:
        return None
    return "multiprocessing" if child.role in ("resource_tracker", "forkserver") else child.role


def run_child_if_asked(argv: Sequence[str] | None = None) -> None:
    """In a frozen app, run the child process ``argv`` asks for and exit; else return.

    Calls ``multiprocessing.freeze_support()`` first (in a PyInstaller bundle its
    run-time hook makes it run the fork server, resource tracker and spawn children), then
    runs what it left, only when the command line is exactly one of those
    (:func:`parse_child`): the resource tracker's or fork server's ``main`` called with
    the parameters parsed from its command (no code from the command line is run),
    a spawn child, and ``-m MODULE ARGS`` for the app's own :data:`OWN_MODULES` (as
    ``python -m`` would: ``runpy.run_module`` as ``__main__``, ``sys.argv`` =
    ``[MODULE, *ARGS]``). A malformed spawn command line is said in one line on stderr
    (exit status 2); any other command line is left to the app's parser. Unfrozen it does nothing: there
    ``sys.executable`` is Python, which runs children itself.

    Parameters
    ----------
    argv : sequence of str or None
        The command line (default ``sys.argv``).

    Raises
    ------
    SystemExit
        Always, once a child's work is done (its exit status); 2 for a malformed spawn
        child's command line.
    """
    if not is_frozen():
        return
    import multiprocessing

    argv = list(sys.argv if argv is None else argv)
    if argv == sys.argv:
        multiprocessing.freeze_support()  # PyInstaller's own hook reads sys.argv
    try:
        child = parse_child(argv)
    except MalformedChild as exc:  # a child's command line, but not as Python builds it
        print(f"{argv[0]}: {exc}", file=sys.stderr)
        sys.exit(2)
    if child is None:
        return
    if child.role == "resource_tracker":
        from multiprocessing import resource_tracker

        resource_tracker.main(*child.args)
        sys.exit(0)
    if child.role == "forkserver":
        from multiprocessing import forkserver

        forkserver.main(*child.args, **child.kwds)
        sys.exit(0)
    if child.role == "spawn":
        from multiprocessing import spawn

        spawn.spawn_main(**child.kwds)  # pipe_handle, parent_pid, tracker_fd
        sys.exit(0)
    import runpy

    sys.argv = list(child.args)
    runpy.run_module(child.args[0], run_name="__main__", alter_sys=True)
    sys.exit(0)
