"""The one-page HTML report of an agreement study: the table, both figures (inline SVG),
the method with its sources, other raters, and the provenance."""

from __future__ import annotations

from pathlib import Path

from medrcube_desktop.core.names import html_text
from medrcube_desktop.review.agreement.run import StudyRun
from medrcube_desktop.review.agreement.table import (
    abstention_lines,
    abstention_rows,
    cell,
    ci_cell,
    fmt,
    meta_line,
    table_rows,
    undefined_notes,
)


def _others_html(run: StudyRun) -> str:
    """Multi-rater and intra-rater tables, when the study has them."""
    parts = []
    if run.multi:
        rows = "".join(
            f"<tr><td>{rule}</td><td>{fmt(v['fleiss_kappa'])}</td><td>{fmt(v['krippendorff_alpha'])}</td>"
            f"<td>{html_text('undefined: ' + v['undefined'] if v.get('undefined') else '')}</td></tr>"
            for rule, v in run.multi["rules"].items()
        )
        names = html_text(", ".join(run.multi["raters"]))
        parts.append(
            f"<table><caption><b>Table 2.</b> All {len(run.multi['raters'])} raters ({names}) on the "
            f"{run.multi['n_samples']} items every one of them judged.</caption><thead><tr><th>Rule</th>"
            f"<th>Fleiss' κ</th><th>Krippendorff's α</th><th></th></tr></thead><tbody>{rows}</tbody></table>"
        )
    if abstained := abstention_rows(run):  # only when someone said "cannot judge"
        first, second = html_text(str(run.meta["first"])), html_text(str(run.meta["second"]))
        rows = "".join(
            f"<tr><td>{e['rule']}</td><td>{e['first_count']} ({fmt(e['first_rate'])})</td>"
            f"<td>{e['second_count']} ({fmt(e['second_rate'])})</td><td>{e['left_out']}</td></tr>"
            for e in abstained
        )
        parts.append(
            f"<table><caption><b>Cannot judge.</b> Abstentions per rater and rule (count, rate "
            f"over the compared items); a pair counts in a rule only if neither rater abstained. "
            f"{html_text(abstention_lines(run)[-1])}</caption><thead><tr><th>Rule</th>"
            f"<th>{first}</th><th>{second}</th><th>Pairs left out</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )
    if run.intra:
        rows = "".join(
            f"<tr><td>{rule}</td><td>{fmt(v['agreement'])}</td><td>{fmt(v['cohen_kappa'])}</td>"
            f"<td>{fmt(v['gwet_ac1'])}</td></tr>"
            for rule, v in run.intra["rules"].items()
        )
        parts.append(
            f"<table><caption><b>Table 3.</b> Intra-rater agreement of {html_text(str(run.intra['reviewer']))}: "
            f"first judgment against the repeat, {run.intra['n_repeated']} "
            f"item{'' if run.intra['n_repeated'] == 1 else 's'} shown twice (all seven "
            f"match on {fmt(run.intra['sample_level'])}).</caption><thead><tr><th>Rule</th><th>Agreement</th>"
            f"<th>Cohen's κ</th><th>Gwet's AC1</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    return "".join(parts)


def write_html(run: StudyRun, path: Path, out: Path) -> None:
    """A one-page report: the table, both figures (inline SVG), the method, the meta."""
    body_rows = []
    for row in table_rows(run):
        key = str(row["key"])
        cls = "principle" if key.startswith("P") else "sample" if key == "sample" else "rule"
        extra = ""
        if key.startswith("P"):
            extra = (
                f"<br><span class='note'>all sub-principles match: {cell(row, 'all_match')} "
                f"{ci_cell(row, 'all_match_ci95')}</span>"
            )
        body_rows.append(
            f"<tr class='{cls}'><td>{html_text(str(row['label']))}{extra}</td>"
            f"<td>{cell(row, 'agreement')} <span class='ci'>{ci_cell(row)}</span></td>"
            f"<td>{cell(row, 'cohen_kappa')}</td><td>{cell(row, 'gwet_ac1')}</td>"
            f"<td>{cell(row, 'pabak')}</td><td>{cell(row, 'mcnemar_p')}</td></tr>"
        )
    svgs = []
    for name in ("agreement_by_rule", "confusion_tables"):
        svg = (out / f"{name}.svg").read_text(encoding="utf-8")
        svgs.append(svg[svg.index("<svg") :])
    m = run.meta
    n, excluded = len(run.result.items), len(run.result.excluded)
    strata = f", stratified by {m['study_stratify']}" if m.get("study_stratify") else ""
    study = (
        f"study “{html_text(str(m['study']))}” (seed {m['study_seed']}{strata}), "
        if m["study"]
        else ""
    )
    ci_head = "Agreement [95% CI]" if m["bootstrap"] else "Agreement"
    ones = [r["key"] for r in table_rows(run) if r.get("agreement") == 1.0 and r["key"] != "sample"]
    wilson_note = (
        "<p>Where agreement is 1.00 every bootstrap resample agrees too, so there is no "
        "percentile interval (undefined); the Wilson score interval is given in the JSON and "
        f"XLSX for every agreement (here for {', '.join(map(str, ones))}).</p>"
        if ones and m["bootstrap"]
        else ""
    )
    llm_note = (
        f"The LLM side is the latest successful judgment of each item by {html_text(str(m['judge_model']))}"
        f" (prompt SHA-256 {', '.join(h[:12] for h in m.get('prompt_sha256') or []) or 'not recorded'}). "
        if m["judge_model"]
        else ""
    )
    others = _others_html(run)
    notes = undefined_notes(table_rows(run))
    undefined = (
        "<p class='sub'>" + "<br>".join(html_text(note) for note in notes) + "</p>" if notes else ""
    )
    text = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="MedRCube Desktop {html_text(str(m["app_version"]))}">
<meta name="description" content="{html_text(meta_line(run))}">
<title>Agreement: {html_text(str(m["first"]))} vs {html_text(str(m["second"]))}</title>
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
<h1>Agreement of {html_text(str(m["first"]))} and {html_text(str(m["second"]))} on the NBME quality rubric</h1>
<p class="sub">{study}{n} items judged by both raters, {excluded} judged by only one of them (excluded).
First judgment of each expert (revision 1, intra-rater repeats excluded). {llm_note}Bootstrap 95% intervals from {m["bootstrap"]} resamples of items (seed {m["seed"]}).</p>
<table>
<caption><b>Table 1.</b> Consistency between {html_text(str(m["first"]))} and {html_text(str(m["second"]))}
(MedRCube rubric, paper Table 10; layout of paper Table 5). A principle's verdict passes
only when all its sub-principles pass.</caption>
<thead><tr><th></th><th>{ci_head}</th><th>Cohen's κ</th><th>Gwet's AC1</th><th>PABAK</th><th>McNemar p</th></tr></thead>
<tbody>
{"".join(body_rows)}
</tbody></table>
{undefined}
<figure>{svgs[0]}<figcaption><b>Figure 1.</b> Agreement per sub-principle, principle verdict
and sample level, with bootstrap 95% intervals; dashed line at 0.90.</figcaption></figure>
<figure>{svgs[1]}<figcaption><b>Figure 2.</b> 2×2 tables of the two raters' judgments
(rows: {html_text(str(m["first"]))}; columns: {html_text(str(m["second"]))}).</figcaption></figure>
{others}
<footer><p><b>Method.</b> Percent agreement p<sub>o</sub>; Cohen's κ = (p<sub>o</sub> − p<sub>e</sub>)/(1 − p<sub>e</sub>)
(Cohen 1960; undefined where p<sub>e</sub> = 1, both raters giving one and the same value); Gwet's AC1 with p<sub>e</sub> = 2π(1 − π)
(Gwet 2008); PABAK = 2p<sub>o</sub> − 1 (Byrt et al. 1993); McNemar's exact test on the discordant pairs.</p>
{wilson_note}
<p>{html_text(meta_line(run))}. Items are identified by benchmark id only.</p></footer>
</body></html>
"""
    path.write_text(text, encoding="utf-8")
