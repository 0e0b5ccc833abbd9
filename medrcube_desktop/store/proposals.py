"""Proposed corrections of benchmark items and their decisions (``proposals``,
``proposal_decisions``, v9).

Named queries over a ``sqlite_utils.Database``, run by
:class:`~medrcube_desktop.store.study_store.StudyStore`. A proposal is never changed nor
deleted (triggers refuse it, ``review_db/migrations/0009_proposals.sql``); a decision is
the next ``revision`` of its proposal's decision, and the latest revision wins. The
records are :mod:`medrcube_desktop.core.corrections`'s. No query here touches
``reviews``, ``judgments`` or ``adjudications``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from medrcube_desktop import __version__
from medrcube_desktop.core.corrections import (
    ACCEPTED,
    DECISIONS,
    OPEN,
    REJECTED,
    WITHDRAWN,
    AcceptedCorrection,
    Decision,
    Proposal,
    change_problem,
)
from medrcube_desktop.core.names import BIDI_CONTROLS, has_text, hidden_character, same_name
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError


def proposal_row(p: Proposal, when: str) -> dict[str, Any]:
    """The row of a new proposal (``uid``, ``created_at``, ``app_version`` filled when
    empty).

    Raises
    ------
    StoreError
        ``"item ID, FIELD: why"``: no item id, an unknown kind or rule, a reason or
        author without a visible character, a change of the wrong shape for its kind
        (:func:`~medrcube_desktop.core.corrections.change_problem`), or a
        ``record_before`` that is not a JSON object.
    """
    if not has_text(p.item_id):
        raise StoreError("a proposal needs the item's id")
    where = f"item {p.item_id}"
    if p.rule not in RULE_IDS:
        raise StoreError(f"{where}, rule: {p.rule!r} is not a rule ({', '.join(RULE_IDS)})")
    if not has_text(p.reason):
        raise StoreError(f"{where}, reason: a proposal needs a reason")
    _refuse_bidi(p.reason, f"{where}, reason")
    if not has_text(p.author):
        raise StoreError(f"{where}, author: a proposal needs its author's name")
    problem = change_problem(p.kind, p.change, p.mask_labels)
    if problem is not None:
        raise StoreError(f"{where}, {problem[0]}: {problem[1]}")
    if not isinstance(p.record_before, dict):
        raise StoreError(f"{where}, record_before: expected the item's record (an object)")
    try:
        change = json.dumps(p.change, allow_nan=False)
        record = json.dumps(p.record_before, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{where}: the change or record is not JSON: {exc}") from exc
    return {
        "uid": p.uid or uuid.uuid4().hex,
        "item_id": p.item_id,
        "kind": p.kind,
        "rule": p.rule,
        "reason": p.reason.strip(),
        "author": p.author.strip(),
        "change": change,
        "record_before": record,
        "source_file": p.source_file,
        "mask_labels": None if p.mask_labels is None else bytes(p.mask_labels),
        "created_at": p.created_at or when,
        "app_version": p.app_version or __version__,
    }


def _refuse_bidi(text: str, what: str) -> None:
    """Refuse a reason holding a bidi control (it reorders what the deciding reviewer
    reads), as a new name is refused (:func:`~medrcube_desktop.core.names.hidden_character`).

    Raises
    ------
    StoreError
        ``"WHAT: character N is U+202E (right-to-left override), …"``.
    """
    problem = hidden_character(text, what, BIDI_CONTROLS.__contains__)
    if problem is not None:
        raise StoreError(problem)


def insert_proposal(db: Any, row: dict[str, Any]) -> dict[str, Any]:
    """Insert a new proposal's row (:func:`proposal_row`); inside a transaction."""
    db["proposals"].insert(row)
    return row


def proposal_from_row(row: dict[str, Any]) -> Proposal:
    """A :class:`Proposal` from a stored row (``record_before`` in the stored key order)."""
    labels = row["mask_labels"]
    return Proposal(
        item_id=row["item_id"],
        kind=row["kind"],
        rule=row["rule"],
        reason=row["reason"],
        author=row["author"],
        change=json.loads(row["change"]),
        record_before=json.loads(row["record_before"]),
        source_file=row["source_file"],
        mask_labels=None if labels is None else bytes(labels),
        uid=row["uid"],
        created_at=row["created_at"],
        app_version=row["app_version"],
    )


def proposal(db: Any, uid: str) -> Proposal | None:
    """The proposal of ``uid``, or ``None``."""
    rows = list(db.query("SELECT * FROM proposals WHERE uid = ?", [uid]))
    return proposal_from_row(rows[0]) if rows else None


def proposals(db: Any, item_id: str | None = None) -> list[Proposal]:
    """Every proposal (of one item when given), in creation order (row id)."""
    if item_id is None:
        rows = db.query("SELECT * FROM proposals ORDER BY id")
    else:
        rows = db.query("SELECT * FROM proposals WHERE item_id = ? ORDER BY id", [item_id])
    return [proposal_from_row(row) for row in rows]


def decision_row(d: Decision, when: str) -> dict[str, Any]:
    """The row of a new decision (``revision`` filled by :func:`insert_decision`).

    Raises
    ------
    StoreError
        An unknown decision, or a reason or decider without a visible character.
    """
    where = f"proposal {d.proposal_uid}"
    if d.decision not in DECISIONS:
        raise StoreError(f"{where}, decision: {d.decision!r} is not one of {', '.join(DECISIONS)}")
    if not has_text(d.reason):
        raise StoreError(f"{where}, reason: a decision needs a reason")
    _refuse_bidi(d.reason, f"{where}, reason")
    if not has_text(d.decider):
        raise StoreError(f"{where}, decider: a decision needs the decider's name")
    return {
        "uid": d.uid or uuid.uuid4().hex,
        "proposal_uid": d.proposal_uid,
        "decision": d.decision,
        "reason": d.reason.strip(),
        "decider": d.decider.strip(),
        "created_at": d.created_at or when,
        "app_version": d.app_version or __version__,
    }


