"""The StudyStore facade: its read and write paths, and the named queries of each domain
that the review, judge and evaluation tests do not reach with real values."""

import re
import sqlite3
from pathlib import Path

import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store import review_queries as queries
from medrcube_desktop.store.drafts import StoredDraft
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from medrcube_desktop.store.judgments import Judgment

PASS = dict.fromkeys(RULE_IDS, 1)


def review(item="i1", reviewer="dr-a", **fields):
    values = {"scores": PASS, "comment": "", "started_at": "2026-01-01T10:00:00+00:00",
              "committed_at": "2026-01-01T10:01:00+00:00"}  # fmt: skip
    return Review(reviewer, item, **{**values, **fields})


def draft(item="i1", reviewer="dr-a", **fields):
    values = {
        "scores": {**dict.fromkeys(RULE_IDS, None), "1.1": 0}, "comment": "so far",
        "tags": ("blurry",), "repeat": False, "active_seconds": 12.3456,
        "started_at": "2026-01-01T10:00:00+00:00", "updated_at": "2026-01-01T10:00:30+00:00",
    }  # fmt: skip
    return StoredDraft(reviewer, item, **{**values, **fields})


def test_draft_round_trip_and_position_in_one_write():
    store = StudyStore(None)
    store.save_draft(draft(), position_key="session.position:dr-a")
    stored = store.drafts("dr-a")["i1"]
    assert stored.scores == {**dict.fromkeys(RULE_IDS, None), "1.1": 0}
    assert (stored.comment, stored.tags, stored.active_seconds) == ("so far", ("blurry",), 12.346)
    assert store.get_state("session.position:dr-a") == "i1"
    store.save_draft(draft(comment="later"))  # replaces, no second row
    assert store.drafts("dr-a")["i1"].comment == "later"
    assert store.conn.execute("SELECT COUNT(*) FROM drafts").fetchone()[0] == 1
    assert store.drafts("dr-b") == {}
    store.delete_draft("dr-a", "i1")
    assert store.drafts("dr-a") == {}


def test_commit_drops_the_draft_of_that_item_only():
    store = StudyStore(None)
    store.save_draft(draft("i1"))
    store.save_draft(draft("i2"))
    saved = store.save_review(review("i1"))
    assert (saved.revision, len(saved.uid)) == (1, 32)
    assert set(store.drafts("dr-a")) == {"i2"}


def test_a_failed_write_leaves_nothing_and_names_the_file(tmp_path):
    path = tmp_path / "s.db"
    store = StudyStore(path)
    store.save_review(review("i1", uid="u1"))
    store.save_draft(draft("i2"))
    with pytest.raises(
        StoreError,
        match=rf"^{re.escape(str(path))}: cannot save review of item i2: "
        "a committed review is never replaced",
    ):
        store.save_review(review("i2", uid="u1"))  # the uid is taken: nothing of it is kept
    assert set(store.drafts("dr-a")) == {"i2"}
    assert [r.item_id for r in store.latest_reviews("dr-a").values()] == ["i1"]
    assert not store.conn.in_transaction


def test_a_transaction_rolls_back_every_statement_of_its_block():
    store = StudyStore(None)
    row = queries.review_row(review("i1"))
    failing = pytest.raises(StoreError, match=r"^:memory:: cannot test: .* never replaced")
    with failing, store.transaction("test") as db:
        queries.insert_review(db, {**row, "revision": 1})
        store.set_state("inside", "too")  # a nested write joins the transaction
        queries.insert_review(db, {**row, "revision": 2})  # the uid again
    assert (store.reviewers(), store.get_state("inside")) == ([], None)
    refused = pytest.raises(StoreError, match="^study 's' exists with seed 1$")
    with refused, store.transaction("save") as db:  # a StoreError of the block passes unchanged
        queries.insert_review(db, {**row, "revision": 1})
        raise StoreError("study 's' exists with seed 1")
    assert store.reviewers() == []


