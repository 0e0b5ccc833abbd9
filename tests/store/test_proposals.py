"""Proposed corrections and their decisions in the study database (v9, issue 23): stored
as given, append-only at the database (plain SQL can neither change, delete nor REPLACE
a row), a reviewer never decides their own proposal, and the latest decision wins."""

import json
import sqlite3

import numpy as np
import pytest

from medrcube_desktop import __version__
from medrcube_desktop.core.corrections import (
    ANSWER_KEY,
    BBOX,
    MASK,
    RETIRE,
    Decision,
    Proposal,
    decode_labels,
    encode_labels,
)
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import StudyStore, migrations
from medrcube_desktop.store.guards import GUARD_TRIGGERS

T0 = "2026-03-01T10:00:00+00:00"
RECORD = {"id": "i1", "question": "Which organ?", "option_A": "liver", "option_B": "spleen",
          "gt_answer": "liver", "image_path": "a.png", "task": "Organ Recognition"}  # fmt: skip


def answer_key(item="i1", author="dr-a", answer="B", reason="the spleen is shown", **kw):
    return Proposal(item, ANSWER_KEY, "1.1", reason, author, {"answer": answer},
                    RECORD, "ds/test.json", **kw)  # fmt: skip


def test_a_proposal_is_stored_as_given_with_uid_time_and_version(tmp_path):
    store = StudyStore(tmp_path / "s.db")
    labels = np.arange(12, dtype=np.uint16).reshape(3, 4)
    mask = Proposal("i1", MASK, "1.4", "  the lesion is larger ", "dr-a",
                    {"slice_index": 7, "axis": 0, "shape": [3, 4]}, RECORD, "ds/test.json",
                    encode_labels(labels))  # fmt: skip
    stored = [store.save_proposal(answer_key()), store.save_proposal(mask)]
    assert [len(p.uid) for p in stored] == [32, 32] and stored[0].uid != stored[1].uid
    assert all(p.created_at.endswith("+00:00") and p.app_version == __version__ for p in stored)
    assert stored[1].reason == "the lesion is larger"  # stripped, as adjudications are
    read = store.proposals()
    assert read == stored  # every field back, in creation order
    assert list(read[0].record_before) == list(RECORD)  # the file's key order
    assert np.array_equal(decode_labels(read[1].mask_labels), labels)
    assert decode_labels(read[1].mask_labels).dtype == np.uint16
    assert store.proposals("i1") == stored and store.proposals("other") == []
    assert store.proposal(stored[1].uid) == stored[1] and store.proposal("nope") is None
    assert [store.proposal_status(p.uid) for p in stored] == ["open", "open"]
    assert store.open_proposals() == stored


@pytest.mark.parametrize(
    ("proposal", "said"),
    [
        (answer_key(answer="Z"), "item i1, change.answer: 'Z' is not an option letter"),
        (Proposal("i1", "typo", "1.1", "r", "dr-a"), "item i1, kind: unknown kind 'typo'"),
        (Proposal("i1", RETIRE, "3.1", "r", "dr-a"), "item i1, rule: '3.1' is not a rule"),
        (Proposal("i1", RETIRE, "1.1", "\u200b ", "dr-a"), "item i1, reason: a proposal needs"),
        (Proposal("i1", RETIRE, "1.1", "r", " "), "item i1, author: a proposal needs"),
        (Proposal("i1", BBOX, "1.1", "r", "dr-a", {"bbox": [5, 0, 2, 9]}),
         r"item i1, change.bbox: \[5, 0, 2, 9\] is not a box"),
        (Proposal("i1", BBOX, "1.1", "r", "dr-a", {"box": [0, 0, 2, 9]}),
         "item i1, change.bbox: missing"),
        (Proposal("i1", RETIRE, "1.1", "r", "dr-a", {"answer": "A"}),
         "item i1, change.answer: not a field of a retire change"),
        (Proposal("i1", MASK, "1.1", "r", "dr-a", {"slice_index": None, "axis": None,
                  "shape": [3, 4]}, mask_labels=encode_labels(np.zeros((4, 3), np.uint8))),
         r"item i1, mask_labels: shape \[4, 3\] differs from change.shape \[3, 4\]"),
    ],
)  # fmt: skip
def test_a_bad_proposal_is_refused_naming_item_and_field(proposal, said):
    store = StudyStore(None)
    with pytest.raises(StoreError, match=said):
        store.save_proposal(proposal)
    assert store.proposals() == []


