"""LLM judgments of items on the NBME rubric (paper E.5, Table 10), stored per model.

Written by the LLM judge (one row per attempt outcome: ``ok`` with seven scores, or
``failed`` with the raw text); read by the review window, which reveals a judgment only
after the reviewer has committed their own scores.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from medrcube_desktop.core.rubric import RULE_IDS, score_column
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.base import StoreBase

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


class JudgmentQueries(StoreBase):
    """Judgment queries (mixed into ``ReviewStore``)."""

    def save_judgment(self, judgment: Judgment) -> Judgment:
        """Write one judgment at once; return it with its ``uid``.

        Raises
        ------
        StoreError
            An ``ok`` judgment lacks a 0/1 score for a rule, or the write fails.
        """
        ok = judgment.status == STATUS_OK
        if judgment.status not in (STATUS_OK, STATUS_FAILED):
            raise StoreError(
                f"item {judgment.item_id}: unknown judgment status {judgment.status!r}"
            )
        if ok and (
            judgment.scores is None
            or set(judgment.scores) != set(RULE_IDS)
            or any(v not in (0, 1) or isinstance(v, bool) for v in judgment.scores.values())
        ):
            raise StoreError(f"item {judgment.item_id}: a judgment needs 0 or 1 for every rule")
        uid = judgment.uid or uuid.uuid4().hex
        row = {
            "uid": uid,
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
        columns = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        self._read(
            lambda: self.conn.execute(f"INSERT INTO judgments ({columns}) VALUES ({marks})", row),
            f"save the judgment of item {judgment.item_id}",
        )
        return Judgment(**{**judgment.__dict__, "uid": uid})

    def judgments(self, model: str) -> dict[str, Judgment]:
        """The latest successful judgment by ``model`` of every item, by item id (latest by
        ``created_at``, so merged databases agree on which one; raises StoreError)."""

        def query() -> dict[str, Judgment]:
            cursor = self.conn.execute(
                "SELECT * FROM judgments WHERE model = ? AND status = 'ok' ORDER BY created_at, id",
                (model,),
            )
            names = [d[0] for d in cursor.description]
            return {
                row["item_id"]: judgment_from_row(row)
                for row in (dict(zip(names, values, strict=True)) for values in cursor)
            }

        return self._read(query, f"read the judgments of {model}")

    def has_judgment_uid(self, uid: str) -> bool:
        """Whether a judgment with this stable id is stored (raises StoreError)."""
        return self._read(
            lambda: (
                self.conn.execute("SELECT 1 FROM judgments WHERE uid = ?", (uid,)).fetchone()
                is not None
            ),
            "look a judgment up",
        )

    def judged_item_ids(self, model: str, prompt_sha256: str | None = None) -> set[str]:
        """Ids of the items with a successful judgment by ``model`` (under that prompt
        hash when given): what a resumed run skips (raises StoreError)."""
        sql = "SELECT DISTINCT item_id FROM judgments WHERE model = ? AND status = 'ok'"
        args: tuple[str, ...] = (model,)
        if prompt_sha256 is not None:
            sql += " AND prompt_sha256 = ?"
            args += (prompt_sha256,)
        return self._read(
            lambda: {r[0] for r in self.conn.execute(sql, args)}, f"read the items {model} judged"
        )

    def failed_judgments(self, model: str) -> dict[str, Judgment]:
        """The latest failure of each item ``model`` has no successful judgment of."""

        def query() -> dict[str, Judgment]:
            cursor = self.conn.execute(
                "SELECT * FROM judgments WHERE model = ? AND status = 'failed' AND item_id NOT IN "
                "(SELECT item_id FROM judgments WHERE model = ? AND status = 'ok') ORDER BY id",
                (model, model),
            )
            names = [d[0] for d in cursor.description]
            return {
                row["item_id"]: judgment_from_row(row)
                for row in (dict(zip(names, values, strict=True)) for values in cursor)
            }

        return self._read(query, f"read the failures of {model}")

    def judgment_models(self) -> list[str]:
        """Models with at least one successful judgment, most judgments first."""
        return self._read(
            lambda: [
                r[0]
                for r in self.conn.execute(
                    "SELECT model FROM judgments WHERE status = 'ok' GROUP BY model "
                    "ORDER BY COUNT(*) DESC, model"
                )
            ],
            "list judged models",
        )


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
