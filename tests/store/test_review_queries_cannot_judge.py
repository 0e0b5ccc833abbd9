""" "Cannot judge" (issue 24) in storage: an abstained rule is stored in
``reviews.abstained`` (v11) and read back as ``CANNOT_JUDGE``, never 0 or 1, wherever a
review is read; the database refuses to change it or to store an abstention that is not
one; drafts, merge and the review CSV keep it; rows without one are as before."""

import json
import sqlite3

import pytest

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore, migrations
from medrcube_desktop.store.drafts import StoredDraft
from medrcube_desktop.store.exchange import export_reviews, import_reviews, merge
from medrcube_desktop.store.guards import GUARD_TRIGGERS, broken_guards

T0, T1 = "2026-03-01T10:00:00+00:00", "2026-03-01T11:00:00+00:00"
PASS = dict.fromkeys(RULE_IDS, 1)
ABSTAINED = {**PASS, "1.4": CANNOT_JUDGE, "2.3": CANNOT_JUDGE, "1.2": 0}


def study(path):
    store = StudyStore(path)
    store.save_review(Review("dr-a", "i1", ABSTAINED, "no image shown", T0, T0))
    store.save_review(Review("dr-a", "i2", PASS, "", T0, T0))
    return store


def test_an_abstention_is_its_own_value_wherever_a_review_is_read(tmp_path):
    store = study(tmp_path / "s.db")
    raw = store.conn.execute(
        "SELECT score_1_2, score_1_4, score_2_3, abstained FROM reviews WHERE item_id = 'i1'"
    ).fetchone()
    assert tuple(raw) == (0, 0, 0, '["1.4", "2.3"]')  # the column's 0 is ignored
    reads = [
        store.first_reviews("dr-a")["i1"],
        store.latest_reviews("dr-a")["i1"],
        store.item_reviews("i1")["dr-a"],
        store.review_history("dr-a", "i1")[0],
    ]
    for review in reads:
        assert review.scores == ABSTAINED
        assert review.scores["1.4"] not in (0, 1) and review.scores["2.3"] not in (0, 1)
        assert review.scores["1.2"] == 0  # a real fail stays one
    # a row without an abstention is written as before: the column's default
    assert store.conn.execute("SELECT abstained FROM reviews WHERE item_id = 'i2'").fetchone() == (
        "[]",
    )
    assert store.first_reviews("dr-a")["i2"].scores == PASS


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE reviews SET abstained = '[]' WHERE item_id = 'i1'",
        "UPDATE reviews SET abstained = '[\"1.1\"]' WHERE item_id = 'i2'",
        "UPDATE reviews SET score_1_4 = 1 WHERE item_id = 'i1'",
    ],
)
def test_the_database_refuses_to_change_an_abstention(tmp_path, sql):
    store = study(tmp_path / "s.db")
    with pytest.raises(sqlite3.IntegrityError, match="never changed"):
        store.conn.execute(sql)
    assert store.first_reviews("dr-a")["i1"].scores == ABSTAINED


@pytest.mark.parametrize(
    ("abstained", "score_1_4"),
    [('["1.4"]', 1), ('["9.9"]', 0), ('["1.4", "1.4"]', 0), ("[1.4]", 0)],
)
def test_an_abstention_that_is_not_one_is_refused(tmp_path, abstained, score_1_4):
    store = study(tmp_path / "s.db")
    columns = ", ".join(f"score_{r.replace('.', '_')}" for r in RULE_IDS)
    values = ", ".join("1" if r != "1.4" else str(score_1_4) for r in RULE_IDS)
    with pytest.raises(sqlite3.IntegrityError, match="abstained rule"):
        store.conn.execute(
            f"INSERT INTO reviews (reviewer, item_id, revision, {columns}, started_at, "
            f"committed_at, rubric_version, app_version, abstained) VALUES "
            f"('dr-b', 'i1', 1, {values}, '{T0}', '{T0}', 'v', 'v', '{abstained}')"
        )


@pytest.mark.parametrize("abstained", ["1.4", "not json", '{"1.4": 1}', '"1.4"'])
def test_not_a_json_list_of_rule_ids_is_refused(tmp_path, abstained):
    store = study(tmp_path / "s.db")
    columns = ", ".join(f"score_{r.replace('.', '_')}" for r in RULE_IDS)
    with pytest.raises(sqlite3.DatabaseError):  # the trigger, or the column's CHECK
        store.conn.execute(
            f"INSERT INTO reviews (reviewer, item_id, revision, {columns}, started_at, "
            f"committed_at, rubric_version, app_version, abstained) VALUES "
            f"('dr-b', 'i1', 1, 1, 1, 1, 1, 1, 1, 1, '{T0}', '{T0}', 'v', 'v', ?)",
            [abstained],
        )
    assert store.item_reviews("i1").keys() == {"dr-a"}