_VERBS = {ACCEPTED: "accept", REJECTED: "reject", WITHDRAWN: "withdraw"}


def insert_decision(db: Any, row: dict[str, Any]) -> dict[str, Any]:
    """Insert ``row`` as the next revision of its proposal's decision; inside a
    transaction.

    Raises
    ------
    StoreError
        The proposal is unknown; the decider is its author (names compared without
        case, :func:`~medrcube_desktop.core.names.same_name`) and the decision is not
        ``withdrawn``, or is not its author and it is; the proposal was withdrawn
        (nothing decides it after that: propose again).
    """
    found = proposal(db, row["proposal_uid"])
    where = f"proposal {row['proposal_uid']}"
    if found is None:
        raise StoreError(f"{where}: no such proposal")
    where = f"{where} (item {found.item_id}, {found.kind} by {found.author})"
    mine = same_name(row["decider"], found.author)  # "DR-A" is dr-a (NFKC, casefold)
    if mine and row["decision"] != WITHDRAWN:
        raise StoreError(
            f"{where}: {row['decider']} proposed it and cannot {_VERBS[row['decision']]} it "
            "(another reviewer decides; its author may only withdraw it)"
        )
    if not mine and row["decision"] == WITHDRAWN:
        raise StoreError(f"{where}: only its author ({found.author}) withdraws it")
    latest = latest_decision(db, found.uid)
    if latest is not None and latest.decision == WITHDRAWN:
        raise StoreError(
            f"{where}: withdrawn by its author; nothing decides it now (propose again)"
        )
    row = {**row, "revision": (latest.revision if latest else 0) + 1}
    if mine:  # a withdrawal, under the author's name as stored (the trigger's lower() is ASCII)
        row["decider"] = found.author
    db["proposal_decisions"].insert(row)
    return row


def decision_from_row(row: dict[str, Any]) -> Decision:
    """A :class:`Decision` from a stored row."""
    return Decision(
        proposal_uid=row["proposal_uid"],
        decision=row["decision"],
        reason=row["reason"],
        decider=row["decider"],
        revision=int(row["revision"]),
        uid=row["uid"],
        created_at=row["created_at"],
        app_version=row["app_version"],
    )


def decisions(db: Any, proposal_uid: str) -> list[Decision]:
    """Every decision of one proposal, oldest revision first."""
    rows = db.query(
        "SELECT * FROM proposal_decisions WHERE proposal_uid = ? ORDER BY revision",
        [proposal_uid],
    )
    return [decision_from_row(row) for row in rows]


def every_decision(db: Any) -> dict[str, list[Decision]]:
    """Every decision of every decided proposal, by proposal uid, oldest revision first
    (one query)."""
    found: dict[str, list[Decision]] = {}
    for row in db.query("SELECT * FROM proposal_decisions ORDER BY proposal_uid, revision"):
        found.setdefault(row["proposal_uid"], []).append(decision_from_row(row))
    return found


def latest_decision(db: Any, proposal_uid: str) -> Decision | None:
    """The latest revision of one proposal's decision, or ``None`` (open)."""
    rows = list(
        db.query(
            "SELECT * FROM proposal_decisions WHERE proposal_uid = ? "
            "ORDER BY revision DESC LIMIT 1",
            [proposal_uid],
        )
    )
    return decision_from_row(rows[0]) if rows else None


def latest_decisions(db: Any) -> dict[str, Decision]:
    """The latest decision of every decided proposal, by proposal uid."""
    rows = db.query(
        "SELECT d.* FROM proposal_decisions d JOIN (SELECT proposal_uid, MAX(revision) AS r "
        "FROM proposal_decisions GROUP BY proposal_uid) m ON d.proposal_uid = m.proposal_uid "
        "AND d.revision = m.r"
    )
    return {row["proposal_uid"]: decision_from_row(row) for row in rows}


def proposal_status(db: Any, uid: str) -> str:
    """``"open"``, or the latest decision (``"accepted"``, ``"rejected"``,
    ``"withdrawn"``) of the proposal ``uid``.

    Raises
    ------
    StoreError
        No proposal has that uid.
    """
    if proposal(db, uid) is None:
        raise StoreError(f"proposal {uid}: no such proposal")
    latest = latest_decision(db, uid)
    return OPEN if latest is None else latest.decision


def open_proposals(db: Any) -> list[Proposal]:
    """The proposals with no decision yet, in creation order."""
    rows = db.query(
        "SELECT * FROM proposals WHERE uid NOT IN (SELECT proposal_uid FROM "
        "proposal_decisions) ORDER BY id"
    )
    return [proposal_from_row(row) for row in rows]


def accepted_corrections(db: Any) -> list[AcceptedCorrection]:
    """Every proposal whose latest decision is ``accepted``, with that decision, in the
    proposals' creation order."""
    latest = latest_decisions(db)
    return [
        AcceptedCorrection(p, latest[p.uid])
        for p in proposals(db)
        if p.uid in latest and latest[p.uid].decision == ACCEPTED
    ]
