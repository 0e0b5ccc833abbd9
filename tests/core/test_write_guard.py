"""The one guarded writer (core.files.atomic_path and the folder writer): what it never
replaces, all or nothing, its staging cleaned (issue 21, hostile trial)."""

from __future__ import annotations

import errno
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from medrcube_desktop.core import files
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.files import atomic_write, write_folder_all_or_nothing
from medrcube_desktop.core.write_guard import ProtectedFileError, check_output, forget_benchmarks

from ..conftest import dicom_file, item, write_benchmark


@pytest.fixture(autouse=True)
def _forget():
    yield
    forget_benchmarks()


def _study(path: Path) -> bytes:
    with sqlite3.connect(path) as db:
        db.execute("create table reviews (x)")
    return path.read_bytes()


def test_a_sqlite_database_is_never_replaced_by_any_name(tmp_path):
    db = tmp_path / "other.db"
    before = _study(db)
    link = tmp_path / "export.csv"
    link.symlink_to(db)
    for target in (db, link):
        with pytest.raises(ProtectedFileError, match="SQLite database"):
            atomic_write(target, "id,score\n")
    assert db.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_sidecar_of_a_database_is_never_replaced(tmp_path):
    _study(tmp_path / "study.db")
    with pytest.raises(ProtectedFileError, match="-wal file SQLite keeps beside"):
        atomic_write(tmp_path / "study.db-wal", b"x")


def test_an_existing_test_json_is_never_replaced(tmp_path):
    items = tmp_path / "test.json"
    items.write_text("[]")
    with pytest.raises(ProtectedFileError, match="test.json"):
        atomic_write(items, "{}")
    assert items.read_text() == "[]"


def test_files_of_an_opened_benchmark_are_never_replaced(tmp_path):
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    image = root / "ds1" / "images" / "ct.dcm"
    before = image.read_bytes()
    load_benchmark(root)
    outside = tmp_path / "shot.png"
    outside.symlink_to(image)
    for target in (image, outside):
        with pytest.raises(ProtectedFileError, match="benchmark"):
            atomic_write(target, b"\x89PNG")
    assert image.read_bytes() == before
    # a new file inside the benchmark folder (renders beside it) is not refused
    atomic_write(root / "renders.csv", "id\n")
    assert (root / "renders.csv").read_text() == "id\n"


def test_check_output_refuses_the_open_database_even_new(tmp_path):
    db = tmp_path / "new.db"
    with pytest.raises(ProtectedFileError, match="is the input"):
        check_output(db, db)


def test_a_full_disk_names_the_file(tmp_path):
    target = tmp_path / "out.json"
    with pytest.raises(OSError) as caught, files.atomic_path(target):
        raise OSError(errno.ENOSPC, "No space left on device")  # as write() raises it
    assert caught.value.filename == str(target)
    assert "No space left" in caught.value.strerror
    assert list(tmp_path.iterdir()) == []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_killed_writers_temporary_file_is_removed_next_time(tmp_path, caplog):
    stale = tmp_path / f".out.csv.{_dead_pid()}-abc.tmp.csv"
    stale.write_text("half")
    mine = tmp_path / f".out.csv.{os.getpid()}-xyz.tmp.csv"  # a writer still running
    mine.write_text("busy")
    with caplog.at_level(logging.WARNING):
        atomic_write(tmp_path / "out.csv", "id\n")
    assert not stale.exists() and mine.exists()
    assert str(stale) in caplog.text and "stopped" in caplog.text


def _writer(names: list[str], text: str):
    def write(stage: Path) -> list[str]:
        for name in names:
            (stage / name).write_text(f"{text} {name}")
        return names

    return write