@pytest.mark.parametrize("control", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200f"])
def test_a_reason_with_a_bidi_control_is_refused(control):
    store = StudyStore(None)
    code = f"U\\+{ord(control):04X}"
    with pytest.raises(StoreError, match=f"^item i1, reason: character 4 is {code} "):
        store.save_proposal(answer_key(reason=f"the{control} spleen"))
    assert store.proposals() == []
    p = store.save_proposal(answer_key())
    with pytest.raises(StoreError, match=f"^proposal {p.uid}, reason: character 1 is {code} "):
        store.save_decision(Decision(p.uid, "accepted", f"{control}tpecca", "dr-b"))
    assert store.decisions(p.uid) == []
    joined = store.save_decision(Decision(p.uid, "accepted", "zero\u200dwidth joiner", "dr-b"))
    assert joined.reason == "zero\u200dwidth joiner"  # not a bidi control: kept


def test_a_reviewer_never_decides_their_own_proposal_but_may_withdraw_it():
    store = StudyStore(None)
    p = store.save_proposal(answer_key())
    for decision in ("accepted", "rejected"):
        with pytest.raises(StoreError, match=f"dr-a proposed it and cannot {decision[:6]} it"):
            store.save_decision(Decision(p.uid, decision, "looks right", "dr-a"))
    with pytest.raises(StoreError, match=r"only its author \(dr-a\) withdraws it"):
        store.save_decision(Decision(p.uid, "withdrawn", "no", "dr-b"))
    assert store.decisions(p.uid) == [] and store.proposal_status(p.uid) == "open"
    withdrawn = store.save_decision(Decision(p.uid, "withdrawn", "I misread it", " dr-a "))
    assert (withdrawn.revision, withdrawn.decider) == (1, "dr-a")
    assert store.proposal_status(p.uid) == "withdrawn" and store.open_proposals() == []
    with pytest.raises(StoreError, match="withdrawn by its author; nothing decides it now"):
        store.save_decision(Decision(p.uid, "accepted", "yes", "dr-b"))


def test_the_database_refuses_a_self_decision_made_with_plain_sql():
    store = StudyStore(None)
    p = store.save_proposal(answer_key())
    insert = (
        "INSERT INTO proposal_decisions (uid, proposal_uid, revision, decision, reason, "
        "decider, created_at) VALUES (?, ?, 1, ?, 'r', ?, ?)"
    )
    for decision, decider in (("accepted", "dr-a"), ("withdrawn", "dr-b")):
        with pytest.raises(sqlite3.IntegrityError, match="withdrawn only by its author"):
            store.conn.execute(insert, ["u1", p.uid, decision, decider, T0])
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        store.conn.execute(insert, ["u1", "no-such-proposal", "accepted", "dr-b", T0])
    assert store.decisions(p.uid) == []


@pytest.mark.parametrize("decider", ["DR-A", "Dr-A", " dr-a", "ＤＲ-Ａ"])
def test_the_author_cannot_accept_their_own_proposal_by_changing_case(decider):
    store = StudyStore(None)
    p = store.save_proposal(answer_key())  # by "dr-a"
    for decision in ("accepted", "rejected"):
        with pytest.raises(StoreError, match=f"{decider.strip()} proposed it and cannot"):
            store.save_decision(Decision(p.uid, decision, "looks right", decider))
    assert store.decisions(p.uid) == []
    withdrawn = store.save_decision(Decision(p.uid, "withdrawn", "I misread it", decider))
    assert (withdrawn.decider, store.decisions(p.uid)[0].decider) == ("dr-a", "dr-a")


def test_a_non_ascii_author_cannot_accept_their_own_proposal_by_changing_case():
    store = StudyStore(None)
    p = store.save_proposal(answer_key(author="élodie"))
    with pytest.raises(StoreError, match="ÉLODIE proposed it and cannot accept it"):
        store.save_decision(Decision(p.uid, "accepted", "ok", "ÉLODIE"))
    assert store.save_decision(Decision(p.uid, "withdrawn", "no", "ÉLODIE")).decider == "élodie"


def test_the_database_refuses_a_self_decision_in_another_case_with_plain_sql():
    store = StudyStore(None)
    p = store.save_proposal(answer_key(author="dr-ana"))
    insert = (
        "INSERT INTO proposal_decisions (uid, proposal_uid, revision, decision, reason, "
        "decider, created_at) VALUES (?, ?, 1, ?, 'r', ?, ?)"
    )
    for decision, decider in (("accepted", "DR-ANA"), ("rejected", "Dr-Ana "),
                              ("withdrawn", "dr-b")):  # fmt: skip
        with pytest.raises(sqlite3.IntegrityError, match="withdrawn only by its author"):
            store.conn.execute(insert, ["u1", p.uid, decision, decider, T0])
    store.conn.execute(insert, ["u1", p.uid, "withdrawn", "DR-ANA", T0])  # its author
    assert [d.decider for d in store.decisions(p.uid)] == ["DR-ANA"]


def test_the_latest_decision_wins():
    store = StudyStore(None)
    first, second = store.save_proposal(answer_key()), store.save_proposal(answer_key("i2"))
    accepted = store.save_decision(Decision(first.uid, "accepted", "agree", "dr-b"))
    assert [c.proposal.uid for c in store.accepted_corrections()] == [first.uid]
    assert store.accepted_corrections()[0].decision == accepted
    # the adjudicator overturns it: a new revision, the first kept
    store.save_decision(Decision(first.uid, "rejected", "the liver is shown", "dr-c"))
    assert store.proposal_status(first.uid) == "rejected"
    assert store.accepted_corrections() == []
    store.save_decision(Decision(second.uid, "accepted", "agree", "dr-c"))
    again = store.save_decision(Decision(first.uid, "accepted", "on review, yes", "dr-d"))
    history = store.decisions(first.uid)
    assert [(d.revision, d.decision, d.decider) for d in history] == [
        (1, "accepted", "dr-b"), (2, "rejected", "dr-c"), (3, "accepted", "dr-d")]  # fmt: skip
    assert history[-1] == again and again.revision == 3
    corrections = store.accepted_corrections()
    assert [(c.proposal.uid, c.decision.revision) for c in corrections] == [
        (first.uid, 3), (second.uid, 1)]  # fmt: skip
    assert store.latest_decisions() == {first.uid: again, second.uid: corrections[1].decision}
    assert store.open_proposals() == []


def test_an_unknown_proposal_or_decision_is_refused():
    store = StudyStore(None)
    with pytest.raises(StoreError, match="proposal nope: no such proposal"):
        store.save_decision(Decision("nope", "accepted", "r", "dr-b"))
    with pytest.raises(StoreError, match="proposal nope: no such proposal"):
        store.proposal_status("nope")
    p = store.save_proposal(answer_key())
    with pytest.raises(StoreError, match="decision: 'maybe' is not one of accepted"):
        store.save_decision(Decision(p.uid, "maybe", "r", "dr-b"))
    with pytest.raises(StoreError, match="reason: a decision needs a reason"):
        store.save_decision(Decision(p.uid, "accepted", "\u200b", "dr-b"))


def _decided(path):
    store = StudyStore(path)
    p = store.save_proposal(answer_key())
    store.save_decision(Decision(p.uid, "accepted", "agree", "dr-b"))
    return store, p


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("UPDATE proposals SET change = '{\"answer\": \"A\"}'", "a proposal is never changed"),
        ("UPDATE proposals SET reason = 'edited'", "a proposal is never changed"),
        ("DELETE FROM proposals", "a proposal is never deleted"),
        ("REPLACE INTO proposals SELECT * FROM proposals", "a proposal is never replaced"),
        ("REPLACE INTO proposals (id, uid, item_id, kind, rule, reason, author, created_at) "
         "SELECT id, 'forged', item_id, 'retire', rule, 'x', author, created_at FROM proposals",
         "a proposal is never replaced"),
        ("INSERT INTO proposals (uid, item_id, kind, rule, reason, author, created_at) "
         "SELECT uid, item_id, kind, rule, reason, author, created_at FROM proposals WHERE 1 "
         "ON CONFLICT (uid) DO UPDATE SET reason = 'upserted'", "a proposal is never replaced"),
        ("UPDATE proposal_decisions SET decision = 'rejected'", "a decision is never changed"),
        ("DELETE FROM proposal_decisions", "a decision is never deleted"),
        ("INSERT OR REPLACE INTO proposal_decisions SELECT * FROM proposal_decisions",
         "a decision is never replaced"),
        ("REPLACE INTO proposal_decisions (uid, proposal_uid, revision, decision, reason, "
         "decider, created_at) SELECT 'forged', proposal_uid, 1, 'rejected', 'x', 'dr-c', "
         "created_at FROM proposal_decisions", "a decision is never replaced"),
        ("REPLACE INTO proposal_decisions (id, uid, proposal_uid, revision, decision, reason, "
         "decider, created_at) SELECT id, 'forged', proposal_uid, 5, 'rejected', 'x', 'dr-c', "
         "created_at FROM proposal_decisions", "a decision is never replaced"),
    ],
)  # fmt: skip
def test_plain_sql_cannot_change_delete_or_replace_a_proposal_or_decision(tmp_path, sql, said):
    store, p = _decided(tmp_path / "s.db")
    before = (store.proposals(), store.decisions(p.uid))
    with pytest.raises(sqlite3.IntegrityError, match=said):
        store.conn.execute(sql)
    assert (store.proposals(), store.decisions(p.uid)) == before
    assert before[1][0].decision == "accepted" and before[0][0].reason == "the spleen is shown"


