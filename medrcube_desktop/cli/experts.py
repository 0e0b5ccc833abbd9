"""``adjudicate-queue`` and ``assign``: several experts (issue 15 item 4)."""

from __future__ import annotations

import argparse
from pathlib import Path

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import (
    add_command,
    add_dataset,
    add_db,
    add_json,
    emit,
    open_database,
)
from medrcube_desktop.cli.option_flags import add_flags
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.review.agreement_options import ASSIGNMENT, QUEUE


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
        "--reviewer",
        action="append",
        type=argtypes.existing_name,
        metavar="NAME",
        help="an expert (default: every reviewer)",
    )
    queue.add_argument(
        "--model",
        type=argtypes.existing_name,
        metavar="NAME",
        help="show (and with --against, compare) the LLM",
    )
    add_flags(queue, QUEUE)
    add_json(queue, '{"n_items", "n_open", "items": [...]}')
    assign = add_command(
        sub, "assign", cmd_assign,
        help="split the benchmark's items among reviewers with an overlap reviewed by two",
        description="Store an assignment: a share of the items (--overlap) goes to two "
        "reviewers, the rest to one, balanced, chosen with a stored seed; restricted "
        "items (reviewed on their text) are assigned like the others. The review window "
        "shows each named reviewer only their items. Replaces a previous assignment, "
        "but an item a reviewer has committed stays on their list; what changes for "
        "each reviewer is printed. Reviews are not touched.",
    )  # fmt: skip
    add_db(assign, creates=True)
    add_dataset(assign)
    assign.add_argument(
        "--reviewer",
        action="append",
        required=True,
        type=argtypes.new_name,
        metavar="NAME",
        help="a reviewer to share the items among (once for each reviewer)",
    )
    assign.add_argument(
        "--new-reviewer",
        action="append",
        default=[],
        type=argtypes.new_name,
        metavar="NAME",
        help="a reviewer new to this study (a name neither assigned before nor with a "
        "review is refused as a likely typo otherwise)",
    )
    add_flags(assign, ASSIGNMENT)
    assign.add_argument(
        "--study", type=argtypes.existing_name, metavar="NAME", help="only the items of this study"
    )
    assign.add_argument(
        "--databases",
        type=Path,
        metavar="DIR",
        help="also write DIR/<reviewer>.db for each named reviewer: the assignment and "
        "study settings only, for a blind study (merge them back with merge)",
    )
    add_json(
        assign,
        '{"reviewers": {name: n}, "only": {name: n}, "overlap", "items", "changes": '
        '{name: {"before", "after", "added", "removed", "committed", "named"}}}',
    )


def cmd_adjudicate_queue(args: argparse.Namespace) -> int:
    """``adjudicate-queue``: print the queue."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.core.rubric import CANNOT_JUDGE
    from medrcube_desktop.review.adjudication import build_queue, check_queue_inputs

    benchmark = load_benchmark(args.dataset)
    # restricted items are reviewed on their text: their disagreements count too
    ids = {item.id for item in [*benchmark.items, *benchmark.restricted]}
    with open_database(args.db, create=False) as store:
        check_queue_inputs(store, args.reviewer, args.model, ids, str(args.dataset))
        queue = build_queue(store, args.reviewer, args.model, args.against, args.on, items=ids)
    if args.open_only:
        queue.entries = [e for e in queue.entries if e.open_targets]
    lines = [
        f"{len(queue.entries)} items to adjudicate "
        f"({sum(1 for e in queue.entries if e.open_targets)} open); "
        f"raters: {', '.join(queue.reviewers)}" + (f", LLM {queue.model}" if queue.model else "")
    ]
    for entry in queue.entries:
        scores = "; ".join(  # ? = cannot judge (issue 24)
            f"{j.rater}: "
            + "".join(
                "?" if j.scores[r] == CANNOT_JUDGE else str(j.scores[r]) for r in sorted(j.scores)
            )
            for j in entry.judgments
        )
        state = ("open: " + ", ".join(entry.open_targets)) if entry.open_targets else "adjudicated"
        abstained = "; ".join(f"{who} {', '.join(rules)}" for who, rules in entry.abstained.items())
        lines.append(
            f"{entry.item_id}\trules {', '.join(entry.rules) or '—'}\t{state}\t{scores}"
            + (f"\tcannot judge: {abstained}" if abstained else "")
        )
    emit(args.json, queue.to_dict(), lines)
    return Outcome.DONE


def cmd_assign(args: argparse.Namespace) -> int:
    """``assign``: store the split; print each reviewer's count, the overlap and what
    changed for each reviewer."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.errors import MedRCubeError
    from medrcube_desktop.review.assignment import counts, plan, save
    from medrcube_desktop.review.reviewer_files import reviewer_paths, write_reviewer_databases
    from medrcube_desktop.review.study import STATE_KEY

    benchmark = load_benchmark(args.dataset)
    # restricted items are reviewed on their text: assigned like the others
    ids = list(dict.fromkeys(item.id for item in [*benchmark.items, *benchmark.restricted]))
    with open_database(args.db, create=True) as store:
        if args.study:
            record = store.study(args.study)
            if record is None:
                raise MedRCubeError(f"no study named {args.study!r}")
            chosen = set(record.item_ids)
            ids = [i for i in ids if i in chosen]
        change = plan(store, ids, args.reviewer, args.overlap, args.seed, args.new_reviewer)
        files = {}
        if args.databases is not None:  # refused before anything is stored
            named = [n for n, c in change.changes.items() if c.named]
            files = reviewer_paths(args.databases, named)
        stored = save(store, change, args.overlap, args.seed, len(set(ids)))
        if files:
            studies = [store.study(name) for name in store.study_names()]
            write_reviewer_databases(
                files, stored, store.get_state(STATE_KEY), [s for s in studies if s]
            )
    data = counts(stored)
    data["changes"] = {
        name: {
            "before": c.before, "after": c.after, "added": list(c.added),
            "removed": list(c.removed), "committed": c.committed, "named": c.named,
        }
        for name, c in change.changes.items()
    }  # fmt: skip
    data["databases"] = {name: str(path) for name, path in files.items()}
    lines = [f"{data['items']} items, overlap {data['overlap']} (seed {data['seed']})"]
    only = {name: len(set(ids) - stored.overlap_items) for name, ids in stored.items.items()}
    for name, c in change.changes.items():
        if name not in stored.items:
            lines.append(f"{name}: no longer assigned (had {c.before} items, none committed)")
            continue
        line = f"{name}: {c.after} items ({only[name]} only theirs)"
        if change.had_assignment:
            line += f"; {len(c.added)} added, {len(c.removed)} removed"
        if c.committed:
            line += f"; {c.committed} committed, kept on their list"
        if not c.named:
            line += " (not named: keeps only the items they committed)"
        lines.append(line)
    lines += [f"{name}'s database: {path}" for name, path in files.items()]
    emit(args.json, data, lines)
    return Outcome.DONE
