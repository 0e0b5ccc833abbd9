"""Review exchange: one reviewer's reviews to and from CSV, and merging whole databases.

Items are named by their benchmark id only, so no benchmark has to be open to import or
export. The CSV format (columns, formula-safe cells) is in
:mod:`medrcube_desktop.store.review_csv`; merging reviewer databases is in
:mod:`medrcube_desktop.store.merging`. Both are re-exported here.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import review_queries
from medrcube_desktop.store.database import utc_now
from medrcube_desktop.store.merging import FileMerge, MergeSummary, merge
from medrcube_desktop.store.review_csv import (
    CSV_COLUMNS,
    REQUIRED_COLUMNS,
    CsvReview,
    neutralise_cell,
    read_reviews_csv,
    restore_cell,
    review_cells,
    write_reviews_csv,
)
from medrcube_desktop.store.review_queries import Review, review_from_row, review_row
from medrcube_desktop.store.study_store import StudyStore

__all__ = [
    "CSV_COLUMNS",
    "REQUIRED_COLUMNS",
    "WHICH",
    "FileMerge",
    "ImportSummary",
    "MergeSummary",
    "export_reviews",
    "import_reviews",
    "merge",
    "neutralise_cell",
    "restore_cell",
    "reviews_by_item",
]

WHICH = ("latest", "first", "all")
"""What :func:`export_reviews` writes: the latest revision of each item, the first
judgment of each item, or every revision and intra-rater repeat."""

# ---------------------------------------------------------------------------- queries


def reviews_by_item(store: StudyStore, reviewer: str) -> dict[str, list[Review]]:
    """Every review row of ``reviewer`` (revisions and repeats), by item id, oldest
    revision first.

    Raises
    ------
    StoreError
        The database cannot be read.
    """
    return store.reviews_by_item(reviewer)


# ---------------------------------------------------------------------------- export


def export_reviews(
    store: StudyStore, reviewer: str, out_path: str | Path, which: str = "latest"
) -> int:
    """Write ``reviewer``'s reviews to a CSV file; return the number of rows written.

    Parameters
    ----------
    store : StudyStore
    reviewer : str
    out_path : str or Path
        CSV file, written atomically (a temporary file in the same folder, then
        renamed over it), UTF-8.
    which : {"latest", "first", "all"}
        ``"latest"``: the latest revision of each item; ``"first"``: the first judgment
        of each item (intra-rater repeats are left out of both); ``"all"``: every
        revision and repeat. Rows are sorted by item id, then revision.

    Raises
    ------
    StoreError
        ``which`` is unknown, the database cannot be read or the file cannot be written
        (the message names the file).
    """
    if which not in WHICH:
        raise StoreError(f"unknown revisions choice {which!r}; expected one of {list(WHICH)}")
    if which == "latest":
        reviews = list(store.latest_reviews(reviewer).values())
    elif which == "first":
        reviews = list(store.first_reviews(reviewer).values())
    else:
        reviews = [r for rows in reviews_by_item(store, reviewer).values() for r in rows]
    reviews.sort(key=lambda r: (r.item_id, r.revision))
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)  # as every other export
    write_reviews_csv(Path(out_path), [review_cells(r) for r in reviews])
    return len(reviews)


# ---------------------------------------------------------------------------- import


@dataclass
class ImportSummary:
    """What :func:`import_reviews` did.

    Attributes
    ----------
    imported : int
        Rows stored as new revisions (or repeats).
    skipped : int
        Rows already stored: identical (same scores, comment and tags) to the
        reviewer's latest review of the item, or to a stored review with the same
        ``committed_at``, or part of a run of rows for one item that the stored
        revisions already end with.
    problems : list of str
        One message per bad cell: ``"FILE line N item ID column COL: reason"``; rows
        with a problem are not imported.
    """

    imported: int = 0
    skipped: int = 0
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: ``{"imported", "skipped", "problems"}``."""
        return {"imported": self.imported, "skipped": self.skipped, "problems": self.problems}


def import_reviews(store: StudyStore, reviewer: str, csv_path: str | Path) -> ImportSummary:
    """Add the reviews of a CSV file as ``reviewer``'s, skipping bad and unchanged rows.

    Each valid row becomes the next revision of its item (rows of one item in file
    order; revisions are then numbered by commit time), with ``source="import"``, unless it is identical (scores, comment, tags) to
    the reviewer's latest review of the item (latest repeat, for a ``repeat`` row) or to
    a stored review committed at the same time, or the item's rows in the file are what
    its stored revisions already end with: then it is skipped, so importing a file twice
    adds nothing. Missing ``committed_at`` defaults to now, missing ``started_at`` to
    ``committed_at``. The reviewer's first judgment of an item never changes: a row
    committed before it (back-dated) is a problem and is not imported. The reviewer's
    drafts are left alone (unlike a commit in the app,
    which drops the draft). All rows are written in one transaction.

    Parameters
    ----------
    store : StudyStore
    reviewer : str
    csv_path : str or Path
        UTF-8 CSV whose header names at least :data:`REQUIRED_COLUMNS` (see
        :func:`~medrcube_desktop.store.review_csv.read_reviews_csv`).

    Returns
    -------
    ImportSummary

    Raises
    ------
    StoreError
        The reviewer name is empty; the file cannot be read, is empty, is not UTF-8 or
        lacks a required column (the message names the file); or the write fails.
    """
    if not reviewer.strip():
        raise StoreError("the reviewer name is empty")
    path = Path(csv_path).expanduser()
    rows, problems = read_reviews_csv(path)
    summary = ImportSummary(problems=problems)
    now = utc_now()
    with store.transaction(f"import {path}") as db:  # what is there and what is added agree
        history = review_queries.reviews_by_item(db, reviewer)
        replayed = _replayed_groups(rows, history)
        seen = _Seen(history)  # constant time per row, however many revisions
        firsts = _first_judgments(history)
        touched: set[str] = set()
        for row in rows:
            if (row.item_id, row.repeat) in replayed or seen.has(row):
                summary.skipped += 1
                continue
            first = firsts.get(row.item_id)
            if first is not None and row.committed_at is not None and _before(row, first):
                summary.problems.append(
                    f"{path} line {row.line} item {row.item_id} column committed_at: "
                    f"{row.committed_at} is before the reviewer's first judgment of the item "
                    f"({first.committed_at}), which never changes; not stored"
                )
                continue
            revision = max(seen.revision(row.item_id), 2)  # free; renumbered below
            seen.add(_insert(db, _review(reviewer, row, now, revision)))
            summary.imported += 1
            touched.add(row.item_id)
        for item_id in sorted(touched):  # revision 1 is the earliest judgment, as in merge
            review_queries.renumber_revisions(db, reviewer, item_id)
    return summary