PROPOSAL_GUARDS = [name for name in GUARD_TRIGGERS if name.startswith("proposal")]


def test_every_proposal_guard_is_named_and_in_a_new_database():
    assert len(PROPOSAL_GUARDS) == 7
    store = StudyStore(None)
    names = {
        r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
    }
    assert set(PROPOSAL_GUARDS) <= names


@pytest.mark.parametrize("dropped", PROPOSAL_GUARDS)
def test_a_database_whose_proposal_guard_was_dropped_is_refused_naming_it(tmp_path, dropped):
    from medrcube_desktop.store.guards import restore_file

    path = tmp_path / "s.db"
    _decided(path)[0].close()
    conn = sqlite3.connect(path)
    conn.execute(f"DROP TRIGGER {dropped}")
    conn.commit()
    conn.close()
    for read_only in (False, True):
        with pytest.raises(StoreError) as caught:
            StudyStore(path, read_only=read_only)
        assert str(caught.value).startswith(
            f"{path}: its append-only guards were removed or changed outside the app "
            f"(trigger {dropped}), so its reviews, adjudications or proposals may have been"
        )
    assert restore_file(path) == [dropped]
    store = StudyStore(path)
    with pytest.raises(sqlite3.IntegrityError):
        store.conn.execute("DELETE FROM proposals")
        store.conn.execute("DELETE FROM proposal_decisions")


