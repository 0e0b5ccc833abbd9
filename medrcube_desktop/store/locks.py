"""A lock one process takes on a study database for a long job (a judge run, an
evaluation run), so a second process does not ask and pay for every item twice.

The lock is a row of ``app_state`` naming its holder (pid, host, time, and the start
time of the holder's process). A holder whose process on this host has ended is gone,
and so is one whose pid now names a process started later (the pid was reused after a
crash: without the start time such a lock blocked runs forever). A lock taken on another
host is trusted for 24 hours (:data:`TRUST_OTHER_HOST_S`). Claiming and releasing are one
transaction each (:meth:`~medrcube_desktop.store.study_store.StudyStore.claim`); the
message of a held lock says how to clear it by hand.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import psutil

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.database import utc_now
from medrcube_desktop.store.study_store import StudyStore

TRUST_OTHER_HOST_S = 86_400
"""How long a lock taken on another host is trusted (seconds): its pid cannot be checked."""

START_TOLERANCE_S = 30.0
"""How much later than recorded a holder's process may seem to have started and still be
the holder (seconds). psutil gives a start time as the boot time plus the clock ticks
since boot, and Linux derives the boot time from the wall clock, so a clock step (NTP, a
virtual machine resumed) moves every process's start time: 2 s proved too tight on a
virtual machine (a live holder read as gone). A pid reused by a process started within
30 s of the holder's own start is the case this lets through."""


class LockHeld(StoreError):
    """Another process holds the lock; ``holder`` describes it."""

    def __init__(self, message: str, holder: str) -> None:
        super().__init__(message)
        self.holder = holder


def holder_gone(value: str) -> bool:
    """Whether the process that took the lock is gone (see the module docstring)."""
    try:
        holder = json.loads(value)
        pid, host = int(holder["pid"]), str(holder["host"])
    except (ValueError, KeyError, TypeError):
        return True
    if host != socket.gethostname():
        try:
            since = datetime.fromisoformat(str(holder.get("since")))
        except ValueError:
            return True
        return (datetime.now(UTC) - since).total_seconds() > TRUST_OTHER_HOST_S
    if not pid_alive(pid):
        return True
    return _pid_reused(pid, holder)


def _pid_reused(pid: int, holder: dict) -> bool:
    """Whether the live process ``pid`` started after the holder did: the holder's
    recorded start time (``started``), else the time the lock was taken (``since``,
    locks written before start times were recorded)."""
    started = start_time(pid)
    if started is None:
        return False  # cannot be read (access denied): trust the holder
    recorded = holder.get("started")
    if isinstance(recorded, int | float) and not isinstance(recorded, bool):
        return started > float(recorded) + START_TOLERANCE_S
    try:
        since = datetime.fromisoformat(str(holder.get("since"))).timestamp()
    except ValueError:
        return False
    return started > since + START_TOLERANCE_S  # a process younger than its lock


def start_time(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch, ``psutil``), or None when
    it cannot be read."""
    try:
        return float(psutil.Process(pid).create_time())
    except (psutil.Error, OSError):
        return None


def pid_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` runs on this host (a zombie counts as alive).

    ``psutil.pid_exists`` only looks the process up: ``os.kill(pid, 0)``, the POSIX
    idiom, would terminate the process on Windows.
    """
    return pid > 0 and bool(psutil.pid_exists(pid))


def _held_here(holder: str) -> bool:
    """Whether the lock record ``holder`` (JSON) names this very process."""
    try:
        record = json.loads(holder)
    except ValueError:
        return False
    return (
        isinstance(record, dict)
        and record.get("pid") == os.getpid()
        and record.get("host") == socket.gethostname()
    )


@contextmanager
def process_lock(store: StudyStore, key: str, what: str) -> Iterator[None]:
    """Hold ``app_state[key]`` for the duration of the block.

    Raises
    ------
    LockHeld
        Another live process holds it; the message says ``what`` is in progress.
    StoreError
        The database cannot be written.
    """
    record = {"pid": os.getpid(), "host": socket.gethostname(), "since": utc_now()}
    started = start_time(os.getpid())
    if started is not None:
        record["started"] = started
    me = json.dumps(record)
    holder = store.claim(key, me, holder_gone)
    if holder is not None and _held_here(holder):  # this app already runs it: no SQL hint
        raise LockHeld(f"{what} is already running in this app; wait for it or cancel it", holder)
    if holder is not None:
        raise LockHeld(
            f"{what} is already in progress in another process ({holder}); two would ask "
            f"every item twice. {clearing_hint(store, key, holder)}",
            holder,
        )
    try:
        yield
    finally:
        store.release(key, me)


def clearing_hint(store: StudyStore, key: str, holder: str) -> str:
    """How to clear a lock by hand, for a user sure its holder is not running."""
    try:
        who = json.loads(holder)
        process = f"process {int(who['pid'])} on {who['host']}"
    except (ValueError, KeyError, TypeError):
        process = "its holder"
    where = str(store.path) if store.path is not None else "the database"
    return (
        f"If you are sure {process} is not that run (it crashed, or the machine was "
        f"restarted), clear the lock with: sqlite3 {shlex.quote(where)} "
        f"\"DELETE FROM app_state WHERE key = '{key}'\""
    )
