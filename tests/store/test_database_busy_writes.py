"""Writes wait for another connection's write lock (several runs, a long import) instead
of failing after SQLite's 5 s busy timeout: a paid answer is never dropped for it."""

import sqlite3
import threading
import time

import pytest

from medrcube_desktop.errors import StoreBusy
from medrcube_desktop.store import StudyStore, database
from tests.store.test_study_store import response, run_record


def hold_write_lock(path, seconds, started):
    """Another connection in a write transaction for ``seconds``, then committed."""
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN IMMEDIATE")
    raw.execute("INSERT OR REPLACE INTO app_state (key, value) VALUES ('import', 'busy')")
    started.set()
    time.sleep(seconds)
    raw.execute("COMMIT")
    raw.close()


@pytest.mark.slow
def test_a_response_saved_during_a_6_s_write_of_another_connection_is_stored(tmp_path):
    path = tmp_path / "s.db"
    store = StudyStore(path)
    store.save_run(run_record())
    started = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(path, 6.0, started))
    holder.start()
    started.wait(10)
    begun = time.monotonic()
    try:
        assert store.save_response(response("i1"))  # waits past the 5 s busy timeout
    finally:
        holder.join()
    assert time.monotonic() - begun >= 5.0  # it did wait for the other's commit
    assert store.responses("r")["i1"].response == "A"
    assert store.get_state("import") == "busy"  # the other's write is kept too


def test_the_wait_is_bounded_and_tries_again_with_backoff(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    StudyStore(path).close()
    started = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(path, 3.0, started))
    holder.start()
    started.wait(10)
    conn = sqlite3.connect(path, isolation_level=None, timeout=0.05)
    pauses = []
    real_sleep = time.sleep
    monkeypatch.setattr(database.time, "sleep", lambda s: pauses.append(s) or real_sleep(s))
    begun = time.monotonic()
    try:
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            database._begin_immediate(conn, wait_s=0.8)
        elapsed = time.monotonic() - begun  # before the holder lets go (at 3 s)
    finally:
        holder.join()
        conn.close()
    assert 0.8 <= elapsed < 2.5
    assert pauses[:3] == [0.05, 0.1, 0.2] and len(pauses) < 10  # doubling, bounded


def test_a_best_effort_write_with_a_short_timeout_does_not_retry(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    store = StudyStore(path)
    started = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(path, 1.5, started))
    holder.start()
    started.wait(10)
    begun = time.monotonic()
    try:
        with pytest.raises(
            StoreBusy, match="the database is busy .another process is writing.: try again"
        ):
            store.set_state_quickly("k", "v", wait_ms=100)
        elapsed = time.monotonic() - begun
    finally:
        holder.join()
    assert elapsed < 1.0
