"""How a several-experts result is printed and exported: the terminal table, JSON, the
long CSV, XLSX and an HTML page (the files :func:`.report.write_outputs` writes for two
raters, in the panel's layout: rule | expert–expert (ceiling) | expert–LLM | each pair).
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path

from medrcube_desktop.core.csvfile import neutralise_cell, write_csv
from medrcube_desktop.core.files import write_folder_all_or_nothing
from medrcube_desktop.core.names import html_text, spreadsheet_text
from medrcube_desktop.core.rubric import RULE_IDS, load_rubric
from medrcube_desktop.review.agreement.panel import ROW_KEYS
from medrcube_desktop.review.agreement.panel_run import PanelRun
from medrcube_desktop.review.agreement.report import refuse_inputs
from medrcube_desktop.review.agreement.table import cannot_judge_line, fmt, fmt_ci

PANEL_FILES: tuple[str, ...] = (
    "agreement.json",
    "agreement_long.csv",
    "agreement.xlsx",
    "report.html",
)
"""What :func:`write_panel_outputs` writes (names shared with the two-rater export)."""


def row_labels() -> dict[str, str]:
    """Row key → label, in :data:`~.panel.ROW_KEYS` order."""
    rubric = load_rubric()
    labels = {rule.id: rule.label for rule in rubric.rules}
    out = {
        "sample": "Sample level (all seven match)",
        "verdict": "Overall verdict (all seven pass)",
    }
    for key in ROW_KEYS:
        if key.startswith("P"):
            out[key] = f"{rubric.principle_label(key[1:])} (verdict)"
        elif key in labels:
            out[key] = labels[key]
    return out


def cell(figures) -> str:
    """``0.84 [0.72, 0.94] κ 0.61`` (κ left out at sample level)."""
    text = f"{fmt(figures.agreement)} {fmt_ci(figures.ci95)}".strip()
    if figures.cohen_kappa is not None or figures.gwet_ac1 is not None:
        text += f" κ {fmt(figures.cohen_kappa)}"
    return text


SMALL_OVERLAP = 10
"""Pairs with fewer items in common than this are named: their agreement and its
interval rest on too few items to mean much (a bootstrap over 3 items can give a
zero-width interval)."""


def pair_counts(column) -> str:
    """Items in common of a column's pairs: ``"n = 40"``, or ``"n = 3–40"`` over several
    (items both judged, a "cannot judge" or not: :attr:`.panel.Column.common`)."""
    counts = _common(column) or [0]
    low, high = min(counts), max(counts)
    return f"n = {low}" if low == high else f"n = {low}–{high}"


def _common(column) -> list[int]:
    """Per pair of ``column``, the items both raters judged (the sample row's counts
    where the column does not say)."""
    return column.common or column.rows["sample"].n_items


def _items(n: int) -> str:
    return f"{n} item{'' if n == 1 else 's'}"


def small_overlaps(run: PanelRun) -> list[str]:
    """One warning naming every column with a pair of fewer than :data:`SMALL_OVERLAP`
    items (its smallest count in brackets), or none."""
    small = [
        f"{column.name} ({min(_common(column))})"
        for column in run.columns
        if _common(column) and min(_common(column)) < SMALL_OVERLAP
    ]
    if not small:
        return []
    return [
        f"fewer than {SMALL_OVERLAP} items in common: {'; '.join(small)}: agreement and "
        "intervals over so few items say little"
    ]


def panel_undefined(run: PanelRun) -> list[str]:
    """One line per (figure, reason) of the columns' undefined figures, naming the
    columns and their rows (``every row`` when all): ``"Kappa interval undefined (every
    resample gives 1): dr-a vs dr-b (1.1, P1); expert–LLM (every row)"``, in the words
    of :func:`.table.undefined_notes`."""
    from medrcube_desktop.review.agreement.table import FIGURE_NAMES

    groups: dict[tuple[str, str], dict[str, list[str]]] = {}
    for column in run.columns:
        for key, figures in column.rows.items():
            for name, why in getattr(figures, "undefined", {}).items():
                groups.setdefault((name, why), {}).setdefault(column.name, []).append(key)
    lines = []
    for (name, why), columns in groups.items():
        every = set(ROW_KEYS) - (set() if name in ("agreement", "ci95") else {"sample"})
        places = "; ".join(
            f"{column} ({'every row' if set(keys) == every else ', '.join(keys)})"
            for column, keys in columns.items()
        )
        lines.append(f"{FIGURE_NAMES.get(name, name)} undefined ({why}): {places}")
    return lines


def terminal_labels() -> dict[str, str]:
    """:func:`row_labels` short enough for a terminal: ``P1 Question Integrity
    (verdict)``, a rule's parenthesis dropped (``1.4 VQA Suitability``)."""
    out = {}
    for key, label in row_labels().items():
        if key.startswith("P"):
            label = re.sub(r"^Principle (\d+): ", r"P\1 ", label)
        elif key in RULE_IDS:
            label = re.sub(r" \([^)]*\)$", "", label)
        out[key] = label
    return out


