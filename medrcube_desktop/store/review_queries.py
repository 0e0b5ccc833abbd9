"""Committed reviews (``reviews``): the row format and its named queries.

Every function takes the ``sqlite_utils.Database`` first and raises ``sqlite3.Error``
(or ``ValueError`` for bad stored JSON) as it comes; the facade
:class:`~medrcube_desktop.store.study_store.StudyStore` turns those into StoreError and
runs the writes in a transaction. Rows are never deleted: a re-review adds the next
revision. :func:`insert_review` is the one function that adds a row to ``reviews`` and
:func:`renumber_revisions` the one that changes rows (their revision numbers). From
schema v7 the database itself refuses any other change (``reviews_never_*`` triggers).
"""

from __future__ import annotations

import json
import math
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from medrcube_desktop import __version__
from medrcube_desktop.core.rubric import (
    CANNOT_JUDGE,
    RULE_IDS,
    abstained_rules,
    load_rubric,
    score_column,
)
from medrcube_desktop.errors import StoreError


@dataclass(frozen=True)
class Review:
    """One committed review.

    Attributes
    ----------
    reviewer, item_id : str
    scores : dict[str, int | str]
        Rule id ("1.1" … "2.3") to 0 (fail), 1 (pass) or
        :data:`~medrcube_desktop.core.rubric.CANNOT_JUDGE` (the expert abstained:
        neither; stored in ``abstained``, schema v11); always all seven rules.
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
    image_shown : bool or None
        True when the window showed the item's image before the commit; False when it
        did not (a restricted item reviewed on its text only, an image that failed to
        load or was still loading); None when not known (rows before schema v6, a
        session without a window, a CSV without the column).
    """

    reviewer: str
    item_id: str
    scores: dict[str, int | str]
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
    image_shown: bool | None = None


