"""No code of the app opens a database file this process has open (issue: a review
committed after 'Export report…' was lost at a SIGKILL).

Closing any descriptor of a file releases every POSIX lock the process holds on it
(sqlite.org/howtocorrupt.html §2.2): after a header sniff of the open study, another
process's close found itself the last connection, checkpointed and deleted the -wal
under the open store, whose next commit went to a deleted -wal."""

import builtins
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from medrcube_desktop.core.file_kinds import refuse_foreign
from medrcube_desktop.core.files import (
    open_regular,
    refuse_overwrite,
    write_folder_all_or_nothing,
)
from medrcube_desktop.core.open_databases import OpenDatabaseFile, open_database_of
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.core.write_guard import ProtectedFileError, check_output, refuse_protected
from medrcube_desktop.errors import StoreError
from medrcube_desktop.evaluation.compare.report import refuse_inputs
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.read_only import LOCKED, read_mode, truncated

T0, T1 = "2026-03-01T10:00:00+00:00", "2026-03-01T11:00:00+00:00"
PASS = dict.fromkeys(RULE_IDS, 1)


def other_process_writes(db: Path) -> None:
    """Another process (a CLI writer) opens ``db``, writes a row and closes."""
    code = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "c.execute('CREATE TABLE IF NOT EXISTS other_writer (x)'); "
        "c.execute('INSERT INTO other_writer VALUES (1)'); c.commit(); c.close()"
    )
    subprocess.run([sys.executable, "-c", code, str(db)], check=True, timeout=60)


def reviews_seen_by_another_process(db: Path) -> int:
    code = (
        "import sqlite3, sys; c = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True); "
        "print(c.execute(\"SELECT count(*) FROM reviews WHERE reviewer='dr-a'\").fetchone()[0])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(db)], check=True, capture_output=True, text=True
    )
    return int(done.stdout)


def every_check_on(db: Path, folder: Path) -> None:
    """What the writers and readers of the app run on the open study and next to it:
    the report's guard (``compare --out`` next to the database, as the pane writes it),
    the generic write guards, the read-only open's sniffs."""
    refuse_inputs(folder / "report", [db])
    write_folder_all_or_nothing(
        folder / "report", lambda stage: [(stage / "a.csv").write_text("x\n") and "a.csv"]
    )
    for target in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        with pytest.raises(ProtectedFileError):
            refuse_protected(target)
        with pytest.raises(StoreError):
            refuse_foreign(target, "CSV")
        with pytest.raises(StoreError):
            refuse_overwrite(target, db)
        with pytest.raises(ProtectedFileError):
            check_output(target)
    refuse_protected(folder / "new.csv")
    assert read_mode(db) == LOCKED
    assert truncated(db) is False


def test_the_checks_on_the_open_study_keep_its_wal_and_the_next_commit_survives(tmp_path):
    db = tmp_path / "study.db"
    store = StudyStore(db)
    store.save_review(Review("dr-a", "i1", PASS, "first", T0, T0))
    assert Path(f"{db}-wal").exists()
    every_check_on(db, tmp_path)
    other_process_writes(db)
    # the store's locks held: the other process was not the last, the -wal is still there
    assert Path(f"{db}-wal").exists() and Path(f"{db}-shm").exists()
    store.save_review(Review("dr-a", "i2", PASS, "after the export", T1, T1))
    assert reviews_seen_by_another_process(db) == 2
    store.close()
    assert reviews_seen_by_another_process(db) == 2


def test_the_guards_never_open_a_database_this_process_has_open(tmp_path, monkeypatch):
    db = tmp_path / "study.db"
    store = StudyStore(db)
    store.save_review(Review("dr-a", "i1", PASS, "first", T0, T0))
    names = {os.path.realpath(p) for p in (db, f"{db}-wal", f"{db}-shm", f"{db}-journal")}
    opened: list[str] = []

    def guarded(real):
        def opener(path, *args, **kwargs):
            if isinstance(path, (str, bytes, os.PathLike)) and os.path.realpath(path) in names:
                opened.append(os.fspath(path))
                raise AssertionError(f"opened {path}")
            return real(path, *args, **kwargs)

        return opener

    monkeypatch.setattr(os, "open", guarded(os.open))
    monkeypatch.setattr(builtins, "open", guarded(builtins.open))
    monkeypatch.setattr(io, "open", guarded(io.open))
    every_check_on(db, tmp_path)
    assert opened == []
    monkeypatch.undo()
    store.close()


def test_open_regular_refuses_the_open_database_and_its_sidecars_until_it_is_closed(tmp_path):
    db = tmp_path / "study.db"
    store = StudyStore(db)
    store.save_review(Review("dr-a", "i1", PASS, "first", T0, T0))
    link = tmp_path / "link.db"
    link.symlink_to(db)
    for path in (db, link, Path(f"{db}-wal"), Path(f"{db}-shm")):
        with pytest.raises(OpenDatabaseFile, match="open in this app"):
            open_regular(path)
    assert open_database_of(Path(f"{db}-wal")) == db
    read_only = StudyStore(db, read_only=True)  # its open does not sniff the file either
    assert read_only.reviewers() == ["dr-a"]
    store.close()
    with pytest.raises(OpenDatabaseFile):  # the read-only connection still holds it
        open_regular(db)
    read_only.close()
    assert open_database_of(db) is None
    with open_regular(db) as handle:  # closed everywhere: an ordinary file again
        assert handle.read(16) == b"SQLite format 3\x00"


def test_a_worker_thread_is_refused_the_window_s_database_too(tmp_path):
    """The export runs on a worker thread; the window's connection was made on the GUI
    thread (a connection refuses most calls from another thread)."""
    import threading

    db = tmp_path / "study.db"
    store = StudyStore(db)
    store.save_review(Review("dr-a", "i1", PASS, "first", T0, T0))
    raised: list[BaseException] = []

    def worker():
        try:
            open_regular(db)
        except BaseException as exc:  # noqa: BLE001 (looked at below)
            raised.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert [type(exc) for exc in raised] == [OpenDatabaseFile]
    assert open_database_of(db) == db  # and still registered afterwards
    store.close()