def test_a_folder_output_is_all_or_nothing_when_its_last_rename_fails(tmp_path, monkeypatch):
    out = tmp_path / "out"
    names = ["compare.json", "compare.xlsx", "report.html"]
    write_folder_all_or_nothing(out, _writer(names, "old"))
    real_replace = os.replace

    def failing_replace(src, dst, *args, **kwargs):
        if Path(dst) == out / "report.html" and ".writing-" in str(src):
            raise OSError(errno.ENOSPC, "No space left on device", str(dst))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space"):
        write_folder_all_or_nothing(out, _writer(names, "new"))
    monkeypatch.undo()
    assert sorted(p.name for p in out.iterdir()) == sorted(names)
    assert {p.read_text() for p in out.iterdir()} == {f"old {n}" for n in names}


def test_a_failed_first_result_leaves_no_file(tmp_path, monkeypatch):
    out = tmp_path / "out"
    real_replace = os.replace

    def failing_replace(src, dst, *args, **kwargs):
        if Path(dst).name == "b.txt":
            raise OSError(errno.EIO, "Input/output error", str(dst))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        write_folder_all_or_nothing(out, _writer(["a.txt", "b.txt"], "new"))
    monkeypatch.undo()
    assert not out.exists()  # no file, and not the empty folder it created


def test_a_killed_folder_writers_stage_is_removed_next_time(tmp_path, caplog):
    out = tmp_path / "out"
    stale = out / f"{files.STAGING_PREFIX}{_dead_pid()}-k1ll"
    stale.mkdir(parents=True)
    (stale / "compare.json").write_text("{")
    with caplog.at_level(logging.WARNING):
        write_folder_all_or_nothing(out, _writer(["a.txt"], "new"))
    assert sorted(p.name for p in out.iterdir()) == ["a.txt"]
    assert "stopped" in caplog.text


def test_a_folder_output_never_replaces_a_database_under_its_name(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    before = _study(out / "compare.json")
    with pytest.raises(ProtectedFileError):
        write_folder_all_or_nothing(out, _writer(["compare.json"], "new"))
    assert (out / "compare.json").read_bytes() == before


def test_an_item_picture_of_an_opened_benchmark_is_protected_by_the_items(tmp_path):
    from PIL import Image

    root = write_benchmark(tmp_path / "bench", {"ds1": [item("p-1", image="images/a.png")]})
    picture = root / "ds1" / "images" / "a.png"
    picture.parent.mkdir(parents=True)
    Image.new("L", (8, 8), 7).save(picture)
    before = picture.read_bytes()
    load_benchmark(root, check_files=False)  # as the window loads it
    with pytest.raises(ProtectedFileError, match="is a file of the benchmark"):
        atomic_write(picture, b"\x89PNG screenshot")
    assert picture.read_bytes() == before
    render = root / "renders" / "a.png"  # a PNG of ours under the root: replaced freely
    render.parent.mkdir()
    Image.new("L", (8, 8), 1).save(render)
    atomic_write(render, b"new")
    assert render.read_bytes() == b"new"


def test_a_benchmark_root_is_the_outputs_own_folder_not_any_folder_above(tmp_path):
    """A folder holding a dataset (a sub-folder with a test.json) is a benchmark root to
    an output written straight into it or into a folder not made yet; not to an output
    in an existing folder below it (before: a dataset kept in one's home folder, or in
    /tmp, made every output anywhere below it "inside the benchmark")."""
    from medrcube_desktop.core.write_guard import benchmark_root_of

    (tmp_path / "ds1").mkdir()
    (tmp_path / "ds1" / "test.json").write_text("[]")
    (tmp_path / "work" / "exports").mkdir(parents=True)
    assert benchmark_root_of(tmp_path / "p.json") == tmp_path
    assert benchmark_root_of(tmp_path / "new" / "p.json") == tmp_path  # made in the root
    assert benchmark_root_of(tmp_path / "work" / "p.json") is None
    assert benchmark_root_of(tmp_path / "work" / "exports" / "new" / "p.json") is None
    # a release's MANIFEST.json marks its root at any depth
    (tmp_path / "work" / "MANIFEST.json").write_text("{}")
    assert benchmark_root_of(tmp_path / "work" / "exports" / "p.json") == tmp_path / "work"
