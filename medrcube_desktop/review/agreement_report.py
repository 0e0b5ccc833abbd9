"""Publishable outputs of an agreement study: JSON, long CSV, XLSX, figures, HTML.

Every file records the app version, rubric version, prompt hash(es) and judge model
(``StudyRun.meta``) and identifies items only by their benchmark id. Figures are drawn
with matplotlib's object API on an Agg canvas (no pyplot, no GUI backend), so this runs
the same in the CLI and inside the Qt app.
"""

from __future__ import annotations

import csv
import html
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from medrcube_desktop.core.files import as_new_file
from medrcube_desktop.core.rubric import RULE_IDS, load_rubric
from medrcube_desktop.review.agreement import PRINCIPLES, PairFigures
from medrcube_desktop.review.agreement_run import StudyRun
from medrcube_desktop.store.review_csv import neutralise_cell

PRINCIPLE_NAMES = {"1": "Question Integrity", "2": "Option Set Effectiveness"}


def table_rows(run: StudyRun) -> list[dict[str, Any]]:
    """Rows of the Table-5-style summary, in paper order: sample level, then each
    principle (verdict agreement; all-match in ``all_match``) followed by its rules.

    Each row: ``key`` ("sample", "P1", "1.1"…), ``label``, ``agreement``, ``ci95``,
    ``cohen_kappa``, ``gwet_ac1``, ``pabak``, ``mcnemar_p``, ``confusion``,
    ``all_match`` (principles only).
    """
    result = run.result
    rubric = load_rubric()
    names = {rule.id: rule.name for rule in rubric.rules}
    rows: list[dict[str, Any]] = [
        {
            "key": "sample",
            "label": "Sample level (all seven match)",
            "agreement": result.sample_level,
            "ci95": result.sample_ci95,
        }
    ]
    for pid, rules in PRINCIPLES.items():
        values = result.principles[pid]
        verdict: PairFigures = values["verdict"]  # type: ignore[assignment]
        rows.append(
            {
                "key": f"P{pid}",
                "label": f"Principle {pid}: {PRINCIPLE_NAMES[pid]} (verdict)",
                **_figures(verdict),
                "all_match": values["all_match"],
                "all_match_ci95": values["all_match_ci95"],
            }
        )
        for rule in rules:
            rows.append(
                {"key": rule, "label": f"{rule} {names[rule]}", **_figures(result.rules[rule])}
            )
    return rows


def _figures(figures: PairFigures) -> dict[str, Any]:
    return {
        "agreement": figures.agreement,
        "ci95": figures.ci95,
        "cohen_kappa": figures.cohen_kappa,
        "gwet_ac1": figures.gwet_ac1,
        "pabak": figures.pabak,
        "mcnemar_p": figures.mcnemar_p,
        "confusion": figures.confusion,
        "wilson_ci95": figures.wilson_ci95,
        "kappa_ci95": figures.kappa_ci95,
        "ac1_ci95": figures.ac1_ci95,
    }


def fmt(value: object, digits: int = 2) -> str:
    """A figure for a table: ``0.84``; ``—`` when undefined; p-values below 0.001 as
    ``<0.001``."""
    if value is None:
        return "—"
    if isinstance(value, float | int):
        return f"{round(float(value), digits) + 0.0:.{digits}f}"  # never "-0.00"
    return str(value)


def fmt_ci(ci: Any) -> str:
    """``[0.72, 0.94]`` or '' without an interval."""
    if not ci:
        return ""
    low, high = ci
    return f"[{low:.2f}, {high:.2f}]"


def fmt_p(p: Any) -> str:
    """A McNemar p-value: three decimals, ``<0.001`` below."""
    if p is None:
        return "—"
    return "<0.001" if float(p) < 0.001 else f"{float(p):.3f}"


def _safe(value: object) -> object:
    """A text cell a spreadsheet will not run as a formula (same rule as the review
    CSV: a leading ``'`` before ``= + - @``, tab or CR; OWASP CSV injection)."""
    return neutralise_cell(value) if isinstance(value, str) else value


def _plain(text: object) -> str:
    """Text for matplotlib without mathtext: ``$`` would start a formula (and a lone one
    raises), so it is escaped."""
    return str(text).replace("$", r"\$")


def _meta_line(run: StudyRun) -> str:
    m = run.meta
    hashes = ", ".join(h[:12] for h in m.get("prompt_sha256") or []) or "—"
    return (
        f"MedRCube Desktop {m['app_version']} · rubric {m['rubric_version']} · judge model "
        f"{m['judge_model'] or '—'} · prompt SHA-256 {hashes} · {m['created_at']}"
    )


