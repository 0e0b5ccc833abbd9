"""``import-reviews``, ``export-reviews`` and ``merge``: reviews in and out of a study."""

from __future__ import annotations

import argparse
from pathlib import Path

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import (
    add_command,
    add_db,
    add_json,
    emit,
    open_database,
    refuse_overwrite,
    say,
    warn,
)
from medrcube_desktop.core.file_kinds import refuse_foreign
from medrcube_desktop.core.files import describe_missing
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.errors import MedRCubeError, StoreError


def add_parsers(sub) -> None:
    """Add this group's commands to the sub-parser group ``sub``."""
    imports = add_command(
        sub, "import-reviews", cmd_import_reviews,
        help="add a reviewer's reviews from a CSV file to a review database",
        description="Add each row of REVIEWS.csv as the reviewer's next revision of the item; "
        "rows identical to the latest review are skipped. Exit status: 0 all rows usable, "
        "1 some rows had problems (listed on stderr, the rest imported), 2 unusable file.",
    )  # fmt: skip
    imports.add_argument("reviews", type=Path, metavar="REVIEWS.csv", help="the reviews to store")
    add_db(imports, creates=True)
    imports.add_argument(
        "--reviewer", required=True, type=argtypes.new_name, metavar="NAME", help="whose reviews"
    )
    add_json(imports, '{"imported", "skipped", "problems"}')
    export = add_command(
        sub, "export-reviews", cmd_export_reviews,
        help="write a reviewer's reviews to a CSV file",
        description="Write one row per review, sorted by item id and revision. Cells a "
        "spreadsheet would run as a formula get a leading quote, which import-reviews removes.",
    )  # fmt: skip
    add_db(export, creates=False)
    export.add_argument(
        "--reviewer",
        required=True,
        type=argtypes.existing_name,
        metavar="NAME",
        help="whose reviews",
    )
    export.add_argument(
        "--out", type=Path, required=True, metavar="REVIEWS.csv", help="the file written"
    )
    export.add_argument(
        "--revisions",
        choices=("latest", "first", "all"),
        default="latest",
        help="latest revision of each item (default), first judgment, or every revision and repeat",
    )
    add_json(export, '{"rows", "out"}')
    merge = add_command(
        sub, "merge", cmd_merge,
        help="fold other reviewers' databases into a study database",
        description="Copy the reviews, LLM judgments, disagreement notes, flags, "
        "adjudications and proposed corrections of each "
        "OTHER.db that STUDY.db lacks; the other files are only read. Merging again adds "
        "nothing. STUDY.db is created when missing.",
    )  # fmt: skip
    # merge STUDY.db OTHER.db..., or as every other command names its database:
    # merge --db STUDY.db OTHER.db...
    merge.add_argument(
        "--db", type=Path, metavar="STUDY.db",
        help="the study database (else the first DB given)",
    )  # fmt: skip
    merge.add_argument(
        "databases", type=Path, nargs="+", metavar="DB",
        help="STUDY.db then each OTHER.db (with --db: the OTHER.db files)",
    )  # fmt: skip
    add_json(merge, '{"files": [...], "total": {...}}')
    restore = add_command(
        sub, "restore-guards", cmd_restore_guards,
        help="put back a database's append-only guards after checking the file",
        description="Every command refuses a database whose triggers that keep reviews, "
        "adjudications and proposed corrections append-only were dropped or changed outside the app (its rows may "
        "have been edited). After checking it against its backups, this creates the "
        "guards again; it changes no row.",
    )  # fmt: skip
    add_db(restore, creates=False)
    add_json(restore, '{"restored": [trigger, ...], "db"}')


def cmd_restore_guards(args: argparse.Namespace) -> int:
    """``restore-guards --db FILE``: create the missing guard triggers again."""
    from medrcube_desktop.store.guards import restore_file

    restored = restore_file(args.db)
    emit(
        args.json,
        {"restored": restored, "db": str(args.db)},
        f"{args.db}: append-only guards restored ({', '.join(restored)})".replace(
            " (not the app's, dropped)", " dropped: not created by the app"
        )
        if restored
        else f"{args.db}: every append-only guard is in place; nothing changed",
    )
    return Outcome.DONE