CELL_WIDTH = 23
"""Characters of a terminal cell: ``0.88 [0.62, 1.00] -0.15`` (agreement, its interval,
Cohen's kappa), under a header ``agr. [95% CI]         κ``."""

CELL_HEADER = f"{'agr.':>4} {'[95% CI]':<12} {'κ':>5}"


def fixed_cell(figures, key: str) -> str:
    """:func:`cell` in fixed columns, so that a ``—`` keeps the others aligned."""
    text = f"{fmt(figures.agreement):>4} {fmt_ci(figures.ci95):<12}"
    return text + ("      " if key == "sample" else f" {fmt(figures.cohen_kappa):>5}")


def panel_abstention_lines(run: PanelRun) -> list[str]:
    """The "cannot judge" figures of a several-experts run in sentences, as the two-rater
    study says them (:func:`~.table.cannot_judge_line`): each rater's abstentions per
    rule over the items they judged, and how they are left out. Empty when nobody
    abstained."""
    if not run.abstentions:
        return []
    lines = [cannot_judge_line(name, rates, "judged") for name, rates in run.abstentions.items()]
    lines.append(
        "Left out where a rater cannot judge (pairwise, per rule): that rule of each pair "
        "with them, and its principle, the verdict (unless adjudicated) and the sample "
        "level; the item's other rules count."
    )
    return lines