def write_outputs(run: StudyRun, out_dir: str | Path) -> list[Path]:
    """Write every output file to ``out_dir`` (created); return their paths.

    Files: ``agreement.json``, ``agreement_long.csv`` (item × rule × rater),
    ``agreement.xlsx``, ``agreement_by_rule.png``/``.svg``, ``confusion_tables.png``/
    ``.svg`` and ``report.html``. Each is written to a temporary name and renamed.

    Raises
    ------
    OSError
        The folder or a file cannot be written.
    """
    out = Path(out_dir).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    written = [
        _atomic(out / "agreement.json", lambda p: _write_json(run, p)),
        _atomic(out / "agreement_long.csv", lambda p: _write_long_csv(run, p)),
        _atomic(out / "agreement.xlsx", lambda p: _write_xlsx(run, p)),
    ]
    for name, draw in (("agreement_by_rule", _bar_figure), ("confusion_tables", _confusion_figure)):
        figure = draw(run)
        for ext in ("png", "svg"):
            written.append(
                _atomic(out / f"{name}.{ext}", lambda p, e=ext, f=figure: _save(f, p, e, run))
            )
    written.append(_atomic(out / "report.html", lambda p: _write_html(run, p, out)))
    return written


def _atomic(path: Path, write) -> Path:
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    as_new_file(tmp)
    os.close(handle)
    try:
        write(Path(tmp))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _write_json(run: StudyRun, path: Path) -> None:
    path.write_text(json.dumps(run.to_dict(), indent=2), encoding="utf-8")


def _write_long_csv(run: StudyRun, path: Path) -> None:
    m = run.meta
    constant = [
        m["app_version"],
        m["rubric_version"],
        ";".join(m.get("prompt_sha256") or []),
        m["judge_model"],
    ]
    with open(path, "w", encoding="utf-8-sig", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["item_id", "rule", "rater", "score", "app_version", "rubric_version",
             "prompt_sha256", "judge_model"]
        )  # fmt: skip
        for item in run.result.items:
            for rule in RULE_IDS:
                for rater, scores in (
                    (m["first"], run.result.first),
                    (m["second"], run.result.second),
                ):
                    writer.writerow([item, rule, rater, scores[item][rule], *constant])


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
              "Both pass"]  # fmt: skip
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
            others.append(["Rule", "Fleiss' kappa", "Krippendorff's alpha"])
            for rule, values in run.multi["rules"].items():
                others.append([rule, values["fleiss_kappa"], values["krippendorff_alpha"]])
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
    book.properties.title = "MedRCube agreement study"
    book.properties.description = _meta_line(run)
    book.save(path)


def _bar_figure(run: StudyRun):
    """Per-rule agreement with 95 % intervals, principle verdicts and sample level."""
    from matplotlib.figure import Figure

    rows = [r for r in table_rows(run)]
    order = [r for r in rows if r["key"] in RULE_IDS] + [
        r for r in rows if str(r["key"]).startswith("P")
    ]
    order.append(rows[0])
    labels = [str(r["key"]).replace("P", "P") if r["key"] != "sample" else "All 7" for r in order]
    values = [r["agreement"] if r["agreement"] is not None else float("nan") for r in order]
    errors: list[list[float]] = [[], []]
    for r, v in zip(order, values, strict=True):
        ci = r.get("ci95")
        errors[0].append(v - ci[0] if ci else 0)
        errors[1].append(ci[1] - v if ci else 0)
    figure = Figure(figsize=(7.2, 3.4), dpi=150, layout="constrained")
    axes = figure.add_subplot()
    colours = ["#4c72b0"] * len(RULE_IDS) + ["#dd8452"] * len(PRINCIPLES) + ["#55a868"]
    axes.bar(labels, values, color=colours, yerr=errors, capsize=3, ecolor="#333333", width=0.65)
    axes.axhline(0.9, color="#888888", linestyle="--", linewidth=0.8)
    axes.text(
        len(labels) - 0.5, 0.905, "0.90", ha="right", va="bottom", fontsize=7, color="#666666"
    )
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("Agreement (share of items)")
    axes.set_title(
        _plain(
            f"{run.meta['first']} vs {run.meta['second']}: agreement per sub-principle, "
            f"principle verdict (P1, P2) and all seven (n = {len(run.result.items)}, "
            "95% bootstrap CI)"
        ),
        fontsize=8,
    )
    axes.spines[["top", "right"]].set_visible(False)
    return figure


