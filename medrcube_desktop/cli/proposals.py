"""``proposals list|export|propose|decide``: corrections of benchmark items (issue 23).

A reviewer proposes a correction of one item (or to retire it), another reviewer
accepts or rejects it; ``release`` applies the accepted ones. The benchmark folder is
only read. The rules are :mod:`medrcube_desktop.review.proposing`'s.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.benchmark import number_list
from medrcube_desktop.cli.common import (
    add_command,
    add_dataset,
    add_db,
    add_json,
    emit,
    open_database,
    refuse_overwrite,
)
from medrcube_desktop.cli.option_flags import add_flags
from medrcube_desktop.core.corrections import (
    ACCEPTED,
    ANSWER_KEY,
    BBOX,
    MASK,
    OPTION_TEXT,
    QUESTION_TEXT,
    REJECTED,
    WITHDRAWN,
)
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.errors import CorrectionError
from medrcube_desktop.review.proposal_options import LIST, PROPOSE

CHANGE_FLAGS: dict[str, tuple[str, ...]] = {
    ANSWER_KEY: ("answer",),
    OPTION_TEXT: ("letter", "text"),
    QUESTION_TEXT: ("text",),
    BBOX: ("bbox",),
    MASK: ("mask_npy",),
}
"""The change flags each kind takes (``--slice-index``/``--axis`` go with ``--mask-npy``;
``retire`` takes none)."""

_ALL_CHANGE_FLAGS = ("answer", "letter", "text", "bbox", "mask_npy", "slice_index", "axis")


def add_parsers(sub) -> None:
    """Add ``proposals`` and its commands to the sub-parser group ``sub``."""
    group = sub.add_parser(
        "proposals", help="propose, decide, list and export corrections of items",
        description="Corrections of benchmark items as annotations: a reviewer proposes "
        "one (or to retire the item), another accepts or rejects it; release applies the "
        "accepted ones. The benchmark is only read.",
    )  # fmt: skip
    commands = group.add_subparsers(
        dest="proposals_command", required=True, metavar="list|export|propose|decide"
    )
    _add_list(commands)
    _add_export(commands)
    _add_propose(commands)
    _add_decide(commands)


def _command(commands, name: str, func, **kwargs: Any) -> argparse.ArgumentParser:
    parser = add_command(commands, name, func, **kwargs)
    parser.set_defaults(command=f"proposals {name}")
    return parser


def _add_list(commands) -> None:
    listing = _command(
        commands, "list", cmd_list, help="list the proposals and their status",
        description="One line per proposal, in the order proposed: its uid (what "
        "proposals decide takes), item, kind, rule, status, author and change.",
    )  # fmt: skip
    add_db(listing, creates=False)
    add_flags(listing, LIST)
    listing.add_argument("--item", type=argtypes.existing_name, metavar="ID", help="one item's")
    add_json(listing, '{"n", "status", "item", "proposals": [...]}')


def _add_export(commands) -> None:
    export = _command(
        commands, "export", cmd_export, help="write every proposal with its decisions",
        description="Every proposal with its latest decision and its whole history: a "
        "JSON document (with each item's record as it was) or a CSV, by --out's suffix.",
    )  # fmt: skip
    add_db(export, creates=False)
    export.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE.csv|FILE.json",
        help="the file written (its suffix picks CSV or JSON)",
    )
    add_json(export, '{"proposals", "out"}')


def _add_propose(commands) -> None:
    propose = _command(
        commands, "propose", cmd_propose, help="propose a correction of one item",
        description="Store a proposed correction of one item with the rule it answers and "
        "a reason, checked against the item (and, in a blind study, after your own "
        "commit of it). The item's record is kept as it is in its test.json.",
    )  # fmt: skip
    add_db(propose, creates=True)
    add_dataset(propose)
    propose.add_argument("--reviewer", required=True, type=argtypes.new_name, metavar="NAME",
                         help="who proposes")  # fmt: skip
    propose.add_argument(
        "--item",
        required=True,
        type=argtypes.existing_name,
        metavar="ID",
        help="the benchmark item the correction is for",
    )
    add_flags(propose, PROPOSE)
    propose.add_argument("--reason", required=True, metavar="TEXT", help="why (required)")
    change = propose.add_argument_group("the change (by --kind; retire takes none)")
    change.add_argument("--answer", metavar="LETTER", help="answer_key: the new answer's letter")
    change.add_argument("--letter", metavar="LETTER", help="option_text: the option to change")
    change.add_argument("--text", metavar="TEXT", help="option_text, question_text: the new text")
    change.add_argument("--bbox", nargs="+", action=_BoxAction, metavar="X0,Y0,X1,Y1",
                        help="bbox: the new box in source image pixels (x = column, y = "
                        "row), comma-separated as render takes it or four numbers")  # fmt: skip
    change.add_argument("--mask-npy", type=Path, metavar="FILE.npy",
                        help="mask: the slice's new labels, (rows, cols) uint8 or uint16")  # fmt: skip
    change.add_argument("--slice-index", type=argtypes.whole, metavar="K",
                        help="mask of a volume: the slice (0-based) along --axis")  # fmt: skip
    change.add_argument("--axis", type=int, choices=(0, 1, 2),
                        help="mask of a volume: the stored array's axis of the slice")  # fmt: skip
    add_json(propose, "the stored proposal")


class _BoxAction(argparse.Action):
    """``--bbox 5,6,100,127`` (as ``render --bbox``) or ``--bbox 5 6 100 127``: four
    finite numbers, a tuple of float."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        text = ",".join(str(v).strip(",") for v in values)
        try:
            setattr(namespace, self.dest, number_list(4)(text))
        except argparse.ArgumentTypeError:
            parser.error(
                f"argument --bbox: expected four finite numbers, X0,Y0,X1,Y1 or X0 Y0 X1 Y1, "
                f"got {' '.join(values)!r}"
            )


