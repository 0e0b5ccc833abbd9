"""The ``study`` and ``agreement`` subcommands (argparse), wired in by ``cli.py``.

Exit status as in the CLI: 0 success, 2 bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from medrcube_desktop.core import argtypes

AGREEMENT_SUBCOMMANDS = ("study", "agreement")


def add_agreement_parsers(sub) -> None:
    """Add ``study`` and ``agreement`` to an argparse sub-parser group."""
    study = sub.add_parser(
        "study",
        help="create (or extend) a named, seeded random sample of items for an agreement study",
        description="Draw N items at random (seeded; optionally stratified) and store the "
        "sample in the database; the same name, seed and stratification with a larger N "
        "extends it, keeping every item it has.",
    )
    study.add_argument("--dataset", type=Path, required=True, metavar="DIR")
    study.add_argument("--db", type=Path, required=True, metavar="FILE")
    study.add_argument("--name", required=True, metavar="NAME")
    study.add_argument(
        "--n", type=argtypes.count, required=True, metavar="N", help="items in the study"
    )
    study.add_argument("--seed", type=argtypes.seed, default=0, metavar="S")
    study.add_argument("--stratify", choices=("task", "modality", "region"), default="")
    study.add_argument("--json", action="store_true", help='print {"name", "seed", "items"}')
    agreement = sub.add_parser(
        "agreement",
        help="expert-vs-LLM (or expert-vs-expert) agreement on the rubric, with intervals",
        description="Sample-level and rule-level consistency (paper Table 5) with Cohen's "
        "kappa, Gwet's AC1, PABAK, 2x2 tables, McNemar's exact test and bootstrap 95% "
        "intervals, over first judgments.",
    )
    agreement.add_argument("--db", type=Path, required=True, metavar="FILE")
    agreement.add_argument("--reviewer", required=True, metavar="NAME")
    other = agreement.add_mutually_exclusive_group(required=True)
    other.add_argument("--model", metavar="NAME", help="the LLM judge to compare with")
    other.add_argument("--reviewer2", metavar="NAME", help="a second reviewer")
    agreement.add_argument("--study", metavar="NAME", help="only the items of this study")
    agreement.add_argument("--bootstrap", type=argtypes.count, default=2000, metavar="N")
    agreement.add_argument("--seed", type=argtypes.seed, default=0, metavar="S")
    agreement.add_argument(
        "--out", type=Path, metavar="DIR", help="write CSV, XLSX, JSON, figures, HTML"
    )
    agreement.add_argument("--json", action="store_true", help="print the figures as JSON")


def run_agreement_command(args: argparse.Namespace) -> int:
    """Dispatch ``study`` or ``agreement``."""
    return cmd_study(args) if args.command == "study" else cmd_agreement(args)


def cmd_study(args: argparse.Namespace) -> int:
    """``study``: store the sample; print its size."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.review.studies import create_or_extend_study
    from medrcube_desktop.store.reviews import ReviewStore

    benchmark = load_benchmark(args.dataset)
    store = ReviewStore(args.db)
    try:
        record = create_or_extend_study(
            store, args.name, benchmark.items, args.n, args.seed, args.stratify
        )
    finally:
        store.close()
    if args.json:
        print(
            json.dumps({"name": record.name, "seed": record.seed, "items": list(record.item_ids)})
        )
    else:
        print(f"study {record.name!r}: {len(record.item_ids)} items (seed {record.seed})")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    """``agreement``: compute, print, and write the outputs with ``--out``."""
    from medrcube_desktop.errors import StoreError
    from medrcube_desktop.review.agreement import (
        fmt,
        fmt_ci,
        fmt_p,
        run_study,
        table_rows,
        write_outputs,
    )
    from medrcube_desktop.store.reviews import ReviewStore

    if not args.db.is_file():
        raise StoreError(f"{args.db}: no such review database")
    store = ReviewStore(args.db)
    try:
        run = run_study(
            store, args.reviewer, args.model, args.reviewer2, args.study, args.bootstrap, args.seed
        )
    finally:
        store.close()
    if args.out is not None:
        for path in write_outputs(run, args.out):
            print(f"wrote {path}", file=sys.stderr)
    if args.json:
        print(json.dumps(run.to_dict()))
        return 0
    print(
        f"{run.meta['first']} vs {run.meta['second']}: {len(run.result.items)} items, "
        f"{len(run.result.excluded)} excluded"
    )
    print(f"{'':60} {'agreement':>22} {'kappa':>7} {'AC1':>7} {'PABAK':>7} {'McNemar p':>10}")
    for row in table_rows(run):
        agreement = f"{fmt(row['agreement'])} {fmt_ci(row.get('ci95'))}"
        print(
            f"{str(row['label'])[:60]:60} {agreement:>22} {fmt(row.get('cohen_kappa')):>7} "
            f"{fmt(row.get('gwet_ac1')):>7} {fmt(row.get('pabak')):>7} "
            f"{fmt_p(row.get('mcnemar_p')) if row['key'] != 'sample' else '':>10}"
        )
    return 0
