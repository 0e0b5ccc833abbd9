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

import sys
from collections.abc import Sequence
from typing import Any

MULTIPROCESSING_MAINS = (
    "from multiprocessing.forkserver import main",
    "from multiprocessing.resource_tracker import main",
    "from multiprocessing.semaphore_tracker import main",  # Python < 3.8
)
"""How the ``-c`` command of a multiprocessing helper process begins."""

SPAWN_FLAG = "--multiprocessing-fork"
"""argv[1] of a spawn child of a frozen executable (``multiprocessing.spawn``)."""

OWN_MODULE_PREFIX = "medrcube_desktop."
"""``-m MODULE`` is run only for the app's own modules (the engine guard, model workers)."""


def is_frozen() -> bool:
    """Whether this process runs from a frozen bundle (PyInstaller sets ``sys.frozen``)."""
    return bool(getattr(sys, "frozen", False))


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
        ``"spawn"`` (a spawned worker), ``"module"`` (``-m medrcube_desktop.…``), or None
        for a user's command line.
    """
    args = list(argv[1:])
    if len(args) >= 2 and args[-2] == "-c" and args[-1].startswith(MULTIPROCESSING_MAINS):
        return "multiprocessing"  # interpreter flags (-B -s ...) may come before -c
    if args and args[0] == SPAWN_FLAG:
        return "spawn"
    if len(args) >= 2 and args[0] == "-m" and args[1].startswith(OWN_MODULE_PREFIX):
        return "module"
    return None


def run_child_if_asked(argv: Sequence[str] | None = None) -> None:
    """In a frozen app, run the child process ``argv`` asks for and exit; else return.

    Calls ``multiprocessing.freeze_support()`` first (in a PyInstaller bundle its
    run-time hook makes it run the fork server, resource tracker and spawn children), then
    runs what it left: the same multiprocessing patterns (another freezer) and
    ``-m medrcube_desktop.MODULE ARGS`` (as ``python -m`` would: ``runpy.run_module`` as
    ``__main__``, ``sys.argv`` = ``[MODULE, *ARGS]``). Unfrozen it does nothing: there
    ``sys.executable`` is Python, which runs children itself.

    Parameters
    ----------
    argv : sequence of str or None
        The command line (default ``sys.argv``).

    Raises
    ------
    SystemExit
        Always, once a child's work is done (its exit status).
    """
    if not is_frozen():
        return
    import multiprocessing

    argv = list(sys.argv if argv is None else argv)
    if argv == sys.argv:
        multiprocessing.freeze_support()  # PyInstaller's own hook reads sys.argv
    role = child_role(argv)
    if role is None:
        return
    if role == "multiprocessing":
        exec(argv[-1], {"__name__": "__mp_helper__"})  # noqa: S102 - multiprocessing's own command
        sys.exit(0)
    if role == "spawn":
        from multiprocessing import spawn

        kwds: dict[str, Any] = {}  # pipe_handle, parent_pid, tracker_fd: int or None
        for arg in argv[2:]:
            name, value = arg.split("=", 1)
            kwds[name] = None if value == "None" else int(value)
        spawn.spawn_main(**kwds)
        sys.exit(0)
    import runpy

    sys.argv = [argv[2], *argv[3:]]
    runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
    sys.exit(0)
