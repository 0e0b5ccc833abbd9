"""Merging reviewer databases into one study database, without duplicates or loss.

Rows are recognised by their stable ids: ``uid`` for ``reviews`` and ``judgments``,
``review_uid`` for ``disagreement_notes`` and (``reviewer``, ``item_id``) for ``flags``.
A row is copied only when the target lacks that id, so merging the same file again adds
nothing. Adjudications (by ``uid``, their revisions kept in order) and the assignment
(copied when the target has none; two different ones are a conflict, the target's kept)
are merged by :mod:`~medrcube_desktop.store.merging_experts`. Drafts and ``app_state``
stay with the database they belong to.

The other file is never opened for writing: it is copied with SQLite's backup API (WAL
content included) and the copy, migrated to the current schema, is read. Public through
:mod:`medrcube_desktop.store.exchange`.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import review_queries
from medrcube_desktop.store.merging_experts import merge_adjudications, merge_assignment
from medrcube_desktop.store.merging_proposals import merge_proposals
from medrcube_desktop.store.migrations import available_migrations, current_version, migrate
from medrcube_desktop.store.read_only import (
    DAMAGED,
    IMMUTABLE,
    LOCKED,
    PRIVATE_COPY,
    changed_since,
    explain,
    file_uri,
    fingerprint,
    private_copy,
    read_mode,
    truncated,
)
from medrcube_desktop.store.study_store import StudyStore

MERGED_TABLES = (
    "reviews",
    "judgments",
    "disagreement_notes",
    "flags",
    "studies",
    "study_items",
    "adjudications",
    "assignments",
    "proposals",
    "proposal_decisions",
)
"""Tables :func:`merge` copies rows of, in the order it copies them."""

_OWN_RULES = frozenset({"adjudications", "assignments", "proposals", "proposal_decisions"})
"""Tables merged by :mod:`~medrcube_desktop.store.merging_experts` and
:mod:`~medrcube_desktop.store.merging_proposals`, not by id alone."""

_KEYS = {
    "reviews": ("uid",),
    "judgments": ("uid",),
    "disagreement_notes": ("review_uid",),
    "flags": ("reviewer", "item_id"),
    "studies": ("name",),  # a study of the same name is kept as the target has it
    "study_items": ("study", "item_id"),
}


@dataclass(frozen=True)
class FileMerge:
    """What merging one other database added.

    Attributes
    ----------
    path : Path
        The other database.
    added : dict[str, int]
        Rows copied, by table (every table of :data:`MERGED_TABLES`).
    renumbered_items : int
        (reviewer, item) pairs whose revisions were renumbered by commit time.
    warnings : list of str
        Differences worth a look, e.g. study settings (blinding) unlike the target's.
    conflicts : list of str
        What the two files decided differently: an (item, target) adjudicated in both
        apart, two different assignments (the target's kept). One line each.
    reviews_by_reviewer : dict[str, int]
        Reviews copied, by reviewer (names in sorted order; only those with one).
    refused : list of str
        Reviews not stored: each committed before the target's first judgment of its
        item by the same reviewer, which never changes (``"FILE: review of item … by …
        committed at … is before …, which never changes; not stored"``, the wording of
        ``import-reviews``). The ``merge`` command exits 1 when there is one.
    """

    path: Path
    added: dict[str, int]
    renumbered_items: int = 0
    warnings: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    reviews_by_reviewer: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class MergeSummary:
    """What :func:`merge` added, one :class:`FileMerge` per other database, in order."""

    files: list[FileMerge] = field(default_factory=list)

    def total(self, table: str) -> int:
        """Rows added to ``table`` from all files."""
        return sum(f.added.get(table, 0) for f in self.files)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready form: ``{"files": [{"path", "added", "renumbered_items"}], "total"}``."""
        return {
            "files": [
                {
                    "path": str(f.path),
                    "added": f.added,
                    "renumbered_items": f.renumbered_items,
                    "warnings": f.warnings,
                    "conflicts": f.conflicts,
                    "refused": f.refused,
                    "reviews_by_reviewer": f.reviews_by_reviewer,
                }
                for f in self.files
            ],
            "total": {table: self.total(table) for table in MERGED_TABLES},
        }


def merge(target_store: StudyStore, other_paths: Iterable[str | Path]) -> MergeSummary:
    """Fold other reviewer databases into ``target_store``.

    Every row of ``reviews``, ``judgments``, ``disagreement_notes`` and ``flags`` whose
    id the target lacks is copied (reviews keep their ``source`` and ``blind``). For each (reviewer,
    item) that receives reviews, all its revisions are renumbered 1..n by
    (``committed_at``, previous revision, ``uid``), so the first judgment stays the
    earliest committed one; a review committed before the target's first judgment of
    its item by the same reviewer is not copied (a first judgment never changes: the
    rule of ``import-reviews``) and is listed in :attr:`FileMerge.conflicts`. Adjudications the target lacks are copied (their revisions
    after the target's, in order) and the other's assignment when the target has none;
    so are the proposed corrections and their decisions the target lacks (decisions
    after the target's of the proposal: :mod:`.merging_proposals`); what the two decided
    differently is in :attr:`FileMerge.conflicts`. Each other file
    is merged in one transaction.

    Parameters
    ----------
    target_store : StudyStore
        The study database, written.
    other_paths : iterable of str or Path
        Review databases of any schema version up to the current one; read only (each
        is copied to a temporary file first, and the copy is migrated and read).

    Returns
    -------
    MergeSummary

    Raises
    ------
    StoreError
        An other path is missing, is not a review database, is newer than this app or
        is the target file itself (every file is read before anything is merged, so
        nothing is); or a write fails (that file's rows are rolled back, the files before
        it stay merged).
    """
    others = [Path(p).expanduser() for p in other_paths]
    for other in others:
        _check_other(target_store, other)
    files = []
    with tempfile.TemporaryDirectory(prefix="medrcube-merge-") as folder:
        # every file read (and refused if unusable) before any is merged: a bad third
        # file must not leave the first two merged and unreported
        sources: list[StudyStore] = []
        try:
            for number, other in enumerate(others):
                copy = Path(folder) / f"other-{number}.sqlite"
                _snapshot(other, copy)
                try:
                    sources.append(StudyStore(copy))  # migrated: the current schema
                except StoreError as exc:  # said of the file named, not of the copy
                    raise StoreError(str(exc).replace(str(copy), str(other))) from exc
                _check_tables(sources[-1], other)
            for other, source in zip(others, sources, strict=True):
                files.append(_merge_one(target_store, source, other))
        finally:
            for source in sources:
                source.close()
    return MergeSummary(files)


def _check_tables(source: StudyStore, other: Path) -> None:
    """Refuse a copy that lacks a table or column of the current schema (dropped by hand:
    the schema version says current, the tables do not), before anything is merged."""
    expected = sqlite3.connect(":memory:")
    try:
        migrate(expected, None)
        wanted = _columns(expected)
    finally:
        expected.close()
    have = _columns(source.db.conn)
    missing = sorted(set(wanted) - set(have))
    if missing:
        raise StoreError(
            f"{other}: not a whole review database (no table {', '.join(missing)}); "
            "nothing was merged"
        )
    lacking = sorted(
        f"{table}.{column}" for table in wanted for column in wanted[table] - have[table]
    )
    if lacking:
        raise StoreError(
            f"{other}: not a whole review database (no column {', '.join(lacking)}); "
            "nothing was merged"
        )


def _columns(conn: sqlite3.Connection) -> dict[str, set[str]]:
    """Each table's column names (``PRAGMA table_info``)."""
    tables = [row[0] for row in conn.execute(_TABLES)]
    return {t: {row[1] for row in conn.execute(f"PRAGMA table_info({t!r})")} for t in tables}


_TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"


def _check_other(target: StudyStore, other: Path) -> None:
    """Refuse a missing file or the target itself (raises StoreError)."""
    if not other.is_file():
        raise StoreError(f"{other}: no such review database file")
    if target.path is not None and target.path.exists() and os.path.samefile(target.path, other):
        raise StoreError(f"{other}: is the study database itself; nothing to merge")


def _snapshot(other: Path, copy: Path) -> None:
    """Copy ``other`` to ``copy`` with the backup API, never writing beside ``other``.

    Raises StoreError when ``other`` cannot be read, is not a review database or is
    newer than this app.
    """
    modes = [read_mode(other)]
    if modes[0] == IMMUTABLE:
        modes.append(LOCKED)  # the file changed under immutable=1: read it with locks
    try:
        before = fingerprint(other)
    except OSError as exc:
        raise StoreError(f"{other}: cannot read: {exc.strerror or exc}") from exc
    if modes[0] == IMMUTABLE and truncated(other):
        raise StoreError(f"{other}: cannot read as a review database: {DAMAGED}")
    for attempt, mode in enumerate(modes):
        try:
            if mode == PRIVATE_COPY:  # a killed writer's -wal: read from a private copy
                with private_copy(other) as private:
                    version = _copy_with_backup(file_uri(private, "mode=rw"), copy)
            else:
                version = _copy_with_backup(file_uri(other.resolve(), mode), copy)
            break
        except sqlite3.DatabaseError as exc:
            malformed = "malformed" in str(exc)
            if attempt + 1 < len(modes) and malformed and changed_since(other, before):
                continue
            raise StoreError(f"{other}: cannot read as a review database: {explain(exc)}") from exc
    latest = available_migrations()[-1][0]
    if version == 0:
        raise StoreError(f"{other}: not a review database (no schema_migrations table)")
    if version > latest:
        raise StoreError(
            f"{other}: database schema v{version} is newer than this app (v{latest}); "
            "update the app"
        )


def _copy_with_backup(uri: str, copy: Path) -> int:
    """Copy the database at ``uri`` to ``copy``; return its schema version."""
    source = sqlite3.connect(uri, uri=True)
    try:
        version = current_version(source)
        target = sqlite3.connect(copy)
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()
    return version


def _merge_one(target: StudyStore, source: StudyStore, other: Path) -> FileMerge:
    """Copy the rows of one migrated copy into the target, in one transaction."""
    added = dict.fromkeys(MERGED_TABLES, 0)
    refused: list[str] = []
    with target.transaction(f"merge {other}") as db:
        origin: dict[str, int] = {}  # uid of a copied review -> its revision in `other`
        groups: set[tuple[str, str]] = set()  # (reviewer, item_id) given new reviews
        firsts = _first_judgments(db)
        left_out: set[str] = set()  # uids of back-dated reviews, and their notes
        by_reviewer: dict[str, int] = {}
        for table in (t for t in MERGED_TABLES if t not in _OWN_RULES):
            for row in _missing_rows(target, source, table):
                if table == "reviews":
                    why = _back_dated(row, firsts.get((row["reviewer"], row["item_id"])))
                    if why:
                        refused.append(f"{other}: {why}; not stored")
                        left_out.add(row["uid"])
                        continue
                    origin[row["uid"]] = row["revision"]
                    groups.add((row["reviewer"], row["item_id"]))
                    row["revision"] = review_queries.free_revision(
                        db, row["reviewer"], row["item_id"]
                    )  # a free number until renumbered
                    review_queries.insert_review(db, row)
                    by_reviewer[row["reviewer"]] = by_reviewer.get(row["reviewer"], 0) + 1
                elif table == "disagreement_notes" and row["review_uid"] in left_out:
                    continue
                else:
                    db[table].insert(row)
                added[table] += 1
        added["flags"] += _newer_flags(db, source)
        for reviewer, item_id in sorted(groups):
            review_queries.renumber_revisions(db, reviewer, item_id, origin)
        added["adjudications"], conflicts = merge_adjudications(db, source.conn, str(other))
        added["assignments"], assignment_conflicts = merge_assignment(db, source.conn, str(other))
        added["proposals"], added["proposal_decisions"], decided_apart = merge_proposals(
            db, source.conn, str(other)
        )
    warnings = _protocol_warnings(target, source, other) + _foreign_reviews(source, other)
    return FileMerge(
        other, added, len(groups), warnings, conflicts + assignment_conflicts + decided_apart,
        refused,
        dict(sorted(by_reviewer.items())),
    )  # fmt: skip


def _foreign_reviews(source: StudyStore, other: Path) -> list[str]:
    """A warning when ``other`` is one reviewer's file (its assignment names that
    reviewer only, as ``assign --databases`` writes it) but holds reviews by others:
    they reached that reviewer's file some other way (an import into it), and are
    merged as any other review."""
    row = source.conn.execute("SELECT reviewers FROM assignment_settings").fetchone()
    if row is None:
        return []
    names = json.loads(row[0])
    if len(names) != 1:
        return []
    others = source.conn.execute(
        "SELECT reviewer, COUNT(*) FROM reviews WHERE reviewer <> ? GROUP BY reviewer "
        "ORDER BY reviewer",
        [names[0]],
    ).fetchall()
    if not others:
        return []
    held = ", ".join(f"{name} ({n})" for name, n in others)
    return [
        f"{other}: the file of reviewer {names[0]} (its assignment names them only) holds "
        f"reviews by {held}; they are merged: check how they got into it"
    ]


def _first_judgments(db: Any) -> dict[tuple[str, str], tuple[str, int]]:
    """``(reviewer, item_id) → (committed_at, revision)`` of each stored first judgment
    (the lowest revision that is not a repeat), before anything is merged."""
    firsts: dict[tuple[str, str], tuple[str, int]] = {}
    for reviewer, item_id, revision, when in db.execute(
        "SELECT reviewer, item_id, revision, committed_at FROM reviews WHERE repeat = 0"
    ):
        held = firsts.get((reviewer, item_id))
        if held is None or revision < held[1]:
            firsts[(reviewer, item_id)] = (when, revision)
    return firsts


def _back_dated(row: dict, first: tuple[str, int] | None) -> str:
    """Why a review row of the other file may not be merged ('' when it may): it was
    committed before the target's first judgment of the item by the same reviewer,
    which never changes (the rule of ``import-reviews``)."""
    if first is None:
        return ""
    key = review_queries.time_key
    if key(row["committed_at"] or "") >= key(first[0]):
        return ""
    return (
        f"review of item {row['item_id']} by {row['reviewer']} committed at "
        f"{row['committed_at']} is before the reviewer's first judgment of the item "
        f"({first[0]}), which never changes"
    )


def _protocol_warnings(target: StudyStore, source: StudyStore, other: Path) -> list[str]:
    """Study settings (``app_state`` ``study.settings``) of ``other`` unlike the target's.

    Each review keeps its own ``blind`` flag, so nothing is lost; the warning says the
    studies were run under different protocols.
    """

    def settings(store: StudyStore) -> dict:
        try:
            value = json.loads(store.get_state("study.settings") or "{}")
        except (ValueError, RecursionError):
            return {}
        return value if isinstance(value, dict) else {}

    mine, theirs = settings(target), settings(source)
    differing = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
    if not differing:
        return []
    return [
        f"{other}: collected under other study settings ({', '.join(differing)}); each "
        "review keeps its blind flag"
    ]


def _newer_flags(db: Any, source: StudyStore) -> int:
    """Apply the other file's flag changes that are later than the target's (an unflag
    included); return how many changed."""
    changed = 0
    for reviewer, item_id, flagged, when in source.conn.execute(
        "SELECT reviewer, item_id, flagged, changed_at FROM flags"
    ):
        cursor = db.execute(
            "UPDATE flags SET flagged = ?, changed_at = ? WHERE reviewer = ? AND item_id = ? "
            "AND changed_at < ? AND flagged != ?",
            [flagged, when, reviewer, item_id, when, flagged],
        )
        changed += cursor.rowcount
    return changed


def _missing_rows(target: StudyStore, source: StudyStore, table: str) -> list[dict]:
    """Rows of ``table`` in ``source`` whose id is not in ``target`` (all columns but
    ``id``), in ``source`` row order."""
    columns = [r[1] for r in target.conn.execute(f"PRAGMA table_info({table})") if r[1] != "id"]
    key = _KEYS[table]
    have = set(target.conn.execute(f"SELECT {', '.join(key)} FROM {table}"))
    cursor = source.conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY rowid")
    rows = [dict(zip(columns, values, strict=True)) for values in cursor]
    missing = [row for row in rows if tuple(row[k] for k in key) not in have]
    if table == "reviews":  # the same review under another uid (exported, then imported)
        same = {_review_content(row) for row in _rows(target, "reviews", columns)}
        missing = [row for row in missing if _review_content(row) not in same]
    return missing


def _rows(store: StudyStore, table: str, columns: list[str]) -> list[dict]:
    cursor = store.conn.execute(f"SELECT {', '.join(columns)} FROM {table}")
    return [dict(zip(columns, values, strict=True)) for values in cursor]


def _review_content(row: dict) -> tuple:
    """What makes two review rows the same review whatever their uid: reviewer, item,
    scores (abstained rules included, v11), comment, tags, repeat and commit time."""
    scores = tuple(row[k] for k in sorted(row) if k.startswith("score_"))
    return (row["reviewer"], row["item_id"], scores, row.get("abstained", "[]"), row["comment"],
            row["tags"], row["repeat"], row["committed_at"])  # fmt: skip
