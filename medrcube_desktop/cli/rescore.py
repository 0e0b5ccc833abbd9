"""``rescore``: every stored run (or the named ones) scored again on a corrected release
from its stored answers, without calling a model (issue 23 item 4). The work is
:func:`medrcube_desktop.evaluation.rescore.rescore_runs`; this is the edge."""

from __future__ import annotations

import argparse
from pathlib import Path

from medrcube_desktop.cli.common import (
    add_command,
    add_db,
    add_json,
    emit,
    open_database,
    say,
    warn,
)
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.errors import MedRCubeError


def add_parsers(sub) -> None:
    """Add ``rescore`` to the sub-parser group ``sub``."""
    rescore = add_command(
        sub, "rescore", cmd_rescore,
        help="score stored runs again on a corrected release (no model is called)",
        description="Copy each stored run to a run <run>@<version> over the release: an "
        "answer to an item whose answer key changed is scored again from the stored letter, "
        "an answer to a retired item is dropped, and an item whose question, options or "
        "image changed is listed as needing a new answer (evaluate --only-changed answers "
        "it). Running it again adds nothing.",
    )  # fmt: skip
    rescore.add_argument(
        "--release", type=Path, required=True, metavar="DIR",
        help="a release folder (written by `release`: release.json, changes.json)",
    )  # fmt: skip
    add_db(rescore, creates=False)
    rescore.add_argument(
        "--runs", "--run", dest="runs", action="extend", nargs="+", metavar="NAME",
        help="the runs to rescore (default: every run not itself rescored)",
    )  # fmt: skip
    rescore.add_argument(
        "--replace", action="store_true",
        help="make again a rescored run made on another release of the same version "
        "(deletes it first, answers of `evaluate --only-changed` in it too)",
    )  # fmt: skip
    add_json(rescore, '{"release": {"version", "dir", "digest"}, "runs", "skipped"}')


def cmd_rescore(args: argparse.Namespace) -> int:
    """``rescore``: read the release, rescore, print a line per run."""
    from medrcube_desktop.core.files import describe_missing
    from medrcube_desktop.evaluation.release_read import read_release
    from medrcube_desktop.evaluation.rescore import rescore_runs

    release = read_release(args.release, check_files=False)  # ids and keys only
    if not args.db.is_file():  # rescoring writes, but never into a new, empty database
        raise MedRCubeError(
            describe_missing(args.db, "review database") or f"{args.db}: not a file"
        )
    with open_database(args.db, create=True) as store:
        summary = rescore_runs(store, release, args.runs, replace=args.replace)
    for note in summary.skipped:
        say(f"skipped {note}")
    for run in summary.runs:
        if run.benchmark_differs:
            warn(f"run {run.source} was answered on another benchmark than the release's "
                 f"source ({release.source}): its answers are matched by item id")  # fmt: skip
        if run.not_in_release:
            warn(f"run {run.source}: {run.not_in_release} answers to items the release does "
                 "not hold nor list in changes.json were dropped")  # fmt: skip
    emit(args.json, summary.to_dict(), _lines(summary))
    return Outcome.DONE


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _lines(summary) -> list[str]:
    version = summary.release["version"]
    lines = []
    pending: dict[str, None] = {}
    for run in summary.runs:
        lines.append(
            f"{run.run} ({run.status}, from {run.source}): accuracy "
            f"{_percent(run.accuracy(False))} of {run.answered_before} → "
            f"{_percent(run.accuracy(True))} of {run.scored}; {run.key_changed} answer-key "
            f"changes rescored ({run.to_right} wrong→right, {run.to_wrong} right→wrong), "
            f"{run.retired} retired dropped, {len(run.needs_new_answer)} need a new answer"
        )
        pending.update(dict.fromkeys(run.needs_new_answer))
    if not summary.runs:
        lines.append(f"no run to rescore on release {version}")
    if pending:
        lines.append(
            f"need a new answer ({len(pending)}): {', '.join(pending)} — `evaluate "
            f"--only-changed --run <run>@{version} --dataset {summary.release['dir']}` "
            "answers them"
        )
    return lines