def panel_lines(run: PanelRun, width: int = 120) -> list[str]:
    """The terminal table, one row per judgment, in blocks of as many columns as fit in
    ``width`` characters (each block repeats the row labels; a header wraps)."""
    labels = terminal_labels()
    label_width = max(map(len, labels.values()))
    head = f"{len(run.items)} items; raters: " + ", ".join(
        f"{name} ({n})" for name, n in run.raters.items()
    )
    if run.gold is not None:
        head += (
            f"; gold standard (adjudicated, else the agreed value of "
            f"{', '.join(run.gold.get('panel', []))}) on {run.gold['n_items']} items "
            f"({run.gold['n_adjudicated']} "
            f"adjudicated, {run.gold['n_consensus']} by consensus), {run.gold['n_left_out']} "
            "left out (no gold standard)"
        )
    lines = textwrap.wrap(head, width)
    gap = "  "
    per_block = max(1, (width - label_width) // (CELL_WIDTH + len(gap)))
    for start in range(0, len(run.columns), per_block):
        block = run.columns[start : start + per_block]
        names = [textwrap.wrap(c.name, CELL_WIDTH) for c in block]
        depth = max(map(len, names))
        lines.append("")
        for k in range(depth):
            parts = [(n[k] if k < len(n) else "").center(CELL_WIDTH) for n in names]
            lines.append(" " * label_width + gap + gap.join(parts).rstrip())
        for sub in ([pair_counts(c).center(CELL_WIDTH) for c in block], [CELL_HEADER] * len(block)):
            lines.append(" " * label_width + gap + gap.join(sub).rstrip())
        for key in ROW_KEYS:
            cells = gap.join(fixed_cell(c.rows[key], key) for c in block)
            lines.append(f"{labels[key]:{label_width}}{gap}{cells}".rstrip())
    lines.append("")
    legend = (
        "agr.: percent agreement [95% bootstrap interval]; κ: Cohen's kappa (— where "
        "undefined: one value throughout); a group is the mean over its pairs; n: items "
        "each pair judged in common."
    )
    lines += textwrap.wrap(legend, width)
    for prefix, texts in (
        ("", panel_abstention_lines(run)),
        ("note: ", run.notes),
        ("warning: ", small_overlaps(run)),
        ("", panel_undefined(run)),
    ):
        for text in texts:
            lines += textwrap.wrap(prefix + text, width, subsequent_indent="  ")
    return lines


def write_panel_outputs(
    run: PanelRun, out_dir: str | Path, inputs: Sequence[Path | None] = ()
) -> list[Path]:
    """Write JSON, long CSV, XLSX and HTML of ``run`` to ``out_dir``; return the paths.

    Raises StoreError when an output would be one of ``inputs`` (the database), OSError
    when a file cannot be written.
    """
    refuse_inputs(out_dir, inputs)
    out = Path(out_dir).expanduser()

    def write(stage: Path) -> list[str]:  # all four files, or none (a full disk half-way)
        (stage / "agreement.json").write_text(json.dumps(run.to_dict(), indent=2), encoding="utf-8")
        rows = (
            [item, rule, rater, scores[item][rule]]
            for rater, scores in run.scores.items()
            for item in run.items
            if item in scores
            for rule in RULE_IDS
        )
        write_csv(stage / "agreement_long.csv", ["item_id", "rule", "rater", "score"], rows)
        _write_xlsx(run, stage / "agreement.xlsx")
        (stage / "report.html").write_text(panel_html(run), encoding="utf-8")
        return list(PANEL_FILES)

    write_folder_all_or_nothing(out, write)
    return [out / name for name in PANEL_FILES]


def _write_xlsx(run: PanelRun, path: Path) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font

    def safe(value):  # formula-safe, hidden characters visible (core.names)
        return neutralise_cell(spreadsheet_text(value)) if isinstance(value, str) else value

    book = Workbook()
    sheet = book.active
    sheet.title = "Table 5"
    header = [""]
    for column in run.columns:
        header += [safe(f"{column.name}: {part}") for part in
                   ("agreement", "CI low", "CI high", "Cohen's kappa", "kappa CI low",
                    "kappa CI high", "Gwet's AC1")]  # fmt: skip
    sheet.append(header)
    for c in sheet[1]:
        c.font = Font(bold=True)
    labels = row_labels()
    for key in ROW_KEYS:
        line: list[object] = [labels[key]]
        for column in run.columns:
            f = column.rows[key]
            ci, kci = f.ci95 or (None, None), f.kappa_ci95 or (None, None)
            line += [f.agreement, *ci, f.cohen_kappa, *kci, f.gwet_ac1]
        sheet.append(line)
    sheet.column_dimensions["A"].width = 52
    pairs = book.create_sheet("Pairs")
    pairs.append(["column", "kind", "pair", "items judged by both"])
    for column in run.columns:
        n_items = column.rows["sample"].n_items
        for (a, b), n in zip(column.pairs, n_items, strict=True):
            pairs.append([safe(column.name), safe(column.kind), safe(f"{a} vs {b}"), n])
    about = book.create_sheet("About")
    for key, value in run.meta.items():
        about.append([key, safe(json.dumps(value) if isinstance(value, list | dict) else value)])
    about.append(["n_samples", len(run.items)])
    if run.gold is not None:
        for key in ("n_items", "n_adjudicated", "n_left_out"):
            about.append([f"gold_{key}", run.gold[key]])
        about.append(["gold_left_out_items", safe(", ".join(run.gold["left_out"]))])
    for note in run.notes:
        about.append(["note", safe(note)])
    if run.abstentions:  # only when someone said "cannot judge": else as before
        sheet = book.create_sheet("Cannot judge")
        names = list(run.abstentions)
        sheet.append(["Rule", *(safe(f"{n}: {part}") for n in names for part in ("count", "rate"))])
        for rule in RULE_IDS:
            sheet.append([rule, *(run.abstentions[n][k][rule] for n in names
                                  for k in ("counts", "rates"))])  # fmt: skip
        sheet.append(["Items judged", *(v for n in names
                                        for v in (run.abstentions[n]["n_items"], None))])  # fmt: skip
        sheet.append([safe(panel_abstention_lines(run)[-1])])
    book.properties.title = "MedRCube agreement study (several experts)"
    book.save(path)


def panel_html(run: PanelRun) -> str:
    """A one-page report of the panel table (every name escaped)."""
    esc = html_text
    labels = row_labels()
    head = "".join(f"<th>{esc(c.name)}</th>" for c in run.columns)
    body = "".join(
        f"<tr><td>{esc(labels[key])}</td>"
        + "".join(f"<td>{esc(cell(c.rows[key]))}</td>" for c in run.columns)
        + "</tr>"
        for key in ROW_KEYS
    )
    raters = ", ".join(f"{esc(name)} ({n})" for name, n in run.raters.items())
    gold = ""
    if run.gold is not None:
        gold = (
            f"<p>Gold standard: {esc(str(run.meta.get('gold', '')))}; "
            f"{run.gold['n_items']} items ({run.gold['n_adjudicated']} adjudicated), "
            f"{run.gold['n_left_out']} left out for want of one.</p>"
        )
    gold += "".join(f"<p class='note'>Note: {esc(note)}.</p>" for note in run.notes)
    gold += "".join(f"<p class='note'>{esc(line)}</p>" for line in panel_abstention_lines(run))
    m = run.meta
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>MedRCube agreement "
        "study</title><style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
        "collapse}td,th{border:1px solid #ccc;padding:4px 8px}</style></head><body>"
        f"<h1>Agreement of several experts</h1><p>{len(run.items)} items; raters: {raters}."
        "</p>" + gold + f"<table><thead><tr><th></th>{head}</tr></thead><tbody>{body}"
        "</tbody></table><p>Each cell: percent agreement [95% bootstrap interval, items "
        "resampled] and Cohen's κ; a group (expert–expert, the ceiling; expert–LLM) is the "
        "mean over its pairs, each pair over the items both judged.</p>"
        f"<p class='meta'>MedRCube Desktop {esc(str(m['app_version']))} · rubric "
        f"{esc(str(m['rubric_version']))} · judge model {esc(str(m['judge_model'] or '—'))}"
        f" · {esc(str(m['created_at']))}</p></body></html>"
    )
