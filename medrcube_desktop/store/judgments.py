"""LLM judgments of items on the NBME rubric (paper E.5, Table 10), stored per model.

Written by the LLM judge (one row per attempt outcome: ``ok`` with seven scores, or
``failed`` with the raw text); read by the review window, which reveals a judgment only
after the reviewer has committed their own scores. Named queries over a
``sqlite_utils.Database``; :class:`~medrcube_desktop.store.study_store.StudyStore` runs
them (errors to StoreError, writes in a transaction).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from medrcube_desktop.core.rubric import RULE_IDS, score_column
from medrcube_desktop.errors import StoreError

STATUS_OK = "ok"
STATUS_FAILED = "failed"


@dataclass(frozen=True)
class Judgment:
    """One LLM judgment of one item.

    Attributes
    ----------
    item_id, model : str
    scores : dict[str, int] or None
        Rule id to 0/1 for all seven rules when ``status`` is ``"ok"``; ``None`` for a
        failure.
    status : str
        ``"ok"`` or ``"failed"``.
    created_at : str
        ISO 8601 UTC time the answer arrived.
    base_url, prompt_sha256 : str
        Endpoint and SHA-256 of the system prompt used.
    temperature : float or None
    raw_text, error : str
        The model's raw answer; why it failed.
    prompt_tokens, completion_tokens : int or None
    source : str
        ``"api"``, ``"batch"`` or ``"import"``.
    uid : str
        Stable row id across databases ('' until stored).
    """

    item_id: str
    model: str
    scores: dict[str, int] | None
    status: str = STATUS_OK
    created_at: str = ""
    base_url: str = ""
    prompt_sha256: str = ""
    temperature: float | None = None
    raw_text: str = ""
    error: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    source: str = "api"
    uid: str = ""


def judgment_row(judgment: Judgment) -> dict[str, Any]:
    """The ``judgments`` columns of a judgment, without ``id``; a new ``uid`` is made
    when the judgment has none.

    Raises
    ------
    StoreError
        The status is unknown, or an ``ok`` judgment lacks a 0/1 score for a rule.
    """
    ok = judgment.status == STATUS_OK
    if judgment.status not in (STATUS_OK, STATUS_FAILED):
        raise StoreError(f"item {judgment.item_id}: unknown judgment status {judgment.status!r}")
    if ok and (
        judgment.scores is None
        or set(judgment.scores) != set(RULE_IDS)
        or any(v not in (0, 1) or isinstance(v, bool) for v in judgment.scores.values())
    ):
        raise StoreError(f"item {judgment.item_id}: a judgment needs 0 or 1 for every rule")
    row: dict[str, Any] = {
        "uid": judgment.uid or uuid.uuid4().hex,
        "item_id": judgment.item_id,
        "model": judgment.model,
        "base_url": judgment.base_url,
        "prompt_sha256": judgment.prompt_sha256,
        "temperature": judgment.temperature,
        "status": judgment.status,
        "raw_text": judgment.raw_text,
        "error": judgment.error,
        "prompt_tokens": judgment.prompt_tokens,
        "completion_tokens": judgment.completion_tokens,
        "source": judgment.source,
        "created_at": judgment.created_at,
    }
    for rule in RULE_IDS:
        row[score_column(rule)] = judgment.scores[rule] if ok and judgment.scores else None
    return row


def insert_judgment(db: Any, row: dict[str, Any]) -> None:
    """Add one :func:`judgment_row` to ``judgments`` (``sqlite3.IntegrityError`` when the
    ``uid`` is taken)."""
    db["judgments"].insert(row)


def latest_judgments(db: Any, model: str) -> dict[str, Judgment]:
    """The latest successful judgment by ``model`` of every item, by item id (latest by
    ``created_at``, so merged databases agree on which one)."""
    rows = db.query(
        "SELECT * FROM judgments WHERE model = ? AND status = 'ok' ORDER BY created_at, id",
        [model],
    )
    return {row["item_id"]: judgment_from_row(row) for row in rows}


def has_judgment_uid(db: Any, uid: str) -> bool:
    """Whether a judgment with this stable id is stored."""
    return db.execute("SELECT 1 FROM judgments WHERE uid = ?", [uid]).fetchone() is not None


def judged_item_ids(db: Any, model: str, prompt_sha256: str | None = None) -> set[str]:
    """Ids of the items with a successful judgment by ``model`` (under that prompt hash
    when given): what a resumed run skips."""
    if prompt_sha256 is None:
        rows = db.execute(
            "SELECT DISTINCT item_id FROM judgments WHERE model = ? AND status = 'ok'", [model]
        )
    else:
        rows = db.execute(
            "SELECT DISTINCT item_id FROM judgments WHERE model = ? AND status = 'ok' "
            "AND prompt_sha256 = ?",
            [model, prompt_sha256],
        )
    return {r[0] for r in rows}


def failed_judgments(db: Any, model: str) -> dict[str, Judgment]:
    """The latest failure of each item ``model`` has no successful judgment of, by item."""
    rows = db.query(
        "SELECT * FROM judgments WHERE model = ? AND status = 'failed' AND item_id NOT IN "
        "(SELECT item_id FROM judgments WHERE model = ? AND status = 'ok') ORDER BY id",
        [model, model],
    )
    return {row["item_id"]: judgment_from_row(row) for row in rows}


def judgment_models(db: Any) -> list[str]:
    """Models with at least one successful judgment, most judgments first, then by name."""
    rows = db.execute(
        "SELECT model FROM judgments WHERE status = 'ok' GROUP BY model "
        "ORDER BY COUNT(*) DESC, model"
    )
    return [r[0] for r in rows]


def judgment_from_row(row: dict) -> Judgment:
    """A :class:`Judgment` from a ``judgments`` row (column to value)."""
    ok = row["status"] == STATUS_OK
    return Judgment(
        item_id=row["item_id"],
        model=row["model"],
        scores={r: int(row[score_column(r)]) for r in RULE_IDS} if ok else None,
        status=row["status"],
        created_at=row["created_at"],
        base_url=row["base_url"],
        prompt_sha256=row["prompt_sha256"],
        temperature=row["temperature"],
        raw_text=row["raw_text"],
        error=row["error"],
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        source=row["source"],
        uid=row["uid"],
    )
