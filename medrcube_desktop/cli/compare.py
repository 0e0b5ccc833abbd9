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
"""The files ``--out DIR`` writes."""


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
    compare.add_argument("--out", type=Path, metavar="DIR", help=f"write {', '.join(OUTPUTS)}")
    add_json(compare, '{"leaderboard", "voxels", "credibility"}')


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
    from medrcube_desktop.evaluation.compare.credibility_models import (
        accuracy_shortcut_correlation,
        group_counts,
        model_credibility,
    )
    from medrcube_desktop.evaluation.compare.leaderboard import leaderboard
    from medrcube_desktop.evaluation.compare.voxels import (
        cluster_voxels,
        voxel_correlation,
        voxel_matrix,
    )

    runs = list(dict.fromkeys(args.run))
    if args.out is not None:
        for name in ("", *OUTPUTS):
            refuse_overwrite(args.out / name if name else args.out, args.db)
    _, items = load_items(args.dataset, verb="compared")
    with open_database(args.db, create=False) as store:
        matrix = run_matrix(store, runs, items)
    board = leaderboard(matrix)
    voxels = voxel_matrix(matrix, args.min_items)
    result: dict[str, object] = {"runs": runs, "leaderboard": board.to_dict()}
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
    counts, warnings = group_counts(matrix, args.preset)
    for warning in warnings:
        warn(warning)
    figures = model_credibility(counts)
    credibility: dict[str, object] = {"preset": args.preset, "models": [asdict(f) for f in figures]}
    try:
        correlation = accuracy_shortcut_correlation(figures)
        credibility["acc_h_vs_shortcut"] = asdict(correlation)
    except MedRCubeError as exc:
        warn(f"no Acc_H-Shortcut Probability correlation: {exc}")
        correlation = None
    result["credibility"] = credibility
    result = clean(result)  # type: ignore[assignment]
    if args.out is not None:
        for path in _write(args.out, board, voxels.voxels, rho, figures, result):
            say(f"wrote {path}")
    emit(args.json, result, _lines(board, correlation))
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


def _write(out: Path, board, voxels, rho, figures, result) -> list[Path]:
    from medrcube_desktop.core.csvfile import write_csv
    from medrcube_desktop.core.files import atomic_write

    out.mkdir(parents=True, exist_ok=True)
    frame = board.to_frame()
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
