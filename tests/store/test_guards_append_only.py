"""Reviews and adjudications are append-only at the database (issue 21): plain SQL can
neither change, delete nor REPLACE a stored row, a database whose guards were dropped is
refused on every open, naming the file, and ``restore-guards`` puts them back."""

import json
import sqlite3

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.adjudications import Adjudication
from medrcube_desktop.store.guards import GUARD_TRIGGERS

T0, T1 = "2026-03-01T10:00:00+00:00", "2026-03-01T11:00:00+00:00"
PASS = dict.fromkeys(RULE_IDS, 1)


def study(path):
    store = StudyStore(path)
    store.save_review(Review("dr-a", "i1", PASS, "first look", T0, T0))
    store.save_review(Review("dr-a", "i1", {**PASS, "1.1": 0}, "second look", T1, T1))
    store.save_adjudications(
        [Adjudication("i1", "1.1", 0, "the lobe is wrong", "dr-c", [], created_at=T0)]
    )
    return store


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("UPDATE reviews SET score_1_1 = 0 WHERE revision = 1", "never changed"),
        ("UPDATE reviews SET comment = 'edited' WHERE revision = 1", "never changed"),
        ("DELETE FROM reviews WHERE revision = 1", "never deleted"),
        ("UPDATE reviews SET revision = 9 WHERE revision = 1", "first judgment is never"),
        # REPLACE on the row id with a fresh uid: its implicit delete fires no trigger
        (
            "REPLACE INTO reviews (id, uid, reviewer, item_id, revision, score_1_1, "
            "score_1_2, score_1_3, score_1_4, score_2_1, score_2_2, score_2_3, comment, "
            "started_at, committed_at, rubric_version, app_version) SELECT id, 'forged', "
            "reviewer, item_id, 7, 0, 0, 0, 0, 0, 0, 0, 'forged', started_at, committed_at, "
            "rubric_version, app_version FROM reviews WHERE revision = 1",
            "never replaced",
        ),
        (
            "INSERT OR REPLACE INTO reviews SELECT * FROM reviews WHERE revision = 1",
            "never replaced",
        ),
    ],
)
def test_plain_sql_cannot_change_a_first_judgment(tmp_path, sql, said):
    store = study(tmp_path / "s.db")
    with pytest.raises(sqlite3.IntegrityError, match=said):
        store.conn.execute(sql)
    first = store.first_reviews("dr-a")["i1"]
    assert (first.revision, first.comment, first.scores) == (1, "first look", PASS)
    assert store.conn.execute("SELECT COUNT(*) FROM reviews").fetchone() == (2,)


def test_replace_into_adjudications_on_a_row_id_is_refused(tmp_path):
    store = study(tmp_path / "s.db")
    (row_id,) = store.conn.execute("SELECT id FROM adjudications").fetchone()
    with pytest.raises(sqlite3.IntegrityError, match="never replaced"):
        store.conn.execute(
            "REPLACE INTO adjudications (id, uid, item_id, target, value, reason, "
            "adjudicator, revision, created_at) VALUES (?, 'new-uid', 'i1', '1.1', 1, "
            "'forged', 'x', 2, ?)",
            [row_id, T1],
        )
    (kept,) = store.adjudication_history("i1")
    assert (kept.revision, kept.value, kept.reason) == (1, 0, "the lobe is wrong")


def test_the_app_still_adds_revisions_and_fills_a_missing_uid(tmp_path):
    store = study(tmp_path / "s.db")
    store.save_review(Review("dr-a", "i1", PASS, "third", T1, T1))
    store.conn.execute(  # a row without uid (an older writer): reviews_uid_default fills it
        "INSERT INTO reviews (reviewer, item_id, revision, score_1_1, score_1_2, "
        "score_1_3, score_1_4, score_2_1, score_2_2, score_2_3, started_at, committed_at, "
        "rubric_version, app_version) VALUES ('dr-b', 'i1', 1, 1, 1, 1, 1, 1, 1, 1, ?, ?, "
        "'r', 'a')",
        [T0, T0],
    )
    assert [r.revision for r in store.review_history("dr-a", "i1")] == [1, 2, 3]
    (uid,) = store.conn.execute("SELECT uid FROM reviews WHERE reviewer = 'dr-b'").fetchone()
    assert uid and len(uid) == 32


@pytest.mark.parametrize("dropped", ["reviews_never_changed", "adjudications_never_replaced"])
def test_a_database_whose_guard_was_dropped_is_refused_naming_it(tmp_path, capsys, dropped):
    path = tmp_path / "s.db"
    study(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"DROP TRIGGER {dropped}")
    if dropped.startswith("reviews"):
        conn.execute("UPDATE reviews SET score_1_1 = 0 WHERE revision = 1")  # now possible
    conn.commit()
    conn.close()
    expected = f"{path}: its append-only guards were removed or changed outside the app (trigger {dropped})"
    for read_only in (False, True):
        with pytest.raises(
            StoreError, match="^" + expected.replace("(", r"\(").replace(")", r"\)")
        ):
            StudyStore(path, read_only=read_only)
    # agreement (a reading command) refuses it too, with the same line, exit 2
    assert main(["export-reviews", "--db", str(path), "--reviewer", "dr-a",
                 "--out", str(tmp_path / "r.csv")]) == 2  # fmt: skip
    assert expected in capsys.readouterr().err
    assert not (tmp_path / "r.csv").exists()
    assert main(["restore-guards", "--db", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"restored": [dropped], "db": str(path)}
    store = StudyStore(path)  # opened again: every guard is back
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("DELETE FROM reviews")
    assert main(["restore-guards", "--db", str(path)]) == 0
    assert "every append-only guard is in place; nothing changed" in capsys.readouterr().out


def test_a_guard_replaced_by_a_harmless_trigger_of_its_name_is_refused(tmp_path):
    path = tmp_path / "s.db"
    study(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER reviews_never_deleted; CREATE TRIGGER reviews_never_deleted "
        "BEFORE DELETE ON reviews BEGIN SELECT 1; END;"
    )
    conn.close()
    with pytest.raises(StoreError, match=r"trigger reviews_never_deleted \(changed\)"):
        StudyStore(path)


def test_every_guard_is_in_a_new_database():
    store = StudyStore(None)
    names = {
        r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert set(GUARD_TRIGGERS) <= names
