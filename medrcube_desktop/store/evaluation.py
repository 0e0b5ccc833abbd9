"""Evaluation runs and their responses (``eval_runs``, ``eval_responses``).

A response is written the moment it arrives; the primary key (run, item) makes a
resumed run unable to store an item twice. Named queries over a
``sqlite_utils.Database``, run by :class:`~medrcube_desktop.store.study_store.StudyStore`.
Whether a stored run may be resumed with other settings is the runner's rule
(:func:`medrcube_desktop.evaluation.runner.open_run`), not the store's.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class RunRecord:
    """An evaluation run: engine, model, every parameter, provenance.

    ``params`` and ``library_versions`` are JSON-ready dicts; ``text_only`` sends no
    image (the paper's prior-leakage baseline). ``image_mode`` is one of
    :data:`~medrcube_desktop.evaluation.image_modes.IMAGE_MODES` and ``image_run`` the
    name of the image run an ablation run is linked to ("" for none; NULL in the
    database). ``text_only`` and ``image_mode == "text-only"`` are kept equal: setting
    either sets both.
    """

    name: str
    engine: str
    model: str
    params: dict
    prompt_sha256: str
    app_version: str
    created_at: str
    model_revision: str = ""
    text_only: bool = False
    library_versions: dict = field(default_factory=dict)
    gpu: str = ""
    benchmark: str = ""
    image_mode: str = "image"
    image_run: str = ""

    def __post_init__(self) -> None:
        if self.text_only and self.image_mode == "image":
            object.__setattr__(self, "image_mode", "text-only")
        elif self.image_mode == "text-only" and not self.text_only:
            object.__setattr__(self, "text_only", True)
        elif self.text_only and self.image_mode != "text-only":
            raise ValueError(f"run {self.name!r}: text_only with image mode {self.image_mode!r}")


@dataclass(frozen=True)
class ResponseRecord:
    """One item's answer in a run: raw ``response``, ``parsed_answer`` (or None) and
    ``parse_method``, ``correct``; the public evaluator's reading beside it; timing,
    tokens and how the image was sent (``image``, a dict)."""

    run: str
    item_id: str
    response: str
    parsed_answer: str | None
    parse_method: str
    correct: bool
    official_answer: str | None
    official_correct: bool
    created_at: str
    latency_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    image: dict = field(default_factory=dict)


def run_row(run: RunRecord) -> dict[str, Any]:
    """The ``eval_runs`` columns of a run (the dicts as sorted JSON)."""
    row = asdict(run)
    row["params"] = json.dumps(run.params, sort_keys=True)
    row["library_versions"] = json.dumps(run.library_versions, sort_keys=True)
    row["text_only"] = int(run.text_only)
    row["image_run"] = run.image_run or None
    return row


def insert_run(db: Any, run: RunRecord) -> None:
    """Add a run (``sqlite3.IntegrityError`` when the name is taken)."""
    db["eval_runs"].insert(run_row(run))


def eval_run(db: Any, name: str) -> RunRecord | None:
    """A run by name, or ``None`` (``ValueError`` when its stored JSON is broken)."""
    for row in db.query("SELECT * FROM eval_runs WHERE name = ?", [name]):
        row["params"] = json.loads(row["params"])
        row["library_versions"] = json.loads(row["library_versions"])
        row["text_only"] = bool(row["text_only"])
        row["image_run"] = row.get("image_run") or ""
        return RunRecord(**row)
    return None


def runs_with_source(db: Any, sha256: str, records_sha256: str = "") -> list[RunRecord]:
    """Imported runs whose source file had this SHA-256 (``params.source_sha256``), or
    whose records had this canonical digest (``params.records_sha256``, when given),
    oldest first."""
    names = db.execute(
        "SELECT name FROM eval_runs WHERE engine = 'import' AND "
        "(json_extract(params, '$.source_sha256') = ? OR "
        "(? != '' AND json_extract(params, '$.records_sha256') = ?)) ORDER BY created_at",
        [sha256, records_sha256, records_sha256],
    ).fetchall()
    return [run for (name,) in names if (run := eval_run(db, name)) is not None]


def eval_run_names(db: Any) -> list[str]:
    """Every run's name, oldest first (by ``created_at``)."""
    return [r[0] for r in db.execute("SELECT name FROM eval_runs ORDER BY created_at")]


def set_run_provenance(db: Any, name: str, library_versions: dict, gpu: str) -> None:
    """Replace a run's ``library_versions`` and ``gpu`` (nothing when there is no such run)."""
    db.execute(
        "UPDATE eval_runs SET library_versions = ?, gpu = ? WHERE name = ?",
        [json.dumps(library_versions, sort_keys=True), gpu, name],
    )


def delete_empty_run(db: Any, name: str) -> None:
    """Remove a run that holds no response; a run with answers is never deleted."""
    db.execute(
        "DELETE FROM eval_runs WHERE name = ? AND NOT EXISTS "
        "(SELECT 1 FROM eval_responses WHERE run = ?)",
        [name, name],
    )


def response_row(response: ResponseRecord) -> dict[str, Any]:
    """The ``eval_responses`` columns of a response (``image`` as sorted JSON)."""
    row = asdict(response)
    row["correct"] = int(response.correct)
    row["official_correct"] = int(response.official_correct)
    row["image"] = json.dumps(response.image, sort_keys=True)
    return row


def insert_response(db: Any, response: ResponseRecord) -> bool:
    """Add one response unless its item already has one in the run; whether it was added.

    Run inside a write transaction, so the check and the insert see the same rows.
    """
    if has_response(db, response.run, response.item_id):
        return False
    db["eval_responses"].insert(response_row(response))
    return True


def insert_responses(db: Any, responses: Any) -> int:
    """Add many responses (``INSERT OR IGNORE`` on the (run, item) primary key: an item
    already answered in its run keeps its answer); return how many were added."""
    before = db.conn.total_changes
    db["eval_responses"].insert_all((response_row(r) for r in responses), ignore=True)
    return db.conn.total_changes - before


def has_response(db: Any, run: str, item_id: str) -> bool:
    """Whether ``item_id`` has a stored response in ``run``."""
    found = db.execute(
        "SELECT 1 FROM eval_responses WHERE run = ? AND item_id = ?", [run, item_id]
    ).fetchone()
    return found is not None


def responses(db: Any, run: str) -> dict[str, ResponseRecord]:
    """Every stored response of a run, by item id."""
    found = {}
    for row in db.query("SELECT * FROM eval_responses WHERE run = ?", [run]):
        row["correct"] = bool(row["correct"])
        row["official_correct"] = bool(row["official_correct"])
        row["image"] = json.loads(row["image"] or "{}")
        found[row["item_id"]] = ResponseRecord(**row)
    return found


def parsed_answers(db: Any, runs: list[str]) -> list[tuple[str, str, str | None]]:
    """``(run, item_id, parsed_answer)`` of every stored response of ``runs``, one query
    over the primary key: what a comparison of many runs reads (issue 14, "Speed": 33
    runs × 7,626 answers in about 0.1 s, against about 2 s through :func:`responses`)."""
    if not runs:
        return []
    marks = ", ".join("?" * len(runs))
    return db.execute(
        f"SELECT run, item_id, parsed_answer FROM eval_responses WHERE run IN ({marks})",
        list(runs),
    ).fetchall()


def delete_run(db: Any, name: str) -> int:
    """Remove a run and every response of it; return the responses removed."""
    removed = db.execute("DELETE FROM eval_responses WHERE run = ?", [name]).rowcount
    db.execute("DELETE FROM eval_runs WHERE name = ?", [name])
    return removed


def item_responses(db: Any, item_id: str, runs: list[str]) -> dict[str, ResponseRecord]:
    """The stored response of one item in each of ``runs`` that has one, by run name
    (one lookup per run on the ``(run, item_id)`` primary key)."""
    found = {}
    for run in runs:
        for row in db.query(
            "SELECT * FROM eval_responses WHERE run = ? AND item_id = ?", [run, item_id]
        ):
            row["correct"] = bool(row["correct"])
            row["official_correct"] = bool(row["official_correct"])
            row["image"] = json.loads(row["image"] or "{}")
            found[run] = ResponseRecord(**row)
    return found


def answered_ids(db: Any, run: str) -> set[str]:
    """Items that already have a response in ``run`` (what a resume skips)."""
    return {r[0] for r in db.execute("SELECT item_id FROM eval_responses WHERE run = ?", [run])}
