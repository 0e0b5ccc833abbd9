"""``compare``: several runs side by side, as the paper does (Sections 4–6): the
leaderboard (Table 3), voxel correlation and clusters (Section 5), credibility across
models (Section 6). The first command of issue 14; the pane and figures come next."""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import asdict
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
    refuse_overwrite,
    say,
    warn,
)
from medrcube_desktop.core.progress import Outcome

OUTPUTS = ("leaderboard.csv", "voxel_correlation.csv", "credibility.csv", "compare.json")
"""The files ``--out DIR`` always writes."""

EXTRA_OUTPUTS = ("text_only_drop.csv", "leakage.csv")
"""Written with ``--out DIR`` when runs have a text-only partner (and ``--leakage``)."""

PRESET_CHOICES = ("paper", "official", "both")


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
        "--run", action="append", metavar="NAME",
        help="a run to compare (repeat; at least 3 for the correlations; default: every "
        "run in the database)",
    )  # fmt: skip
    compare.add_argument(
        "--sort", choices=("family", "accuracy", "none"), default="family",
        help="leaderboard rows by model group and series (paper Table 3), by accuracy, or "
        "as given (%(default)s)",
    )  # fmt: skip
    compare.add_argument(
        "--min-items", type=argtypes.positive, default=5, metavar="N",
        help="leave out voxels with fewer items (%(default)s)",
    )  # fmt: skip
    compare.add_argument(
        "--clusters", type=argtypes.positive, default=3, metavar="K",
        help="voxel clusters to cut the tree into (%(default)s)",
    )  # fmt: skip
    compare.add_argument(
        "--preset", choices=PRESET_CHOICES, default="paper",
        help="pairing of credibility (paper Section 6, or the public script's); both: "
        "each, the paper's first (%(default)s)",
    )  # fmt: skip
    compare.add_argument(
        "--bootstrap", type=argtypes.count, default=1000, metavar="B",
        help="bootstrap replicates of the credibility intervals, resampling images "
        "(0: none; %(default)s)",
    )  # fmt: skip
    compare.add_argument(
        "--seed", type=argtypes.seed, default=0, metavar="S", help="bootstrap seed (%(default)s)"
    )
    compare.add_argument(
        "--leakage", action="store_true",
        help="list the items each text-only run answered right (prior leakage)",
    )  # fmt: skip
    compare.add_argument(
        "--out", type=Path, metavar="DIR",
        help=f"write {', '.join(OUTPUTS)} (and {', '.join(EXTRA_OUTPUTS)} when they apply)",
    )  # fmt: skip
    add_json(
        compare,
        '{"runs", "order", "families", "leaderboard", "voxels", "credibility", "text_only", '
        '"leakage"}',
    )


