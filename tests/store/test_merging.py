import hashlib
import sqlite3
from importlib.resources import files

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.exchange import MergeSummary, merge
from medrcube_desktop.store.judgments import Judgment

TABLES = ("reviews", "judgments", "disagreement_notes", "flags", "drafts")


def scores(*fails: str) -> dict[str, int]:
    return {rule: 0 if rule in fails else 1 for rule in RULE_IDS}


def at(hour: int) -> str:
    return f"2024-05-01T{hour:02d}:00:00+00:00"


def counts(store: StudyStore) -> dict[str, int]:
    return {t: store.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def reviewer_db(path, reviewer: str, item: str, hour: int, fails=()) -> StudyStore:
    store = StudyStore(path)
    store.save_review(
        Review(reviewer, item, scores(*fails), f"{reviewer} on {item}", at(hour), at(hour))
    )
    return store


def history(store: StudyStore, reviewer: str, item: str) -> list[tuple[int, str, str]]:
    return [(r.revision, r.committed_at, r.comment) for r in store.review_history(reviewer, item)]


def test_merging_two_reviewers_gives_the_union(tmp_path):
    a = reviewer_db(tmp_path / "a.db", "dr-a", "i1", 9, ["1.4"])
    b = reviewer_db(tmp_path / "b.db", "dr-b", "i1", 10, ["2.3"])
    b_review = b.save_review(Review("dr-b", "i2", scores(), "b on i2", at(11), at(11)))
    b.save_judgment(Judgment("i1", "qwen", scores("1.1"), created_at=at(8), uid="j-1"))
    b.set_flag("dr-b", "i2", True, at(12))
    b.add_disagreement_note(b_review.uid, "qwen", ["1.1"], "the model misreads the plane", at(12))
    b.close()
    study = StudyStore(tmp_path / "study.db")
    summary = merge(study, [tmp_path / "a.db", tmp_path / "b.db"])
    assert isinstance(summary, MergeSummary)
    assert [(f.path.name, f.added) for f in summary.files] == [
        (
            "a.db",
            {
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
        ),
        (
            "b.db",
            {
                "reviews": 2,
                "judgments": 1,
                "disagreement_notes": 1,
                "flags": 1,
                "studies": 0,
                "study_items": 0,
                "adjudications": 0,
                "assignments": 0,
                "proposals": 0,
                "proposal_decisions": 0,
            },
        ),
    ]
    assert summary.to_dict()["total"] == {
        "reviews": 3,
        "judgments": 1,
        "disagreement_notes": 1,
        "flags": 1,
        "studies": 0,
        "study_items": 0,
        "adjudications": 0,
        "assignments": 0,
        "proposals": 0,
        "proposal_decisions": 0,
    }
    assert study.reviewers() == ["dr-a", "dr-b"]
    assert study.latest_reviews("dr-a")["i1"].scores == scores("1.4")
    merged = study.latest_reviews("dr-b")
    assert {item: (r.comment, r.revision, r.source) for item, r in merged.items()} == {
        "i1": ("dr-b on i1", 1, "app"),
        "i2": ("b on i2", 1, "app"),
    }
    assert merged["i2"].uid == b_review.uid
    assert study.judgments("qwen")["i1"].scores == scores("1.1")
    assert study.flags("dr-b") == {"i2"}
    assert study.disagreement_notes("dr-b") == {"i2": "the model misreads the plane"}
    assert a.latest_reviews("dr-a")["i1"].source == "app"  # the other file is not touched


def test_merging_again_adds_nothing(tmp_path):
    b = reviewer_db(tmp_path / "b.db", "dr-b", "i1", 10)
    b.save_judgment(
        Judgment("i1", "qwen", None, status="failed", error="timeout", created_at=at(8))
    )
    b.set_flag("dr-b", "i1", True, at(12))
    b.add_disagreement_note(b.latest_reviews("dr-b")["i1"].uid, "qwen", ["1.1"], "no", at(12))
    study = reviewer_db(tmp_path / "study.db", "dr-a", "i1", 9)
    merge(study, [tmp_path / "b.db"])
    before = counts(study)
    assert before == {
        "reviews": 2,
        "judgments": 1,
        "disagreement_notes": 1,
        "flags": 1,
        "drafts": 0,
    }
    again = merge(study, [tmp_path / "b.db", tmp_path / "b.db"])
    assert [f.added for f in again.files] == [dict.fromkeys(again.files[0].added, 0)] * 2
    assert counts(study) == before


def test_revisions_of_one_reviewer_from_two_machines_interleave_by_commit_time(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    laptop = StudyStore(tmp_path / "laptop.db")
    for store, hours in ((study, (10, 12)), (laptop, (11, 13))):
        for hour in hours:
            store.save_review(Review("dr-a", "i1", scores(), f"at {hour}", at(hour), at(hour)))
    laptop.save_review(Review("dr-a", "i2", scores("1.1"), "laptop only", at(9), at(9)))
    summary = merge(study, [tmp_path / "laptop.db"])
    assert summary.files[0].renumbered_items == 2
    assert history(study, "dr-a", "i1") == [
        (1, at(10), "at 10"),
        (2, at(11), "at 11"),
        (3, at(12), "at 12"),
        (4, at(13), "at 13"),
    ]
    assert history(study, "dr-a", "i2") == [(1, at(9), "laptop only")]
    assert study.first_reviews("dr-a")["i1"].comment == "at 10"
    assert study.latest_reviews("dr-a")["i1"].comment == "at 13"
    # a first judgment never changes (issue 21): an earlier one from another machine is
    # refused, as import-reviews refuses it, and said
    early = StudyStore(tmp_path / "early.db")
    early.save_review(Review("dr-a", "i1", scores("2.2"), "at 8", at(8), at(8)))
    refused = merge(study, [tmp_path / "early.db"]).files[0]
    assert refused.added["reviews"] == 0
    assert refused.conflicts == []
    assert refused.refused == [
        f"{tmp_path / 'early.db'}: review of item i1 by dr-a committed at {at(8)} is before "
        f"the reviewer's first judgment of the item ({at(10)}), which never changes; "
        "not stored"
    ]
    assert [h[0:3:2] for h in history(study, "dr-a", "i1")] == [
        (1, "at 10"),
        (2, "at 11"),
        (3, "at 12"),
        (4, "at 13"),
    ]
    assert merge(study, [tmp_path / "laptop.db", tmp_path / "early.db"]).total("reviews") == 0


def test_the_other_file_stays_byte_identical_even_while_open(tmp_path):
    other_path = tmp_path / "b.db"
    other = reviewer_db(other_path, "dr-b", "i1", 10)  # left open: the row is in the WAL
    wal = tmp_path / "b.db-wal"
    before = {p: sha256(p) for p in (other_path, wal)}
    study = StudyStore(tmp_path / "study.db")
    assert merge(study, [other_path]).total("reviews") == 1
    assert {p: sha256(p) for p in (other_path, wal)} == before
    assert not list(tmp_path.glob("b.db.bak*"))
    other.close()
    closed = sha256(other_path)
    assert sorted(p.name for p in tmp_path.glob("b.db*")) == ["b.db"]
    assert merge(study, [other_path]).total("reviews") == 0
    assert sha256(other_path) == closed
    assert sorted(p.name for p in tmp_path.glob("b.db*")) == ["b.db"]  # no -wal, -shm left


def v1_database(path) -> None:
    """A review database as the first release wrote it: migration 0001 only."""
    sql = files("medrcube_desktop.review_db").joinpath("migrations/0001_initial.sql")
    conn = sqlite3.connect(path)
    conn.executescript(sql.read_text("utf-8"))
    conn.execute(
        "CREATE TABLE schema_migrations "
        "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
    conn.execute("INSERT INTO schema_migrations VALUES (1, '0001_initial.sql', ?)", (at(7),))
    conn.execute(
        "INSERT INTO reviews (reviewer, item_id, revision, score_1_1, score_1_2, score_1_3, "
        "score_1_4, score_2_1, score_2_2, score_2_3, comment, started_at, committed_at, "
        "rubric_version, app_version) VALUES "
        "('dr-old', 'i9', 1, 1, 0, 1, 1, 1, 1, 0, 'from v1', ?, ?, 'nbme-medrcube-1', '0.1.0')",
        (at(8), at(9)),
    )
    conn.commit()
    conn.close()


def test_a_v1_database_merged_twice_adds_its_row_once_and_is_not_migrated(tmp_path):
    old = tmp_path / "old" / "v1.db"
    old.parent.mkdir()
    v1_database(old)
    digest = sha256(old)
    study = StudyStore(tmp_path / "study.db")
    assert merge(study, [old]).total("reviews") == 1
    assert merge(study, [old]).total("reviews") == 0
    assert counts(study)["reviews"] == 1
    got = study.latest_reviews("dr-old")["i9"]
    assert (got.scores, got.comment, got.revision, got.committed_at) == (
        scores("1.2", "2.3"),
        "from v1",
        1,
        at(9),
    )
    assert got.uid == f"v1:dr-old:i9:1:{at(9)}"
    assert (got.active_seconds, got.tags, got.repeat, got.source, got.blind) == (
        0.0,
        (),
        False,
        "app",
        True,
    )  # v1 revealed nothing: its reviews are blind
    assert sha256(old) == digest
    assert sorted(p.name for p in old.parent.iterdir()) == ["v1.db"]  # no backup, no WAL


def test_merging_the_study_into_itself_is_refused(tmp_path):
    study = reviewer_db(tmp_path / "study.db", "dr-a", "i1", 9)
    with pytest.raises(StoreError, match="is the study database itself"):
        merge(study, [tmp_path / "study.db"])
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.db").symlink_to(tmp_path / "study.db")
    for same in (tmp_path / "sub" / ".." / "study.db", tmp_path / "link.db"):
        with pytest.raises(StoreError, match="is the study database itself"):
            merge(study, [same])
    assert counts(study)["reviews"] == 1


def test_every_path_is_checked_before_anything_is_merged(tmp_path):
    reviewer_db(tmp_path / "b.db", "dr-b", "i1", 10).close()
    study = StudyStore(tmp_path / "study.db")
    with pytest.raises(StoreError, match=f"{tmp_path / 'nope.db'}: no such review database"):
        merge(study, [tmp_path / "b.db", tmp_path / "nope.db"])
    assert counts(study)["reviews"] == 0
    assert not (tmp_path / "nope.db").exists()


def test_files_that_are_not_review_databases_are_refused_by_name(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    text = tmp_path / "notes.db"
    text.write_text("not sqlite at all, " * 100)
    with pytest.raises(StoreError, match=f"{text}: cannot read as a review database"):
        merge(study, [text])
    other_app = tmp_path / "other-app.db"
    sqlite3.connect(other_app).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(StoreError, match=f"{other_app}: not a review database"):
        merge(study, [other_app])
    newer = tmp_path / "newer.db"
    StudyStore(newer).conn.execute(
        "INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 'x')"
    )
    with pytest.raises(StoreError, match=f"{newer}: database schema v99 is newer than this app"):
        merge(study, [newer])
    assert counts(study)["reviews"] == 0


def test_a_file_that_fails_halfway_adds_nothing(tmp_path):
    bad = tmp_path / "bad.db"
    reviewer_db(bad, "dr-b", "i1", 10).close()
    conn = sqlite3.connect(bad)  # foreign keys are off in a plain connection
    conn.execute(
        "INSERT INTO disagreement_notes VALUES ('no-such-review', 'qwen', '[]', 'orphan', ?)",
        (at(11),),
    )
    conn.commit()
    conn.close()
    study = reviewer_db(tmp_path / "study.db", "dr-a", "i1", 9)
    before = counts(study)
    with pytest.raises(StoreError, match=f"cannot merge {bad}: FOREIGN KEY constraint failed"):
        merge(study, [bad])
    assert counts(study) == before  # the review copied before the note was rolled back


def test_the_later_flag_change_wins_and_an_unflag_is_not_undone_by_a_re_merge(tmp_path):
    study = StudyStore(tmp_path / "study.db")
    laptop = StudyStore(tmp_path / "laptop.db")
    laptop.set_flag("dr-b", "x", True, at(9))
    laptop.set_flag("dr-b", "y", True, at(9))
    laptop.close()
    assert merge(study, [tmp_path / "laptop.db"]).total("flags") == 2
    study.set_flag("dr-b", "x", False, at(11))  # unflagged in the study later
    assert merge(study, [tmp_path / "laptop.db"]).total("flags") == 0
    assert study.flags("dr-b") == {"y"}
    laptop = StudyStore(tmp_path / "laptop.db")
    laptop.set_flag("dr-b", "y", False, at(12))  # unflagged on the laptop, later still
    laptop.set_flag("dr-b", "x", True, at(10))  # an older change than the study's unflag
    laptop.close()
    assert merge(study, [tmp_path / "laptop.db"]).total("flags") == 1
    assert study.flags("dr-b") == set()


def test_a_review_exported_and_imported_elsewhere_is_not_merged_twice(tmp_path):
    from medrcube_desktop.store.exchange import export_reviews, import_reviews

    study = reviewer_db(tmp_path / "study.db", "alice", "i1", 9, fails=("1.3",))
    export_reviews(study, "alice", tmp_path / "alice.csv")
    other = StudyStore(tmp_path / "other.db")
    assert import_reviews(other, "alice", tmp_path / "alice.csv").imported == 1
    other.close()
    assert merge(study, [tmp_path / "other.db"]).total("reviews") == 0  # same review, new uid
    assert [r.revision for r in study.review_history("alice", "i1")] == [1]