def test_a_broken_stored_value_is_a_read_error_naming_the_file(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    store.save_draft(draft())
    store.conn.execute("UPDATE drafts SET scores = 'not json'")
    with pytest.raises(StoreError, match=r"s\.db: cannot read drafts: Expecting value"):
        store.drafts("dr-a")


def test_review_queries_by_item_order_and_reviewer():
    store = StudyStore(None)
    store.save_review(review("i2"))
    store.save_review(review("i1"))
    store.save_review(review("i2", scores={**PASS, "1.3": 0}))
    store.save_review(review("i1", reviewer="dr-b"))
    store.save_review(review("i2", repeat=True))
    assert store.reviewers() == ["dr-a", "dr-b"]
    assert store.first_review_order("dr-a") == ["i2", "i1"]
    assert {k: v.revision for k, v in store.latest_reviews("dr-a").items()} == {"i1": 1, "i2": 2}
    assert {k: v.revision for k, v in store.first_reviews("dr-a").items()} == {"i1": 1, "i2": 1}
    assert {k: v.revision for k, v in store.repeat_reviews("dr-a").items()} == {"i2": 3}
    assert {k: v.revision for k, v in store.item_reviews("i2").items()} == {"dr-a": 2}
    assert [r.revision for r in store.review_history("dr-a", "i2")] == [1, 2, 3]
    by_item = store.reviews_by_item("dr-a")
    assert {k: [r.revision for r in v] for k, v in by_item.items()} == {"i1": [1], "i2": [1, 2, 3]}


def test_renumbering_orders_revisions_by_commit_time():
    store = StudyStore(None)
    first = store.save_review(review("i1", comment="first"))
    late = store.save_review(review("i1", comment="late", committed_at="2026-01-01T12:00:00+00:00"))
    with store.transaction("add") as db:
        middle = queries.review_row(review("i1", comment="middle"))
        middle["committed_at"] = "2026-01-01T11:00:00+00:00"
        back = queries.review_row(review("i1", comment="back-dated"))
        back["committed_at"] = "2025-12-31T23:00:00+00:00"
        for row in (middle, back):
            queries.insert_review(db, {**row, "revision": queries.free_revision(db, "dr-a", "i1")})
        queries.renumber_revisions(db, "dr-a", "i1")
    history = store.review_history("dr-a", "i1")
    # the first judgment keeps revision 1 (issue 21): callers refuse a back-dated row
    # before it; the others follow by commit time
    assert [(r.revision, r.comment, r.uid) for r in history] == [
        (1, "first", first.uid),
        (2, "back-dated", back["uid"]),
        (3, "middle", middle["uid"]),
        (4, "late", late.uid),
    ]


def test_flags_keep_one_row_with_the_latest_change():
    store = StudyStore(None)
    store.set_flag("dr-a", "i1", True, "2026-01-01T10:00:00+00:00")
    store.set_flag("dr-a", "i2", True, "2026-01-01T10:00:00+00:00")
    store.set_flag("dr-a", "i1", False, "2026-01-01T11:00:00+00:00")
    assert store.flags("dr-a") == {"i2"}
    assert store.flags("dr-b") == set()
    rows = store.conn.execute(
        "SELECT item_id, flagged, changed_at FROM flags ORDER BY 1"
    ).fetchall()
    assert rows == [("i1", 0, "2026-01-01T11:00:00+00:00"), ("i2", 1, "2026-01-01T10:00:00+00:00")]


def test_a_second_disagreement_note_replaces_the_first():
    store = StudyStore(None)
    first = store.save_review(review("i1"))
    store.save_review(review("i2"))
    store.add_disagreement_note(first.uid, "gpt", ["1.1"], "image is fine", "t1")
    store.add_disagreement_note(first.uid, "gpt", ["1.1", "2.2"], "still fine", "t2")
    assert store.noted_review_uids("dr-a") == {first.uid}
    assert store.disagreement_notes("dr-a") == {"i1": "still fine"}
    assert store.conn.execute("SELECT rules FROM disagreement_notes").fetchall() == [
        ('["1.1", "2.2"]',)
    ]
    with pytest.raises(StoreError, match="cannot save the disagreement note: FOREIGN KEY"):
        store.add_disagreement_note("no-such-review", "gpt", [], "", "t3")


def judgment(item, model="gpt", created="2026-01-01T10:00:00+00:00", **fields):
    fields.setdefault("scores", PASS)
    return Judgment(item, model, created_at=created, **fields)


def test_judgment_queries():
    store = StudyStore(None)
    store.save_judgment(judgment("i1", created="2026-01-01T10:00:00+00:00", prompt_sha256="p1"))
    newer = store.save_judgment(
        judgment("i1", scores={**PASS, "2.1": 0}, created="2026-01-02T10:00:00+00:00")
    )
    store.save_judgment(judgment("i2", scores=None, status="failed", raw_text="??"))
    store.save_judgment(judgment("i3", scores=None, status="failed", error="first"))
    store.save_judgment(judgment("i3", scores=None, status="failed", error="second"))
    store.save_judgment(judgment("i4", scores=None, status="failed"))
    store.save_judgment(judgment("i4"))
    store.save_judgment(judgment("i9", model="other"))
    assert store.judgments("gpt")["i1"].scores == {**PASS, "2.1": 0}
    assert set(store.judgments("gpt")) == {"i1", "i4"}
    assert {k: v.error for k, v in store.failed_judgments("gpt").items()} == {
        "i2": "",
        "i3": "second",
    }
    assert store.judged_item_ids("gpt") == {"i1", "i4"}
    assert store.judged_item_ids("gpt", prompt_sha256="p1") == {"i1"}
    assert store.judgment_models() == ["gpt", "other"]
    assert store.has_judgment_uid(newer.uid) and not store.has_judgment_uid("nope")
    with pytest.raises(StoreError, match="unknown judgment status 'maybe'"):
        store.save_judgment(judgment("i5", status="maybe"))


def test_studies_extend_in_order_and_refuse_other_settings():
    store = StudyStore(None)
    first = store.save_study("s", 7, "task", ["a", "b", "a"], "2026-01-01T10:00:00+00:00")
    assert (first.seed, first.stratify, first.item_ids) == (7, "task", ("a", "b"))
    again = store.save_study("s", 7, "task", ["c", "b", "d"], "2026-01-02T10:00:00+00:00")
    assert again.item_ids == ("a", "b", "c", "d")
    assert again.created_at == "2026-01-01T10:00:00+00:00"
    with pytest.raises(StoreError, match="exists with seed 7 and stratify task"):
        store.save_study("s", 8, "task", ["e"], "t")
    assert store.study("s") == again
    assert store.study("none") is None
    store.save_study("t", 1, "", [], "2026-01-03T10:00:00+00:00")
    assert store.study_names() == ["s", "t"]


def run_record(name="r", **fields):
    values = {
        "engine": "openai", "model": "m", "params": {"temperature": 0}, "prompt_sha256": "p",
        "app_version": "1", "created_at": "2026-01-01T10:00:00+00:00",
    }  # fmt: skip
    return RunRecord(name, **{**values, **fields})


def response(item, run="r", **fields):
    values = {
        "response": "A", "parsed_answer": "A", "parse_method": "letter", "correct": True,
        "official_answer": "A", "official_correct": True, "created_at": "t",
    }  # fmt: skip
    return ResponseRecord(run, item, **{**values, **fields})


def test_runs_are_stored_and_returned_as_they_are():
    store = StudyStore(None)
    stored = store.save_run(run_record(library_versions={"python": "3.11"}, text_only=True))
    # the store does not judge a resume: the stored record comes back whatever is asked
    assert store.save_run(run_record(model="other")) == stored
    assert store.eval_run("r") == stored
    store.add_run_provenance("r", {"vllm": "0.11"}, "H200")
    store.add_run_provenance("r", {}, "")  # an empty gpu keeps the stored one
    record = store.eval_run("r")
    assert (record.library_versions, record.gpu) == ({"python": "3.11", "vllm": "0.11"}, "H200")
    store.add_run_provenance("missing", {"x": "1"}, "g")  # nothing to update
    assert store.eval_run("missing") is None
    store.save_run(run_record("q", created_at="2025-01-01T00:00:00+00:00"))
    assert store.eval_run_names() == ["q", "r"]


def test_responses_are_stored_once_and_read_back():
    store = StudyStore(None)
    store.save_run(run_record())
    image = {"sent": [512, 512], "format": "png"}
    assert store.save_response(response("i1", latency_s=1.25, prompt_tokens=7, image=image))
    assert not store.save_response(response("i1", response="B"))  # a resume never stores twice
    assert store.save_response(response("i2", parsed_answer=None, correct=False))
    got = store.responses("r")
    assert (got["i1"].response, got["i1"].latency_s, got["i1"].image) == ("A", 1.25, image)
    assert (got["i2"].parsed_answer, got["i2"].correct, got["i2"].official_correct) == (
        None,
        False,
        True,
    )
    assert store.answered_ids("r") == {"i1", "i2"}
    with pytest.raises(StoreError, match="cannot save the response to item i3: FOREIGN KEY"):
        store.save_response(response("i3", run="no-such-run"))


def test_one_items_answers_across_runs():
    store = StudyStore(None)
    store.save_run(run_record("r"))
    store.save_run(run_record("s", created_at="2025-01-01T00:00:00+00:00"))
    store.save_response(response("i1", run="r", response="A because"))
    store.save_response(response("i2", run="r"))
    store.save_response(response("i1", run="s", response="B", parsed_answer=None))
    got = store.item_responses("i1", ["r", "s", "missing"])
    assert {run: (a.response, a.parsed_answer) for run, a in got.items()} == {
        "r": ("A because", "A"),
        "s": ("B", None),
    }
    assert store.item_responses("i9", ["r", "s"]) == {}


def test_only_an_empty_run_is_deleted():
    store = StudyStore(None)
    store.save_run(run_record("empty"))
    store.save_run(run_record("full"))
    store.save_response(response("i1", run="full"))
    store.delete_empty_run("empty")
    store.delete_empty_run("full")
    assert store.eval_run_names() == ["full"]


def test_claim_release_and_quick_state(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    assert store.claim("job", "me", lambda held: True) is None
    assert store.claim("job", "you", lambda held: False) == "me"  # alive: kept
    assert store.claim("job", "you", lambda held: held == "me") is None  # stale: taken over
    store.release("job", "me")  # not mine any more: stays
    assert store.get_state("job") == "you"
    store.release("job", "you")
    assert store.get_state("job") is None
    store.set_state_quickly("pos", "i3")
    assert store.get_state("pos") == "i3"
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_only_review_queries_write_the_reviews_table():
    """All writes to ``reviews`` go through review_queries (insert_review, renumber)."""
    package = Path(__file__).parents[2] / "medrcube_desktop"
    writes = re.compile(
        r"(INSERT|REPLACE)\s+(OR\s+\w+\s+)?INTO\s+\[?reviews\b|UPDATE\s+\[?reviews\b"
        r"|DELETE\s+FROM\s+\[?reviews\b|\[\"reviews\"\]\.(insert|upsert|update|delete)",
        re.IGNORECASE,
    )
    found = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if writes.search(path.read_text("utf-8"))
    )
    assert found == ["store/review_queries.py"]


def test_no_sql_built_from_values_in_the_store():
    """INSERT statements are sqlite-utils calls; no f-string builds an INSERT."""
    package = Path(__file__).parents[2] / "medrcube_desktop" / "store"
    built = [
        path.name
        for path in package.glob("*.py")
        if re.search(r"f\"INSERT|f'INSERT", path.read_text("utf-8"), re.IGNORECASE)
    ]
    assert built == []


def test_sqlite_error_type_is_kept_as_the_cause(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    store.save_review(review("i1", uid="u1"))
    with pytest.raises(StoreError) as raised:
        store.save_review(review("i2", uid="u1"))
    assert isinstance(raised.value.__cause__, sqlite3.IntegrityError)
