"""``compare``: several runs side by side, as the paper does (Sections 4–6): the
leaderboard (Table 3), voxel correlation and clusters (Section 5), credibility across
models (Section 6); with ``--out`` also the workbook, the paper's Figs. 3 and 4 and an
HTML report. The computing and the files live in
:mod:`medrcube_desktop.evaluation.compare.result` and :mod:`~.report`; this is the edge."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from medrcube_desktop.cli import argtypes
from medrcube_desktop.cli.common import (
    add_command,
    add_dataset,
    add_db,
    add_json,
    emit,
    load_items,
    open_database,
    say,
    warn,
)
from medrcube_desktop.core.progress import Outcome


def add_parsers(sub) -> None:
    """Add ``compare`` to the sub-parser group ``sub``."""
    compare = add_command(
        sub, "compare", cmd_compare,
        help="several runs side by side: leaderboard, voxel correlation, credibility",
        description="The paper's comparison of models over runs stored in one database: "
        "accuracy overall and by task, modality and region with Wilson 95%% intervals and "
        "the random baseline (Table 3); Spearman correlation between competency voxels "
        "over models, clustered by average linkage (Section 5); Rationality, Shortcut "
        "Probability and the log odds ratio per model, and the Acc_H-Shortcut Probability "
        "correlation beside its independence baseline (Section 6).",
    )  # fmt: skip
    add_db(compare, creates=False)
    add_dataset(compare)
    compare.add_argument(
        "--run", action="append", required=True, metavar="NAME",
        help="a run to compare (repeat; at least 3 for the correlations)",
    )  # fmt: skip
    compare.add_argument(
        "--min-items", type=argtypes.positive, default=5, metavar="N",
        help="leave out voxels with fewer items (%(default)s)",
    )  # fmt: skip
    compare.add_argument(
        "--clusters", type=argtypes.positive, default=3, metavar="K",
        help="voxel clusters to cut the tree into (%(default)s)",
    )  # fmt: skip
    compare.add_argument("--preset", choices=("paper", "official"), default="paper")
    compare.add_argument(
        "--out", type=Path, metavar="DIR",
        help="write the tables (CSV, JSON, XLSX), the figures (PNG, SVG) and report.html",
    )  # fmt: skip
    add_json(compare, '{"leaderboard", "voxels", "credibility"}')


def command_line(args: argparse.Namespace, runs: list[str]) -> str:
    """The ``compare`` command that writes the same files again, with absolute paths
    (shell-quoted), for the report's footer and the workbook's meta sheet."""
    parts = ["medrcube-desktop", "compare", "--db", str(Path(args.db).resolve()),
             "--dataset", str(Path(args.dataset).resolve())]  # fmt: skip
    for run in runs:
        parts += ["--run", run]
    parts += ["--min-items", str(args.min_items), "--clusters", str(args.clusters)]
    parts += ["--preset", args.preset]
    if args.out is not None:
        parts += ["--out", str(Path(args.out).expanduser().resolve())]
    return shlex.join(parts)


def cmd_compare(args: argparse.Namespace) -> int:
    """``compare``: compute, print, and write the outputs with ``--out``."""
    from medrcube_desktop import __version__
    from medrcube_desktop.evaluation.compare import run_matrix
    from medrcube_desktop.evaluation.compare.report import refuse_inputs, write_compare_outputs
    from medrcube_desktop.evaluation.compare.result import compare_runs
    from medrcube_desktop.store.database import utc_now

    runs = list(dict.fromkeys(args.run))
    if args.out is not None:
        refuse_inputs(args.out, [args.db])
    _, items = load_items(args.dataset, verb="compared")
    with open_database(args.db, create=False) as store:
        matrix = run_matrix(store, runs, items)
    result = compare_runs(matrix, args.min_items, args.clusters, args.preset)
    for warning in result.warnings:
        warn(warning)
    if args.out is not None:
        meta = {
            "app_version": __version__,
            "database": str(Path(args.db).resolve()),
            "dataset": str(Path(args.dataset).resolve()),
            "command": command_line(args, runs),
            "created_at": utc_now(),
        }
        for path in write_compare_outputs(args.out, result, meta, [args.db]):
            say(f"wrote {path}")
    emit(args.json, result.to_dict(), _lines(result.board, result.correlation))
    return Outcome.DONE


def _lines(board, correlation) -> list[str]:
    frame = board.to_frame(percent=True)
    lines = [frame.round(1).to_string()]
    if correlation is not None:
        lines.append(
            f"Acc_H vs Shortcut Probability over {correlation.n} models: r = {correlation.r:.3f} "
            f"(95% CI {correlation.low:.3f} to {correlation.high:.3f}), p = {correlation.p:.2g}; "
            "expected high even with independent answers (see credibility.csv: baseline)"
        )
    return lines
