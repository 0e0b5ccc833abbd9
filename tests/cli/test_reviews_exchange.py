import json

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore

GOOD = "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment\ni1,1,0,1,1,1,1,1,=1+1\n"
T0 = "2024-05-01T10:00:00+00:00"


def test_import_reviews_prints_a_summary_and_exits_0(tmp_path, capsys):
    csv_path = tmp_path / "in.csv"
    csv_path.write_text(GOOD, encoding="utf-8")
    db = tmp_path / "study.db"
    assert main(["import-reviews", "--db", str(db), "--reviewer", "dr-a", str(csv_path)]) == 0
    assert capsys.readouterr().out == (
        f"1 reviews imported, 0 skipped as unchanged, 0 problems in {csv_path}\n"
    )
    args = ["import-reviews", "--db", str(db), "--reviewer", "dr-a", str(csv_path), "--json"]
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == {"imported": 0, "skipped": 1, "problems": []}
    got = StudyStore(db).latest_reviews("dr-a")["i1"]
    assert (got.comment, got.scores["1.2"], got.source) == ("=1+1", 0, "import")


def test_import_reviews_with_bad_rows_exits_1_with_one_line_each(tmp_path, capsys):
    csv_path = tmp_path / "in.csv"
    csv_path.write_text(GOOD + "i2,1,1,1,1,1,1,2,\n,1,1,1,1,1,1,1,\n", encoding="utf-8")
    db = tmp_path / "study.db"
    args = ["import-reviews", "--db", str(db), "--reviewer", "dr-a", str(csv_path), "--json"]
    assert main(args) == 1
    out, err = capsys.readouterr()
    problems = [
        f"{csv_path} line 3 item i2 column 2.3: score must be 0, 1 or 'cannot judge' (NA), got '2'",
        f"{csv_path} line 4 item (no id) column item_id: no item id",
    ]
    assert err.splitlines() == [f"medrcube-desktop: created a new review database {db}", *problems]
    assert json.loads(out) == {"imported": 1, "skipped": 0, "problems": problems}


