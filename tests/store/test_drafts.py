"""Drafts as stored (issue 26 item 3): the guards that refuse a draft no review could
be, and a draft read back as it was written, its repeat flag and unscored rules
included."""

import math

import pytest
import sqlite_utils

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.drafts import (
    StoredDraft,
    delete_draft,
    draft_row,
    drafts,
    replace_draft,
)


def _draft(item="i1", repeat=False, seconds=12.3456, **scores):
    return StoredDraft(
        "dr-a",
        item,
        {**dict.fromkeys(RULE_IDS), **scores},
        "comment é",
        ("tag-1", "étiquette"),
        repeat,
        seconds,
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:01:00Z",
    )


def _db():
    db = sqlite_utils.Database(memory=True)
    db.execute(
        "CREATE TABLE drafts (reviewer TEXT, item_id TEXT, scores TEXT, comment TEXT,"
        " tags TEXT, repeat INTEGER, active_seconds REAL, started_at TEXT, updated_at TEXT,"
        " PRIMARY KEY (reviewer, item_id))"
    )
    return db


def test_a_draft_row_holds_each_column_as_written():
    row = draft_row(_draft(repeat=True, **{"1.1": 1, "2.3": 0}))
    assert row == {
        "reviewer": "dr-a",
        "item_id": "i1",
        "scores": '{"1.1": 1, "1.2": null, "1.3": null, "1.4": null, "2.1": null, "2.2": null, "2.3": 0}',
        "comment": "comment é",
        "tags": '["tag-1", "étiquette"]',
        "repeat": 1,
        "active_seconds": 12.346,
        "started_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:01:00Z",
    }
    assert draft_row(_draft())["repeat"] == 0


@pytest.mark.parametrize(
    "scores",
    [{"1.1": 2}, {"1.1": -1}, {"1.1": "1"}, {"1.1": 0.5}],
)
def test_a_score_other_than_0_1_or_unscored_is_refused(scores):
    with pytest.raises(
        StoreError, match="item i1: draft scores must be 0, 1, 'cannot judge' or unscored"
    ):
        draft_row(_draft(**scores))


def test_a_draft_without_all_seven_rules_is_refused():
    short = _draft()
    short.scores.pop("2.3")
    with pytest.raises(StoreError, match="draft scores must be 0, 1, 'cannot judge' or unscored"):
        draft_row(short)


@pytest.mark.parametrize("seconds", [-0.001, math.inf, math.nan])
def test_negative_or_infinite_active_seconds_are_refused(seconds):
    with pytest.raises(StoreError, match="item i1: active seconds must be >= 0"):
        draft_row(_draft(seconds=seconds))
    draft_row(_draft(seconds=0.0))  # zero is a draft just opened


def test_a_draft_reads_back_as_written_and_is_replaced_and_deleted_per_item():
    db = _db()
    replace_draft(db, draft_row(_draft("i1", repeat=True, **{"1.4": 0})))
    replace_draft(db, draft_row(_draft("i2")))
    replace_draft(db, draft_row(_draft("i2", **{"1.1": 1})))  # replaces, no second row
    found = drafts(db, "dr-a")
    assert set(found) == {"i1", "i2"}
    assert found["i1"] == _draft("i1", repeat=True, seconds=12.346, **{"1.4": 0})
    assert found["i1"].repeat is True and found["i2"].repeat is False
    assert found["i2"].scores == {**dict.fromkeys(RULE_IDS), "1.1": 1}
    assert drafts(db, "dr-b") == {}
    delete_draft(db, "dr-a", "i1")
    delete_draft(db, "dr-b", "i2")  # another reviewer's: nothing
    assert set(drafts(db, "dr-a")) == {"i2"}