def _add_decide(commands) -> None:
    decide = _command(
        commands, "decide", cmd_decide, help="accept, reject or withdraw a proposal",
        description="Record a decision with a reason: another reviewer (or the "
        "adjudicator) accepts or rejects a proposal, its author may only withdraw it. "
        "Deciding again adds a revision; the latest decision wins.",
    )  # fmt: skip
    add_db(decide, creates=False)
    decide.add_argument("--reviewer", required=True, type=argtypes.new_name, metavar="NAME",
                        help="who decides")  # fmt: skip
    decide.add_argument("--proposal", required=True, type=argtypes.existing_name,
                        metavar="UID", help="the proposal (proposals list shows the uids)")  # fmt: skip
    choice = decide.add_mutually_exclusive_group(required=True)
    for flag, value in (("--accept", ACCEPTED), ("--reject", REJECTED), ("--withdraw", WITHDRAWN)):
        choice.add_argument(flag, dest="decision", action="store_const", const=value,
                            help=f"{value} (with a reason)")  # fmt: skip
    decide.add_argument("--reason", required=True, metavar="TEXT", help="why (required)")
    add_json(decide, '{"decision": {...}, "status"}')


def cmd_list(args: argparse.Namespace) -> int:
    """``proposals list``: one line per proposal (``--json``: every field)."""
    from medrcube_desktop.review.proposal_export import change_line, listed

    with open_database(args.db, create=False) as store:
        rows = listed(store, args.status, args.item)
        changes = {p.uid: change_line(p) for p in store.proposals(args.item)}
    lines = [
        f"{r['uid']}\t{r['item_id']}\t{r['kind']}\t{r['rule']}\t{r['status']}\t{r['author']}"
        f"\t{changes[r['uid']]}"
        for r in rows
    ] or [f"no {'' if args.status == 'all' else args.status + ' '}proposal in {args.db}"]
    data = {"n": len(rows), "status": args.status, "item": args.item, "proposals": rows}
    emit(args.json, data, lines)
    return Outcome.DONE


def _change_text(p) -> str:
    from medrcube_desktop.review.proposal_export import change_text

    return change_text(p)


def cmd_export(args: argparse.Namespace) -> int:
    """``proposals export --out FILE``: JSON or CSV by the suffix."""
    from medrcube_desktop.core.file_kinds import refuse_foreign
    from medrcube_desktop.core.write_guard import refuse_benchmark_output
    from medrcube_desktop.review.proposal_export import write_export

    with open_database(args.db, create=False) as store:
        refuse_overwrite(args.out, args.db)
        refuse_foreign(args.out, "proposals export")
        refuse_benchmark_output(args.out)  # never inside a benchmark (no --dataset here)
        n = write_export(store, args.out)
    emit(args.json, {"proposals": n, "out": str(args.out)}, f"{n} proposals written to {args.out}")
    return Outcome.DONE


def cmd_propose(args: argparse.Namespace) -> int:
    """``proposals propose``: check the change against the item, store it."""
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.review.proposal_export import proposal_dict
    from medrcube_desktop.review.proposing import build_proposal, propose

    _check_change_flags(args)
    benchmark = load_benchmark(args.dataset)
    found = [i for i in (*benchmark.items, *benchmark.restricted) if i.id == args.item]
    if not found:
        raise CorrectionError(
            f"{args.dataset}: no item {args.item!r} among the items that load (validate "
            f"{args.dataset} lists those it refuses)"
        )
    item = found[0]
    change, labels, sizes = _change(args, item)
    proposal = build_proposal(item, args.kind, args.rule, args.reason, args.reviewer, change,
                              labels, **sizes)  # fmt: skip
    with open_database(args.db, create=True) as store:
        stored = propose(store, proposal)
    emit(
        args.json,
        proposal_dict(stored, []),
        f"proposal {stored.uid}: {_change_text(stored)} of item {stored.item_id} "
        f"(rule {stored.rule}) by {stored.author}, open",
    )
    return Outcome.DONE


