"""A lock one process takes on a study database for a long job (a judge run, an
evaluation run), so a second process does not ask and pay for every item twice.

The lock is a row of ``app_state`` naming its holder (pid, host, time). A holder whose
process on this host has ended is gone; one on another host is trusted for 24 hours
(:data:`TRUST_OTHER_HOST_S`). Claiming and releasing are one transaction each
(:meth:`~medrcube_desktop.store.study_store.StudyStore.claim`).
"""

from __future__ import annotations

import json
import os
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
    return not pid_alive(pid)


def pid_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` runs on this host (a zombie counts as alive).

    ``psutil.pid_exists`` only looks the process up: ``os.kill(pid, 0)``, the POSIX
    idiom, would terminate the process on Windows.
    """
    return pid > 0 and bool(psutil.pid_exists(pid))


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
    me = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": utc_now()})
    holder = store.claim(key, me, holder_gone)
    if holder is not None:
        raise LockHeld(
            f"{what} is already in progress in another process ({holder}); two would ask "
            "every item twice",
            holder,
        )
    try:
        yield
    finally:
        store.release(key, me)
