"""A run lock whose pid was reused by a later process is stale; a held lock's message
says how to clear it by hand. Fake records: the pid of a live process (this one) with a
start time or a lock time before that process started."""

import json
import os
import shlex
import socket
import sqlite3
from datetime import UTC, datetime, timedelta

import psutil
import pytest

from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.locks import LockHeld, holder_gone, process_lock

MY_START = psutil.Process(os.getpid()).create_time()


def record(**fields):
    return json.dumps({"pid": os.getpid(), "host": socket.gethostname(), **fields})


def test_a_live_pid_started_after_the_holder_is_a_reused_pid():
    an_hour_before = MY_START - 3600
    assert holder_gone(record(since=datetime.now(UTC).isoformat(), started=an_hour_before))
    assert not holder_gone(record(since=datetime.now(UTC).isoformat(), started=MY_START))


def test_a_holder_whose_start_seems_later_by_a_clock_step_is_still_the_holder():
    # a clock step of 10 s moves the start time psutil reports; the holder is still alive
    assert not holder_gone(record(since=datetime.now(UTC).isoformat(), started=MY_START - 10))
    assert holder_gone(record(since=datetime.now(UTC).isoformat(), started=MY_START - 60))


def test_a_lock_older_than_its_live_process_is_stale_without_a_start_time():
    # records written before start times were kept: the lock's own time tells
    before = datetime.fromtimestamp(MY_START, UTC) - timedelta(hours=1)
    assert holder_gone(record(since=before.isoformat()))
    assert not holder_gone(record(since=datetime.now(UTC).isoformat()))


def test_the_lock_records_the_start_time_of_its_process(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    with process_lock(store, "evaluate.running:r", "run r"):
        mine = json.loads(store.get_state("evaluate.running:r"))
        assert mine["started"] == pytest.approx(MY_START)
        assert not holder_gone(store.get_state("evaluate.running:r"))


def test_a_reused_pid_no_longer_blocks_a_run_and_a_live_holder_says_how_to_clear(tmp_path):
    db = tmp_path / "s.db"
    store = StudyStore(db)
    key = "evaluate.running:r"
    stale = record(since="2020-01-01T00:00:00+00:00", started=MY_START - 86_400)
    store.set_state(key, stale)
    with process_lock(store, key, "run r"):
        assert json.loads(store.get_state(key))["started"] == pytest.approx(MY_START)
    parent = os.getppid()  # another live process (this one's own lock says so plainly)
    started = psutil.Process(parent).create_time()
    live = record(since=datetime.now(UTC).isoformat(), started=started, pid=parent)
    store.set_state(key, live)
    with pytest.raises(LockHeld) as held, process_lock(store, key, "run r"):
        pass
    message = str(held.value)
    command = f"sqlite3 {shlex.quote(str(db))} \"DELETE FROM app_state WHERE key = '{key}'\""
    assert message.endswith(
        f"If you are sure process {parent} on {socket.gethostname()} is not that run "
        f"(it crashed, or the machine was restarted), clear the lock with: {command}"
    )
    store.close()
    sql = command.split('"')[1]  # the command given works
    with sqlite3.connect(db) as raw:
        raw.execute(sql)
    assert StudyStore(db).get_state(key) is None
