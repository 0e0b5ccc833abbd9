"""Migration 0005 (adjudications, assignment) on an existing database, and the store's
adjudication history."""

import sqlite3

import pytest

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import StudyStore, migrations
from medrcube_desktop.store.adjudications import Adjudication
from tests.review.experts_fixture import fill

TABLES = ("reviews", "judgments", "drafts", "flags", "studies", "study_items", "app_state")


def v4_database(path, monkeypatch):
    """A study database as the app wrote it before 0005, with rows in every table."""
    shipped = migrations.available_migrations()
    with monkeypatch.context() as m:
        m.setattr(migrations, "available_migrations", lambda: shipped[:4])
        store = fill(StudyStore(path), items=["i0", "i1", "i2"])
        store.set_flag("dr-a", "i1", True, "2026-01-01T00:00:00+00:00")
        store.save_study("s", 3, "", ["i0", "i2"], "2026-01-01T00:00:00+00:00")
        store.set_state("last_item:dr-a", "i2")
        store.close()


LATER_COLUMNS = {"image_shown", "abstained"}
"""Columns added after v5 (NULL, or for ``abstained`` (v11) '[]', in the rows migrated):
left out of :func:`dump`."""


def dump(path):
    conn = sqlite3.connect(path)
    try:
        found = {}
        for table in TABLES:
            cursor = conn.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cursor.description]
            keep = [i for i, name in enumerate(names) if name not in LATER_COLUMNS]
            found[table] = sorted(repr(tuple(row[i] for i in keep)) for row in cursor)
        return found
    finally:
        conn.close()


def test_migrating_an_existing_v4_database_keeps_every_row(tmp_path, monkeypatch):
    path = tmp_path / "study.db"
    v4_database(path, monkeypatch)
    before = dump(path)
    assert sum(map(len, before.values())) > 15
    store = StudyStore(path)
    latest = len(migrations.available_migrations())
    assert store.conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone() == (latest,)
    assert dump(path) == before
    assert (tmp_path / "study.db.bak-v4").exists()
    assert store.adjudications() == {} and store.assignment() is None


def test_adjudicating_touches_no_review_or_judgment(tmp_path):
    store = fill(StudyStore(tmp_path / "s.db"), items=["i0", "i1"])
    before = dump(tmp_path / "s.db")
    stored = store.save_adjudications([
        Adjudication("i0", "1.1", 1, "fine", "dr-c", [{"rater": "dr-a", "uid": "u"}]),
        Adjudication("i0", "verdict", 1, "passes", "dr-c"),
    ])  # fmt: skip
    assert [a.revision for a in stored] == [1, 1]
    assert dump(tmp_path / "s.db") == before
    assert store.adjudications()["i0"]["1.1"].resolves == [{"rater": "dr-a", "uid": "u"}]


@pytest.mark.parametrize(
    "bad, message",
    [
        (Adjudication("i0", "3.1", 1, "x", "c"), "cannot adjudicate"),
        (Adjudication("i0", "1.1", 2, "x", "c"), "0 or 1"),
        (Adjudication("i0", "1.1", 1, "   ", "c"), "needs a reason"),
        (Adjudication("i0", "1.1", 1, "x", ""), "adjudicator"),
        (Adjudication("i0", "1.1", 1, None, "c"), "needs a reason"),  # type: ignore[arg-type]
        (Adjudication("i0", "1.1", 1, "\u200b", "c"), "needs a reason"),  # zero-width space
        (Adjudication("", "1.1", 1, "x", "c"), "item's id"),
    ],
)
def test_an_adjudication_without_reason_or_with_a_bad_value_is_refused(bad, message):
    store = StudyStore(None)
    with pytest.raises(StoreError, match=message):
        store.save_adjudication(bad)
    assert store.adjudications() == {}


def test_one_bad_adjudication_of_a_batch_stores_none():
    store = StudyStore(None)
    with pytest.raises(StoreError):
        store.save_adjudications(
            [Adjudication("i0", "1.1", 1, "ok", "c"), Adjudication("i0", "1.2", 1, "", "c")]
        )
    assert store.adjudications() == {}


def test_adjudications_are_never_updated_or_deleted_even_by_hand():
    store = StudyStore(None)
    store.save_adjudication(Adjudication("i0", "1.1", 1, "ok", "c"))
    row = store.conn.execute("SELECT uid, created_at FROM adjudications").fetchone()
    for sql in (
        "UPDATE adjudications SET value = 0",
        "DELETE FROM adjudications",
        # REPLACE deletes the row it collides with without firing the delete trigger
        "REPLACE INTO adjudications (uid, item_id, target, value, reason, adjudicator, "
        f"revision, created_at) VALUES ('{row[0]}', 'i0', '1.1', 0, 'forged', 'm', 1, 'x')",
        "INSERT OR REPLACE INTO adjudications (uid, item_id, target, value, reason, "
        "adjudicator, revision, created_at) VALUES ('other', 'i0', '1.1', 0, 'forged', 'm', 1, 'x')",
    ):
        with pytest.raises(sqlite3.IntegrityError, match="never"):
            store.conn.execute(sql)
    assert store.adjudications()["i0"]["1.1"].value == 1