def _confusion_figure(run: StudyRun):
    """2×2 tables (counts) for the seven rules and the two principle verdicts."""
    from matplotlib.figure import Figure

    panels = [(rule, run.result.rules[rule].confusion) for rule in RULE_IDS]
    panels += [(f"P{pid} verdict", run.result.verdict(pid).confusion) for pid in PRINCIPLES]
    figure = Figure(figsize=(7.2, 7.4), dpi=150, layout="constrained")
    grid = figure.subplots(3, 3)
    for axes, (title, table) in zip(grid.flat, panels, strict=True):
        axes.imshow(table, cmap="Blues", vmin=0, vmax=max(1, len(run.result.items)))
        for i in range(2):
            for j in range(2):
                count = table[i][j]
                dark = count > 0.6 * max(1, len(run.result.items))
                axes.text(j, i, str(count), ha="center", va="center",
                          color="white" if dark else "black", fontsize=11)  # fmt: skip
        axes.set_xticks([0, 1], ["fail", "pass"])
        axes.set_yticks([0, 1], ["fail", "pass"])
        axes.set_xlabel(_plain(run.meta["second"]), fontsize=7)
        axes.set_ylabel(_plain(run.meta["first"]), fontsize=7)
        axes.set_title(title, fontsize=9)
    figure.suptitle("Judgments of the two raters (counts of items)", fontsize=10)
    return figure


def _save(figure, path: Path, ext: str, run: StudyRun) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(figure)
    metadata = {"Title": "MedRCube agreement study", "Description": _meta_line(run)}
    if ext == "png":
        metadata["Software"] = f"MedRCube Desktop {run.meta['app_version']}"
    figure.savefig(path, format=ext, metadata=metadata)


