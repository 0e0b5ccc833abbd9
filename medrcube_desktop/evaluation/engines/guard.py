"""Run a module as a model child that never outlives the app:
``python -m medrcube_desktop.evaluation.engines.guard MODULE [ARGS...]``.

Before running ``MODULE`` as ``__main__`` (:func:`runpy.run_module`), it asks Linux to
send it SIGTERM when its parent dies (``prctl(PR_SET_PDEATHSIG)``, prctl(2)), and turns
the first SIGTERM into a SIGTERM to its whole process group, so vLLM's EngineCore and
workers stop with it. ``MODULE`` may install its own SIGTERM handler (vLLM's server
does, and shuts its engine down on it).
"""

from __future__ import annotations

import os
import runpy
import signal
import sys

PR_SET_PDEATHSIG = 1
"""prctl(2) option: the signal this process gets when its parent thread dies."""


def die_with_parent() -> None:
    """Get SIGTERM when the parent dies (Linux only; elsewhere nothing happens), and pass
    the first SIGTERM to the whole process group (this process leads it)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError) as exc:  # not glibc: stop() still ends the group
            print(f"guard: PR_SET_PDEATHSIG unavailable: {exc}", file=sys.stderr)
        expected = os.environ.get("MEDRCUBE_PARENT_PID")
        if expected and os.getppid() != int(expected):  # the app died before prctl
            sys.exit(1)
    if os.name == "posix":
        signal.signal(signal.SIGTERM, _stop_group)


def _stop_group(signum, frame) -> None:  # noqa: ARG001 - signal handler signature
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        if os.getpgid(0) == os.getpid():  # only a group this process leads
            os.killpg(0, signal.SIGTERM)
    finally:
        os.kill(os.getpid(), signal.SIGTERM)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: python -m medrcube_desktop.evaluation.engines.guard MODULE [ARGS...]")
    module = sys.argv[1]
    sys.argv = [module, *sys.argv[2:]]
    die_with_parent()
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
