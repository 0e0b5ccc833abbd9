"""Evaluation runs and their responses (``eval_runs``, ``eval_responses``).

A response is written the moment it arrives; the primary key (run, item) makes a
resumed run unable to store an item twice.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.base import StoreBase


@dataclass(frozen=True)
class RunRecord:
    """An evaluation run: engine, model, every parameter, provenance.

    ``params`` and ``library_versions`` are JSON-ready dicts; ``text_only`` sends no
    image (the paper's prior-leakage baseline).
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


class EvaluationQueries(StoreBase):
    """Run and response queries (mixed into ``ReviewStore``)."""

    def save_run(self, run: RunRecord) -> RunRecord:
        """Create a run, or return the stored one when resuming it.

        Raises
        ------
        StoreError
            A run of that name exists with another engine, model, prompt or parameters
            (resuming it would mix two experiments).
        """
        existing = self.eval_run(run.name)
        if existing is not None:
            differ = [
                name
                for name, old, new in (
                    ("engine", existing.engine, run.engine),
                    ("model", existing.model, run.model),
                    ("prompt", existing.prompt_sha256, run.prompt_sha256),
                    ("text_only", existing.text_only, run.text_only),
                    # another benchmark: its items would count as answered by id
                    (
                        "benchmark",
                        existing.benchmark or run.benchmark,
                        run.benchmark or existing.benchmark,
                    ),
                )
                if old != new
            ]
            old_params, new_params = _answer_relevant(existing.params), _answer_relevant(run.params)
            differ += sorted(
                key
                for key in set(old_params) | set(new_params)
                if old_params.get(key) != new_params.get(key)
            )
            if differ:
                raise StoreError(
                    f"run {run.name!r} exists with other settings ({', '.join(differ)} differ); "
                    "resume it with the same ones or pick another name"
                )
            return existing
        row = asdict(run)
        row["params"] = json.dumps(run.params, sort_keys=True)
        row["library_versions"] = json.dumps(run.library_versions, sort_keys=True)
        row["text_only"] = int(run.text_only)
        columns = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        self._read(
            lambda: self.conn.execute(f"INSERT INTO eval_runs ({columns}) VALUES ({marks})", row),
            f"create run {run.name}",
        )
        return run

    def add_run_provenance(self, name: str, library_versions: dict, gpu: str) -> None:
        """Add what the engine learned once started (vLLM version, GPU name) to a run
        (raises StoreError)."""
        record = self.eval_run(name)
        if record is None:
            return
        versions = {**record.library_versions, **library_versions}
        self._read(
            lambda: self.conn.execute(
                "UPDATE eval_runs SET library_versions = ?, gpu = ? WHERE name = ?",
                (json.dumps(versions, sort_keys=True), gpu or record.gpu, name),
            ),
            f"update run {name}",
        )

    def delete_empty_run(self, name: str) -> None:
        """Remove a run that holds no response (its engine never started); raises
        StoreError. A run with answers is never deleted."""
        self._read(
            lambda: self.conn.execute(
                "DELETE FROM eval_runs WHERE name = ? AND NOT EXISTS "
                "(SELECT 1 FROM eval_responses WHERE run = ?)",
                (name, name),
            ),
            f"remove the empty run {name}",
        )

    def eval_run(self, name: str) -> RunRecord | None:
        """A run by name, or ``None`` (raises StoreError)."""

        def query() -> RunRecord | None:
            cursor = self.conn.execute("SELECT * FROM eval_runs WHERE name = ?", (name,))
            values = cursor.fetchone()
            if values is None:
                return None
            row = dict(zip([d[0] for d in cursor.description], values, strict=True))
            row["params"] = json.loads(row["params"])
            row["library_versions"] = json.loads(row["library_versions"])
            row["text_only"] = bool(row["text_only"])
            return RunRecord(**row)

        return self._read(query, f"read run {name}")

    def eval_run_names(self) -> list[str]:
        """Every run, oldest first (raises StoreError)."""
        return self._read(
            lambda: [
                r[0] for r in self.conn.execute("SELECT name FROM eval_runs ORDER BY created_at")
            ],
            "list runs",
        )

    def save_response(self, response: ResponseRecord) -> bool:
        """Store one response at once; False (nothing written) when the item already has
        one in this run (raises StoreError)."""
        row = asdict(response)
        row["correct"] = int(response.correct)
        row["official_correct"] = int(response.official_correct)
        row["image"] = json.dumps(response.image, sort_keys=True)
        columns = ", ".join(row)
        marks = ", ".join(f":{c}" for c in row)
        cursor = self._read(
            lambda: self.conn.execute(
                f"INSERT OR IGNORE INTO eval_responses ({columns}) VALUES ({marks})", row
            ),
            f"save the response to item {response.item_id}",
        )
        return cursor.rowcount == 1

    def responses(self, run: str) -> dict[str, ResponseRecord]:
        """Every stored response of a run, by item id (raises StoreError)."""

        def query() -> dict[str, ResponseRecord]:
            cursor = self.conn.execute("SELECT * FROM eval_responses WHERE run = ?", (run,))
            names = [d[0] for d in cursor.description]
            found = {}
            for values in cursor:
                row = dict(zip(names, values, strict=True))
                row["correct"] = bool(row["correct"])
                row["official_correct"] = bool(row["official_correct"])
                row["image"] = json.loads(row["image"] or "{}")
                found[row["item_id"]] = ResponseRecord(**row)
            return found

        return self._read(query, f"read the responses of run {run}")

    def answered_ids(self, run: str) -> set[str]:
        """Items that already have a response in ``run`` (what a resume skips)."""
        return self._read(
            lambda: {
                r[0]
                for r in self.conn.execute(
                    "SELECT item_id FROM eval_responses WHERE run = ?", (run,)
                )
            },
            f"read run {run}",
        )


OPERATIONAL_PARAMS = {
    "base_urls", "concurrency", "timeout_s", "max_attempts", "chunk_size", "attached_to",
    "gpu_memory_utilization", "kv_cache_memory_bytes", "data_parallel_size", "enforce_eager",
}  # fmt: skip
"""Run parameters that do not change the answers: a resume may use other values."""


def _answer_relevant(params: dict) -> dict:
    return {key: value for key, value in params.items() if key not in OPERATIONAL_PARAMS}


def check_run_name(name: str) -> str:
    """A run name, stripped; raises StoreError when blank."""
    if not name.strip():
        raise StoreError("a run needs a name")
    return name.strip()
