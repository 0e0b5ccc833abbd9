"""``compare``: several runs side by side, as the paper does (Sections 4–6): the
leaderboard (Table 3), voxel correlation and clusters (Section 5), credibility across
models (Section 6); with ``--out`` also the workbook, the paper's Figs. 3 and 4 and an
HTML report. The computing and the files live in
:mod:`medrcube_desktop.evaluation.compare.result` and :mod:`~.report`; this is the edge."""

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
    load_items,
    open_database,
    say,
    warn,
)
from medrcube_desktop.cli.option_flags import add_flags
from medrcube_desktop.core.files import item_files
from medrcube_desktop.core.progress import Outcome


def add_parsers(sub) -> None:
    """Add ``compare`` to the sub-parser group ``sub``."""
    compare = add_command(
        sub, "compare", cmd_compare,
        help="several runs side by side: leaderboard, voxel correlation, credibility",
        description="The paper's comparison of models over runs stored in one database: "
        "accuracy overall and by task, modality and region with Wilson 95% intervals and "
        "the random baseline (Table 3); Spearman correlation between competency voxels "
        "over models, clustered by average linkage (Section 5); Rationality, Shortcut "
        "Probability and the log odds ratio per model, and the Acc_H-Shortcut Probability "
        "correlation beside its independence baseline (Section 6).",
    )  # fmt: skip
    add_db(compare, creates=False)
    add_dataset(compare)
    compare.add_argument(
        "--run", action="append", type=argtypes.existing_name, metavar="NAME",
        help="a run to compare (repeat; at least 3 for the correlations; default: every "
        "run in the database)",
    )  # fmt: skip
    _add_settings(compare)
    compare.add_argument(
        "--release-diff", type=Path, metavar="DIR",
        help="instead: each --run (default: every run `rescore` rescored on this release "
        "folder) before and after the release, with the paired difference, McNemar p, "
        "rank changes and what each kind of correction moved; --dataset is the source "
        "benchmark",
    )  # fmt: skip
    from medrcube_desktop.evaluation.compare_options import RELEASE_DIFF

    add_flags(compare, RELEASE_DIFF)
    compare.add_argument(
        "--out", type=Path, metavar="DIR",
        help="write the tables (CSV, JSON, XLSX), the figures (PNG, SVG) and report.html",
    )  # fmt: skip
    add_json(
        compare,
        '{"runs", "order", "families", "leaderboard", "voxels", "voxels_undefined", '
        '"credibility", "text_only", "leakage", "necessity"}; an undefined figure is null with its reason '
        '("undefined", "log_or_undefined", "voxels_undefined")',
    )


def _add_settings(compare) -> None:
    """The flags of :data:`~medrcube_desktop.evaluation.compare_options.SETTINGS` (the
    Compare models pane's fields come from the same declarations)."""
    from medrcube_desktop.evaluation.compare_options import SETTINGS

    add_flags(compare, SETTINGS)


def command_line(args: argparse.Namespace, runs: list[str]) -> str:
    """The ``compare`` command that writes the same files again, with absolute paths
    (shell-quoted), for the report's footer and the workbook's meta sheet
    (:func:`~medrcube_desktop.evaluation.compare.inputs.command_line`)."""
    from medrcube_desktop.evaluation.compare_options import CompareSettings
    from medrcube_desktop.evaluation.compare_options import command_line as line

    return line(args.db, args.dataset, runs, CompareSettings.from_args(args), args.out)


def cmd_compare(args: argparse.Namespace) -> int:
    """``compare``: compute, print, and write the outputs with ``--out``."""
    from medrcube_desktop.errors import MedRCubeError
    from medrcube_desktop.evaluation.compare.inputs import compare_study
    from medrcube_desktop.evaluation.compare.report import refuse_inputs, write_compare_outputs
    from medrcube_desktop.evaluation.compare_options import CompareSettings, report_meta

    if args.release_diff is not None:
        return _release_diff(args)
    if args.out is not None:
        refuse_inputs(args.out, [args.db])
    _, items = load_items(args.dataset, verb="compared", images=False)  # scored_benchmark
    with open_database(args.db, create=False) as store:
        runs = list(dict.fromkeys(args.run or store.eval_run_names()))
        if not runs:
            raise MedRCubeError(
                f"{args.db}: no runs to compare (store some with `evaluate` or `import-run`)"
            )
        result = compare_study(store, items, runs, CompareSettings.from_args(args), args.dataset)
    for warning in result.warnings:
        warn(warning)
    if args.out is not None:
        meta = report_meta(args.db, args.dataset, runs, CompareSettings.from_args(args),
                           args.out)  # fmt: skip
        sources = item_files(items)
        for path in write_compare_outputs(args.out, result, meta, [args.db], sources):
            say(f"wrote {path}")
    emit(args.json, result.to_dict(), _lines(result))
    return Outcome.DONE


def release_diff_options(args: argparse.Namespace) -> dict[str, int]:
    """``{"n_boot", "seed"}`` of parsed ``compare`` arguments: the rows of
    :data:`~medrcube_desktop.evaluation.compare_options.RELEASE_DIFF` and ``--seed``."""
    from medrcube_desktop.core.options import values_of
    from medrcube_desktop.evaluation.compare_options import RELEASE_DIFF, CompareSettings

    return {"n_boot": values_of(args, RELEASE_DIFF)["diff_boot"],
            "seed": CompareSettings.from_args(args).seed}  # fmt: skip