def _others_html(run: StudyRun) -> str:
    """Multi-rater and intra-rater tables, when the study has them."""
    parts = []
    if run.multi:
        rows = "".join(
            f"<tr><td>{rule}</td><td>{fmt(v['fleiss_kappa'])}</td><td>{fmt(v['krippendorff_alpha'])}</td></tr>"
            for rule, v in run.multi["rules"].items()
        )
        names = html.escape(", ".join(run.multi["raters"]))
        parts.append(
            f"<table><caption><b>Table 2.</b> All {len(run.multi['raters'])} raters ({names}) on the "
            f"{run.multi['n_samples']} items every one of them judged.</caption><thead><tr><th>Rule</th>"
            f"<th>Fleiss' κ</th><th>Krippendorff's α</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    if run.intra:
        rows = "".join(
            f"<tr><td>{rule}</td><td>{fmt(v['agreement'])}</td><td>{fmt(v['cohen_kappa'])}</td>"
            f"<td>{fmt(v['gwet_ac1'])}</td></tr>"
            for rule, v in run.intra["rules"].items()
        )
        parts.append(
            f"<table><caption><b>Table 3.</b> Intra-rater agreement of {html.escape(str(run.intra['reviewer']))}: "
            f"first judgment against the repeat, {run.intra['n_repeated']} "
            f"item{'' if run.intra['n_repeated'] == 1 else 's'} shown twice (all seven "
            f"match on {fmt(run.intra['sample_level'])}).</caption><thead><tr><th>Rule</th><th>Agreement</th>"
            f"<th>Cohen's κ</th><th>Gwet's AC1</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    return "".join(parts)


def _write_html(run: StudyRun, path: Path, out: Path) -> None:
    """A one-page report: the table, both figures (inline SVG), the method, the meta."""
    body_rows = []
    for row in table_rows(run):
        key = str(row["key"])
        cls = "principle" if key.startswith("P") else "sample" if key == "sample" else "rule"
        extra = ""
        if key.startswith("P"):
            extra = (
                f"<br><span class='note'>all sub-principles match: {fmt(row['all_match'])} "
                f"{fmt_ci(row.get('all_match_ci95'))}</span>"
            )
        body_rows.append(
            f"<tr class='{cls}'><td>{html.escape(str(row['label']))}{extra}</td>"
            f"<td>{fmt(row['agreement'])} <span class='ci'>{fmt_ci(row.get('ci95'))}</span></td>"
            f"<td>{fmt(row.get('cohen_kappa'))}</td><td>{fmt(row.get('gwet_ac1'))}</td>"
            f"<td>{fmt(row.get('pabak'))}</td><td>{fmt_p(row.get('mcnemar_p'))}</td></tr>"
        )
    svgs = []
    for name in ("agreement_by_rule", "confusion_tables"):
        svg = (out / f"{name}.svg").read_text(encoding="utf-8")
        svgs.append(svg[svg.index("<svg") :])
    m = run.meta
    n, excluded = len(run.result.items), len(run.result.excluded)
    strata = f", stratified by {m['study_stratify']}" if m.get("study_stratify") else ""
    study = (
        f"study “{html.escape(str(m['study']))}” (seed {m['study_seed']}{strata}), "
        if m["study"]
        else ""
    )
    ci_head = "Agreement [95% CI]" if m["bootstrap"] else "Agreement"
    ones = [r["key"] for r in table_rows(run) if r.get("agreement") == 1.0 and r["key"] != "sample"]
    wilson_note = (
        "<p>Where agreement is 1.00 every bootstrap resample agrees too, so its percentile "
        "interval is [1.00, 1.00]; the Wilson score interval is given in the JSON and XLSX "
        f"for every agreement (here for {', '.join(map(str, ones))}).</p>"
        if ones and m["bootstrap"]
        else ""
    )
    llm_note = (
        f"The LLM side is the latest successful judgment of each item by {html.escape(str(m['judge_model']))}"
        f" (prompt SHA-256 {', '.join(h[:12] for h in m.get('prompt_sha256') or []) or 'not recorded'}). "
        if m["judge_model"]
        else ""
    )
    others = _others_html(run)
    text = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="MedRCube Desktop {html.escape(str(m["app_version"]))}">
<meta name="description" content="{html.escape(_meta_line(run))}">
<title>Agreement: {html.escape(str(m["first"]))} vs {html.escape(str(m["second"]))}</title>
<style>
body {{ font-family: Georgia, 'Times New Roman', serif; max-width: 60rem; margin: 2rem auto;
       color: #111; line-height: 1.4; }}
h1 {{ font-size: 1.35rem; margin-bottom: 0.2rem; }}
p.sub {{ color: #444; margin-top: 0; }}
table {{ border-collapse: collapse; width: 100%; font-size: 0.92rem; margin: 1rem 0; }}
caption {{ caption-side: top; text-align: left; padding-bottom: 0.4rem; }}
thead tr {{ border-top: 2px solid #111; border-bottom: 1px solid #111; }}
tbody tr:last-child {{ border-bottom: 2px solid #111; }}
th, td {{ padding: 0.25rem 0.6rem; text-align: right; }}
th:first-child, td:first-child {{ text-align: left; }}
tr.sample td, tr.principle td {{ font-weight: bold; }}
tr.rule td:first-child {{ padding-left: 1.6rem; }}
span.ci, span.note {{ color: #555; font-weight: normal; font-size: 0.85em; }}
figure {{ margin: 1.2rem 0; }} figure svg {{ width: 100%; height: auto; }}
figcaption, footer {{ font-size: 0.85rem; color: #333; }}
footer {{ border-top: 1px solid #999; margin-top: 1.5rem; padding-top: 0.5rem; }}
</style></head><body>
<h1>Agreement of {html.escape(str(m["first"]))} and {html.escape(str(m["second"]))} on the NBME quality rubric</h1>
<p class="sub">{study}{n} items judged by both raters, {excluded} judged by only one of them (excluded).
First judgment of each expert (revision 1, intra-rater repeats excluded). {llm_note}Bootstrap 95% intervals from {m["bootstrap"]} resamples of items (seed {m["seed"]}).</p>
<table>
<caption><b>Table 1.</b> Consistency between {html.escape(str(m["first"]))} and {html.escape(str(m["second"]))}
(MedRCube rubric, paper Table 10; layout of paper Table 5). A principle's verdict passes
only when all its sub-principles pass.</caption>
<thead><tr><th></th><th>{ci_head}</th><th>Cohen's κ</th><th>Gwet's AC1</th><th>PABAK</th><th>McNemar p</th></tr></thead>
<tbody>
{"".join(body_rows)}
</tbody></table>
<figure>{svgs[0]}<figcaption><b>Figure 1.</b> Agreement per sub-principle, principle verdict
and sample level, with bootstrap 95% intervals; dashed line at 0.90.</figcaption></figure>
<figure>{svgs[1]}<figcaption><b>Figure 2.</b> 2×2 tables of the two raters' judgments
(rows: {html.escape(str(m["first"]))}; columns: {html.escape(str(m["second"]))}).</figcaption></figure>
{others}
<footer><p><b>Method.</b> Percent agreement p<sub>o</sub>; Cohen's κ = (p<sub>o</sub> − p<sub>e</sub>)/(1 − p<sub>e</sub>)
(Cohen 1960; — where undefined, both raters constant); Gwet's AC1 with p<sub>e</sub> = 2π(1 − π)
(Gwet 2008); PABAK = 2p<sub>o</sub> − 1 (Byrt et al. 1993); McNemar's exact test on the discordant pairs.</p>
{wilson_note}
<p>{html.escape(_meta_line(run))}. Items are identified by benchmark id only.</p></footer>
</body></html>
"""
    path.write_text(text, encoding="utf-8")
