"""The append-only guards judged against the database's own schema version, and the
words of each refusal (issue 26 item 3, ``python -m tests.mutation.run --modules
store.guards``): a v5 study has only the adjudication guards and is whole, the
expected triggers are read from the migrations without their comments, a missing
trigger is refused naming the file (or ``:memory:``), a foreign trigger with a quote in
its name is dropped by restore, a restore that fails leaves every trigger as it was, and
restore_file refuses what is not a review database."""

import sqlite3

import pytest

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import guards, migrations
from medrcube_desktop.store.guards import (
    broken_guards,
    check_guards,
    expected_guards,
    restore_guards,
)

ADJUDICATION_GUARDS = {
    "adjudications_never_updated",
    "adjudications_never_deleted",
    "adjudications_never_replaced",
}


def _conn(monkeypatch=None, up_to=None):
    conn = sqlite3.connect(":memory:", isolation_level=None)
    if up_to is not None:
        every = migrations.available_migrations()
        monkeypatch.setattr(
            migrations, "available_migrations", lambda: [m for m in every if m[0] <= up_to]
        )
    migrations.migrate(conn, None)
    if up_to is not None:
        monkeypatch.undo()
    return conn


def test_the_expected_triggers_are_the_migrations_create_statements_without_comments():
    guards._guards_of.cache_clear()  # read the migrations again, not a cached reading
    every = expected_guards()
    assert set(guards.GUARD_TRIGGERS) <= set(every)
    for name, sql in every.items():
        assert sql.startswith(f"CREATE TRIGGER {name}"), name
    # reviews_uid_default from v2, the adjudication guards from v5
    assert set(expected_guards(5)) == ADJUDICATION_GUARDS | {"reviews_uid_default"}
    assert set(expected_guards(4)) == {"reviews_uid_default"} and expected_guards(1) == {}


def test_a_study_at_an_older_version_is_judged_by_the_guards_of_its_version(monkeypatch):
    conn = _conn(monkeypatch, up_to=5)
    assert migrations.current_version(conn) == 5
    assert broken_guards(conn) == []  # v5 has no guard of reviews yet
    check_guards(conn, None)
    assert restore_guards(conn) == []
    conn.execute("DROP TRIGGER adjudications_never_deleted")
    assert broken_guards(conn) == ["adjudications_never_deleted"]
    assert restore_guards(conn) == ["adjudications_never_deleted"]
    assert broken_guards(conn) == []


def test_a_missing_guard_is_refused_naming_the_file_and_the_command(tmp_path):
    conn = _conn()
    check_guards(conn, None)
    conn.execute("DROP TRIGGER reviews_never_deleted")
    message = (
        "{where}: its append-only guards were removed or changed outside the app (trigger "
        "reviews_never_deleted), so its reviews, adjudications or proposals may have been edited; not "
        "opened. Check the file against its backups, then put the guards back with: "
        "medrcube-desktop restore-guards --db {where}"
    )
    with pytest.raises(StoreError) as refused:
        check_guards(conn, None)
    assert str(refused.value) == message.format(where=":memory:")
    with pytest.raises(StoreError) as refused:
        check_guards(conn, tmp_path / "s.db")
    assert str(refused.value) == message.format(where=tmp_path / "s.db")


def test_a_foreign_trigger_with_a_quote_in_its_name_is_dropped_by_restore():
    conn = _conn()
    conn.execute('CREATE TRIGGER "odd""name" AFTER INSERT ON reviews BEGIN SELECT 1; END')
    assert broken_guards(conn) == ["odd\"name (not the app's)"]
    assert restore_guards(conn) == ["odd\"name (not the app's, dropped)"]
    assert broken_guards(conn) == []


def test_a_restore_that_fails_leaves_every_trigger_as_it_was(monkeypatch):
    conn = _conn()
    conn.execute("DROP TRIGGER reviews_never_deleted")
    conn.execute("CREATE TRIGGER foreign_one AFTER INSERT ON reviews BEGIN SELECT 1; END")
    before = sorted(
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    )
    real = expected_guards

    def broken_statement(version=None):
        out = dict(real(version))
        out["reviews_never_deleted"] = (
            "CREATE TRIGGER reviews_never_deleted BEFORE DELETE ON no_such_table BEGIN SELECT 1; END"
        )
        return out

    monkeypatch.setattr(guards, "expected_guards", broken_statement)
    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        restore_guards(conn)
    assert not conn.in_transaction
    after = sorted(
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    )
    assert after == before  # the foreign trigger not dropped, nothing half done


