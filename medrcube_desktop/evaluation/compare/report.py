"""The files of ``compare --out DIR``: CSV, JSON, XLSX, the figures (PNG and SVG) and a
one-page HTML report, all written from one :class:`~.result.CompareResult`.

Every number in every file comes from the same object, so the XLSX, the HTML and the
figures agree with the CSV and JSON, and all of them can be made again from the
database with the command line recorded in ``meta`` (the XLSX "meta" sheet, the
HTML footer). Text cells a spreadsheet would run as formulas (a run named ``=1+1``) get
a leading ``'`` (:func:`~medrcube_desktop.core.csvfile.neutralise_cell`); each file is
written to a temporary name and renamed (:func:`~medrcube_desktop.core.files.atomic_path`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np

from medrcube_desktop.core.csvfile import neutralise_cell, write_csv
from medrcube_desktop.core.files import (
    atomic_path,
    atomic_write,
    refuse_overwrite,
    write_folder_all_or_nothing,
)
from medrcube_desktop.core.names import spreadsheet_text
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_models import ModelCredibility
from medrcube_desktop.evaluation.compare.leaderboard import random_row_name
from medrcube_desktop.evaluation.compare.necessity import Necessity
from medrcube_desktop.evaluation.compare.result import CompareResult

FIGURES: tuple[str, ...] = (
    "fig3_voxel_correlation", "fig3_region_order", "fig3_residual", "fig4_credibility",
)  # fmt: skip
"""The figures, each written as ``.png`` (200 dpi) and ``.svg``."""

OUTPUTS: tuple[str, ...] = (
    "leaderboard.csv",
    "voxel_correlation.csv",
    "credibility.csv",
    "compare.json",
    "compare.xlsx",
    *(f"{name}.{ext}" for name in FIGURES for ext in ("png", "svg")),
    "report.html",
)
"""The names :func:`write_compare_outputs` writes in its folder (``voxel_correlation.csv``
only when there is a correlation)."""

EXTRA_OUTPUTS: tuple[str, ...] = (
    "text_only_drop.csv", "leakage.csv", "necessity_items.csv", "necessity_gaps.csv",
)  # fmt: skip
"""Written besides :data:`OUTPUTS` when runs have a text-only partner (``leakage.csv``
only when the leakage list was asked for; the ``necessity_*.csv`` when a run is an
ablation run, :mod:`.necessity`)."""


def refuse_inputs(
    out_dir: str | Path, inputs: Sequence[Path | None], sources: Iterable[Path] = ()
) -> None:
    """Raise StoreError when the folder or one of :data:`OUTPUTS` in it is one of
    ``inputs`` (the database, with its SQLite sidecars) or of ``sources`` (the
    benchmark's files: :func:`~medrcube_desktop.core.files.item_files`), and
    MedRCubeError when ``out_dir`` is a file: before anything is computed or written."""
    out = Path(out_dir).expanduser()
    sources = list(sources)
    for target in (out, *(out / name for name in (*OUTPUTS, *EXTRA_OUTPUTS))):
        refuse_overwrite(target, *inputs, sources=sources)
    if out.exists() and not out.is_dir():
        raise MedRCubeError(f"{out}: not a folder (the report is a folder of files)")


def _safe(value: object) -> object:
    """A cell value for openpyxl: text made formula-safe with its hidden characters
    visible (:func:`~medrcube_desktop.core.names.spreadsheet_text`: a name in an older
    database may hold a control character openpyxl refuses), numpy numbers as Python
    ones, NaN as an empty cell."""
    if isinstance(value, str):
        return neutralise_cell(spreadsheet_text(value))
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def _atomic(path: Path, write: Callable[[Path], object]) -> Path:
    with atomic_path(path) as tmp:
        write(tmp)
    return path


def write_compare_outputs(
    out_dir: str | Path,
    result: CompareResult,
    meta: Mapping[str, object],
    inputs: Sequence[Path | None] = (),
    sources: Iterable[Path] = (),
    cancel: threading.Event | None = None,
) -> list[Path]:
    """Write every file of :data:`OUTPUTS` to ``out_dir`` (created); return their paths.

    All or nothing: the files are written into a hidden folder inside ``out_dir`` (the
    same file system) and moved into ``out_dir`` once every one of them
    is written; a failure or a cancel on the way removes that folder and leaves
    ``out_dir`` as it was. (Each move is a rename; files of an earlier report with the
    same names are replaced.)

    Parameters
    ----------
    out_dir : str or Path
    result : CompareResult
    meta : mapping
        Provenance for the XLSX "meta" sheet and the HTML footer: ``app_version``,
        ``database``, ``dataset``, ``command`` (the command line that makes these files
        again), ``created_at`` (ISO 8601, UTC); other keys are listed too.
    inputs : sequence of Path
        Never written over, nor their SQLite sidecars (:func:`refuse_inputs`).
    sources : iterable of Path
        The benchmark's files, never written over either (compared by inode).
    cancel : threading.Event, optional
        Checked between files; once set, nothing is moved into ``out_dir`` and ``[]``
        is returned.

    Raises
    ------
    StoreError
        An output would be one of ``inputs`` or ``sources``.
    OSError
        The folder or a file cannot be written.
    """
    refuse_inputs(out_dir, inputs, sources)
    out = Path(out_dir).expanduser()

    def write(stage: Path) -> list[str] | None:
        names = _write_all(stage, result, meta, cancel)
        return None if names is None or (cancel is not None and cancel.is_set()) else names

    written = write_folder_all_or_nothing(out, write)
    if written:
        _remove_stale(out, written)
    return written


def _write_all(
    stage: Path,
    result: CompareResult,
    meta: Mapping[str, object],
    cancel: threading.Event | None,
) -> list[str] | None:
    """Write every output into ``stage``; their names, or None once ``cancel`` is set."""
    from medrcube_desktop.evaluation.compare.figures import save_figure
    from medrcube_desktop.evaluation.compare.html import report_html

    def stopped() -> bool:
        return cancel is not None and cancel.is_set()

    written = _write_csvs(stage, result)
    written.append(atomic_write(stage / "compare.json", json.dumps(result.to_dict(), indent=2)))
    if stopped():
        return None
    written.append(_atomic(stage / "compare.xlsx", lambda p: write_xlsx(result, meta, p)))
    description = str(meta.get("command", ""))
    svgs = {}
    for name, figure in draw_figures(result).items():
        for ext in ("png", "svg"):
            if stopped():
                return None
            path = stage / f"{name}.{ext}"
            written.append(save_figure(figure, path, {"Description": description}))
        svgs[name] = (stage / f"{name}.svg").read_text(encoding="utf-8")
    written.append(atomic_write(stage / "report.html", report_html(result, meta, svgs)))
    return [Path(p).name for p in written]


def _remove_stale(out: Path, written: Sequence[Path]) -> None:
    """Remove this module's own files that this comparison did not write (a
    ``voxel_correlation.csv`` of an earlier run with more runs, a ``leakage.csv`` not
    asked for this time): every number in the folder must come from one comparison.
    Only the names of :data:`OUTPUTS` and :data:`EXTRA_OUTPUTS`, only regular files."""
    kept = {p.name for p in written}
    for name in (*OUTPUTS, *EXTRA_OUTPUTS):
        path = out / name
        if name not in kept and path.is_file() and not path.is_symlink():
            path.unlink()


def draw_figures(result: CompareResult) -> dict[str, object]:
    """Name (:data:`FIGURES`) → matplotlib Figure; a figure that cannot be drawn (too
    few runs or voxels) is :func:`~.figures.message_figure` saying why."""
    from medrcube_desktop.evaluation.compare.figures import (
        credibility_figure,
        message_figure,
        region_heatmap,
        voxel_heatmap,
    )

    n_runs = len(result.voxel_runs)
    why = "; ".join(w for w in result.warnings if "voxel" in w) or "no voxel correlation"
    figures: dict[str, object] = {}
    if result.rho is not None and result.clustering is not None:
        figures[FIGURES[0]] = voxel_heatmap(
            result.voxels.voxels, result.rho, result.clustering, n_models=n_runs
        )
    else:
        figures[FIGURES[0]] = message_figure(f"Fig. 3a: {why}")
    if result.rho is not None:
        figures[FIGURES[1]] = region_heatmap(result.voxels.voxels, result.rho)
    else:
        figures[FIGURES[1]] = message_figure(f"Fig. 3b: {why}")
    if result.residual_rho is not None and result.residual_clustering is not None:
        figures["fig3_residual"] = voxel_heatmap(
            result.voxels.voxels, result.residual_rho, result.residual_clustering,
            n_models=n_runs, label="Fig. 3c  Spearman ρ less each model's overall accuracy,",
        )  # fmt: skip
    else:
        figures["fig3_residual"] = message_figure(f"Fig. 3c: {why}")
    groups = {run: f.group for run, f in zip(result.matrix.runs, result.matrix.families(),
                                             strict=True)}  # fmt: skip
    models = [f for f in result.credibility if not f.text_only]  # text-only: baselines
    figures["fig4_credibility"] = credibility_figure(models, result.correlation, groups)
    return figures


def flat_columns(columns: Sequence[tuple[str, str]]) -> list[str]:
    """One header cell per ``(group, value)`` column of the leaderboard: the value
    ("Overall", "MR", "CT", "Brain", "series"), or ``group:value`` where two groups share
    a value name (a modality and a region of one name)."""
    names = [value for _, value in columns]
    return [value if names.count(value) == 1 else f"{group}:{value}" for group, value in columns]


def _cell(value: object) -> object:
    """A CSV cell: NaN (no answer in the column) as an empty cell."""
    return None if isinstance(value, float) and not np.isfinite(value) else value


def _write_csvs(out: Path, result: CompareResult) -> list[Path]:
    frame = result.board.to_frame(sort=result.sort)
    written = [
        write_csv(
            out / "leaderboard.csv",
            ["run", *flat_columns(list(frame.columns))],
            [
                [i, *map(_cell, row)]
                for i, row in zip(frame.index, frame.to_numpy().tolist(), strict=True)
            ],  # fmt: skip
        )
    ]
    if result.rho is not None:
        voxels = result.voxels.voxels
        written.append(
            write_csv(
                out / "voxel_correlation.csv",
                ["voxel", *voxels],
                [[v, *map(_cell, row)] for v, row in zip(voxels, result.rho.tolist(), strict=True)],
            )
        )
    names = [f.name for f in fields(ModelCredibility)]
    every = [f for figures, _ in result.by_preset.values() for f in result.in_order(figures)]
    written.append(
        write_csv(
            out / "credibility.csv",
            names,
            [[getattr(f, k) for k in names] for f in every or result.in_order()],
        )
    )
    if result.drops:
        columns = ["n", "with_image", "without_image", "drop"]
        written.append(
            write_csv(
                out / "text_only_drop.csv",
                ["image_run", "text_run", "voxel", *columns],
                [
                    [d.image_run, d.text_run, row["voxel"], *(row[k] for k in columns)]
                    for d in result.drops
                    for row in d.rows()
                ],
            )
        )
    if result.drops and result.leakage is not None:
        from medrcube_desktop.evaluation.compare.text_only import LEAKAGE_FIELDS

        written.append(
            write_csv(
                out / "leakage.csv",
                list(LEAKAGE_FIELDS),
                [[row[k] for k in LEAKAGE_FIELDS] for row in result.leakage],
            )
        )
    if result.necessity is not None:
        written += _necessity_csvs(out, result.necessity)
    return written


def _necessity_csvs(out: Path, found: Necessity) -> list[Path]:
    """``necessity_items.csv`` (:data:`~.necessity.ITEM_FIELDS`) and
    ``necessity_gaps.csv`` (:data:`~.necessity.GAP_FIELDS`)."""
    from medrcube_desktop.evaluation.compare.necessity import GAP_FIELDS, ITEM_FIELDS

    return [
        write_csv(out / "necessity_items.csv", list(ITEM_FIELDS),
                  [[row[k] for k in ITEM_FIELDS] for row in found.items.rows()]),
        write_csv(out / "necessity_gaps.csv", list(GAP_FIELDS),
                  [[_cell(row[k]) for k in GAP_FIELDS] for row in found.gap_rows()]),
    ]  # fmt: skip


def _sheet(book, title: str, header: Sequence[object], rows) -> Any:
    from openpyxl.styles import Font

    sheet = book.create_sheet(title)
    sheet.append([_safe(h) for h in header])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append([_safe(v) for v in row])
    sheet.freeze_panes = "B2"
    return sheet


def write_xlsx(result: CompareResult, meta: Mapping[str, object], path: Path) -> None:
    """The workbook: "Table 3" (accuracy in %, the paper's layout), "leaderboard" (one
    row per run and column: n, correct, accuracy, Wilson low/high, 0–1), "voxel
    accuracy", "voxel correlation", "clusters", "regions", "credibility", "text-only
    drops" (when a run is text-only) and "meta". Values are the :class:`CompareResult`'s
    (the JSON's), unrounded; NaN is an empty cell."""
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    board, matrix = result.board, result.matrix
    wide = board.to_frame(percent=True, sort=result.sort).drop(columns="family", level="group")
    table = _sheet(book, "Table 3", ["group", *(g for g, _ in board.columns)],
                   [["run", *(v for _, v in board.columns)],
                    *([run, *row] for run, row in zip(wide.index, wide.to_numpy().tolist(),
                                                      strict=True))])  # fmt: skip
    table.freeze_panes = "B3"
    for row in table.iter_rows(min_row=3, min_col=2):
        for cell in row:
            cell.number_format = "0.0"  # shown as the paper prints it; stored unrounded
    accuracy = board.accuracy
    long = [
        [run, model, text, mode, group, value, int(board.n[r, c]), int(board.correct[r, c]),
         accuracy[r, c], board.low[r, c], board.high[r, c]]
        for r, (run, model, text, mode) in enumerate(zip(
            matrix.runs, matrix.models, matrix.text_only, matrix.image_modes, strict=True))
        for c, (group, value) in enumerate(board.columns)
    ]  # fmt: skip
    long += [
        [
            random_row_name(board.runs),
            None,
            None,
            None,
            group,
            value,
            None,
            None,
            board.random[c],
            None,
            None,
        ]
        for c, (group, value) in enumerate(board.columns)
    ]
    _sheet(book, "leaderboard", ["run", "model", "text_only", "image_mode", "group", "value", "n",
                                 "correct", "accuracy", "wilson_low", "wilson_high"], long)  # fmt: skip
    voxels = result.voxels
    model = dict(zip(matrix.runs, matrix.models, strict=True))
    _sheet(
        book, "voxel accuracy", ["run", "model", *voxels.voxels],
        [*([run, model[run], *row] for run, row in zip(result.voxel_runs,
                                                      voxels.accuracy.tolist(), strict=True)),
         ["items", None, *voxels.counts.tolist()]],
    )  # fmt: skip
    if result.rho is not None:
        _sheet(book, "voxel correlation", ["voxel", *voxels.voxels],
               ([v, *row] for v, row in zip(voxels.voxels, result.rho.tolist(), strict=True)))  # fmt: skip
    if result.clustering is not None:
        _clusters_sheet(book, result)
    if result.residual_rho is not None:
        _sheet(book, "residual correlation", ["voxel", *voxels.voxels],
               ([v, *row] for v, row in zip(voxels.voxels, result.residual_rho.tolist(),
                                             strict=True)))  # fmt: skip
    if result.stability is not None:
        agreement = result.stability.tree_agreement
        stability = _sheet(book, "cluster stability", ["voxel", *voxels.voxels],
                           ([v, *row] for v, row in zip(voxels.voxels,
                                                        result.stability.co_clustering.tolist(),
                                                        strict=True)))  # fmt: skip
        stability.append([])
        stability.append(["replicates", int(agreement.size)])
        stability.append(["tree agreement (cophenetic r with the full tree), median",
                          float(np.nanmedian(agreement)) if agreement.size else None])  # fmt: skip
    if result.islands:
        _sheet(book, "regions", ["region", "n_voxels", "mean_rho_within", "mean_rho_with_others"],
               ([i.region, i.n_voxels, i.within, i.with_others] for i in result.islands))  # fmt: skip
    names = [f.name for f in fields(ModelCredibility)]
    credibility = _sheet(book, "credibility", [*names, "n_pairs"],
                         ([*(getattr(f, k) for k in names), f.n_pairs] for f in result.in_order()))  # fmt: skip
    if result.correlation is not None:
        credibility.append([])
        credibility.append(["Acc_H vs Shortcut Probability", "Pearson r", "low", "high", "p", "n",
                            "undefined", "summary"])  # fmt: skip
        c = result.correlation
        credibility.append([None, c.r, c.low, c.high, c.p, c.n, c.undefined, c.summary()])
    if result.drops:
        _sheet(book, "text-only drops",
               ["image_run", "text_run", "model", "voxel", "n", "with_image", "without_image", "drop"],
               ([d.image_run, d.text_run, d.model, row["voxel"], row["n"], row["with_image"],
                 row["without_image"], row["drop"]]
                for d in result.drops for row in d.rows()))  # fmt: skip
    if result.necessity is not None:
        from medrcube_desktop.evaluation.compare.necessity import GAP_FIELDS, ITEM_FIELDS

        _sheet(
            book,
            "image necessity",
            list(GAP_FIELDS),
            ([row[k] for k in GAP_FIELDS] for row in result.necessity.gap_rows()),
        )
        _sheet(book, "necessity items", list(ITEM_FIELDS),
               ([row[k] for k in ITEM_FIELDS] for row in result.necessity.items.rows()))  # fmt: skip
    _meta_sheet(book, result, meta)
    book.properties.title = "MedRCube comparison"
    book.properties.description = spreadsheet_text(str(meta.get("command", ""))[:1000])
    book.save(path)


def _clusters_sheet(book, result: CompareResult) -> None:
    from medrcube_desktop.evaluation.compare.figures import cluster_name, voxel_parts

    clustering, voxels = result.clustering, result.voxels.voxels
    assert clustering is not None
    parts = voxel_parts(voxels)
    position = {int(v): n for n, v in enumerate(clustering.order)}
    sheet = _sheet(
        book, "clusters", ["voxel", "task", "modality", "region", "cluster", "leaf_position"],
        ([v, parts["task"][i], parts["modality"][i], parts["region"][i],
          cluster_name(int(clustering.labels[i])), position[i]]
         for i, v in sorted(enumerate(voxels), key=lambda p: position[p[0]])),
    )  # fmt: skip
    within, between = result.within_between or (None, None)
    sheet.append([])
    sheet.append(["mean rho within clusters", within])
    sheet.append(["mean rho between clusters", between])
    sheet.append(["cophenetic correlation", _safe(clustering.cophenetic)])
    sheet.append([])
    names = [cluster_name(c) for c in range(len(clustering.mean_rho_within))]
    sheet.append(["mean rho between clusters (block means)", *names])
    for name, row in zip(names, clustering.mean_rho_blocks.tolist(), strict=True):
        sheet.append([name, *(_safe(v) for v in row)])


def _meta_sheet(book, result: CompareResult, meta: Mapping[str, object]) -> None:
    settings = {"preset": result.preset, "min_items": result.min_items,
                "clusters": result.clusters, "sort": result.sort,
                "bootstrap": result.n_boot, "seed": result.seed,
                "stability": result.n_stability}  # fmt: skip
    rows: list[list[object]] = [[k, json.dumps(v) if isinstance(v, list | dict) else v]
                                for k, v in {**meta, **settings}.items()]  # fmt: skip
    rows.append(["warnings", "; ".join(result.warnings)])
    rows.append([])
    rows.append(["run", "model", "text_only", "image_mode"])
    m = result.matrix
    rows += [[r, model, t, mode] for r, model, t, mode in zip(m.runs, m.models, m.text_only,
                                                              m.image_modes, strict=True)]  # fmt: skip
    sheet = _sheet(book, "meta", ["key", "value", "", ""], rows)
    sheet.column_dimensions["A"].width = 22
    sheet.column_dimensions["B"].width = 60
