import sqlite3

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore, migrations, utc_now


def scores(**fails):
    """All pass except the rules named like r1_2=0."""
    out = {rule: 1 for rule in RULE_IDS}
    for key, value in fails.items():
        out[key[1:].replace("_", ".")] = value
    return out


def test_new_file_is_migrated_in_wal_mode_and_records_its_version(tmp_path):
    store = StudyStore(tmp_path / "study.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("SELECT version, name FROM schema_migrations").fetchall() == [
        (1, "0001_initial.sql"),
        (2, "0002_review_sessions.sql"),
        (3, "0003_studies.sql"),
        (4, "0004_evaluation.sql"),
        (5, "0005_experts.sql"),
        (6, "0006_image_shown.sql"),
        (7, "0007_append_only_reviews.sql"),
        (8, "0008_revisions_kept.sql"),
        (9, "0009_proposals.sql"),
        (10, "0010_image_ablation.sql"),
        (11, "0011_cannot_judge.sql"),
    ]
    columns = [r[1] for r in store.conn.execute("PRAGMA table_info(reviews)")]
    assert [c for c in columns if c.startswith("score_")] == [
        "score_1_1",
        "score_1_2",
        "score_1_3",
        "score_1_4",
        "score_2_1",
        "score_2_2",
        "score_2_3",
    ]


def test_committed_review_is_readable_from_a_second_connection_at_once(tmp_path):
    path = tmp_path / "study.db"
    store = StudyStore(path)
    started = utc_now()
    store.save_review(
        Review("dr-a", "item-7", scores(r1_4=0, r2_3=0), "not image dependent", started, utc_now())
    )
    # a separate plain sqlite3 connection sees the row without any close/flush
    row = (
        sqlite3.connect(path)
        .execute(
            "SELECT reviewer, item_id, revision, score_1_4, score_2_3, score_1_1, comment, started_at, "
            "rubric_version FROM reviews"
        )
        .fetchone()
    )
    assert row == ("dr-a", "item-7", 1, 0, 0, 1, "not image dependent", started, "nbme-medrcube-1")


def test_recommit_adds_a_revision_and_keeps_the_first(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    store.save_review(Review("dr-a", "i1", scores(r1_1=0), "first", utc_now(), utc_now()))
    second = store.save_review(Review("dr-a", "i1", scores(), "second", utc_now(), utc_now()))
    assert second.revision == 2
    history = store.review_history("dr-a", "i1")
    assert [(r.revision, r.scores["1.1"], r.comment) for r in history] == [
        (1, 0, "first"),
        (2, 1, "second"),
    ]
    assert store.latest_reviews("dr-a")["i1"].comment == "second"
    assert store.latest_reviews("dr-b") == {}


@pytest.mark.parametrize("bad", [{"1.1": 1}, {**{r: 1 for r in RULE_IDS}, "1.1": 2}])
def test_incomplete_or_non_binary_scores_are_refused(bad):
    store = StudyStore(None)
    with pytest.raises(StoreError, match="item i1"):
        store.save_review(Review("dr-a", "i1", bad, "", utc_now(), utc_now()))
    assert store.latest_reviews("dr-a") == {}


def test_database_from_a_newer_app_is_refused(tmp_path):
    path = tmp_path / "s.db"
    StudyStore(path).conn.execute(
        "INSERT INTO schema_migrations VALUES (99, '0099_future.sql', 'x')"
    )
    with pytest.raises(StoreError, match="newer than this app"):
        StudyStore(path)


def test_not_a_database_gives_store_error_naming_the_file(tmp_path):
    path = tmp_path / "notes.db"
    path.write_text("this is not sqlite" * 100)
    with pytest.raises(StoreError, match="notes.db"):
        StudyStore(path)


def test_app_state_round_trip(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    store.set_state("last_item:dr-a", "i1")
    store.set_state("last_item:dr-a", "i2")
    assert StudyStore(tmp_path / "s.db").get_state("last_item:dr-a") == "i2"


def _open_and_close(path):
    StudyStore(path).close()
    return "ok"


def test_processes_opening_a_new_study_at_once_all_succeed(tmp_path):
    from concurrent.futures import ProcessPoolExecutor

    for n in range(3):
        path = tmp_path / f"race-{n}.db"
        with ProcessPoolExecutor(4) as pool:
            assert list(pool.map(_open_and_close, [path] * 4)) == ["ok"] * 4
        versions = sqlite3.connect(path).execute("SELECT version FROM schema_migrations").fetchall()
        latest = len(migrations.available_migrations())
        assert versions == [(v,) for v in range(1, latest + 1)]


def test_migrating_backs_up_the_file_with_uncheckpointed_wal_content(tmp_path, monkeypatch):
    path = tmp_path / "s.db"
    store = StudyStore(path)  # left open: the review may sit only in the WAL file
    store.save_review(Review("dr-a", "i1", scores(), "kept", utc_now(), utc_now()))
    shipped = migrations.available_migrations()
    latest = shipped[-1][0]
    extra = (latest + 1, f"{latest + 1:04d}_test.sql", "CREATE TABLE extra (x INTEGER);")
    monkeypatch.setattr(migrations, "available_migrations", lambda: [*shipped, extra])
    StudyStore(path)
    backup = sqlite3.connect(tmp_path / f"s.db.bak-v{latest}")
    assert backup.execute("SELECT comment FROM reviews").fetchall() == [("kept",)]
    assert backup.execute("SELECT MAX(version) FROM schema_migrations").fetchone() == (latest,)
    assert sqlite3.connect(path).execute(
        "SELECT MAX(version) FROM schema_migrations"
    ).fetchone() == (latest + 1,)


def test_migration_statements_keep_semicolons_inside_strings_and_triggers():
    from medrcube_desktop.store.migrations import _statements

    sql = (
        "-- a comment; with a semicolon\n"
        "CREATE TABLE t (x TEXT DEFAULT 'a;b');\n"
        "CREATE TRIGGER tr AFTER INSERT ON t BEGIN\n  UPDATE t SET x = 'c;d';\nEND;\n"
    )
    statements = _statements(sql)
    assert len(statements) == 2 and statements[1].endswith("END;")
    conn = sqlite3.connect(":memory:")
    for statement in statements:
        conn.execute(statement)
    conn.execute("INSERT INTO t DEFAULT VALUES")
    assert conn.execute("SELECT x FROM t").fetchall() == [("c;d",)]