def _check_change_flags(args: argparse.Namespace) -> None:
    """Refuse change flags that ``--kind`` does not take, and a missing one."""
    wanted = set(CHANGE_FLAGS.get(args.kind, ()))
    if args.kind == MASK:
        wanted |= {"slice_index", "axis"}
    given = {name for name in _ALL_CHANGE_FLAGS if getattr(args, name) is not None}
    extra = sorted(given - wanted, key=_ALL_CHANGE_FLAGS.index)
    missing = [n for n in CHANGE_FLAGS.get(args.kind, ()) if n not in given]
    if extra or missing:
        flags = [f"--{n.replace('_', '-')}" for n in extra or missing]
        takes = ", ".join(f"--{n.replace('_', '-')}" for n in CHANGE_FLAGS.get(args.kind, ()))
        raise CorrectionError(
            f"item {args.item}, --kind {args.kind} takes {takes or 'no change flag'}: "
            + (f"not {', '.join(flags)}" if extra else f"give {', '.join(flags)}")
        )


def _change(args: argparse.Namespace, item) -> tuple[dict, bytes | None, dict]:
    """The change, the mask's labels and the image sizes to check against."""
    import numpy as np

    from medrcube_desktop.errors import ImageLoadError
    from medrcube_desktop.imaging.stored_size import (
        stored_image_size,
        stored_mask_slice,
        stored_slice_shape,
    )
    from medrcube_desktop.review.proposing import source_file_of

    image = Path(item.image_path)
    here = image.is_file()  # a restricted item ships without its image: not checked
    if args.kind == ANSWER_KEY:
        return {"answer": args.answer}, None, {}
    if args.kind == OPTION_TEXT:
        return {"letter": args.letter, "text": args.text}, None, {}
    if args.kind == QUESTION_TEXT:
        return {"text": args.text}, None, {}
    if args.kind == BBOX:
        box = [int(v) if float(v).is_integer() else v for v in args.bbox]
        return {"bbox": box}, None, {"image_size": stored_image_size(image) if here else None}
    if args.kind == MASK:
        labels, shape = _read_labels(args.mask_npy, item.id)
        change = {"slice_index": args.slice_index, "axis": args.axis, "shape": shape}
        # the labels replace a slice of the mask's own file when there is one (what the
        # release writes into), else of a new mask on the image's grid
        edited = Path(item.mask_path) if item.mask_path is not None else image
        try:
            slice_shape = (
                stored_slice_shape(edited, args.slice_index, args.axis)
                if edited.is_file()
                else None
            )
        except ImageLoadError as exc:  # the slice is not in the file: say which item
            raise CorrectionError(
                f"{source_file_of(item)}, item {item.id}, change.slice_index: {exc}"
            ) from exc
        current = None  # what the slice holds now: a change must differ from it
        if item.mask_path is None and slice_shape is not None:
            current = np.zeros(slice_shape, np.uint8)  # a new mask starts empty
        elif item.mask_path is not None and edited.is_file():
            current = stored_mask_slice(edited, args.slice_index, args.axis)
        return change, labels, {"slice_shape": slice_shape, "current_labels": current}
    return {}, None, {}


def _read_labels(path: Path, item_id: str) -> tuple[bytes, list[int]]:
    """The bytes of a ``.npy`` of labels and its shape; refused naming the file."""
    from medrcube_desktop.core.corrections import decode_labels
    from medrcube_desktop.core.files import read_file_bytes

    try:
        data = read_file_bytes(path)
        shape = list(decode_labels(data).shape)
    except (OSError, ValueError) as exc:
        raise CorrectionError(f"item {item_id}, --mask-npy {path}: {exc}") from exc
    return data, shape


def cmd_decide(args: argparse.Namespace) -> int:
    """``proposals decide``: accept, reject or withdraw."""
    from medrcube_desktop.core.files import describe_missing
    from medrcube_desktop.errors import StoreError
    from medrcube_desktop.review.proposal_export import decision_dict
    from medrcube_desktop.review.proposing import decide

    missing = describe_missing(args.db, "review database")
    if missing:  # a decision needs the study that holds the proposal: never a new file
        raise StoreError(missing)
    with open_database(args.db, create=True) as store:
        if store.proposal(args.proposal) is None:
            raise CorrectionError(f"{args.db}: no proposal {args.proposal!r} (proposals list)")
        stored = decide(store, args.proposal, args.decision, args.reason, args.reviewer)
        status = store.proposal_status(args.proposal)
    emit(
        args.json,
        {"decision": decision_dict(stored), "status": status},
        f"proposal {stored.proposal_uid}: {stored.decision} by {stored.decider} "
        f"(revision {stored.revision})",
    )
    return Outcome.DONE
