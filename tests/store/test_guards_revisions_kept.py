"""A review keeps its revision number and the database holds no trigger the app did not
create (issue 21, v8): plain SQL can no longer move a review's revision (UPDATE OR
REPLACE onto a taken number deleted the row it hit without firing the delete trigger),
an item whose revisions are not 1..n is refused on open, and a foreign trigger is refused
on open, named, and dropped by ``restore-guards``."""

import json
import sqlite3

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.merging import merge

PASS = dict.fromkeys(RULE_IDS, 1)


def at(hour):
    return f"2026-03-01T{hour:02d}:00:00+00:00"


def study(path, hours=(10, 11, 12)):
    """dr-a's revisions 1..3 of i1, committed at ``hours``, comments 'at HOUR'."""
    store = StudyStore(path)
    for hour in hours:
        store.save_review(Review("dr-a", "i1", PASS, f"at {hour}", at(hour), at(hour)))
    return store


def rows(conn):
    return conn.execute("SELECT revision, comment FROM reviews ORDER BY revision").fetchall()


@pytest.mark.parametrize(
    "sql",
    [
        # the tester's attack: REPLACE onto revision 1 deleted the first judgment
        "UPDATE OR REPLACE reviews SET revision = 1 WHERE revision = 3",
        "UPDATE OR REPLACE reviews SET revision = 2 WHERE revision = 3",
        # a number that is neither above them all nor a place 1..3
        "UPDATE reviews SET revision = 3 WHERE revision = 2",
    ],
)
def test_plain_sql_cannot_move_a_revision_onto_another(tmp_path, sql):
    store = study(tmp_path / "s.db")
    with pytest.raises(sqlite3.IntegrityError, match="keeps its revision"):
        store.conn.execute(sql)
    assert rows(store.conn) == [(1, "at 10"), (2, "at 11"), (3, "at 12")]


def test_a_uid_is_never_given_to_a_second_row(tmp_path):
    store = study(tmp_path / "s.db")
    (uid,) = store.conn.execute("SELECT uid FROM reviews WHERE revision = 1").fetchone()
    with pytest.raises(sqlite3.IntegrityError, match="never replaced"):
        store.conn.execute("UPDATE OR REPLACE reviews SET uid = ? WHERE revision = 3", [uid])
    assert len(rows(store.conn)) == 3


def test_two_revisions_cannot_be_swapped_step_by_step(tmp_path):
    store = study(tmp_path / "s.db")
    conn = store.conn
    conn.execute("UPDATE reviews SET revision = 99 WHERE revision = 3")  # above them all
    conn.execute("UPDATE reviews SET revision = 3 WHERE revision = 2")  # 'at 11' placed at 3
    with pytest.raises(sqlite3.IntegrityError, match="keeps its revision"):  # 'at 12' below it
        conn.execute("UPDATE reviews SET revision = 2 WHERE revision = 99")
    # the other order: the earlier review placed at 3 first, then the later one below it
    store2 = study(tmp_path / "t.db")
    store2.conn.execute("UPDATE reviews SET revision = 99 WHERE revision = 3")
    store2.conn.execute("UPDATE reviews SET revision = 3 WHERE revision = 2")
    with pytest.raises(sqlite3.IntegrityError, match="keeps its revision"):
        store2.conn.execute("UPDATE reviews SET revision = 2 WHERE revision = 99")