def cmd_import_reviews(args: argparse.Namespace) -> int:
    """``import-reviews``: 0 all rows usable, 1 some rows had problems, 2 unusable input."""
    from medrcube_desktop.store.exchange import import_reviews

    missing = describe_missing(args.reviews, "CSV file")
    if missing:  # before the database is created
        raise StoreError(missing)
    with open_database(args.db, create=True) as store:
        summary = import_reviews(store, args.reviewer, args.reviews)
    for problem in summary.problems:
        say(problem)
    emit(
        args.json,
        summary.to_dict(),
        f"{summary.imported} reviews imported, {summary.skipped} skipped as unchanged, "
        f"{len(summary.problems)} problems in {args.reviews}",
    )
    return Outcome.FAILED if summary.problems else Outcome.DONE


def cmd_export_reviews(args: argparse.Namespace) -> int:
    """``export-reviews``: write the CSV; 2 when the database is missing or unreadable."""
    from medrcube_desktop.store.exchange import export_reviews

    with open_database(args.db, create=False) as store:
        refuse_overwrite(args.out, args.db)
        refuse_foreign(args.out, "reviews CSV")
        known = store.reviewers()
        if args.reviewer not in known:  # before writing: an empty CSV would lose an export
            raise StoreError(
                f"no reviews by {args.reviewer!r} in {args.db} "
                f"(reviewers: {', '.join(known) or 'none'}); nothing written to {args.out}"
            )
        rows = export_reviews(store, args.reviewer, args.out, args.revisions)
    emit(
        args.json,
        {"rows": rows, "out": str(args.out)},
        f"{rows} reviews by {args.reviewer} written to {args.out}",
    )
    return Outcome.DONE


def merge_databases(db: Path | None, databases: list[Path]) -> tuple[Path, list[Path]]:
    """``merge``'s study database and the others: ``--db`` and every positional, or
    the first positional and the rest.

    Raises
    ------
    MedRCubeError
        No other database to merge (exit status 2, with both forms of the command).
    """
    study, others = (db, list(databases)) if db is not None else (databases[0], databases[1:])
    if not others:
        raise MedRCubeError(
            f"merge: nothing to merge into {study}: give STUDY.db and at least one OTHER.db "
            "(merge STUDY.db OTHER.db... or merge --db STUDY.db OTHER.db...)"
        )
    return study, others


def cmd_merge(args: argparse.Namespace) -> int:
    """``merge STUDY.db OTHER.db...`` (or ``merge --db STUDY.db OTHER.db...``): 0 merged,
    1 some reviews not stored (back-dated, as ``import-reviews``), 2 an unusable
    database (nothing merged from it) or no OTHER.db."""
    from medrcube_desktop.store.exchange import merge

    study, others = merge_databases(args.db, args.databases)
    with open_database(study, create=True) as store:
        summary = merge(store, others)
    lines = []
    for merged in summary.files:
        added = ", ".join(f"{n} {table}" for table, n in merged.added.items())
        by = ", ".join(f"{name} {n}" for name, n in merged.reviews_by_reviewer.items())
        lines.append(f"{merged.path}: added {added}" + (f" (reviews by {by})" if by else ""))
    emit(
        args.json,
        summary.to_dict(),
        [*lines, f"{summary.total('reviews')} reviews merged into {study}"],
    )
    for merged in summary.files:
        for warning in merged.warnings:
            warn(warning)
        for conflict in merged.conflicts:
            warn(f"conflict: {conflict}")
        for refused in merged.refused:  # as import-reviews says its problems
            say(refused)
    return Outcome.FAILED if any(merged.refused for merged in summary.files) else Outcome.DONE
