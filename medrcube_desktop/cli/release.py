"""``release``: write the corrected benchmark, its changelog and ``changes.json``
(issue 23, item 3; :mod:`medrcube_desktop.review.release`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from medrcube_desktop.cli.common import add_command, add_dataset, add_db, add_json, emit, say
from medrcube_desktop.core.progress import Outcome
from medrcube_desktop.core.words import plural


def add_parsers(sub) -> None:
    """Add ``release`` to the sub-parser group ``sub``."""
    release = add_command(
        sub, "release", cmd_release,
        help="write the corrected benchmark (accepted corrections) as a new folder",
        description="Write DATASET with the corrections accepted in DB as a new folder in the "
        "MedRCube layout: unchanged records byte for byte, changed records with their "
        "corrections, retired records left out, images hard-linked (else copied), edited "
        "masks as new files; with release.json, changes.json and CHANGELOG.md. The source "
        "is never written. Exit 2 for bad input (a correction that does not fit its item, "
        "two that contradict each other, an output folder that is not new or empty).",
    )  # fmt: skip
    add_dataset(release)
    add_db(release, creates=False)
    release.add_argument(
        "--out", type=Path, required=True, metavar="DIR",
        help="the release folder: new or empty, neither inside the source nor holding it",
    )  # fmt: skip
    release.add_argument(
        "--version", required=True, metavar="V", dest="release_version",
        help="the release's version (letters, digits, . _ + -), recorded in release.json and "
        "in the names of edited masks",
    )  # fmt: skip
    release.add_argument(
        "--copy", action="store_true",
        help="copy every image instead of hard-linking it (a release to move to another disk)",
    )  # fmt: skip
    add_json(release, '{"out", "version", "items", "changed", "retired", ...}')


def cmd_release(args: argparse.Namespace) -> int:
    """``release --dataset SRC --db DB --out DIR --version V``: 0 written, 2 bad input."""
    from medrcube_desktop.cli.common import open_database, terminate_interrupts
    from medrcube_desktop.review.release import (
        check_out_folder,
        check_source,
        check_version,
        write_release,
    )

    check_version(args.release_version)  # each refused before the database is opened
    check_out_folder(check_source(args.dataset), args.out)
    with open_database(args.db, create=False) as store:
        corrections = store.accepted_corrections()
    with terminate_interrupts():  # SIGTERM as Ctrl+C: the staging folder is removed
        summary = write_release(
            args.dataset, corrections, args.out, args.release_version, copy=args.copy
        )
    if summary.copied and not args.copy and not args.json:
        say(f"{plural(summary.copied, 'file')} copied: hard links are not possible there")
    emit(
        args.json,
        summary.to_dict(),
        f"release {summary.version} written to {summary.out}: "
        f"{plural(summary.items, 'item')} ({summary.changed} changed, "
        f"{summary.unchanged} unchanged), {summary.retired} retired, "
        f"{summary.needs_new_answer} need a new answer; "
        f"{plural(len(summary.masks_written), 'new mask')}; "
        f"{summary.linked} files hard-linked, {summary.copied} copied",
    )
    return Outcome.DONE
