"""Read-only opens: the read-only commands never change a database (an older schema is
read through a copy migrated in memory), an archived file is read, writers still
migrate."""

import hashlib
import json
import os
import sqlite3

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import StudyStore, migrations, read_only
from tests.conftest import dicom_file, item, write_benchmark
from tests.review.experts_fixture import ITEMS
from tests.store.test_adjudications import v4_database

AS_ROOT = os.geteuid() == 0
LATEST = len(migrations.available_migrations())


def folder_state(folder):
    """Every file of ``folder`` by name: its SHA-256 and mtime (ns)."""
    return {
        p.name: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
        for p in sorted(folder.iterdir())
    }


@pytest.fixture
def v4_study(tmp_path, monkeypatch):
    """A v4 study (before 0005) alone in its folder, and a benchmark elsewhere."""
    folder = tmp_path / "archive"
    folder.mkdir()
    db = folder / "study.db"
    v4_database(db, monkeypatch)
    root = write_benchmark(
        tmp_path / "bench", {"ds1": [item(i) for i in ITEMS]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    return db, root


def read_commands(db, root, out):
    both = ["--reviewer", "dr-a", "--reviewer", "dr-b"]
    return [
        ["agreement", "--db", str(db), *both, "--model", "gpt-5.1", "--bootstrap", "20",
         "--json"],
        ["export-reviews", "--db", str(db), "--reviewer", "dr-a", "--out", str(out / "a.csv"),
         "--json"],
        ["adjudicate-queue", "--db", str(db), "--dataset", str(root), *both, "--json"],
    ]  # fmt: skip


def test_read_only_commands_leave_a_v4_database_byte_for_byte(v4_study, tmp_path, capsys):
    db, root = v4_study
    before = folder_state(db.parent)
    assert list(before) == ["study.db"]  # closed cleanly: no -wal, no -shm
    capsys.readouterr()
    results = []
    for args in read_commands(db, root, tmp_path):
        assert main(args) == 0, args
        out, err = capsys.readouterr()
        results.append(json.loads(out))
        assert err.count("older schema") == 1, err
        assert (
            f"{db} is of an older schema (v4; this app: v{LATEST}): read without changing it" in err
        )
        assert folder_state(db.parent) == before
    agreement, export, queue = results
    assert agreement["columns"][0]["rows"]["1.1"]["agreement"] == pytest.approx(2 / 3)
    assert export["rows"] == 3 and (tmp_path / "a.csv").read_text().count("\n") == 4
    assert [e["item_id"] for e in queue["items"]] == ["i2"]  # 1.1: dr-a fails, dr-b passes


def test_an_archived_file_in_a_read_only_folder_is_read(v4_study, tmp_path, capsys):
    db, root = v4_study
    before = folder_state(db.parent)
    db.chmod(0o444)
    db.parent.chmod(0o555)
    try:
        if not AS_ROOT:  # as root permissions are moot; the hashes still prove no write
            with pytest.raises(OSError):
                (db.parent / "probe").touch()
        for args in read_commands(db, root, tmp_path):
            assert main(args) == 0, args
        assert folder_state(db.parent) == before
    finally:
        db.parent.chmod(0o755)
        db.chmod(0o644)


def test_a_current_database_is_read_live_and_unchanged(tmp_path, capsys):
    db = tmp_path / "study.db"
    writer = StudyStore(db)
    writer.set_state("k", "v")
    writer.close()
    before = folder_state(tmp_path)
    store = StudyStore(db, read_only=True)
    assert store.get_state("k") == "v"
    assert store.opened_read_only.mode == read_only.IMMUTABLE
    assert not store.opened_read_only.migrated_copy
    with pytest.raises(StoreError, match="readonly"):
        store.set_state("k", "w")
    store.close()
    assert folder_state(tmp_path) == before


def test_a_writer_holding_the_file_is_read_with_locks_and_its_changes_seen(tmp_path):
    db = tmp_path / "study.db"
    writer = StudyStore(db)
    writer.set_state("k", "v")  # in the -wal file, not yet in the main file
    assert read_only.read_mode(db) == read_only.LOCKED
    reader = StudyStore(db, read_only=True)
    assert reader.get_state("k") == "v"
    assert not reader.opened_read_only.changed()
    reader.close()
    writer.close()


def test_a_file_written_during_an_immutable_read_is_said(tmp_path, capsys):
    db = tmp_path / "study.db"
    StudyStore(db).close()
    reader = StudyStore(db, read_only=True)
    assert not reader.opened_read_only.changed()
    writer = StudyStore(db)
    writer.set_state("k", "v")
    writer.close()  # the checkpoint writes the main file
    assert reader.opened_read_only.changed()
    reader.close()


def test_a_newer_schema_is_an_error_and_not_a_database_too(tmp_path, capsys):
    db = tmp_path / "new.db"
    StudyStore(db).close()
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_migrations VALUES (99, '0099_future.sql', '')")
    conn.commit()
    conn.close()
    before = folder_state(tmp_path)

    def export(path, out):
        return main(["export-reviews", "--db", str(path), "--reviewer", "dr-a", "--out", out])

    assert export(db, str(tmp_path / "x.csv")) == 2
    assert (
        f"schema v99 is newer than this app (v{LATEST}); update the app" in capsys.readouterr().err
    )
    assert folder_state(tmp_path) == before
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    assert export(other, str(tmp_path / "y.csv")) == 2
    assert "not a review database" in capsys.readouterr().err


def test_writers_still_migrate_an_older_file_after_a_backup(v4_study, capsys):
    db, root = v4_study
    args = ["assign", "--db", str(db), "--dataset", str(root), "--reviewer", "dr-a"]
    assert main([*args, "--reviewer", "dr-b", "--overlap", "0.5"]) == 0
    assert "older schema" not in capsys.readouterr().err
    assert (db.parent / "study.db.bak-v4").is_file()
    store = StudyStore(db, read_only=True)
    assert store.opened_read_only.file_version == LATEST and store.assignment() is not None
    store.close()


def damaged_copies(tmp_path):
    """A study in WAL mode, closed cleanly, copied twice: cut short (``head -c 5000``) and
    whole but with every page after the first overwritten."""
    db = tmp_path / "study.db"
    fill_store = StudyStore(db)
    fill_store.set_state("k", "v" * 20000)
    fill_store.close()
    data = db.read_bytes()
    folder = tmp_path / "damaged"
    folder.mkdir()
    cut, scrambled = folder / "broken.db", folder / "scrambled.db"
    cut.write_bytes(data[:5000])
    scrambled.write_bytes(data[:4096] + b"\xa5" * (len(data) - 4096))
    return cut, scrambled


def test_a_damaged_file_is_said_so_and_nothing_is_left_beside_it(tmp_path, capsys):
    cut, scrambled = damaged_copies(tmp_path)
    assert read_only.truncated(cut) and not read_only.truncated(scrambled)
    before = folder_state(cut.parent)
    root = write_benchmark(tmp_path / "bench", {"ds1": [item("i1")]})
    target = tmp_path / "target.db"
    StudyStore(target).close()
    for broken in (cut, scrambled):
        for args in [
            *read_commands(broken, root, tmp_path),
            ["merge", str(target), str(broken)],
        ]:
            assert main(args) == 2, args
            err = capsys.readouterr().err
            assert f"{broken}: cannot read" in err, err
            assert "the file is damaged (truncated or not fully copied?)" in err, err
            assert "try again" not in err
            assert folder_state(cut.parent) == before  # no -wal, no -shm


def test_a_writer_that_checkpointed_its_wal_away_is_still_read_with_locks(tmp_path):
    # after wal_checkpoint(TRUNCATE) the -wal is empty while the writer works on: its
    # -shm tells (an immutable read raced its next checkpoint and found the file malformed)
    db = tmp_path / "study.db"
    writer = StudyStore(db)
    writer.set_state("k", "v")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert db.with_name("study.db-wal").stat().st_size == 0
    assert db.with_name("study.db-shm").exists()
    assert read_only.read_mode(db) == read_only.LOCKED
    reader = StudyStore(db, read_only=True)
    assert reader.get_state("k") == "v"
    reader.close()
    writer.close()


def test_a_killed_writers_wal_is_read_from_a_private_copy_and_nothing_made_beside_it(
    tmp_path, capsys
):
    import shutil

    db = tmp_path / "live" / "study.db"
    db.parent.mkdir()
    writer = StudyStore(db)
    writer.set_state("k", "in the wal only")
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(db, archive / "study.db")  # as a killed writer leaves it: -wal, no -shm
    shutil.copy(db.with_name("study.db-wal"), archive / "study.db-wal")
    writer.close()
    copy = archive / "study.db"
    before = folder_state(archive)
    assert read_only.read_mode(copy) == read_only.PRIVATE_COPY
    reader = StudyStore(copy, read_only=True)
    assert reader.get_state("k") == "in the wal only"  # the unsaved commit is read
    assert not reader.opened_read_only.changed()
    reader.close()
    assert folder_state(archive) == before  # no -shm made, the -wal untouched
    out = tmp_path / "merged.db"
    assert main(["merge", str(out), str(copy)]) == 0
    assert folder_state(archive) == before
