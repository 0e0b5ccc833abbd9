"""The ``import-reviews``, ``export-reviews`` and ``merge`` subcommands (argparse),
wired in by ``cli.py``. Exit status as in the CLI: 0 success, 1 some rows refused, 2 bad
input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from medrcube_desktop.core import argtypes

EXCHANGE_SUBCOMMANDS = ("import-reviews", "export-reviews", "merge")


def run_exchange_command(args: argparse.Namespace) -> int:
    """Dispatch one of :data:`EXCHANGE_SUBCOMMANDS`."""
    if args.command == "import-reviews":
        return cmd_import_reviews(args)
    if args.command == "export-reviews":
        return cmd_export_reviews(args)
    return cmd_merge(args)


def add_exchange_parsers(sub) -> None:
    imports = sub.add_parser(
        "import-reviews",
        help="add a reviewer's reviews from a CSV file to a review database",
        description="Add each row of REVIEWS.csv as the reviewer's next revision of the item; "
        "rows identical to the latest review are skipped. Exit status: 0 all rows usable, "
        "1 some rows had problems (listed on stderr, the rest imported), 2 unusable file.",
    )
    imports.add_argument("reviews", type=Path, metavar="REVIEWS.csv")
    imports.add_argument("--db", type=Path, required=True, metavar="FILE", help="review database")
    imports.add_argument(
        "--reviewer", required=True, type=argtypes.name, metavar="NAME", help="whose reviews"
    )
    imports.add_argument(
        "--json", action="store_true", help='print {"imported", "skipped", "problems"}'
    )
    export = sub.add_parser(
        "export-reviews",
        help="write a reviewer's reviews to a CSV file",
        description="Write one row per review, sorted by item id and revision. Cells a "
        "spreadsheet would run as a formula get a leading quote, which import-reviews removes.",
    )
    export.add_argument("--db", type=Path, required=True, metavar="FILE", help="review database")
    export.add_argument(
        "--reviewer", required=True, type=argtypes.name, metavar="NAME", help="whose reviews"
    )
    export.add_argument("--out", type=Path, required=True, metavar="REVIEWS.csv")
    export.add_argument(
        "--revisions",
        choices=("latest", "first", "all"),
        default="latest",
        help="latest revision of each item (default), first judgment, or every revision and repeat",
    )
    export.add_argument("--json", action="store_true", help='print {"rows", "out"}')
    merge = sub.add_parser(
        "merge",
        help="fold other reviewers' databases into a study database",
        description="Copy the reviews, LLM judgments, disagreement notes and flags of each "
        "OTHER.db that STUDY.db lacks; the other files are only read. Merging again adds "
        "nothing.",
    )
    merge.add_argument("study", type=Path, metavar="STUDY.db")
    merge.add_argument("others", type=Path, nargs="+", metavar="OTHER.db")
    merge.add_argument("--json", action="store_true", help='print {"files": [...], "total": {...}}')


def cmd_import_reviews(args: argparse.Namespace) -> int:
    """``import-reviews``: 0 all rows usable, 1 some rows had problems, 2 unusable input."""
    from medrcube_desktop.errors import StoreError
    from medrcube_desktop.store.exchange import import_reviews
    from medrcube_desktop.store.reviews import ReviewStore

    if not args.reviews.is_file():  # before the database is created
        raise StoreError(f"{args.reviews}: no such CSV file")
    store = ReviewStore(args.db)
    try:
        summary = import_reviews(store, args.reviewer, args.reviews)
    finally:
        store.close()
    for problem in summary.problems:
        print(problem, file=sys.stderr)
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        print(
            f"{summary.imported} reviews imported, {summary.skipped} skipped as unchanged, "
            f"{len(summary.problems)} problems in {args.reviews}"
        )
    return 1 if summary.problems else 0


def cmd_export_reviews(args: argparse.Namespace) -> int:
    """``export-reviews``: write the CSV; 2 when the database is missing or unreadable."""
    from medrcube_desktop.errors import StoreError
    from medrcube_desktop.store.exchange import export_reviews
    from medrcube_desktop.store.reviews import ReviewStore

    if not args.db.is_file():  # never create an empty database just to export it
        raise StoreError(f"{args.db}: no such review database file")
    store = ReviewStore(args.db)
    try:
        rows = export_reviews(store, args.reviewer, args.out, args.revisions)
        known = store.reviewers() if rows == 0 else []
    finally:
        store.close()
    if rows == 0 and args.reviewer not in known:
        print(
            f"medrcube-desktop: no reviews by {args.reviewer!r} in {args.db} "
            f"(reviewers: {', '.join(known) or 'none'})",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps({"rows": rows, "out": str(args.out)}))
    else:
        print(f"{rows} reviews by {args.reviewer} written to {args.out}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    """``merge STUDY.db OTHER.db...``: 0 merged, 2 an unusable database (nothing merged
    from it)."""
    from medrcube_desktop.store.exchange import merge
    from medrcube_desktop.store.reviews import ReviewStore

    store = ReviewStore(args.study)
    try:
        summary = merge(store, args.others)
    finally:
        store.close()
    if args.json:
        print(json.dumps(summary.to_dict()))
    else:
        for merged in summary.files:
            added = ", ".join(f"{n} {table}" for table, n in merged.added.items())
            print(f"{merged.path}: added {added}")
        print(f"{summary.total('reviews')} reviews merged into {args.study}")
    for merged in summary.files:
        for warning in merged.warnings:
            print(f"medrcube-desktop: warning: {warning}", file=sys.stderr)
    return 0