def _number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def clean(value: object) -> object:
    """JSON-ready: NaN as null, numpy scalars and arrays as Python numbers and lists."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalar or array
        return clean(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def cmd_compare(args: argparse.Namespace) -> int:
    """``compare``: compute, print, and write the tables with ``--out``."""
    from medrcube_desktop.errors import MedRCubeError
    from medrcube_desktop.evaluation.compare import run_matrix
    from medrcube_desktop.evaluation.compare.leaderboard import leaderboard
    from medrcube_desktop.evaluation.compare.voxels import (
        cluster_voxels,
        voxel_correlation,
        voxel_matrix,
    )

    if args.out is not None:
        for name in ("", *OUTPUTS, *EXTRA_OUTPUTS):
            refuse_overwrite(args.out / name if name else args.out, args.db)
    _, items = load_items(args.dataset, verb="compared")
    with open_database(args.db, create=False) as store:
        runs = list(dict.fromkeys(args.run or store.eval_run_names()))
        if not runs:
            raise MedRCubeError(f"{args.db}: no runs to compare")
        matrix = run_matrix(store, runs, items)
    board = leaderboard(matrix)
    voxels = voxel_matrix(matrix, args.min_items)
    order = [runs[r] for r in board.order(args.sort)]
    families = {
        run: {"model": model, "series": f.series, "group": f.group, "text_only": text}
        for run, model, f, text in zip(
            runs, matrix.models, matrix.families(), matrix.text_only, strict=True
        )
    }
    result: dict[str, object] = {
        "runs": runs, "order": order, "families": families, "leaderboard": board.to_dict(),
    }  # fmt: skip
    rho = None
    if len(runs) >= 3 and len(voxels.voxels) >= 2:
        rho = voxel_correlation(voxels.accuracy)
        try:
            clusters = cluster_voxels(rho, args.clusters)
        except MedRCubeError as exc:
            warn(f"voxels not clustered: {exc}")
            clusters = None
        result["voxels"] = {
            "voxels": voxels.voxels,
            "dropped": voxels.dropped,
            "rho": [[_number(float(v)) for v in row] for row in rho],
            "clusters": None
            if clusters is None
            else {
                "labels": clusters.labels.tolist(),
                "order": clusters.order.tolist(),
                "cophenetic": _number(float(clusters.cophenetic)),
                "mean_rho_within": [_number(float(v)) for v in clusters.mean_rho_within],
                "mean_rho_between": [_number(float(v)) for v in clusters.mean_rho_between],
            },
        }
    else:
        warn("voxel correlation needs at least 3 runs and 2 voxels with enough items")
        result["voxels"] = None
    presets = ("paper", "official") if args.preset == "both" else (args.preset,)
    by_preset, figures, correlation = {}, [], None
    for preset in presets:
        section, preset_figures, preset_r = _credibility(matrix, preset, args)
        by_preset[preset] = section
        figures += preset_figures
        correlation = correlation if correlation is not None else preset_r
    result["credibility"] = by_preset[presets[0]]
    if len(presets) > 1:
        result["credibility_by_preset"] = by_preset
    drops, leakage = _text_only(matrix, args.leakage)
    result["text_only"] = [
        {"image_run": i, "text_run": t, "voxels": frame.reset_index().to_dict("records")}
        for (i, t), frame in drops.items()
    ]
    if args.leakage:
        result["leakage"] = leakage
    result = clean(result)  # type: ignore[assignment]
    if args.out is not None:
        written = _write(args.out, board, voxels.voxels, rho, figures, result, args.sort)
        written += _write_text_only(args.out, drops, leakage if args.leakage else None)
        for path in written:
            say(f"wrote {path}")
    lines = _lines(board, correlation, args.sort)
    lines += _text_only_lines(drops, leakage if args.leakage else None)
    emit(args.json, result, lines)
    return Outcome.DONE


def _credibility(matrix, preset: str, args: argparse.Namespace):
    """One preset's credibility: (JSON section, figures, Acc_H–SP correlation or None).

    The correlation is over the image runs: a text-only run is a baseline, not a model
    of the comparison (its figures are listed all the same)."""
    from medrcube_desktop.errors import MedRCubeError
    from medrcube_desktop.evaluation.compare.credibility_models import (
        accuracy_shortcut_correlation,
        credibility_table,
    )

    figures, warnings = credibility_table(matrix, preset, args.bootstrap, args.seed)
    for warning in warnings:
        warn(warning)
    section: dict[str, object] = {"preset": preset, "models": [asdict(f) for f in figures]}
    correlation = None
    try:
        correlation = accuracy_shortcut_correlation([f for f in figures if not f.text_only])
        section["acc_h_vs_shortcut"] = asdict(correlation)
    except MedRCubeError as exc:
        warn(f"no Acc_H-Shortcut Probability correlation ({preset} preset): {exc}")
    return section, figures, correlation


def _text_only(matrix, leakage: bool):
    """The text-only drop per voxel of each (image run, text-only run) pair, and with
    ``leakage`` the items each text-only run got right (else an empty list)."""
    from medrcube_desktop.evaluation.compare.text_only import (
        leakage_items,
        text_only_drop,
        text_only_pairs,
    )

    pairs = text_only_pairs(matrix)
    drops = {(i, t): text_only_drop(matrix, i, t) for i, t in pairs}
    rows = [row for i, t in pairs for row in leakage_items(matrix, i, t)] if leakage else []
    return drops, rows


def _text_only_lines(drops, leakage) -> list[str]:
    lines = []
    for (image_run, text_run), frame in drops.items():
        overall = frame.loc["Overall"]
        lines.append(
            f"{image_run} without the image ({text_run}): {overall['without_image']:.1%} "
            f"against {overall['with_image']:.1%} (drop {overall['drop'] * 100:.1f} points "
            f"over {int(overall['n'])} items; per voxel in text_only_drop.csv with --out)"
        )
    if leakage is not None:
        for row in leakage:
            lines.append(
                f"right without the image ({row['text_run']}): {row['item']} "
                f"{row['task']}|{row['modality']}|{row['region']}, image run answered "
                f"{row['image_answer'] or '-'} ({_verdict(row['image_correct'])})"
            )
    return lines


def _verdict(correct: bool | None) -> str:
    return "unanswered" if correct is None else "right" if correct else "wrong"


def _write_text_only(out: Path, drops, leakage) -> list[Path]:
    """``text_only_drop.csv`` (a row per pair and voxel) and, with ``--leakage``,
    ``leakage.csv`` (:data:`~...text_only.LEAKAGE_FIELDS`); nothing without pairs."""
    from medrcube_desktop.core.csvfile import write_csv
    from medrcube_desktop.evaluation.compare.text_only import LEAKAGE_FIELDS

    if not drops:
        return []
    out.mkdir(parents=True, exist_ok=True)
    fields = ["voxel", "n", "with_image", "without_image", "drop"]
    rows = [
        [image_run, text_run, *(record[k] for k in fields)]
        for (image_run, text_run), frame in drops.items()
        for record in frame.reset_index().to_dict("records")
    ]
    written = [write_csv(out / "text_only_drop.csv", ["image_run", "text_run", *fields], rows)]
    if leakage is not None:
        written.append(
            write_csv(
                out / "leakage.csv",
                list(LEAKAGE_FIELDS),
                [[row[k] for k in LEAKAGE_FIELDS] for row in leakage],
            )
        )
    return written


def _lines(board, correlation, sort: str | None = None) -> list[str]:
    frame = board.to_frame(percent=True, sort=sort)
    lines = [frame.round(1).to_string()]
    if correlation is not None:
        lines.append(
            f"Acc_H vs Shortcut Probability over {correlation.n} models: r = {correlation.r:.3f} "
            f"(95% CI {correlation.low:.3f} to {correlation.high:.3f}), p = {correlation.p:.2g}; "
            "expected high even with independent answers (see credibility.csv: baseline)"
        )
    return lines


def _write(out: Path, board, voxels, rho, figures, result, sort: str | None = None) -> list[Path]:
    from medrcube_desktop.core.csvfile import write_csv
    from medrcube_desktop.core.files import atomic_write

    out.mkdir(parents=True, exist_ok=True)
    frame = board.to_frame(sort=sort)
    written = [
        write_csv(
            out / "leaderboard.csv",
            ["run", *frame.columns],
            [
                [index, *row]
                for index, row in zip(frame.index, frame.to_numpy().tolist(), strict=True)
            ],
        )
    ]
    if rho is not None:
        written.append(
            write_csv(
                out / "voxel_correlation.csv",
                ["voxel", *voxels],
                [[v, *row] for v, row in zip(voxels, rho.tolist(), strict=True)],
            )
        )
    fields = list(asdict(figures[0])) if figures else ["run"]
    written.append(
        write_csv(
            out / "credibility.csv", fields, [[getattr(f, k) for k in fields] for f in figures]
        )
    )
    path = out / "compare.json"
    atomic_write(path, json.dumps(result, indent=2))
    written.append(path)
    return written