def _first_judgments(history: dict[str, list[Review]]) -> dict[str, Review]:
    """The stored first judgment (the lowest revision that is not a repeat) of each item."""
    firsts = {}
    for item_id, reviews in history.items():
        first = next((r for r in reviews if not r.repeat), None)
        if first is not None:
            firsts[item_id] = first
    return firsts


def _before(row: CsvReview, first: Review) -> bool:
    """Whether ``row`` was committed before the stored first judgment ``first``."""
    return review_queries.time_key(row.committed_at or "") < review_queries.time_key(
        first.committed_at
    )


def _content(review: Review | CsvReview) -> tuple[object, ...]:
    """What makes two reviews of an item the same: scores, comment and tags."""
    return (tuple(review.scores[r] for r in RULE_IDS), review.comment, review.tags)


class _Seen:
    """What is stored for the reviewer, indexed for :func:`import_reviews`.

    A row is already stored when it repeats the latest review of its kind (revision or
    intra-rater repeat) of the item, or a review of the same kind, content and time.
    """

    def __init__(self, history: dict[str, list[Review]]) -> None:
        self.latest: dict[tuple[str, bool], tuple[object, ...]] = {}
        self.timed: set[tuple[str, bool, tuple[object, ...], str]] = set()
        self.revisions: dict[str, int] = {}
        for reviews in history.values():
            for review in reviews:  # in revision order: the last one is the latest
                self.add(review)

    def add(self, review: Review) -> None:
        content = _content(review)
        self.latest[(review.item_id, review.repeat)] = content
        self.timed.add((review.item_id, review.repeat, content, review.committed_at))
        self.revisions[review.item_id] = max(self.revisions.get(review.item_id, 0), review.revision)

    def has(self, row: CsvReview) -> bool:
        content = _content(row)
        if self.latest.get((row.item_id, row.repeat)) == content:
            return True
        return row.committed_at is not None and (
            (row.item_id, row.repeat, content, row.committed_at) in self.timed
        )

    def revision(self, item_id: str) -> int:
        """The next revision number of ``item_id``."""
        return self.revisions.get(item_id, 0) + 1


def _replayed_groups(
    rows: list[CsvReview], history: dict[str, list[Review]]
) -> set[tuple[str, bool]]:
    """(item id, repeat) groups of several rows whose contents, in file order, are the
    last stored revisions of that kind: the file was imported before, so the whole group
    is skipped (row by row, "A, B" after stored "A, B" would add A and B again)."""
    groups: dict[tuple[str, bool], list[tuple[object, ...]]] = {}
    for row in rows:
        seq = groups.setdefault((row.item_id, row.repeat), [])
        if not seq or seq[-1] != _content(row):
            seq.append(_content(row))
    replayed = set()
    for (item_id, repeat), seq in groups.items():
        kind = [_content(r) for r in history.get(item_id, []) if r.repeat == repeat]
        if len(seq) > 1 and kind[-len(seq) :] == seq:
            replayed.add((item_id, repeat))
    return replayed


def _review(reviewer: str, row: CsvReview, now: str, revision: int) -> Review:
    """The review to store for a CSV row; its revision follows the stored ones.

    A row that gives its commit time gets a uid derived from its content, so the same
    file imported into two databases yields rows that :func:`merge` recognises.
    """
    committed = row.committed_at or now
    uid = ""
    if row.committed_at is not None:
        key = json.dumps(
            [reviewer, row.item_id, row.scores, row.comment, list(row.tags), row.repeat, committed]
        )
        uid = "csv:" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
    return Review(
        reviewer=reviewer,
        item_id=row.item_id,
        scores=row.scores,
        comment=row.comment,
        started_at=row.started_at or committed,
        committed_at=committed,
        revision=revision,
        active_seconds=row.active_seconds,
        tags=row.tags,
        repeat=row.repeat,
        uid=uid,
        source="import",
        blind=row.blind,
        image_shown=row.image_shown,
    )


def _insert(db: Any, review: Review) -> Review:
    """Insert one review row at its revision (inside the caller's transaction)."""
    row = review_row(review)
    row["revision"] = review.revision
    review_queries.insert_review(db, row)
    return review_from_row(row)
