"""The review store: small named queries over one SQLite file (sqlite-utils, WAL mode).

Every committed review is written at once, in its own transaction; rows are never
updated or deleted (a re-review adds the next revision).
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from medrcube_desktop import __version__
from medrcube_desktop.core.rubric import RULE_IDS, load_rubric, score_column
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.drafts import DraftQueries
from medrcube_desktop.store.evaluation import EvaluationQueries
from medrcube_desktop.store.judgments import JudgmentQueries
from medrcube_desktop.store.migrations import migrate
from medrcube_desktop.store.studies import StudyQueries

BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another connection's lock before failing (seconds)."""


def utc_now() -> str:
    """Current UTC time as ISO 8601 with offset, second precision."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Review:
    """One committed review.

    Attributes
    ----------
    reviewer, item_id : str
    scores : dict[str, int]
        Rule id ("1.1" … "2.3") to 0 (fail) or 1 (pass); always all seven rules.
    comment : str
    started_at, committed_at : str
        ISO 8601 UTC timestamps.
    revision : int
        1 for the first judgment; later commits of the same item add 2, 3…
    rubric_version, app_version : str
    active_seconds : float
        Time the reviewer was active on the item for this revision (seconds, idle
        periods excluded; see :class:`medrcube_desktop.review.timing.ActiveTimer`).
    tags : tuple of str
        Quick tags chosen with the comment (``resources/review_tags.json``).
    repeat : bool
        True for an intra-rater repeat: the item shown a second time, blind to the
        first scores. A repeat is not a revision of the review (``latest_reviews``
        ignores it).
    uid : str
        Stable id of the row across databases ('' until stored), used by ``merge``.
    source : str
        ``"app"`` or ``"import"`` (from a CSV); ``merge`` keeps the row's source.
    blind : bool
        True when nothing (LLM judgment, other reviewers' scores) had been revealed to
        the reviewer about this item before the commit: a blind judgment.
    """

    reviewer: str
    item_id: str
    scores: dict[str, int]
    comment: str
    started_at: str
    committed_at: str
    revision: int = 1
    rubric_version: str = ""
    app_version: str = ""
    active_seconds: float = 0.0
    tags: tuple[str, ...] = ()
    repeat: bool = False
    uid: str = ""
    source: str = "app"
    blind: bool = True


def _retry_while_busy(operation, seconds: float = BUSY_TIMEOUT_S) -> None:
    """Run ``operation``; while SQLite says the database is locked, retry for ``seconds``.

    Switching the journal mode can fail with SQLITE_BUSY at once, without waiting on the
    busy timeout, when another process opens the same new file at the same moment.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            operation()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class ReviewStore(DraftQueries, JudgmentQueries, StudyQueries, EvaluationQueries):
    """A study's review database.

    Parameters
    ----------
    path : str or Path or None
        SQLite file, created (with its folder) if missing; ``None`` for in memory.

    Raises
    ------
    StoreError
        The file cannot be opened, is not a SQLite database, or cannot be migrated.
    """

    def __init__(self, path: str | Path | None) -> None:
        import sqlite_utils

        self.path = Path(path).expanduser() if path is not None else None
        try:
            if self.path is None:
                conn = sqlite3.connect(":memory:", isolation_level=None)
            else:
                if self.path.is_dir():
                    raise StoreError(f"{self.path}: is a folder, not a review database file")
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
            conn.execute("PRAGMA foreign_keys = ON")
            self.db = sqlite_utils.Database(conn)
            if self.path is not None:
                _retry_while_busy(self.db.enable_wal)  # may meet another process's lock
                conn.execute("PRAGMA synchronous = FULL")
            try:
                migrate(conn, self.path)
            except StoreError:
                conn.close()
                raise
        except (sqlite3.Error, OSError) as exc:
            hint = (
                " (is the file or its folder read-only?)"
                if "unable to open" in str(exc) or "readonly" in str(exc)
                else ""
            )
            raise StoreError(f"{self.path}: cannot open review database: {exc}{hint}") from exc

    def close(self) -> None:
        """Close the connection (WAL content is checkpointed by SQLite)."""
        self.db.conn.close()

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
        row = review_row(review)
        try:
            with self.db.conn:  # one transaction: read next revision, insert, drop draft
                self.conn.execute("BEGIN IMMEDIATE")
                (last,) = self.conn.execute(
                    "SELECT COALESCE(MAX(revision), 0) FROM reviews WHERE reviewer = ? AND item_id = ?",
                    (review.reviewer, review.item_id),
                ).fetchone()
                row["revision"] = last + 1
                columns = ", ".join(row)
                marks = ", ".join(f":{c}" for c in row)
                self.conn.execute(f"INSERT INTO reviews ({columns}) VALUES ({marks})", row)
                self.conn.execute(
                    "DELETE FROM drafts WHERE reviewer = ? AND item_id = ?",
                    (review.reviewer, review.item_id),
                )
        except (sqlite3.Error, UnicodeError) as exc:
            raise StoreError(
                f"{self.path}: cannot save review of item {review.item_id}: {exc}"
            ) from exc
        return review_from_row(row)

    def latest_reviews(self, reviewer: str) -> dict[str, Review]:
        """The latest revision of every item ``reviewer`` has committed, by item id.

        Raises
        ------
        StoreError
            The database cannot be read (locked, corrupt).
        """
        return self._read(lambda: self._latest_reviews(reviewer), "read reviews")

    def _latest_reviews(self, reviewer: str, first: bool = False) -> dict[str, Review]:
        rows = self.db.query(
            f"SELECT r.* FROM reviews r JOIN (SELECT item_id, {'MIN' if first else 'MAX'}(revision) "
            "AS revision FROM reviews WHERE reviewer = :reviewer AND repeat = 0 GROUP BY item_id) "
            "last ON r.item_id = last.item_id AND r.revision = last.revision "
            "WHERE r.reviewer = :reviewer",
            {"reviewer": reviewer},
        )
        return {row["item_id"]: review_from_row(row) for row in rows}

    def first_reviews(self, reviewer: str) -> dict[str, Review]:
        """The first judgment (lowest revision, repeats excluded) of every item ``reviewer``
        has committed, by item id: what the agreement study uses by default.

        Raises
        ------
        StoreError
            The database cannot be read.
        """
        return self._read(lambda: self._latest_reviews(reviewer, first=True), "read reviews")

    def repeat_reviews(self, reviewer: str) -> dict[str, Review]:
        """The intra-rater repeat of each item ``reviewer`` scored twice, by item id
        (the first repeat when there are several; raises StoreError)."""

        def query() -> dict[str, Review]:
            rows = self.db.query(
                "SELECT * FROM reviews WHERE reviewer = ? AND repeat = 1 ORDER BY revision DESC",
                [reviewer],
            )
            return {row["item_id"]: review_from_row(row) for row in rows}

        return self._read(query, "read repeated reviews")

    def first_review_order(self, reviewer: str) -> list[str]:
        """Item ids in the order ``reviewer`` first committed them (raises StoreError)."""
        return self._read(
            lambda: [
                r[0]
                for r in self.conn.execute(
                    "SELECT item_id FROM reviews WHERE reviewer = ? AND repeat = 0 AND revision = 1 "
                    "ORDER BY id",
                    (reviewer,),
                )
            ],
            "read the review order",
        )

    def reviewers(self) -> list[str]:
        """Every reviewer with at least one committed review, sorted (raises StoreError)."""
        return self._read(
            lambda: [
                r[0] for r in self.conn.execute("SELECT DISTINCT reviewer FROM reviews ORDER BY 1")
            ],
            "list reviewers",
        )

    def item_reviews(self, item_id: str) -> dict[str, Review]:
        """The latest review of one item by every reviewer, by reviewer (raises StoreError)."""

        def query() -> dict[str, Review]:
            rows = self.db.query(
                "SELECT * FROM reviews WHERE item_id = ? AND repeat = 0 ORDER BY revision",
                [item_id],
            )
            return {row["reviewer"]: review_from_row(row) for row in rows}

        return self._read(query, f"read the reviews of item {item_id}")

    def review_history(self, reviewer: str, item_id: str) -> list[Review]:
        """Every revision of one item by one reviewer, oldest first (raises StoreError)."""

        def query() -> list[Review]:
            rows = self.db.query(
                "SELECT * FROM reviews WHERE reviewer = ? AND item_id = ? ORDER BY revision",
                [reviewer, item_id],
            )
            return [review_from_row(row) for row in rows]

        return self._read(query, f"read the history of item {item_id}")

    def get_state(self, key: str) -> str | None:
        """Value of an ``app_state`` key, or ``None`` (raises StoreError)."""

        def query() -> str | None:
            row = self.conn.execute("SELECT value FROM app_state WHERE key = ?", (key,)).fetchone()
            return row[0] if row else None

        return self._read(query, f"read {key}")

    def set_state(self, key: str, value: str) -> None:
        """Set an ``app_state`` key, written at once (raises StoreError)."""

        def write() -> None:
            self.conn.execute(
                "INSERT INTO app_state (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

        self._read(write, f"save {key}")

    def claim(self, key: str, value: str, is_stale) -> str | None:
        """Set ``app_state[key] = value`` unless another holder's value is there and
        ``is_stale(value)`` says it is still alive; return that holder's value, or
        ``None`` when the claim succeeded. Atomic across processes (raises StoreError).
        """

        def write() -> str | None:
            with self.db.conn:
                self.conn.execute("BEGIN IMMEDIATE")
                row = self.conn.execute(
                    "SELECT value FROM app_state WHERE key = ?", (key,)
                ).fetchone()
                if row is not None and not is_stale(row[0]):
                    return row[0]
                self.conn.execute(
                    "INSERT INTO app_state (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )
            return None

        return self._read(write, f"claim {key}")

    def release(self, key: str, value: str) -> None:
        """Drop ``app_state[key]`` if it still holds ``value`` (raises StoreError)."""
        self._read(
            lambda: self.conn.execute(
                "DELETE FROM app_state WHERE key = ? AND value = ?", (key, value)
            ),
            f"release {key}",
        )

    def set_state_quickly(self, key: str, value: str, wait_ms: int = 200) -> None:
        """Like :meth:`set_state` but waits at most ``wait_ms`` for a lock (GUI thread use).

        For best-effort state such as the resume position; raises StoreError when busy.
        """
        self.conn.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        try:
            self.set_state(key, value)
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")


def review_row(review: Review) -> dict[str, str | int | float]:
    """The ``reviews`` columns of a review, without ``id`` and ``revision``.

    A new ``uid`` is made when the review has none.

    Raises
    ------
    StoreError
        A score is missing or not 0/1, or ``active_seconds`` is negative or not finite.
    """
    if set(review.scores) != set(RULE_IDS) or any(
        v not in (0, 1) or isinstance(v, bool) for v in review.scores.values()
    ):
        raise StoreError(
            f"item {review.item_id}: scores must give 0 or 1 for each of {list(RULE_IDS)}"
        )
    if not (math.isfinite(review.active_seconds) and review.active_seconds >= 0):
        raise StoreError(
            f"item {review.item_id}: active seconds must be a finite number >= 0, "
            f"got {review.active_seconds!r}"
        )
    row: dict[str, str | int | float] = {
        "uid": review.uid or uuid.uuid4().hex,
        "reviewer": review.reviewer,
        "item_id": review.item_id,
        "comment": review.comment,
        "started_at": review.started_at,
        "committed_at": review.committed_at,
        "rubric_version": review.rubric_version or load_rubric().version,
        "app_version": review.app_version or __version__,
        "active_seconds": round(float(review.active_seconds), 3),
        "tags": json.dumps(list(review.tags), ensure_ascii=False),
        "repeat": int(review.repeat),
        "source": review.source,
        "blind": int(review.blind),
    }
    row.update({score_column(r): int(review.scores[r]) for r in RULE_IDS})
    return row


def review_from_row(row: dict) -> Review:
    """A :class:`Review` from a ``reviews`` row (a mapping of column to value)."""
    return Review(
        reviewer=row["reviewer"],
        item_id=row["item_id"],
        scores={r: int(row[score_column(r)]) for r in RULE_IDS},
        comment=row["comment"],
        started_at=row["started_at"],
        committed_at=row["committed_at"],
        revision=int(row["revision"]),
        rubric_version=row["rubric_version"],
        app_version=row["app_version"],
        active_seconds=float(row.get("active_seconds", 0.0)),
        tags=tuple(json.loads(row.get("tags") or "[]")),
        repeat=bool(row.get("repeat", 0)),
        uid=row.get("uid") or "",
        source=row.get("source", "app"),
        blind=bool(row.get("blind", 1)),
    )
