"""``merge`` takes ``--db STUDY.db`` as every other command does, and its positional form."""

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore

T0 = "2026-01-01T00:00:00+00:00"


def _study(path, item="a-1", reviewer="dr-b"):
    StudyStore(path).save_review(Review(reviewer, item, dict.fromkeys(RULE_IDS, 1), "", T0, T0))
    return path


@pytest.mark.parametrize("form", ["db", "positional"])
def test_merge_with_db_or_positional(tmp_path, capsys, form):
    other = _study(tmp_path / "other.db")
    study = tmp_path / "study.db"
    args = ["--db", str(study), str(other)] if form == "db" else [str(study), str(other)]
    assert main(["merge", *args]) == 0
    out = capsys.readouterr().out
    assert f"1 reviews merged into {study}" in out or f"1 review merged into {study}" in out
    assert set(StudyStore(study).latest_reviews("dr-b")) == {"a-1"}


def test_merge_without_another_database_says_both_forms(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:  # a usage error of merge's own
        main(["merge", "--db", str(tmp_path / "s.db")])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "merge: the following arguments are required: DB (see medrcube-desktop merge" in err
    assert main(["merge", str(tmp_path / "s.db")]) == 2
    assert "merge --db STUDY.db OTHER.db" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()
