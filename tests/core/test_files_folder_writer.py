"""A folder output that fails or is cancelled leaves no empty folder it created (the
clinician trial: ``compare --out DIR`` crashed and left DIR empty behind)."""

import pytest

from medrcube_desktop.core.files import write_folder_all_or_nothing


def _fail(stage):
    (stage / "half.csv").write_text("a", encoding="utf-8")
    raise OSError("disk full")


def test_a_failed_write_removes_the_folders_it_created(tmp_path):
    out = tmp_path / "new" / "report"
    with pytest.raises(OSError, match="disk full"):
        write_folder_all_or_nothing(out, _fail)
    assert list(tmp_path.iterdir()) == []  # neither report/ nor its new parent new/


def test_a_cancelled_write_removes_the_folder_it_created(tmp_path):
    out = tmp_path / "report"
    assert write_folder_all_or_nothing(out, lambda stage: None) == []
    assert not out.exists()


def test_a_folder_that_was_there_stays_with_its_files(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    with pytest.raises(OSError):
        write_folder_all_or_nothing(out, _fail)
    assert out.is_dir() and list(out.iterdir()) == []
    (out / "old.csv").write_text("b", encoding="utf-8")
    inner = out / "inner"
    with pytest.raises(OSError):
        write_folder_all_or_nothing(inner, _fail)
    assert sorted(p.name for p in out.iterdir()) == ["old.csv"]


def test_a_written_folder_stays(tmp_path):
    out = tmp_path / "report"

    def write(stage):
        (stage / "a.csv").write_text("a", encoding="utf-8")
        return ["a.csv"]

    assert write_folder_all_or_nothing(out, write) == [out / "a.csv"]
    assert (out / "a.csv").read_text(encoding="utf-8") == "a"