def test_the_guards_are_all_there_and_a_dropped_one_is_refused_on_open(tmp_path):
    path = tmp_path / "s.db"
    store = study(path)
    names = {
        r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert set(GUARD_TRIGGERS) <= names
    assert {"reviews_never_changed", "reviews_abstained_never_changed"} <= names
    assert broken_guards(store.conn) == []
    store.conn.execute("DROP TRIGGER reviews_abstained_never_changed")
    store.close()
    with pytest.raises(StoreError, match="reviews_abstained_never_changed"):
        StudyStore(path)


def test_a_v10_database_migrates_with_its_rows_unchanged(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    shipped = migrations.available_migrations()
    assert shipped[10][1] == "0011_cannot_judge.sql"
    with monkeypatch.context() as m:
        m.setattr(migrations, "available_migrations", lambda: shipped[:10])
        old = StudyStore(path)
        old.save_review(Review("dr-a", "i1", {**PASS, "2.1": 0}, "x", T0, T0))
        before = old.conn.execute("SELECT * FROM reviews").fetchall()
        old.close()
    store = StudyStore(path)
    after = store.conn.execute("SELECT * FROM reviews").fetchall()
    assert [tuple(r)[:-1] for r in after] == [tuple(r) for r in before]
    assert [r[-1] for r in after] == ["[]"]
    assert store.first_reviews("dr-a")["i1"].scores == {**PASS, "2.1": 0}


def test_a_draft_keeps_cannot_judge_apart_from_unscored(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    scores = {**dict.fromkeys(RULE_IDS), "1.4": CANNOT_JUDGE, "1.1": 1}
    store.save_draft(StoredDraft("dr-a", "i1", scores, "", (), False, 1.5, T0, T1))
    back = store.drafts("dr-a")["i1"].scores
    assert back == scores and back["1.4"] == CANNOT_JUDGE and back["1.2"] is None
    with pytest.raises(StoreError, match="draft scores"):
        store.save_draft(StoredDraft("dr-a", "i1", {**scores, "1.2": 2}, "", (), False, 0, T0, T1))


def test_merge_keeps_the_abstention(tmp_path):
    study(tmp_path / "a.db").close()
    target = StudyStore(tmp_path / "t.db")
    merge(target, [tmp_path / "a.db"])
    assert target.first_reviews("dr-a")["i1"].scores == ABSTAINED
    merge(target, [tmp_path / "a.db"])  # the same review again: not copied twice
    assert target.conn.execute("SELECT COUNT(*) FROM reviews").fetchone() == (2,)


def test_the_review_csv_carries_cannot_judge_both_ways(tmp_path):
    store = study(tmp_path / "s.db")
    out = tmp_path / "out.csv"
    export_reviews(store, "dr-a", out)
    text = out.read_text(encoding="utf-8-sig")
    row = next(line for line in text.splitlines() if line.startswith("i1,"))
    assert row.startswith("i1,1,0,1,cannot judge,1,1,cannot judge,")
    other = StudyStore(tmp_path / "o.db")
    import_reviews(other, "dr-a", out)
    assert other.first_reviews("dr-a")["i1"].scores == ABSTAINED
    # NA and N/A in any case are read as "cannot judge"; an empty cell is not
    hand = tmp_path / "hand.csv"
    hand.write_text(
        "item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3\nj1,1,1,NA,n/a,Cannot Judge,1,0\nj2,1,1,,1,1,1,1\n",
        encoding="utf-8",
    )
    summary = import_reviews(other, "dr-b", hand)
    got = other.first_reviews("dr-b")
    assert got["j1"].scores == {**PASS, "1.3": CANNOT_JUDGE, "1.4": CANNOT_JUDGE,
                                "2.1": CANNOT_JUDGE, "2.3": 0}  # fmt: skip
    assert "j2" not in got
    assert any("j2 column 1.3" in p for p in summary.problems)
    assert json.loads(
        other.conn.execute("SELECT abstained FROM reviews WHERE item_id = 'j1'").fetchone()[0]
    ) == ["1.3", "1.4", "2.1"]