def test_migrating_a_v8_database_keeps_its_rows_and_backs_it_up(tmp_path, monkeypatch):
    from medrcube_desktop.store import Review

    path = tmp_path / "study.db"
    shipped = migrations.available_migrations()
    assert [m[1] for m in shipped][8] == "0009_proposals.sql"
    with monkeypatch.context() as m:
        m.setattr(migrations, "available_migrations", lambda: shipped[:8])
        old = StudyStore(path)
        scores = dict.fromkeys(("1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3"), 1)
        old.save_review(Review("dr-a", "i1", scores, "fine", T0, T0))
        old.close()
    store = StudyStore(path)
    assert store.conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone() == (
        len(shipped),
    )
    assert store.first_reviews("dr-a")["i1"].comment == "fine"
    assert store.proposals() == [] and store.accepted_corrections() == []
    backup = sqlite3.connect(tmp_path / "study.db.bak-v8")
    assert backup.execute("SELECT MAX(version) FROM schema_migrations").fetchone() == (8,)
    assert backup.execute("SELECT COUNT(*) FROM reviews").fetchone() == (1,)
    backup.close()
    store.save_proposal(answer_key())
    assert json.loads(store.conn.execute("SELECT change FROM proposals").fetchone()[0]) == {
        "answer": "B"
    }
