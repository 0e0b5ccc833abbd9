"""The lock of a long job: who holds it, and whether that holder still runs."""

import json
import os
import socket
import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest

from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.locks import LockHeld, holder_gone, pid_alive, process_lock


def holder(pid, host=None, since=None):
    since = since or datetime.now(UTC)
    return json.dumps(
        {"pid": pid, "host": host or socket.gethostname(), "since": since.isoformat()}
    )


def finished_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # reaped: the pid names no process any more
    return child.pid


def test_pid_alive_for_this_process_and_a_running_child():
    assert pid_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert pid_alive(child.pid)
        assert child.poll() is None  # looking it up did not end it (os.kill would on Windows)
    finally:
        child.kill()
        child.wait()
    assert not pid_alive(child.pid)


def test_pid_alive_is_false_for_a_finished_process_and_no_pid():
    assert not pid_alive(finished_pid())
    assert not pid_alive(0)
    assert not pid_alive(-1)


def test_holder_gone_by_host_pid_and_age():
    assert not holder_gone(holder(os.getpid()))
    assert holder_gone(holder(finished_pid()))
    assert not holder_gone(holder(1, host="elsewhere"))  # trusted for 24 hours
    old = datetime.now(UTC) - timedelta(hours=25)
    assert holder_gone(holder(1, host="elsewhere", since=old))
    assert holder_gone("not json")
    assert holder_gone(json.dumps({"host": "x"}))


def test_process_lock_refuses_a_live_holder_and_takes_a_dead_ones(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    store.set_state("judge.running:m", holder(os.getppid()))  # another live process
    refused = pytest.raises(LockHeld, match="a judge run is already in progress")
    with refused as raised, process_lock(store, "judge.running:m", "a judge run"):
        pass
    assert json.loads(raised.value.holder)["pid"] == os.getppid()
    store.set_state("judge.running:m", holder(finished_pid()))
    with process_lock(store, "judge.running:m", "a judge run"):
        mine = json.loads(store.get_state("judge.running:m"))
        assert (mine["pid"], mine["host"]) == (os.getpid(), socket.gethostname())
    assert store.get_state("judge.running:m") is None


def test_a_run_this_app_already_holds_is_said_so_without_a_sql_hint(tmp_path):
    first, second = StudyStore(tmp_path / "s.db"), StudyStore(tmp_path / "s.db")
    with (
        process_lock(first, "evaluate.running:r", "run r"),
        pytest.raises(LockHeld) as held,
        process_lock(second, "evaluate.running:r", "run r"),
    ):
        pass
    assert str(held.value) == "run r is already running in this app; wait for it or cancel it"
    first.close()
    second.close()
