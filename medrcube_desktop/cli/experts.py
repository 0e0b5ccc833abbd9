"""``adjudicate-queue`` and ``assign``: several experts (issue 15 item 4)."""

from __future__ import annotations

import argparse

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import (
    add_command,
    add_dataset,
    add_db,
    add_json,
    emit,
    open_database,
)
from medrcube_desktop.core.progress import Outcome


def add_parsers(sub) -> None:
    """Add this group's commands to the sub-parser group ``sub``."""
    queue = add_command(
        sub, "adjudicate-queue", cmd_adjudicate_queue,
        help="list the items where experts (or an expert and the LLM) disagree",
        description="The adjudication queue over first judgments: each item with the "
        "rules the raters differ on, every rater's judgment and comment, and what is "
        "already adjudicated. Adjudicate in the window (Review > Adjudicate).",
    )  # fmt: skip
    add_db(queue, creates=False)
    add_dataset(queue)
    queue.add_argument(
        "--reviewer", action="append", metavar="NAME", help="an expert (default: every reviewer)"
    )
    queue.add_argument("--model", metavar="NAME", help="show (and with --against, compare) the LLM")
    queue.add_argument(
        "--against",
        choices=("experts", "llm", "any"),
        default="experts",
        help="disagreements between experts, an expert and the LLM, or either",
    )
    queue.add_argument(
        "--on",
        choices=("rules", "verdict"),
        default="rules",
        help="any rule differs, or only the overall verdict (all seven pass)",
    )
    queue.add_argument(
        "--open-only", action="store_true", help="leave out items already fully adjudicated"
    )
    add_json(queue, '{"n_items", "n_open", "items": [...]}')
    assign = add_command(
        sub, "assign", cmd_assign,
        help="split the benchmark's items among reviewers with an overlap reviewed by two",
        description="Store an assignment: a share of the items (--overlap) goes to two "
        "reviewers, the rest to one, balanced, chosen with a stored seed. The review "
        "window shows each named reviewer only their items. Replaces a previous "
        "assignment; reviews are not touched.",
    )  # fmt: skip
    add_db(assign, creates=True)
    add_dataset(assign)
    assign.add_argument(
        "--reviewer", action="append", required=True, type=argtypes.name, metavar="NAME"
    )
    assign.add_argument(
        "--overlap", type=float, default=0.2, metavar="F", help="share reviewed by two (0-1)"
    )
    assign.add_argument("--seed", type=argtypes.seed, default=0, metavar="S")
    assign.add_argument("--study", metavar="NAME", help="only the items of this study")
    add_json(assign, '{"reviewers": {name: n}, "only": {name: n}, "overlap", "items"}')


def cmd_adjudicate_queue(args: argparse.Namespace) -> int:
    """``adjudicate-queue``: print the queue."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.review.adjudication import build_queue

    benchmark = load_benchmark(args.dataset)
    ids = {item.id for item in benchmark.items}
    with open_database(args.db, create=False) as store:
        queue = build_queue(store, args.reviewer, args.model, args.against, args.on, items=ids)
    if args.open_only:
        queue.entries = [e for e in queue.entries if e.open_targets]
    lines = [
        f"{len(queue.entries)} items to adjudicate "
        f"({sum(1 for e in queue.entries if e.open_targets)} open); "
        f"raters: {', '.join(queue.reviewers)}" + (f", LLM {queue.model}" if queue.model else "")
    ]
    for entry in queue.entries:
        scores = "; ".join(
            f"{j.rater}: " + "".join(str(j.scores[r]) for r in sorted(j.scores))
            for j in entry.judgments
        )
        state = ("open: " + ", ".join(entry.open_targets)) if entry.open_targets else "adjudicated"
        lines.append(f"{entry.item_id}\trules {', '.join(entry.rules) or '—'}\t{state}\t{scores}")
    emit(args.json, queue.to_dict(), lines)
    return Outcome.DONE


def cmd_assign(args: argparse.Namespace) -> int:
    """``assign``: store the split; print each reviewer's count and the overlap."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.errors import MedRCubeError
    from medrcube_desktop.review.assignment import assign, counts

    benchmark = load_benchmark(args.dataset)
    ids = [item.id for item in benchmark.items]
    with open_database(args.db, create=True) as store:
        if args.study:
            record = store.study(args.study)
            if record is None:
                raise MedRCubeError(f"no study named {args.study!r}")
            chosen = set(record.item_ids)
            ids = [i for i in ids if i in chosen]
        stored = assign(store, ids, args.reviewer, args.overlap, args.seed)
    data = counts(stored)
    lines = [f"{data['items']} items, overlap {data['overlap']} (seed {data['seed']})"]
    only = {name: len(set(ids) - stored.overlap_items) for name, ids in stored.items.items()}
    lines += [
        f"{name}: {len(ids)} items ({only[name]} only theirs)" for name, ids in stored.items.items()
    ]
    emit(args.json, data, lines)
    return Outcome.DONE
