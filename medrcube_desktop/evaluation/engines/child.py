"""Child processes that run a model (vLLM's offline engine, ``vllm serve``, transformers).

Three things every such child needs, learnt against the real vLLM (issue 11):

- **Its own process group.** vLLM starts an EngineCore process (and workers) of its own;
  ending only the child we started left them running, holding gigabytes. The child
  starts a new session (``start_new_session``), and :meth:`ModelProcess.stop` signals
  the whole group: SIGTERM, then SIGKILL after a grace period. If the app itself dies,
  :mod:`.guard` (which every child runs under) passes the SIGTERM on to the group.
- **Its whole log.** vLLM writes logs to stdout and stderr; both go to one pipe, read on
  a thread into a file (:attr:`ModelProcess.log_path`) and a bounded memory buffer.
- **The root cause of a failure.** vLLM ends a failed start with "Engine core
  initialization failed. See root cause above"; the cause is tens of lines earlier.
  :func:`root_cause` finds the exception lines of the log.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

LOG_LINES_KEPT = 5000
"""Lines kept in memory per child (the log file keeps every line)."""

LOG_FILES_KEPT = 50
"""Child log files kept in the user log folder; older ones are removed at each start."""

_EXCEPTION = re.compile(
    # vLLM's prefixes: "(EngineCore_DP0 pid=4242) " or "(VllmWorker-0 pid=17) ", then
    # optionally its log header "ERROR 12-01 08:00:09 [core.py:700] "
    r"^\s*(?:\([\w.-]+(?: pid=\d+)?\)\s*)?"
    r"(?:(?:ERROR|WARNING|CRITICAL|INFO)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+\[[^\]]*\]\s*)?"
    r"(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)"
    r"|AssertionError|torch\.OutOfMemoryError)\b[:(]?"
)
_GENERIC = (
    "Engine core initialization failed",
    "See root cause above",
    "See stack trace for root cause",
    "Traceback (most recent call last)",
)
MEMORY_HINT = (
    "on a machine without a GPU, vLLM reserves --gpu-memory-utilization of the RAM "
    "(default 0.92) for its KV cache: give --kv-cache-memory-bytes (e.g. 2G) or a lower "
    "--gpu-memory-utilization"
)


def root_cause(lines: list[str], limit: int = 6) -> list[str]:
    """The lines of a child's log that say why it failed: every line that starts with an
    exception name (``ValueError: ...``, ``RuntimeError: ...``) with up to three indented
    lines that continue its message (pydantic puts the reason there), in order, without
    the generic wrap-up lines, without repeats, at most ``limit`` exceptions.

    Source: the shape of CPython tracebacks (the last line of each is ``Name: message``)
    and vLLM's "See root cause above" wrap-up.
    """
    found: list[str] = []
    for n, line in enumerate(lines):
        text = line.strip()
        if not _EXCEPTION.match(text) or any(g in text for g in _GENERIC):
            continue
        following = []
        for more in lines[n + 1 : n + 4]:
            if not more[:1].isspace() or more.strip().startswith(("File ", "Traceback")):
                break
            following.append(more.strip())
        entry = " ".join([text, *following])
        if entry not in found:
            found.append(entry)
    return found[-limit:]


def failure_message(what: str, process: ModelProcess, tail: int = 12) -> str:
    """``what``, then the root cause, the last ``tail`` lines and where the whole log is."""
    lines = process.lines()
    cause = root_cause(lines)
    parts = [what]
    if cause:
        parts.append("root cause:\n  " + "\n  ".join(cause))
    parts.append("last lines of its log:\n" + "\n".join(lines[-tail:]))
    if any("memory" in line.lower() for line in cause):  # the cause, not any log line
        parts.append(f"hint: {MEMORY_HINT}")
    if process.log_path is not None:
        parts.append(f"whole log: {process.log_path}")
    return "\n".join(parts)


class ModelProcess:
    """A child in its own process group whose output is logged.

    Parameters
    ----------
    args : list of str
        The command.
    name : str
        For messages and the log file name ("vllm", "vllm-serve", "hf").
    env : dict or None
        Extra environment variables.
    pass_fds : tuple of int
        File descriptors the child inherits (the worker's answer channel).
    stdin : bool
        Give the child a stdin pipe (:attr:`stdin`, text).
    """

    def __init__(
        self,
        args: list[str],
        name: str,
        env: dict[str, str] | None = None,
        pass_fds: tuple[int, ...] = (),
        stdin: bool = False,
    ) -> None:
        self.name = name
        self._lines: collections.deque[str] = collections.deque(maxlen=LOG_LINES_KEPT)
        self.log_path = _log_file(name)
        posix = os.name == "posix"
        self.popen = subprocess.Popen(
            args,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
            env={**os.environ, **(env or {}), "MEDRCUBE_PARENT_PID": str(os.getpid())},
            pass_fds=pass_fds,
            start_new_session=posix,
            creationflags=0 if posix else subprocess.CREATE_NEW_PROCESS_GROUP,  # type: ignore[attr-defined]
        )
        self.stdin = self.popen.stdin
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"{name}-log")
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def _read(self) -> None:
        assert self.popen.stdout is not None
        sink = None
        if self.log_path is not None:
            try:
                sink = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115
            except OSError:
                self.log_path = None
        try:
            for line in self.popen.stdout:
                self._lines.append(line.rstrip("\n"))
                if sink is not None:
                    sink.write(line)
                    sink.flush()
        finally:
            if sink is not None:
                sink.close()

    def lines(self, wait_s: float = 5.0) -> list[str]:
        """The lines kept so far. When the child has ended, waits (at most ``wait_s``)
        for the reader to reach the end of its output, so the last lines are in."""
        if self.popen.poll() is not None:
            self._reader.join(wait_s)
        return list(self._lines)

    def poll(self) -> int | None:
        return self.popen.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self.popen.wait(timeout)

    def stop(self, grace_s: float = 10.0) -> None:
        """End the child and every process of its group: SIGTERM, then SIGKILL after
        ``grace_s`` seconds. Safe to call twice, and after the child has exited (its
        group may still hold vLLM's processes).

        The child's stdin is closed only once the group is gone: a feeder thread may be
        blocked writing to it, holding its lock, until no process can read it any more.
        """
        try:
            self._stop_group(grace_s)
        finally:
            if self.stdin is not None:
                with contextlib.suppress(OSError, ValueError):
                    self.stdin.close()

    def _stop_group(self, grace_s: float) -> None:
        if os.name != "posix":  # pragma: no cover - Windows: the child and its tree
            if self.popen.poll() is None:
                subprocess.run(["taskkill", "/F", "/T", "/PID", str(self.pid)], check=False)
            return
        group = self.pid  # start_new_session: the child leads its group
        if not _signal_group(group, signal.SIGTERM):
            self.popen.poll()
            return
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            self.popen.poll()  # reap the leader so it does not count as alive
            if not group_alive(group):
                return
            time.sleep(0.1)
        _signal_group(group, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.popen.wait(5)


def _signal_group(group: int, sig: int) -> bool:
    try:
        os.killpg(group, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def group_alive(group: int) -> bool:
    """Whether any process of process group ``group`` is still running (POSIX; on Linux
    a zombie, dead and waiting to be reaped, does not count)."""
    proc = Path("/proc")
    if proc.is_dir():
        for stat in proc.glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # ended meanwhile
            if int(fields[2]) == group and fields[0] != "Z":  # proc(5): state, ppid, pgrp
                return True
        return False
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _log_file(name: str) -> Path | None:
    """A new file for a child's whole log, in :func:`settings.log_dir`."""
    try:
        from medrcube_desktop import settings

        folder = settings.log_dir()
        folder.mkdir(parents=True, exist_ok=True)
        old = sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime)
        for stale in old[: max(0, len(old) - LOG_FILES_KEPT + 1)]:
            stale.unlink(missing_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        handle, path = tempfile.mkstemp(prefix=f"{name}-{stamp}-", suffix=".log", dir=folder)
        os.close(handle)
        return Path(path)
    except OSError:
        return None


def engine_processes(group: int) -> set[int]:
    """Pids of vLLM's own processes in process group ``group`` (their command line starts
    with ``VLLM::``: EngineCore, Worker), alive; empty where /proc is missing (Linux)."""
    found: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[2]) != group or fields[0] == "Z":
                continue
            if (stat.parent / "cmdline").read_bytes().startswith(b"VLLM::"):
                found.add(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found
