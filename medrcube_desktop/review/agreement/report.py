"""Publishable outputs of an agreement study: JSON, long CSV, XLSX, and (through
:mod:`.figures` and :mod:`.html`) the figures and the HTML report.

Every file records the app version, rubric version, prompt hash(es) and judge model
(``StudyRun.meta``) and identifies items only by their benchmark id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from medrcube_desktop.core.csvfile import neutralise_cell, write_csv
from medrcube_desktop.core.files import atomic_path, refuse_overwrite, write_folder_all_or_nothing
from medrcube_desktop.core.names import spreadsheet_text
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.figures import bar_figure, confusion_figure, save_figure
from medrcube_desktop.review.agreement.html import write_html
from medrcube_desktop.review.agreement.run import StudyRun
from medrcube_desktop.review.agreement.table import (
    FIGURE_NAMES,
    abstention_lines,
    abstention_rows,
    meta_line,
    table_rows,
)


def _safe(value: object) -> object:
    """A text cell a spreadsheet will not run as a formula (same rule as the review
    CSV: a leading ``'`` before ``= + - @``, tab or CR; OWASP CSV injection), its hidden
    characters visible (:func:`~medrcube_desktop.core.names.spreadsheet_text`: a
    reviewer name in an older database may hold a control character openpyxl refuses)."""
    return neutralise_cell(spreadsheet_text(value)) if isinstance(value, str) else value


OUTPUT_FILES: tuple[str, ...] = (
    "agreement.json",
    "agreement_long.csv",
    "agreement.xlsx",
    "agreement_by_rule.png",
    "agreement_by_rule.svg",
    "confusion_tables.png",
    "confusion_tables.svg",
    "report.html",
)
"""The names :func:`write_outputs` writes in its folder (a command checks them against
its inputs before anything is written)."""


def refuse_inputs(out_dir: str | Path, inputs: Sequence[Path | None]) -> None:
    """Raise StoreError when the folder or one of :data:`OUTPUT_FILES` in it is one of
    ``inputs`` (the study database): checked before anything is computed or written."""
    out = Path(out_dir).expanduser()
    for target in (out, *(out / name for name in OUTPUT_FILES)):
        refuse_overwrite(target, *inputs)


def write_outputs(
    run: StudyRun, out_dir: str | Path, inputs: Sequence[Path | None] = ()
) -> list[Path]:
    """Write every output file to ``out_dir`` (created); return their paths.

    Files: ``agreement.json``, ``agreement_long.csv`` (item × rule × rater),
    ``agreement.xlsx``, ``agreement_by_rule.png``/``.svg``, ``confusion_tables.png``/
    ``.svg`` and ``report.html``. All or nothing
    (:func:`~medrcube_desktop.core.files.write_folder_all_or_nothing`): a failure half-way
    (a full disk) leaves ``out_dir`` as it was.

    ``inputs`` (the study database) are never written over (:func:`refuse_inputs`).

    Raises
    ------
    StoreError
        An output would be one of ``inputs``.
    OSError
        The folder or a file cannot be written.
    """
    refuse_inputs(out_dir, inputs)
    out = Path(out_dir).expanduser()

    def write(stage: Path) -> list[str]:
        written = [
            _atomic(stage / "agreement.json", lambda p: _write_json(run, p)),
            _write_long_csv(run, stage / "agreement_long.csv"),
            _atomic(stage / "agreement.xlsx", lambda p: _write_xlsx(run, p)),
        ]
        figures = (("agreement_by_rule", bar_figure), ("confusion_tables", confusion_figure))
        for name, draw in figures:
            figure = draw(run)
            for ext in ("png", "svg"):
                written.append(
                    _atomic(
                        stage / f"{name}.{ext}",
                        lambda p, e=ext, f=figure: save_figure(f, p, e, run),
                    )
                )
        written.append(_atomic(stage / "report.html", lambda p: write_html(run, p, stage)))
        return [Path(path).name for path in written]

    return write_folder_all_or_nothing(out, write)


def _atomic(path: Path, write) -> Path:
    """``write(tmp)`` to a temporary file, then rename it over ``path``."""
    with atomic_path(path) as tmp:
        write(tmp)
    return path


def _write_json(run: StudyRun, path: Path) -> None:
    path.write_text(json.dumps(run.to_dict(), indent=2), encoding="utf-8")


def _write_long_csv(run: StudyRun, path: Path) -> Path:
    """The long CSV (item x rule x rater) through the app's one CSV writer
    (:func:`~medrcube_desktop.core.csvfile.write_csv`): item ids and rater names come
    from files and people, so every cell is made formula-safe."""
    m = run.meta
    constant = [
        m["app_version"],
        m["rubric_version"],
        ";".join(m.get("prompt_sha256") or []),
        m["judge_model"],
    ]
    header = ["item_id", "rule", "rater", "score", "app_version", "rubric_version",
              "prompt_sha256", "judge_model"]  # fmt: skip
    rows = (
        [item, rule, rater, scores[item][rule], *constant]
        for item in run.result.items
        for rule in RULE_IDS
        for rater, scores in ((m["first"], run.result.first), (m["second"], run.result.second))
    )
    return write_csv(path, header, rows)


def _write_xlsx(run: StudyRun, path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    book = Workbook()
    sheet = book.active
    sheet.title = "Table 5"
    header = ["", "Agreement", "CI low (bootstrap)", "CI high (bootstrap)",
              "CI low (Wilson)", "CI high (Wilson)", "Cohen's kappa", "kappa CI low",
              "kappa CI high", "Gwet's AC1", "AC1 CI low", "AC1 CI high", "PABAK",
              "McNemar p", "Both fail", "1st fails, 2nd passes", "1st passes, 2nd fails",
              "Both pass", "Undefined"]  # fmt: skip
    sheet.append(header)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in table_rows(run):
        table = row.get("confusion") or [[None, None], [None, None]]

        def ends(ci):
            return list(ci) if ci else [None, None]

        sheet.append(
            [
                _safe(row["label"]),
                row.get("agreement"),
                *ends(row.get("ci95")),
                *ends(row.get("wilson_ci95")),
                row.get("cohen_kappa"),
                *ends(row.get("kappa_ci95")),
                row.get("gwet_ac1"),
                *ends(row.get("ac1_ci95")),
                row.get("pabak"),
                row.get("mcnemar_p"),
                table[0][0],
                table[0][1],
                table[1][0],
                table[1][1],
                _safe(
                    "; ".join(
                        f"{FIGURE_NAMES.get(k, k)}: undefined: {why}"
                        for k, why in row.get("undefined", {}).items()
                    )
                )
                or None,
            ]
        )
    for column in sheet.iter_cols(min_col=2, max_col=14, min_row=2):
        for cell in column:
            cell.number_format = "0.000"
    sheet.column_dimensions["A"].width = 52
    long = book.create_sheet("Long")
    long.append(["item_id", "rule", "rater", "score"])
    for item in run.result.items:
        for rule in RULE_IDS:
            long.append([_safe(item), rule, _safe(run.meta["first"]), run.result.first[item][rule]])
            long.append(
                [_safe(item), rule, _safe(run.meta["second"]), run.result.second[item][rule]]
            )
    about = book.create_sheet("About")
    for key, value in run.meta.items():
        about.append([key, _safe(json.dumps(value) if isinstance(value, list | dict) else value)])
    about.append(["n_samples", len(run.result.items)])
    about.append(["excluded_items", _safe(", ".join(run.result.excluded))])
    if run.multi or run.intra:
        others = book.create_sheet("Other raters")
        if run.multi:
            others.append(
                [
                    _safe(f"Raters: {', '.join(run.multi['raters'])}"),
                    f"n = {run.multi['n_samples']}",
                ]
            )
            others.append(["Rule", "Fleiss' kappa", "Krippendorff's alpha", "Undefined"])
            for rule, values in run.multi["rules"].items():
                others.append([rule, values["fleiss_kappa"], values["krippendorff_alpha"],
                               values.get("undefined")])  # fmt: skip
        if run.intra:
            others.append([])
            others.append(
                [_safe(f"Intra-rater: {run.intra['reviewer']}"), f"n = {run.intra['n_repeated']}"]
            )
            others.append(["Rule", "Agreement", "Cohen's kappa", "Gwet's AC1"])
            for rule, values in run.intra["rules"].items():
                others.append(
                    [rule, values["agreement"], values["cohen_kappa"], values["gwet_ac1"]]
                )
    if run.evidence is not None:
        _evidence_sheet(book, run.evidence)
    if abstained := abstention_rows(run):  # only when someone said "cannot judge"
        sheet = book.create_sheet("Cannot judge")
        first, second = _safe(run.meta["first"]), _safe(run.meta["second"])
        sheet.append(["Rule", f"{first}: count", f"{first}: rate", f"{second}: count",
                      f"{second}: rate", "Pairs left out"])  # fmt: skip
        for entry in abstained:
            sheet.append([entry["rule"], entry["first_count"], entry["first_rate"],
                          entry["second_count"], entry["second_rate"], entry["left_out"]])  # fmt: skip
        for line in abstention_lines(run)[-1:]:
            sheet.append([_safe(line)])
    book.properties.title = "MedRCube agreement study"
    book.properties.description = spreadsheet_text(meta_line(run))
    book.save(path)


def _evidence_sheet(book, found: dict) -> None:
    """ "Rule 1.4 evidence": per rater, rule 1.4 against the ablation evidence
    (:func:`~.necessity.rule_evidence`, the JSON's ``rule_1_4_evidence``)."""
    sheet = book.create_sheet("Rule 1.4 evidence")
    sheet.append([_safe(f"Expected: {found['expected']}"), "answerable share",
                  found["threshold"]])  # fmt: skip
    sheet.append(["Rater", "n", "answerable", "expert fails 1.4", "Agreement",
                  "Cohen's kappa", "kappa CI low", "kappa CI high", "Both fail",
                  "Expert fails, not answerable", "Expert passes, answerable", "Both pass"])  # fmt: skip
    for label, f in found["raters"].items():
        ci = f["cohen_kappa_ci95"] or [None, None]
        table = f["confusion"]
        sheet.append([_safe(label), f["n"], f["answerable"], f["expert_fail"], f["agreement"],
                      f["cohen_kappa"], *ci, table[0][0], table[0][1], table[1][0],
                      table[1][1]])  # fmt: skip