def test_restore_file_refuses_a_missing_file_and_a_file_that_is_no_review_database(tmp_path):
    with pytest.raises(StoreError, match=r"no\.db: no such review database file$"):
        guards.restore_file(tmp_path / "no.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(
        StoreError, match=r"other\.db: not a review database \(no schema_migrations table\)$"
    ):
        guards.restore_file(other)


def test_restore_file_migrates_a_v1_study_and_keeps_a_backup(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    every = migrations.available_migrations()
    monkeypatch.setattr(migrations, "available_migrations", lambda: every[:1])
    conn = sqlite3.connect(path, isolation_level=None)
    migrations.migrate(conn, path)
    conn.close()
    monkeypatch.undo()
    assert guards.restore_file(path) == []  # migrated to the latest: its guards are new and whole
    assert (tmp_path / "old.db.bak-v1").is_file()
    conn = sqlite3.connect(path)
    assert migrations.current_version(conn) == every[-1][0] and broken_guards(conn) == []
    conn.close()


def test_renumbered_revisions_are_refused_in_these_words(tmp_path):
    from tests.store.test_guards_revisions_kept import study

    path = tmp_path / "s.db"
    study(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE reviews SET revision = 99 WHERE revision = 2")
    with pytest.raises(StoreError) as refused:
        check_guards(conn, path)
    assert str(refused.value) == (
        f"{path}: review revisions were renumbered outside the app (dr-a/i1 (revisions 1, 3, 99)),"
        " so an item's history may be out of order; not opened. Restore the file from a backup"
    )
    conn.close()


def test_a_trigger_of_an_older_study_is_put_back_as_that_version_wrote_it(monkeypatch):
    # reviews_uid_default is written by v2 and written again, changed, by v7: a v5 study
    # gets the v2 statement back, not the latest
    conn = _conn(monkeypatch, up_to=5)
    conn.execute("DROP TRIGGER reviews_uid_default")
    assert restore_guards(conn) == ["reviews_uid_default"]
    assert broken_guards(conn) == []


def test_a_file_sqlite_cannot_read_is_refused_with_sqlites_reason(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all, just bytes" * 100)
    with pytest.raises(
        StoreError, match=r"junk\.db: cannot restore the append-only guards: file is not a database"
    ):
        guards.restore_file(junk)


def _renumbered_study(path, items):
    from medrcube_desktop.core.rubric import RULE_IDS
    from medrcube_desktop.store import Review, StudyStore

    store = StudyStore(path)
    for item in items:
        for hour in (10, 11):
            at = f"2024-05-01T{hour}:00:00+00:00"
            store.save_review(Review("dr-a", item, dict.fromkeys(RULE_IDS, 1), "ok", at, at))
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("UPDATE reviews SET revision = 99 WHERE revision = 2")  # above n: allowed
    return conn


def test_renumbered_items_are_listed_three_at_most_and_joined_by_semicolons(tmp_path):
    conn = _renumbered_study(tmp_path / "s.db", ["i1", "i2", "i3", "i4"])
    listed = [f"dr-a/i{k} (revisions 1, 99)" for k in (1, 2, 3)]
    assert guards.renumbered_items(conn) == listed
    assert guards.renumbered_items(conn, limit=4) == [*listed, "dr-a/i4 (revisions 1, 99)"]
    with pytest.raises(StoreError) as refused:
        check_guards(conn, None)
    assert str(refused.value) == (
        ":memory:: review revisions were renumbered outside the app "
        f"({'; '.join(listed)}), so an item's history may be out of order; not opened. "
        "Restore the file from a backup"
    )


def test_two_missing_guards_are_named_with_a_comma():
    conn = _conn()
    conn.execute("DROP TRIGGER reviews_never_deleted")
    conn.execute("DROP TRIGGER adjudications_never_deleted")
    with pytest.raises(StoreError) as refused:
        check_guards(conn, None)
    assert "(trigger adjudications_never_deleted, reviews_never_deleted), so" in str(refused.value)


def test_a_later_versions_guard_name_in_an_older_study_is_foreign_and_dropped(monkeypatch):
    # at v5 no guard of reviews exists yet: a trigger of that name is not the app's
    conn = _conn(monkeypatch, up_to=5)
    conn.execute(
        "CREATE TRIGGER reviews_never_deleted BEFORE DELETE ON reviews BEGIN SELECT 1; END"
    )
    assert broken_guards(conn) == ["reviews_never_deleted (not the app's)"]
    assert restore_guards(conn) == ["reviews_never_deleted (not the app's, dropped)"]
    assert broken_guards(conn) == []
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    assert names == ADJUDICATION_GUARDS | {"reviews_uid_default"}
