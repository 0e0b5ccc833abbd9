"""The study database: one facade over the named queries of each domain.

:class:`StudyStore` opens the file (WAL mode, migrated; or read only, the file never
changed: :mod:`~medrcube_desktop.store.read_only`) and runs the queries of
:mod:`~medrcube_desktop.store.review_queries`, :mod:`~medrcube_desktop.store.drafts`,
:mod:`~medrcube_desktop.store.flags_notes`, :mod:`~medrcube_desktop.store.judgments`,
:mod:`~medrcube_desktop.store.studies`, :mod:`~medrcube_desktop.store.evaluation` and
:mod:`~medrcube_desktop.store.app_state`: reads through :meth:`StudyStore._read`, writes
through :meth:`StudyStore.transaction` (one transaction each, written at once). Every
public method raises :class:`~medrcube_desktop.errors.StoreError`, naming the file,
when the database cannot be read or written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from medrcube_desktop.store import app_state, drafts, evaluation, flags_notes, judgments, studies
from medrcube_desktop.store import review_queries as reviews
from medrcube_desktop.store.database import (
    BUSY_TIMEOUT_S,
    open_database,
    read,
    set_busy_timeout,
    write_transaction,
)
from medrcube_desktop.store.drafts import StoredDraft
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from medrcube_desktop.store.expert_store import ExpertStoreMixin
from medrcube_desktop.store.judgments import Judgment
from medrcube_desktop.store.proposal_store import ProposalStoreMixin
from medrcube_desktop.store.read_only import ReadOnlyOpen, open_read_only
from medrcube_desktop.store.review_queries import Review
from medrcube_desktop.store.studies import StudyRecord

T = TypeVar("T")


class StudyStore(ExpertStoreMixin, ProposalStoreMixin):
    """A study's database: reviews, drafts, flags and notes, LLM judgments, agreement
    studies, adjudications and the assignment (:class:`ExpertStoreMixin`), proposed
    corrections and their decisions (:class:`ProposalStoreMixin`), evaluation runs, and
    the app state (locks included).

    Parameters
    ----------
    path : str or Path or None
        SQLite file, created (with its folder) if missing; ``None`` for in memory.
    read_only : bool
        Read an existing file without changing it or its folder (no WAL switch, no
        migration of the file: an older schema is read through a copy migrated in
        memory); every write then raises StoreError.

    Attributes
    ----------
    opened_read_only : ReadOnlyOpen or None
        How a ``read_only`` store was opened (the file's schema version, whether the
        file changed meanwhile); ``None`` for a writing store.

    Raises
    ------
    StoreError
        The file cannot be opened, is not a SQLite database, or cannot be migrated
        (is newer than the app, or missing, for ``read_only``).
    """

    def __init__(self, path: str | Path | None, read_only: bool = False) -> None:
        self.path = Path(path).expanduser() if path is not None else None
        self.opened_read_only: ReadOnlyOpen | None = None
        self._busy_s = BUSY_TIMEOUT_S
        if read_only and self.path is not None:
            self.db, self.opened_read_only = open_read_only(self.path)
        else:
            self.db = open_database(self.path)

    @property
    def conn(self) -> sqlite3.Connection:
        """The underlying sqlite3 connection (autocommit mode; transactions are explicit)."""
        return self.db.conn

    def close(self) -> None:
        """Close the connection (WAL content is checkpointed by SQLite)."""
        self.db.conn.close()

    def holds_nothing(self) -> bool:
        """True when no table holds a row but the schema's own record of its migrations
        (a database just created and never written)."""

        def empty(db) -> bool:
            return not any(
                db[name].count
                for name in db.table_names()
                if name != "schema_migrations" and not name.startswith("sqlite_")
            )

        return self._read("count the rows", empty)

    # ------------------------------------------------------------------ the two paths

    def _read(self, what: str, query: Callable[..., T], *args: Any) -> T:
        """``query(db, *args)``, a read; errors become StoreError ("FILE: cannot WHAT")."""
        return read(self.path, what, lambda: query(self.db, *args))

    @contextmanager
    def transaction(self, what: str) -> Iterator[Any]:
        """A write transaction yielding the ``sqlite_utils.Database``: committed at the
        end of the block, rolled back on any error (raises StoreError, "FILE: cannot
        WHAT"; a StoreError from the block passes through)."""
        with write_transaction(self.db, self.path, what) as db:
            yield db

    def _write(self, what: str, write: Callable[..., T], *args: Any) -> T:
        """``write(db, *args)`` in its own transaction (see :meth:`transaction`)."""
        with self.transaction(what) as db:
            return write(db, *args)

    # ------------------------------------------------------------------ reviews

    def save_review(self, review: Review) -> Review:
        """Write a committed review at once, as the next revision for that item.

        The reviewer's draft of the item is deleted in the same transaction, so a crash
        leaves either the draft or the review, never both or neither. Returns the stored
        review (with ``revision``, ``uid``, rubric and app version filled in).

        Raises
        ------
        StoreError
            A score is missing or not 0/1, or the write fails.
        """
        row = reviews.review_row(review)
        with self.transaction(f"save review of item {review.item_id}") as db:
            row["revision"] = reviews.next_revision(db, review.reviewer, review.item_id)
            reviews.insert_review(db, row)
            drafts.delete_draft(db, review.reviewer, review.item_id)
        return reviews.review_from_row(row)

    def latest_reviews(self, reviewer: str) -> dict[str, Review]:
        """The latest revision of every item ``reviewer`` has committed, by item id."""
        return self._read("read reviews", reviews.latest_reviews, reviewer)

    def first_reviews(self, reviewer: str) -> dict[str, Review]:
        """The first judgment (lowest revision, repeats excluded) of every item
        ``reviewer`` has committed, by item id: what the agreement study uses."""
        return self._read("read reviews", reviews.latest_reviews, reviewer, True)

    def committed_items(self) -> dict[str, set[str]]:
        """Every reviewer's committed items (repeats left out), by reviewer."""
        return self._read("read the committed items", reviews.committed_items)

    def repeat_reviews(self, reviewer: str) -> dict[str, Review]:
        """The intra-rater repeat of each item ``reviewer`` scored twice, by item id."""
        return self._read("read repeated reviews", reviews.repeat_reviews, reviewer)

    def first_review_order(self, reviewer: str) -> list[str]:
        """Item ids in the order ``reviewer`` first committed them."""
        return self._read("read the review order", reviews.first_review_order, reviewer)

    def reviewers(self) -> list[str]:
        """Every reviewer with at least one committed review, sorted."""
        return self._read("list reviewers", reviews.reviewers)

    def item_reviews(self, item_id: str) -> dict[str, Review]:
        """The latest review of one item by every reviewer, by reviewer."""
        return self._read(f"read the reviews of item {item_id}", reviews.item_reviews, item_id)

    def review_history(self, reviewer: str, item_id: str) -> list[Review]:
        """Every revision of one item by one reviewer, oldest first."""
        what = f"read the history of item {item_id}"
        return self._read(what, reviews.review_history, reviewer, item_id)

    def reviews_by_item(self, reviewer: str) -> dict[str, list[Review]]:
        """Every review row of ``reviewer`` (revisions and repeats), by item id, oldest
        revision first."""
        return self._read("read reviews", reviews.reviews_by_item, reviewer)

    # ------------------------------------------------------------------ drafts, flags, notes

    def save_draft(self, draft: StoredDraft, position_key: str | None = None) -> None:
        """Write (replace) a draft at once; with ``position_key``, also store the item as
        the resume position (``app_state``) in the same transaction.

        Raises
        ------
        StoreError
            A score is not 0, 1 or None, active seconds are negative, or the write fails.
        """
        row = drafts.draft_row(draft)
        with self.transaction(f"save the draft of item {draft.item_id}") as db:
            drafts.replace_draft(db, row)
            if position_key:
                app_state.set_state(db, position_key, draft.item_id)

    def drafts(self, reviewer: str) -> dict[str, StoredDraft]:
        """Every saved draft of ``reviewer``, by item id."""
        return self._read("read drafts", drafts.drafts, reviewer)

    def delete_draft(self, reviewer: str, item_id: str) -> None:
        """Drop a draft (the reviewer discarded their edits)."""
        self._write(f"discard the draft of item {item_id}", drafts.delete_draft, reviewer, item_id)

    def set_flag(self, reviewer: str, item_id: str, flagged: bool, when: str) -> None:
        """Flag or unflag an item for a reviewer, at once (an unflag is kept with its
        time, so that ``merge`` lets the later of two changes win)."""
        self._write(
            f"flag item {item_id}", flags_notes.upsert_flag, reviewer, item_id, flagged, when
        )

    def flags(self, reviewer: str) -> set[str]:
        """Ids of the items ``reviewer`` has flagged."""
        return self._read("read flags", flags_notes.flags, reviewer)

    def add_disagreement_note(
        self, review_uid: str, model: str, rules: list[str], comment: str, when: str
    ) -> None:
        """Store why a reviewer keeps scores that disagree with the revealed LLM judgment
        (one note per committed review: a second replaces the first)."""
        self._write(
            "save the disagreement note",
            flags_notes.replace_note,
            review_uid,
            model,
            rules,
            comment,
            when,
        )

    def noted_review_uids(self, reviewer: str) -> set[str]:
        """uids of ``reviewer``'s reviews that have a disagreement note."""
        return self._read("read disagreement notes", flags_notes.noted_review_uids, reviewer)

    def disagreement_notes(self, reviewer: str) -> dict[str, str]:
        """Disagreement notes of ``reviewer``'s reviews, by item id."""
        return self._read("read disagreement notes", flags_notes.disagreement_notes, reviewer)

    # ------------------------------------------------------------------ LLM judgments

    def save_judgment(self, judgment: Judgment) -> Judgment:
        """Write one judgment at once; return it with its ``uid``.

        Raises
        ------
        StoreError
            An ``ok`` judgment lacks a 0/1 score for a rule, or the write fails.
        """
        row = judgments.judgment_row(judgment)
        self._write(f"save the judgment of item {judgment.item_id}", judgments.insert_judgment, row)
        return Judgment(**{**judgment.__dict__, "uid": row["uid"]})

    def judgments(self, model: str) -> dict[str, Judgment]:
        """The latest successful judgment by ``model`` of every item, by item id."""
        return self._read(f"read the judgments of {model}", judgments.latest_judgments, model)

    def has_judgment_uid(self, uid: str) -> bool:
        """Whether a judgment with this stable id is stored."""
        return self._read("look a judgment up", judgments.has_judgment_uid, uid)

    def judged_item_ids(self, model: str, prompt_sha256: str | None = None) -> set[str]:
        """Ids of the items with a successful judgment by ``model`` (under that prompt
        hash when given): what a resumed run skips."""
        what = f"read the items {model} judged"
        return self._read(what, judgments.judged_item_ids, model, prompt_sha256)

    def failed_judgments(self, model: str) -> dict[str, Judgment]:
        """The latest failure of each item ``model`` has no successful judgment of."""
        return self._read(f"read the failures of {model}", judgments.failed_judgments, model)

    def judgment_models(self) -> list[str]:
        """Models with at least one successful judgment, most judgments first."""
        return self._read("list judged models", judgments.judgment_models)

    # ------------------------------------------------------------------ agreement studies

    def save_study(
        self, name: str, seed: int, stratify: str, item_ids: list[str], when: str
    ) -> StudyRecord:
        """Create a study, or add items to an existing one (same seed and stratification).

        Items already in the study keep their position; new ones are appended in the
        order given. Raises StoreError when the name exists with another seed or
        stratification, or the write fails.
        """
        what = f"save study {name}"
        self._write(what, studies.add_study_items, name, seed, stratify, item_ids, when)
        record = self.study(name)
        assert record is not None
        return record

    def study(self, name: str) -> StudyRecord | None:
        """A study by name, or ``None``."""
        return self._read(f"read study {name}", studies.study, name)

    def study_names(self) -> list[str]:
        """Names of every study, oldest first."""
        return self._read("list studies", studies.study_names)

    # ------------------------------------------------------------------ evaluation runs

    def save_run(self, run: RunRecord) -> RunRecord:
        """Create a run, or return the stored one of that name as it is.

        Whether the stored run may be resumed with ``run``'s settings is decided by the
        runner (:func:`medrcube_desktop.evaluation.runner.open_run`) before this.
        """

        def create(db: Any) -> RunRecord:
            existing = evaluation.eval_run(db, run.name)
            if existing is not None:
                return existing
            evaluation.insert_run(db, run)
            return run

        return self._write(f"create run {run.name}", create)

    def add_run_provenance(self, name: str, library_versions: dict, gpu: str) -> None:
        """Add what the engine learned once started (vLLM version, GPU name) to a run:
        versions are merged into the stored ones, an empty ``gpu`` keeps the stored one."""

        def add(db: Any) -> None:
            record = evaluation.eval_run(db, name)
            if record is not None:
                versions = {**record.library_versions, **library_versions}
                evaluation.set_run_provenance(db, name, versions, gpu or record.gpu)

        self._write(f"update run {name}", add)

    def delete_empty_run(self, name: str) -> None:
        """Remove a run that holds no response (its engine never started); a run with
        answers is never deleted."""
        self._write(f"remove the empty run {name}", evaluation.delete_empty_run, name)

    def eval_run(self, name: str) -> RunRecord | None:
        """A run by name, or ``None``."""
        return self._read(f"read run {name}", evaluation.eval_run, name)

    def eval_run_names(self) -> list[str]:
        """Every run, oldest first."""
        return self._read("list runs", evaluation.eval_run_names)

    def save_response(self, response: ResponseRecord) -> bool:
        """Store one response at once; False (nothing written) when the item already has
        one in this run."""
        what = f"save the response to item {response.item_id}"
        return self._write(what, evaluation.insert_response, response)

    def save_responses(self, responses: Sequence[ResponseRecord]) -> int:
        """Store many responses in one transaction (an import); an item that already has
        a response in its run is skipped. Returns how many were added; on an error
        nothing of the batch is written."""
        what = f"save {len(responses)} responses"
        with self.transaction(what) as db:
            return evaluation.insert_responses(db, responses)

    def replace_run(self, run: RunRecord, responses: Sequence[ResponseRecord]) -> int:
        """Replace the run of ``run.name`` (if any) by ``run`` and ``responses`` in one
        transaction (``import-run --replace``): a failure leaves the old run as it was.
        Returns the responses stored."""

        def replace(db: Any) -> int:
            evaluation.delete_run(db, run.name)
            evaluation.insert_run(db, run)
            return evaluation.insert_responses(db, responses)

        return self._write(f"replace run {run.name}", replace)

    def delete_run(self, name: str) -> int:
        """Remove a run and all its responses (``import-run --replace``); the number of
        responses removed (0 when there is no such run)."""
        return self._write(f"remove run {name}", evaluation.delete_run, name)

    def parsed_answers(self, runs: Sequence[str]) -> list[tuple[str, str, str | None]]:
        """``(run, item_id, parsed_answer)`` of every response of ``runs`` in one query
        (what :func:`~medrcube_desktop.evaluation.compare.matrix.run_matrix` reads)."""
        return self._read("read the answers of runs", evaluation.parsed_answers, list(runs))

    def responses(self, run: str) -> dict[str, ResponseRecord]:
        """Every stored response of a run, by item id."""
        return self._read(f"read the responses of run {run}", evaluation.responses, run)

    def item_responses(self, item_id: str, runs: list[str]) -> dict[str, ResponseRecord]:
        """One item's stored response in each of ``runs`` that has one, by run name."""
        what = f"read the answers to item {item_id}"
        return self._read(what, evaluation.item_responses, item_id, list(runs))

    def answered_ids(self, run: str) -> set[str]:
        """Items that already have a response in ``run`` (what a resume skips)."""
        return self._read(f"read run {run}", evaluation.answered_ids, run)

    def rescored_runs(self) -> list[RunRecord]:
        """Every run ``rescore`` made (``params.rescored_from`` set), oldest first."""
        return self._read("list the rescored runs", evaluation.rescored_runs)

    # ------------------------------------------------------------------ app state

    def get_state(self, key: str) -> str | None:
        """Value of an ``app_state`` key, or ``None``."""
        return self._read(f"read {key}", app_state.get_state, key)

    def set_state(self, key: str, value: str) -> None:
        """Set an ``app_state`` key, written at once."""
        self._write(f"save {key}", app_state.set_state, key, value)

    def wait_for_writes(self, seconds: float) -> None:
        """Let every later write wait at most ``seconds`` for another connection's write
        lock, with no retry (the window: :data:`~.database.WINDOW_WRITE_WAIT_S`), then
        fail with StoreBusy; the default waits up to :data:`~.database.WRITE_WAIT_S`."""
        self._busy_s = seconds
        set_busy_timeout(self.db, seconds)

    def set_state_quickly(self, key: str, value: str, wait_ms: int = 200) -> None:
        """Like :meth:`set_state` but waits at most ``wait_ms`` for a lock (GUI thread use).

        For best-effort state such as the resume position; raises StoreError when busy.
        """
        set_busy_timeout(self.db, wait_ms / 1000)
        try:
            self.set_state(key, value)
        finally:
            set_busy_timeout(self.db, self._busy_s)

    def claim(self, key: str, value: str, is_stale: Callable[[str], bool]) -> str | None:
        """Set ``app_state[key] = value`` unless another holder's value is there and
        ``is_stale(value)`` says it is still alive; return that holder's value, or
        ``None`` when the claim succeeded. Atomic across processes."""

        def write(db: Any) -> str | None:
            held = app_state.get_state(db, key)
            if held is not None and not is_stale(held):
                return held
            app_state.set_state(db, key, value)
            return None

        return self._write(f"claim {key}", write)

    def release(self, key: str, value: str) -> None:
        """Drop ``app_state[key]`` if it still holds ``value``."""
        self._write(f"release {key}", app_state.delete_state_if, key, value)