def _release_diff(args: argparse.Namespace) -> int:
    """``compare --release-diff DIR``: the old release against the corrected one
    (:func:`~medrcube_desktop.evaluation.compare.release_diff.release_diff`), printed
    and, with ``--out``, written."""
    from medrcube_desktop import __version__
    from medrcube_desktop.core.write_guard import refuse_inside
    from medrcube_desktop.evaluation.compare.release_diff import release_diff
    from medrcube_desktop.evaluation.compare.release_diff_report import (
        diff_lines,
        refuse_release_diff_inputs,
        write_release_diff_outputs,
    )
    from medrcube_desktop.evaluation.release_read import read_release
    from medrcube_desktop.store.database import utc_now

    if args.out is not None:
        refuse_release_diff_inputs(args.out, [args.db])
        refuse_inside(args.out, args.dataset, "the source benchmark")  # both stay as they are
        refuse_inside(args.out, args.release_diff, "the release")
    _, items = load_items(args.dataset, verb="compared", images=False)  # scored_benchmark
    release = read_release(args.release_diff)
    with open_database(args.db, create=False) as store:
        diff = release_diff(store, items, release, args.run, **release_diff_options(args),
                            dataset=args.dataset)  # fmt: skip
    for warning in diff.warnings:
        warn(warning)
    if args.out is not None:
        meta = {"app_version": __version__, "database": str(args.db.expanduser().resolve()),
                "created_at": utc_now()}  # fmt: skip
        written = write_release_diff_outputs(
            args.out, diff, meta, [args.db], item_files(items) + item_files(release.items)
        )
        for path in written:
            say(f"wrote {path}")
    data = diff.to_dict()
    emit(args.json, data, diff_lines(data))
    return Outcome.DONE


def _credibility_lines(figures) -> str:
    """The credibility table as text: per run A-D, Acc_H, Rationality and Shortcut
    Probability with their intervals, SP - Acc_H ("—": none), the log odds ratio and
    the permutation p (or "undefined: <reason>", as the result object writes them)."""
    import pandas as pd

    from medrcube_desktop.evaluation.compare.credibility_stats import CORRECTION_NOTE

    def fig(value, low=None, high=None) -> str:
        if value is None:
            return "—"
        if low is None or high is None:
            return f"{value:.3f}"
        return f"{value:.3f} [{low:.3f}, {high:.3f}]"

    rows = {
        f.run + f.mark(): {
            "A": f.a, "B": f.b, "C": f.c, "D": f.d,
            "Acc_H": fig(f.acc_h, f.acc_h_low, f.acc_h_high),
            "Rationality": fig(f.rationality, f.rationality_low, f.rationality_high),
            "Shortcut P": fig(f.shortcut_prob, f.shortcut_prob_low, f.shortcut_prob_high),
            "SP - Acc_H": fig(f.baseline),
            "log OR [Woolf]": f.log_or_text(mark=" *"),
            "p perm.": f.p_permutation_text(),
        }
        for f in figures
    }  # fmt: skip
    table = pd.DataFrame.from_dict(rows, orient="index").to_string()
    if any(f.haldane and f.log_or is not None for f in figures):  # once, not on every row
        table += f"\n* log OR with {CORRECTION_NOTE}"
    return table


def _lines(result) -> list[str]:
    frame = result.board.to_frame(percent=True, sort=result.sort)
    if ("family", "image_mode") in frame.columns:  # it says text-only too: one column
        frame = frame.drop(columns=[("family", "text_only")])
    lines = [frame.round(1).to_string(na_rep="—")]
    for preset, (figures, correlation) in result.by_preset.items():
        label = f" ({preset} pairing)" if len(result.by_preset) > 1 else ""
        if figures:
            lines.append(f"Credibility{label} (95% bootstrap intervals by image):")
            lines.append(_credibility_lines(result.in_order(figures)))  # leaderboard order
        if correlation is None:
            continue
        lines.append(
            f"Acc_H vs Shortcut Probability{label}: {correlation.summary()}"
            + ("; expected high even with independent answers (SP - Acc_H above is that "
               "baseline)" if correlation.defined else "")
        )  # fmt: skip
    for drop in result.drops:
        overall = drop.table.loc["Overall"]
        if not overall["n"]:
            lines.append(
                f"{drop.image_run} and its text-only run {drop.text_run} answered no item in "
                "common: no drop"
            )
            continue
        lines.append(
            f"{drop.image_run} without the image ({drop.text_run}): "
            f"{overall['without_image']:.1%} against {overall['with_image']:.1%} (drop "
            f"{overall['drop'] * 100:.1f} points over {int(overall['n'])} items; per voxel "
            "in text_only_drop.csv with --out)"
        )
    if result.necessity is not None:
        from medrcube_desktop.evaluation.compare.necessity import necessity_lines

        lines += necessity_lines(result.necessity)
    for row in result.leakage or ():
        verdict = {None: "unanswered", True: "right", False: "wrong"}[row["image_correct"]]
        lines.append(
            f"right in text-only run {row['text_run']}: {row['item']} "
            f"{row['task']}|{row['modality']}|{row['region']}, image run answered "
            f"{row['image_answer'] or '-'} ({verdict})"
        )
    return lines
