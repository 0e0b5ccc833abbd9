"""core.files: the one atomic write."""

import os
import stat

import pytest

from medrcube_desktop.core.files import atomic_path, atomic_write, current_umask


def test_atomic_write_text_and_bytes(tmp_path):
    text = tmp_path / "a.json"
    assert atomic_write(text, "é\n1\n", newline="\n") == text
    assert text.read_bytes() == "é\n1\n".encode()
    blob = tmp_path / "b.png"
    atomic_write(blob, b"\x89PNG\x00\xff")
    assert blob.read_bytes() == b"\x89PNG\x00\xff"
    atomic_write(blob, b"new")  # replaces
    assert blob.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.png"]


def test_encoding_is_honoured(tmp_path):
    path = tmp_path / "r.csv"
    atomic_write(path, "a;ü", encoding="utf-8-sig")
    assert path.read_bytes() == b"\xef\xbb\xbfa;\xc3\xbc"


def test_failure_in_the_block_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "report.html"
    path.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_path(path) as tmp:
        assert tmp.parent == tmp_path and tmp.name.startswith(".report.html.")
        assert tmp.suffix == ".html"  # writers that choose a format by extension
        tmp.write_text("half", encoding="utf-8")
        raise RuntimeError("writer failed")
    assert path.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


def test_failed_rename_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    path.write_text('{"a": 1}', encoding="utf-8")

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        atomic_write(path, '{"a": 2}')
    assert path.read_text(encoding="utf-8") == '{"a": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_a_folder_in_the_way_is_an_error_and_leaves_nothing(tmp_path):
    (tmp_path / "out.csv").mkdir()
    with pytest.raises(OSError):
        atomic_write(tmp_path / "out.csv", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["out.csv"]
    assert (tmp_path / "out.csv").is_dir()


def test_missing_folder_is_an_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        atomic_write(tmp_path / "no" / "such.txt", "x")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_modes_of_new_and_replaced_files(tmp_path):
    new = tmp_path / "new.txt"
    atomic_write(new, "x")
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~current_umask()  # not mkstemp's 0600
    private = tmp_path / "private.json"
    private.write_text("old")
    private.chmod(0o600)
    atomic_write(private, "new")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_text() == "new"
    shared = tmp_path / "shared.csv"
    shared.write_text("old")
    shared.chmod(0o664)
    atomic_write(shared, "new")
    assert stat.S_IMODE(shared.stat().st_mode) == 0o664


def test_durable_writes_are_flushed_to_disk_before_the_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(
        os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1]
    )
    atomic_write(tmp_path / "a", "1")
    assert events == ["fsync", "replace"]
    events.clear()
    atomic_write(tmp_path / "b", b"2", durable=False)  # the image cache: checked on read
    assert events == ["replace"]
    assert (tmp_path / "a").read_text() == "1" and (tmp_path / "b").read_bytes() == b"2"


def test_a_link_is_written_through_and_a_device_or_pipe_is_never_replaced(tmp_path):
    from medrcube_desktop.core.files import NotARegularFile

    target = tmp_path / "target.csv"
    target.write_text("orig")
    link = tmp_path / "link.csv"
    link.symlink_to(target.name)
    atomic_write(link, "new")
    assert link.is_symlink() and target.read_text() == "new"  # the link kept, its file new
    pipe = tmp_path / "fifo.csv"
    os.mkfifo(pipe)
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # as /dev/null
    for special, kind in ((pipe, "a named pipe"), (device, "a device")):
        with pytest.raises(NotARegularFile, match=f"is {kind}, not a file"):
            atomic_write(special, "x")
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo.csv",
        "link.csv",
        "null",
        "target.csv",
    ]  # no temporary left