def review_row(review: Review) -> dict[str, str | int | float | None]:
    """The ``reviews`` columns of a review, without ``id`` and ``revision``
    (``image_shown`` only when known).

    A new ``uid`` is made when the review has none. An abstained rule
    (:data:`~medrcube_desktop.core.rubric.CANNOT_JUDGE`) is listed in ``abstained`` (a
    JSON array of rule ids) and its score column holds 0, which no reader takes as a
    score (``review_db/migrations/0011_cannot_judge.sql``); ``abstained`` is given only
    when a rule is abstained, so rows without one are written as before.

    Raises
    ------
    StoreError
        A score is missing or not 0/1/``CANNOT_JUDGE``, or ``active_seconds`` is negative
        or not finite.
    """
    if set(review.scores) != set(RULE_IDS) or any(
        (v not in (0, 1) or isinstance(v, bool)) and v != CANNOT_JUDGE
        for v in review.scores.values()
    ):
        raise StoreError(
            f"item {review.item_id}: scores must give 0, 1 or {CANNOT_JUDGE!r} for each of "
            f"{list(RULE_IDS)}"
        )
    if not (math.isfinite(review.active_seconds) and review.active_seconds >= 0):
        raise StoreError(
            f"item {review.item_id}: active seconds must be a finite number >= 0, "
            f"got {review.active_seconds!r}"
        )
    row: dict[str, str | int | float | None] = {
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
    if review.image_shown is not None:  # unknown: the column's NULL
        row["image_shown"] = int(review.image_shown)
    abstained = abstained_rules(review.scores)
    if abstained:  # no abstention: the column's default '[]'
        row["abstained"] = json.dumps(abstained)
    row.update({score_column(r): 0 if r in abstained else int(review.scores[r]) for r in RULE_IDS})
    return row


def review_from_row(row: dict) -> Review:
    """A :class:`Review` from a ``reviews`` row (a mapping of column to value); a rule
    listed in ``abstained`` (v11) reads :data:`~medrcube_desktop.core.rubric.CANNOT_JUDGE`
    whatever its score column holds."""
    abstained = set(json.loads(row.get("abstained") or "[]"))
    return Review(
        reviewer=row["reviewer"],
        item_id=row["item_id"],
        scores={r: CANNOT_JUDGE if r in abstained else int(row[score_column(r)]) for r in RULE_IDS},
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
        image_shown=None if row.get("image_shown") is None else bool(row["image_shown"]),
    )


# ---------------------------------------------------------------------------- writes


def insert_review(db: Any, row: dict[str, Any]) -> None:
    """Add one row to ``reviews`` as given (``revision`` included): the one insert path.

    ``row`` is :func:`review_row` with a ``revision``, or a row copied whole from another
    review database. Raises ``sqlite3.IntegrityError`` when (reviewer, item, revision)
    or ``uid`` is taken or a CHECK fails.
    """
    db["reviews"].insert(row)


def next_revision(db: Any, reviewer: str, item_id: str) -> int:
    """One above the highest revision of (reviewer, item), repeats included; 1 for none."""
    (last,) = db.execute(
        "SELECT COALESCE(MAX(revision), 0) FROM reviews WHERE reviewer = ? AND item_id = ?",
        [reviewer, item_id],
    ).fetchone()
    return int(last) + 1


def free_revision(db: Any, reviewer: str, item_id: str) -> int:
    """A revision number free for a row copied in before :func:`renumber_revisions`:
    :func:`next_revision`, but never 1 (a row at revision 1 is a first judgment, which
    the database keeps there), so the renumbering decides which row is first."""
    return max(next_revision(db, reviewer, item_id), 2)


def renumber_revisions(
    db: Any, reviewer: str, item_id: str, origin: dict[str, int] | None = None
) -> None:
    """Number the reviews of one (reviewer, item) 1..n by (``committed_at``, revision,
    ``uid``), inside the caller's transaction; a stored first judgment (revision 1, not
    a repeat) keeps revision 1 whatever the times say (the database refuses to move it:
    ``reviews_first_judgment_kept``, v7), so callers refuse a row committed before it.

    ``origin`` gives, for rows just copied from another database, the revision they had
    there (used instead of their temporary one). ``committed_at`` values are compared as
    UTC times; one that does not parse sorts after all that do. Rows are first moved
    above every current number, then set, so UNIQUE (reviewer, item_id, revision) holds
    at every step, and the database's checks on a revision change
    (``reviews_revision_kept``, v8) pass at every step.
    """
    origin = origin or {}
    rows = db.execute(
        "SELECT id, committed_at, revision, uid, repeat FROM reviews "
        "WHERE reviewer = ? AND item_id = ?",
        [reviewer, item_id],
    ).fetchall()
    if not rows:
        return

    def pinned(row: tuple) -> bool:
        return row[2] == 1 and not row[4]

    rows.sort(key=lambda r: (not pinned(r), *time_key(r[1]), origin.get(r[3], r[2]), r[3] or ""))
    shift = max(r[2] for r in rows) + len(rows)
    # in increasing revision, so each lands above every current number: the database
    # allows a revision change only onto a free number above them all or onto a place
    # 1..n in commit order (reviews_revision_kept, v8)
    moved = sorted((row for row in rows if not pinned(row)), key=lambda r: r[2])
    db.conn.executemany(
        "UPDATE reviews SET revision = ? WHERE id = ?", [(r[2] + shift, r[0]) for r in moved]
    )
    db.conn.executemany(
        "UPDATE reviews SET revision = ? WHERE id = ?",
        [(number, row[0]) for number, row in enumerate(rows, start=1) if not pinned(row)],
    )


def time_key(text: str) -> tuple[float, str]:
    """Sort key of an ISO 8601 time: (POSIX seconds, ""); unparsable text sorts last, by
    its text."""
    try:
        moment = datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return (math.inf, str(text))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return (moment.timestamp(), "")
    except (OverflowError, OSError):  # out of range in UTC (year 1 at +05:00)
        return (math.inf, str(text))


# ---------------------------------------------------------------------------- reads


def latest_reviews(db: Any, reviewer: str, first: bool = False) -> dict[str, Review]:
    """The latest (with ``first``: the first) revision of every item ``reviewer`` has
    committed, intra-rater repeats left out, by item id."""
    pick = "MIN" if first else "MAX"  # one of two fixed words, never outside text
    rows = db.query(
        f"SELECT r.* FROM reviews r JOIN (SELECT item_id, {pick}(revision) AS revision "
        "FROM reviews WHERE reviewer = :reviewer AND repeat = 0 GROUP BY item_id) last "
        "ON r.item_id = last.item_id AND r.revision = last.revision "
        "WHERE r.reviewer = :reviewer",
        {"reviewer": reviewer},
    )
    return {row["item_id"]: review_from_row(row) for row in rows}


def committed_items(db: Any) -> dict[str, set[str]]:
    """Every reviewer's committed items (repeats left out), by reviewer, in one query."""
    found: dict[str, set[str]] = {}
    for reviewer, item_id in db.execute(
        "SELECT DISTINCT reviewer, item_id FROM reviews WHERE repeat = 0"
    ):
        found.setdefault(reviewer, set()).add(item_id)
    return found


def repeat_reviews(db: Any, reviewer: str) -> dict[str, Review]:
    """The intra-rater repeat of each item ``reviewer`` scored twice, by item id (the
    first repeat when there are several)."""
    rows = db.query(
        "SELECT * FROM reviews WHERE reviewer = ? AND repeat = 1 ORDER BY revision DESC",
        [reviewer],
    )
    return {row["item_id"]: review_from_row(row) for row in rows}


def first_review_order(db: Any, reviewer: str) -> list[str]:
    """Item ids in the order ``reviewer`` first committed them (repeats left out)."""
    rows = db.execute(
        "SELECT item_id FROM reviews WHERE reviewer = ? AND repeat = 0 AND revision = 1 "
        "ORDER BY id",
        [reviewer],
    )
    return [r[0] for r in rows]


def reviewers(db: Any) -> list[str]:
    """Every reviewer with at least one committed review, sorted."""
    return [r[0] for r in db.execute("SELECT DISTINCT reviewer FROM reviews ORDER BY 1")]


def item_reviews(db: Any, item_id: str) -> dict[str, Review]:
    """The latest review (repeats left out) of one item by every reviewer, by reviewer."""
    rows = db.query(
        "SELECT * FROM reviews WHERE item_id = ? AND repeat = 0 ORDER BY revision", [item_id]
    )
    return {row["reviewer"]: review_from_row(row) for row in rows}


def review_history(db: Any, reviewer: str, item_id: str) -> list[Review]:
    """Every revision (repeats included) of one item by one reviewer, oldest first."""
    rows = db.query(
        "SELECT * FROM reviews WHERE reviewer = ? AND item_id = ? ORDER BY revision",
        [reviewer, item_id],
    )
    return [review_from_row(row) for row in rows]


def reviews_by_item(db: Any, reviewer: str) -> dict[str, list[Review]]:
    """Every review row of ``reviewer`` (revisions and repeats), by item id, oldest
    revision first."""
    found: dict[str, list[Review]] = {}
    for row in db.query(
        "SELECT * FROM reviews WHERE reviewer = ? ORDER BY item_id, revision", [reviewer]
    ):
        found.setdefault(row["item_id"], []).append(review_from_row(row))
    return found