def test_a_revision_moved_above_the_others_is_refused_on_open_naming_the_item(tmp_path, capsys):
    path = tmp_path / "s.db"
    study(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE reviews SET revision = 99 WHERE revision = 2")  # the tester's
    conn.commit()
    conn.close()
    expected = (
        f"{path}: review revisions were renumbered outside the app (dr-a/i1 (revisions 1, 3, 99))"
    )
    for read_only in (False, True):
        with pytest.raises(StoreError) as caught:
            StudyStore(path, read_only=read_only)
        assert str(caught.value).startswith(expected)
    out = tmp_path / "r.csv"
    assert main(["export-reviews", "--db", str(path), "--reviewer", "dr-a", "--out", str(out)]) == 2
    assert expected in capsys.readouterr().err
    assert not out.exists()


def test_the_app_still_renumbers_merged_revisions_by_commit_time(tmp_path):
    target = study(tmp_path / "s.db", hours=(10, 12, 14))
    study(tmp_path / "o.db", hours=(11, 13, 15)).close()
    merge(target, [tmp_path / "o.db"])
    assert rows(target.conn) == [
        (n, f"at {hour}") for n, hour in enumerate((10, 11, 12, 13, 14, 15), start=1)
    ]


SNEAK = (
    "CREATE TRIGGER zz_sneak AFTER INSERT ON reviews BEGIN UPDATE OR REPLACE reviews "
    "SET revision = NEW.revision + 100 WHERE id = NEW.id; END;"
)


@pytest.mark.parametrize(
    "sql",
    [
        SNEAK,
        "CREATE TRIGGER quiet BEFORE INSERT ON adjudications BEGIN SELECT 1; END;",
        'CREATE TRIGGER "odd name" AFTER INSERT ON flags BEGIN SELECT 1; END;',
    ],
)
def test_a_trigger_the_app_did_not_create_is_refused_and_dropped_by_restore(tmp_path, capsys, sql):
    path = tmp_path / "s.db"
    study(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()
    name = sql.split("TRIGGER ")[1].split(" AFTER")[0].split(" BEFORE")[0].strip('"')
    for read_only in (False, True):
        with pytest.raises(StoreError, match=f"trigger {name} \\(not the app's\\)"):
            StudyStore(path, read_only=read_only)
    assert main(["restore-guards", "--db", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "restored": [f"{name} (not the app's, dropped)"],
        "db": str(path),
    }
    store = StudyStore(path)
    names = {
        r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert name not in names
    store.save_review(Review("dr-a", "i1", PASS, "at 13", at(13), at(13)))
    assert rows(store.conn)[-1] == (4, "at 13")


def test_the_uid_default_trigger_is_checked_too(tmp_path):
    path = tmp_path / "s.db"
    study(path).close()
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER reviews_uid_default; CREATE TRIGGER reviews_uid_default AFTER INSERT "
        "ON reviews WHEN NEW.uid IS NULL BEGIN UPDATE OR REPLACE reviews SET revision = 1 "
        "WHERE id = NEW.id; END;"
    )
    conn.close()
    with pytest.raises(StoreError, match=r"trigger reviews_uid_default \(changed\)"):
        StudyStore(path)


def test_merge_and_import_refuse_a_back_dated_review_alike(tmp_path, capsys):
    """The same back-dated review: both commands say '…, which never changes; not
    stored' and exit 1 (merge exited 0 with a warning)."""
    path = tmp_path / "s.db"
    study(path, hours=(10,)).close()
    early = StudyStore(tmp_path / "early.db")
    early.save_review(Review("dr-a", "i1", PASS, "at 8", at(8), at(8)))
    early.close()
    assert main(["merge", str(path), str(tmp_path / "early.db")]) == 1
    merged = capsys.readouterr().err
    assert (
        f"{tmp_path / 'early.db'}: review of item i1 by dr-a committed at {at(8)} is before "
        f"the reviewer's first judgment of the item ({at(10)}), which never changes; "
        "not stored"
    ) in merged
    csv = tmp_path / "early.csv"
    csv.write_text(
        f"item_id,1.1,1.2,1.3,1.4,2.1,2.2,2.3,comment,committed_at\ni1,1,1,1,1,1,1,1,at 8,{at(8)}\n"
    )
    assert main(["import-reviews", "--db", str(path), "--reviewer", "dr-a", str(csv)]) == 1
    imported = capsys.readouterr().err
    assert (
        f"{csv} line 2 item i1 column committed_at: {at(8)} is before the reviewer's first "
        f"judgment of the item ({at(10)}), which never changes; not stored"
    ) in imported
    assert rows(StudyStore(path).conn) == [(1, "at 10")]
