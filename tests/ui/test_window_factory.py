"""The window's open of a study database: a read-only one is said in one clear message
(the window writes), naming what can still read it; its writes wait 2 s, not a minute,
for another process's write lock."""

import os
import threading
import time

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError, StoreBusy
from medrcube_desktop.store import Review, StudyStore, utc_now
from medrcube_desktop.store.drafts import StoredDraft
from medrcube_desktop.ui import window_factory
from medrcube_desktop.ui.window_factory import open_store


@pytest.fixture
def archived(tmp_path):
    db = tmp_path / "archive" / "study.db"
    StudyStore(db).close()
    return db


def test_a_read_only_file_is_said_before_the_window_opens(archived, monkeypatch):
    real = os.access
    monkeypatch.setattr(window_factory.os, "access", lambda p, m: p != archived and real(p, m))
    with pytest.raises(MedRCubeError, match="read-only; reviews could not be saved") as error:
        open_store(archived)
    assert "export-reviews" in str(error.value)  # what still reads it


def test_a_read_only_folder_is_said_too(archived, monkeypatch):
    real = os.access
    folder = archived.parent
    monkeypatch.setattr(window_factory.os, "access", lambda p, m: p != folder and real(p, m))
    with pytest.raises(MedRCubeError, match="its folder .* is read-only"):
        open_store(archived)
    store = StudyStore(archived)  # a writer holding the file: its -wal and -shm exist
    try:
        open_store(archived).close()
    finally:
        store.close()


def test_a_writable_file_opens(archived):
    open_store(archived).close()


def test_a_window_write_waits_two_seconds_for_a_busy_database_and_keeps_the_draft(archived):
    from tests.store.test_database_busy_writes import hold_write_lock

    store = open_store(archived)
    now = utc_now()
    scores = dict.fromkeys(RULE_IDS, 1)
    store.save_draft(StoredDraft("dr-a", "i1", scores, "fine", (), False, 3.0, now, now))
    started = threading.Event()
    holder = threading.Thread(target=hold_write_lock, args=(archived, 4.0, started))
    holder.start()
    started.wait(10)
    begun = time.monotonic()
    try:
        with pytest.raises(StoreBusy, match="busy .another process is writing.: try again"):
            store.save_review(Review("dr-a", "i1", scores, "fine", now, now))
        elapsed = time.monotonic() - begun
    finally:
        holder.join()
    assert 1.5 <= elapsed < 3.5  # not WRITE_WAIT_S (60 s)
    assert "i1" in store.drafts("dr-a") and store.latest_reviews("dr-a") == {}
    store.save_review(Review("dr-a", "i1", scores, "fine", now, now))  # once free: saved
    assert store.latest_reviews("dr-a")["i1"].revision == 1 and store.drafts("dr-a") == {}
    store.close()


def test_mode_bits_say_read_only_whoever_runs_the_app(tmp_path, monkeypatch):
    """An archived v4 study (0444 in a 0555 folder) is refused by the window even when the
    permission checks pass (root in a container): not migrated, no .bak written."""
    from tests.store.test_adjudications import v4_database
    from tests.store.test_read_only import folder_state

    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "study.db"
    v4_database(db, monkeypatch)
    monkeypatch.setattr(window_factory.os, "access", lambda p, m: True)  # as root
    before = folder_state(folder)
    db.chmod(0o444)
    try:
        with pytest.raises(MedRCubeError, match="read-only; reviews could not be saved") as error:
            open_store(db)
        assert "export-reviews" in str(error.value)
        db.chmod(0o644)
        folder.chmod(0o555)
        with pytest.raises(MedRCubeError, match="its folder .* is read-only"):
            open_store(db)
    finally:
        folder.chmod(0o755)
        db.chmod(0o644)
    assert folder_state(folder) == before  # v4 still, no .bak-v4, no -wal or -shm