def test_import_reviews_with_unusable_file_exits_2_with_one_line(tmp_path, capsys):
    db = tmp_path / "study.db"
    args = ["import-reviews", "--db", str(db), "--reviewer", "dr-a"]
    assert main([*args, str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err == (
        f"medrcube-desktop: {tmp_path / 'missing.csv'}: no such CSV file\n"
    )
    assert not db.exists()
    bad = tmp_path / "bad.csv"
    bad.write_text("item_id,score\ni1,1\n", encoding="utf-8")
    assert main([*args, str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{bad}: missing column 1.1, 1.2, 1.3, 1.4, 2.1, 2.2, 2.3" in err


def test_export_reviews_writes_the_chosen_revisions(tmp_path, capsys):
    db = tmp_path / "study.db"
    store = StudyStore(db)
    for hour, comment in ((10, "first"), (11, "second")):
        when = f"2024-05-01T{hour}:00:00+00:00"
        store.save_review(Review("dr-a", "i1", dict.fromkeys(RULE_IDS, 1), comment, when, when))
    store.close()
    out = tmp_path / "out.csv"
    base = ["export-reviews", "--db", str(db), "--reviewer", "dr-a", "--out", str(out)]
    assert main([*base, "--revisions", "all", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"rows": 2, "out": str(out)}
    assert [line.split(",")[8] for line in out.read_text("utf-8").splitlines()[1:]] == [
        "first",
        "second",
    ]
    assert main(base) == 0
    assert capsys.readouterr().out == f"1 reviews by dr-a written to {out}\n"
    assert out.read_text("utf-8").splitlines()[1].split(",")[8] == "second"


def test_export_reviews_of_unknown_reviewer_writes_nothing_and_missing_db_exits_2(tmp_path, capsys):
    db = tmp_path / "study.db"
    StudyStore(db).save_review(Review("dr-a", "i1", dict.fromkeys(RULE_IDS, 1), "", T0, T0))
    out = tmp_path / "out.csv"
    out.write_text("last week's export")
    assert main(["export-reviews", "--db", str(db), "--reviewer", "dr-x", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"medrcube-desktop: no reviews by 'dr-x' in {db} (reviewers: dr-a); "
        f"nothing written to {out}\n"
    )
    assert out.read_text() == "last week's export"
    assert main(["export-judgments", "--db", str(db), "--model", "m", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"medrcube-desktop: no successful judgments by 'm' (models: none); "
        f"nothing written to {out}\n"
    )
    assert out.read_text() == "last week's export"
    missing = tmp_path / "nope.db"
    args = ["export-reviews", "--db", str(missing), "--reviewer", "dr-a", "--out", str(out)]
    assert main(args) == 2
    assert capsys.readouterr().err == f"medrcube-desktop: {missing}: no such review database\n"
    assert not missing.exists()


def test_merge_prints_what_each_file_added(tmp_path, capsys):
    other = tmp_path / "b.db"
    StudyStore(other).save_review(Review("dr-b", "i1", dict.fromkeys(RULE_IDS, 0), "", T0, T0))
    study = tmp_path / "study.db"
    assert main(["merge", str(study), str(other), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "files": [
            {
                "path": str(other),
                "added": {
                    "reviews": 1,
                    "judgments": 0,
                    "disagreement_notes": 0,
                    "flags": 0,
                    "studies": 0,
                    "study_items": 0,
                    "adjudications": 0,
                    "assignments": 0,
                    "proposals": 0,
                    "proposal_decisions": 0,
                },
                "renumbered_items": 1,
                "warnings": [],
                "conflicts": [],
                "refused": [],
                "reviews_by_reviewer": {"dr-b": 1},
            }
        ],
        "total": {
            "reviews": 1,
            "judgments": 0,
            "disagreement_notes": 0,
            "flags": 0,
            "studies": 0,
            "study_items": 0,
            "adjudications": 0,
            "assignments": 0,
            "proposals": 0,
            "proposal_decisions": 0,
        },
    }
    assert main(["merge", str(study), str(other)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{other}: added 0 reviews, 0 judgments, 0 disagreement_notes, 0 flags, 0 studies, "
        "0 study_items, 0 adjudications, 0 assignments, 0 proposals, 0 proposal_decisions",
        f"0 reviews merged into {study}",
    ]
    assert main(["merge", str(study), str(study)]) == 2
    assert "is the study database itself" in capsys.readouterr().err
    curation = tmp_path / "curation.db"
    store = StudyStore(curation)
    store.set_state("study.settings", json.dumps({"blind": False}))
    store.close()
    assert main(["merge", str(study), str(curation)]) == 0
    assert "warning: " in capsys.readouterr().err  # another protocol: said, not hidden


def test_merge_with_an_unusable_later_file_merges_nothing(tmp_path, capsys):
    first = tmp_path / "a.db"
    StudyStore(first).save_review(Review("dr-a", "i1", dict.fromkeys(RULE_IDS, 1), "", T0, T0))
    broken = tmp_path / "c.db"
    broken.write_bytes(b"not a database at all, a text file named .db\n" * 30)
    study = tmp_path / "study.db"
    StudyStore(study).close()
    assert main(["merge", str(study), str(first), str(broken)]) == 2
    err = capsys.readouterr().err
    assert str(broken) in err
    assert StudyStore(study).reviewers() == []  # the first file was not merged either
    assert main(["merge", str(study), str(first)]) == 0  # once the bad file is left out
    assert StudyStore(study).reviewers() == ["dr-a"]


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("DROP TABLE flags", "not a whole review database (no table flags); nothing was merged"),
        ("DROP TRIGGER reviews_never_changed; ALTER TABLE reviews DROP COLUMN image_shown",
         "its append-only guards were removed or changed outside the app "
         "(trigger reviews_never_changed)"),
    ],
)  # fmt: skip
def test_merge_with_a_later_file_missing_part_of_the_schema_merges_nothing(
    tmp_path, capsys, damage, said
):
    import sqlite3

    first = tmp_path / "a.db"
    StudyStore(first).save_review(Review("dr-a", "i1", dict.fromkeys(RULE_IDS, 1), "", T0, T0))
    broken = tmp_path / "b.db"
    StudyStore(broken).save_review(Review("dr-b", "i1", dict.fromkeys(RULE_IDS, 0), "", T0, T0))
    conn = sqlite3.connect(broken)
    conn.executescript(damage)
    conn.commit()
    conn.close()
    study = tmp_path / "study.db"
    StudyStore(study).close()
    assert main(["merge", str(study), str(first), str(broken)]) == 2
    assert f"{broken}: {said}" in capsys.readouterr().err
    assert StudyStore(study).reviewers() == []
