"""The one-page HTML report of ``compare --out``, laid out like the paper: the Table 3
leaderboard, Fig. 3 with the mean ρ within and between clusters and the brain island,
Fig. 4, the credibility table with the independence baseline and log odds ratio, the
text-only drops, and a footer with the command line that makes it again.

Self-contained: the figures are inline SVG, every text from the database or the command
line goes through ``_e`` (its hidden characters made visible, then HTML-escaped). Numbers come from the :class:`~.result.CompareResult`
the CSV and JSON are written from.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from medrcube_desktop.core.degenerate import undefined_text
from medrcube_desktop.core.names import html_text
from medrcube_desktop.evaluation.compare.figures import (
    brain_region,
    cluster_name,
    within_between,
)
from medrcube_desktop.evaluation.compare.leaderboard import random_row_name
from medrcube_desktop.evaluation.compare.necessity import share_percent
from medrcube_desktop.evaluation.compare.result import CompareResult
from medrcube_desktop.evaluation.image_modes import mode_mark

_STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 72rem; margin: 2rem auto;
       color: #111; line-height: 1.4; padding: 0 1rem; }
h1 { font-size: 1.35rem; margin-bottom: 0.2rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
p.sub { color: #444; margin-top: 0; }
table { border-collapse: collapse; font-size: 0.82rem; margin: 1rem 0; }
div.wide { overflow-x: auto; }
caption { caption-side: top; text-align: left; padding-bottom: 0.4rem; }
thead tr:first-child { border-top: 2px solid #111; } thead { border-bottom: 1px solid #111; }
tbody tr:last-child { border-bottom: 2px solid #111; }
th, td { padding: 0.2rem 0.45rem; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
tr.random td { color: #666; font-style: italic; }
span.ci { color: #555; font-size: 0.85em; }
figure { margin: 1.2rem 0; } figure svg { width: 100%; height: auto; }
figcaption, footer { font-size: 0.88rem; color: #333; }
footer { border-top: 1px solid #999; margin-top: 2rem; padding-top: 0.5rem; }
pre { background: #f4f4f4; padding: 0.5rem; overflow-x: auto; white-space: pre-wrap; }
"""


def _e(text: object) -> str:
    """Every name and text the report shows: hidden characters visible, then escaped
    (:func:`~medrcube_desktop.core.names.html_text`)."""
    return html_text(text)


def _num(value: object, digits: int = 3, percent: bool = False) -> str:
    """A number as the report prints it; "—" for None or NaN."""
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return "—"
    x = float(value) * (100 if percent else 1)  # type: ignore[arg-type]
    return f"{x:.1f}" if percent else f"{x:.{digits}f}"


def _ci(low: object, high: object) -> str:
    """`` [low, high]`` (a bootstrap interval, as the command prints it), or nothing when
    there is none."""
    if low is None or high is None:
        return ""
    return f" <span class='ci'>[{_num(low)}, {_num(high)}]</span>"


def _svg(text: str | None) -> str:
    return text[text.index("<svg") :] if text and "<svg" in text else ""


def _leaderboard(result: CompareResult) -> str:
    board, matrix = result.board, result.matrix
    groups: list[tuple[str, int]] = []
    for group, _ in board.columns:
        if groups and groups[-1][0] == group:
            groups[-1] = (group, groups[-1][1] + 1)
        else:
            groups.append((group, 1))
    top = "".join(f"<th colspan='{n}'>{_e(g.capitalize())}</th>" for g, n in groups)
    names = "".join(f"<th>{_e(v)}</th>" for _, v in board.columns)
    accuracy = board.accuracy
    rows = [
        f"<tr class='random'><td>{_e(random_row_name(board.runs))}</td><td></td>"
        + "".join(f"<td>{_num(v, percent=True)}</td>" for v in board.random)
        + "</tr>"
    ]
    families = matrix.families()
    for r in board.order(result.sort).tolist():
        run = board.runs[r]
        cells = []
        for c, _ in enumerate(board.columns):
            cell = _num(accuracy[r, c], percent=True)
            if c == 0:
                cell += (
                    f" <span class='ci'>[{_num(board.low[r, c], percent=True)}, "
                    f"{_num(board.high[r, c], percent=True)}]</span>"
                )
            cells.append(f"<td title='n = {int(board.n[r, c])}'>{cell}</td>")
        flag = mode_mark(matrix.image_modes[r])
        family = f"{families[r].group} · {families[r].series}"
        rows.append(
            f"<tr><td>{_e(run)}</td><td>{_e(matrix.models[r])}{flag}<br><span class='ci'>"
            f"{_e(family)}</span></td>{''.join(cells)}</tr>"
        )
    return (
        "<div class='wide'><table><caption><b>Table 3.</b> Accuracy (%) of each run overall "
        "(Wilson 95% interval in brackets) and by task, modality and region; the first row "
        "is the random baseline (mean of 1/k over the items, k options). Hover a cell for "
        "its n.</caption>"
        f"<thead><tr><th rowspan='2'>Run</th><th rowspan='2'>Model</th>{top}</tr>"
        f"<tr>{names}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _fig3(result: CompareResult, svgs: Mapping[str, str]) -> str:
    if result.rho is None:
        why = undefined_text(result.voxel_undefined or "not computed")
        return f"<p>Voxel correlation (Spearman ρ) {_e(why)}.</p>"
    n = len(result.voxels.voxels)
    parts = []
    clustering = result.clustering
    if clustering is not None:
        within, between = result.within_between or (np.nan, np.nan)
        per = ", ".join(
            f"{cluster_name(c)} {_num(v)} ({int((clustering.labels == c).sum())} voxels)"
            for c, v in enumerate(clustering.mean_rho_within)
        )
        parts.append(
            f"<figure>{_svg(svgs.get('fig3_voxel_correlation'))}<figcaption><b>Figure 3a.</b> "
            f"Spearman ρ between {n} competency voxels over {len(result.voxel_runs)} image runs, "
            f"average linkage on 1 − ρ with optimal leaf order, cut into {result.clusters} "
            f"clusters. Mean ρ within clusters <b>{_num(within)}</b> (per cluster: {per}); "
            f"between clusters <b>{_num(between)}</b>. Cophenetic correlation "
            f"{_num(clustering.cophenetic)}. The paper reports 0.405 within cluster A and 0.253 "
            "across clusters (§5.2).</figcaption></figure>"
        )
    brain = brain_region(result.voxels.voxels)
    island = next((i for i in result.islands if i.region == brain), None)
    note = (
        f"The {_e(island.region)} ({island.n_voxels} voxels): mean ρ among themselves "
        f"<b>{_num(island.within)}</b>, with other regions <b>{_num(island.with_others)}</b> "
        "(paper §5.3: 0.089 and 0.219)."
        if island
        else "No brain voxels: no island to measure."
    )
    rows = "".join(
        f"<tr><td>{_e(i.region)}</td><td>{i.n_voxels}</td><td>{_num(i.within)}</td>"
        f"<td>{_num(i.with_others)}</td></tr>"
        for i in result.islands
    )
    parts.append(
        f"<figure>{_svg(svgs.get('fig3_region_order'))}<figcaption><b>Figure 3b.</b> The same ρ "
        f"with voxels ordered by region. {note}</figcaption></figure>"
        "<table><caption><b>Regions.</b> Mean ρ over pairs of distinct voxels of the region, "
        "and with every other region's voxels.</caption><thead><tr><th>Region</th><th>Voxels</th>"
        f"<th>Within</th><th>With others</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    parts.append(_residual_and_stability(result, svgs))
    return "".join(parts)


def _residual_and_stability(result: CompareResult, svgs: Mapping[str, str]) -> str:
    """Fig. 3c (ρ less each model's overall accuracy) and the tree's stability."""
    parts = []
    if result.residual_rho is not None and result.residual_clustering is not None:
        within, between = within_between(result.residual_rho, result.residual_clustering.labels)
        parts.append(
            f"<figure>{_svg(svgs.get('fig3_residual'))}<figcaption><b>Figure 3c.</b> Strong "
            "models are strong everywhere, so every pair of voxels shares a general-ability "
            "component: here each model's mean accuracy over the voxels is taken out before "
            f"ρ is computed. Mean ρ within clusters <b>{_num(within)}</b>, between "
            f"<b>{_num(between)}</b>; what remains is structure beyond overall "
            "strength.</figcaption></figure>"
        )
    stability = result.stability
    if stability is not None and stability.tree_agreement.size:
        finite = stability.tree_agreement[np.isfinite(stability.tree_agreement)]
        if finite.size:
            low, median, high = np.percentile(finite, [2.5, 50, 97.5])
            parts.append(
                f"<p><b>Stability.</b> Over {stability.tree_agreement.size} bootstrap "
                "replicates drawing the models with replacement, the tree's cophenetic "
                f"distances agree with the full tree's at r = <b>{_num(median)}</b> "
                f"(median; 95% of replicates {_num(low)} to {_num(high)}). Near 1: the "
                "clusters do not hinge on which models were run; the co-clustering "
                "frequencies are in the workbook's “cluster stability” sheet.</p>"
            )
    return "".join(parts)


def _fig4(result: CompareResult, svgs: Mapping[str, str]) -> str:
    c = result.correlation
    r = f"Pearson {_e(c.summary())}" if c else "r not computed"
    rows = []
    for f in result.in_order():  # the leaderboard's order
        rows.append(
            f"<tr><td>{_e(f.run)}</td><td>{f.a}</td><td>{f.b}</td><td>{f.c}</td><td>{f.d}</td>"
            f"<td>{_num(f.acc_h)}{_ci(f.acc_h_low, f.acc_h_high)}</td>"
            f"<td>{_num(f.rationality)}{_ci(f.rationality_low, f.rationality_high)}</td>"
            f"<td>{_num(f.shortcut_prob)}{_ci(f.shortcut_prob_low, f.shortcut_prob_high)}</td>"
            f"<td>{_num(f.baseline)}</td><td>{_e(f.log_or_text())}</td>"
            f"<td>{_e(f.p_permutation_text())}</td></tr>"
        )
    return (
        f"<figure>{_svg(svgs.get('fig4_credibility'))}<figcaption><b>Figure 4.</b> Left: "
        "Rationality = 1 − D/(A+D) against high-level accuracy Acc_H = (A+D)/N, dashed lines at "
        "the means. Right: Shortcut Probability D/(C+D) against Acc_H; "
        f"{r}. The line y = x is what independent low- and high-level answers give "
        "(P(H right | L wrong) = P(H right)), so a high r is expected by construction "
        "whenever models differ in accuracy; the paper reports r = 0.693 and reads it as "
        "opportunistic evolution (Appendix H). Points below the line depend on the "
        "prerequisite.</figcaption></figure>"
        "<div class='wide'><table><caption><b>Table.</b> Credibility per run "
        f"(pairing preset “{_e(next(iter(result.by_preset), result.preset))}”): groups A "
        "(both right), B (L right, H wrong), "
        "C (both wrong), D (L wrong, H right); the independence baseline SP − Acc_H (near 0 "
        "when L and H are independent); the log odds ratio ln(A·C/B·D) with Woolf's 95% "
        "interval (0.5 added to every cell of a table with an empty cell, Haldane–Anscombe, "
        "and said so; undefined when L or H has one outcome on every pair, where it is 0/0); "
        "bootstrap 95% intervals "
        f"resampling images ({result.n_boot} replicates, seed {result.seed}) in brackets; p: "
        "one-sided permutation p of shuffling the low-level outcomes among the run's pairs "
        "(exact: Fisher's test).</caption><thead><tr><th>Run</th>"
        "<th>A</th><th>B</th><th>C</th><th>D</th><th>Acc_H</th><th>Rationality</th>"
        "<th>Shortcut P.</th><th>SP − Acc_H</th><th>log OR [95% CI]</th><th>p</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _drops(result: CompareResult) -> str:
    if not result.drops:
        return ""
    rows = "".join(
        f"<tr><td>{_e(d.image_run)}</td><td>{_e(d.text_run)}</td>"
        f"<td>{int(d.table.loc['Overall', 'n'])}</td>"
        f"<td>{_num(d.table.loc['Overall', 'with_image'], percent=True)}</td>"
        f"<td>{_num(d.table.loc['Overall', 'without_image'], percent=True)}</td>"
        f"<td>{_num(d.table.loc['Overall', 'drop'], percent=True)}</td></tr>"
        for d in result.drops
    )
    return (
        "<h2>Text-only baseline</h2><table><caption><b>Table 4.</b> Accuracy (%) with and "
        "without the image over the items both runs answered (per voxel in the XLSX and "
        "JSON).</caption><thead><tr><th>Image run</th><th>Text-only run</th><th>n</th>"
        "<th>With image</th><th>Without</th><th>Drop</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )


def _necessity(result: CompareResult) -> str:
    """Table 4 extended (issue 24): per pair of an image run and an ablation run, the
    sighted − ablated gap overall and per task (%, 95 % interval clustered by image),
    and the count of items answerable without the image; empty without ablation runs."""
    found = result.necessity
    if found is None:
        return ""
    rows = "".join(
        f"<tr><td>{_e(g.image_run)}</td><td>{_e(g.ablated_run)}</td><td>{_e(g.mode)}</td>"
        f"<td>{_e(row['scope'])}</td><td>{row['n']}</td>"
        f"<td>{_num(row['with_image'], percent=True)}</td>"
        f"<td>{_num(row['ablated'], percent=True)}</td>"
        f"<td>{_num(row['gap'], percent=True)}{_pct_ci(row['low'], row['high'])}</td></tr>"
        for g in found.gaps
        for row in g.rows
        if row["level"] != "voxel"
    )
    summary = found.summary()
    return (
        "<h2>Image necessity</h2>"
        f"<p>{summary['answerable']} of the {summary['items']} items with an ablation answer "
        "are answerable without the image (right under ablation by more than "
        f"{share_percent(found.items.threshold)} of the models; per item in "
        "necessity_items.csv).</p>"
        "<table><caption><b>Table 4, extended.</b> Accuracy (%) with the image and under "
        "each ablation over the items both runs answered, and the gap with its 95% "
        "bootstrap interval clustered by image (per voxel in necessity_gaps.csv, the XLSX "
        "and JSON).</caption><thead><tr><th>Image run</th><th>Ablation run</th>"
        "<th>Mode</th><th>Scope</th><th>n</th><th>With image</th><th>Ablated</th>"
        f"<th>Gap</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _pct_ci(low: object, high: object) -> str:
    """`` [low, high]`` in % (a bootstrap interval, as the command prints it: ``[-100.0,
    -100.0]``, never ``[-100.0–-100.0]``), or nothing when there is none."""
    if low is None or high is None or (isinstance(low, float) and not np.isfinite(low)):
        return ""
    return f" <span class='ci'>[{_num(low, percent=True)}, {_num(high, percent=True)}]</span>"


def _footer(result: CompareResult, meta: Mapping[str, object]) -> str:
    m = result.matrix
    runs = "".join(
        f"<li>{_e(run)}: {_e(model)}{mode_mark(mode)}</li>"
        for run, model, mode in zip(m.runs, m.models, m.image_modes, strict=True)
    )
    warnings = (
        "<p>Warnings: " + "; ".join(_e(w) for w in result.warnings) + "</p>"
        if result.warnings
        else ""
    )
    return (
        "<footer><p><b>Reproduce.</b> Every number here is in compare.json and the CSV and "
        "XLSX files beside this page, computed from the database by:</p>"
        f"<pre><code>{_e(meta.get('command', ''))}</code></pre>"
        f"<p>Database {_e(meta.get('database', ''))}; benchmark {_e(meta.get('dataset', ''))}; "
        f"{len(m.items)} items; voxels with at least {result.min_items} items "
        f"({len(result.voxels.voxels)} kept, {len(result.voxels.dropped)} left out). Runs:</p>"
        f"<ul>{runs}</ul>{warnings}<p>MedRCube Desktop {_e(meta.get('app_version', ''))}, "
        f"{_e(meta.get('created_at', ''))}.</p></footer>"
    )


def report_html(result: CompareResult, meta: Mapping[str, object], svgs: Mapping[str, str]) -> str:
    """The report as one HTML document.

    Parameters
    ----------
    result : CompareResult
    meta : mapping
        ``command``, ``database``, ``dataset``, ``app_version``, ``created_at``.
    svgs : mapping of str to str
        The SVG files' text by figure name (:data:`~.report.FIGURES`); a missing one is
        left out.
    """
    n = len(result.matrix.runs)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="MedRCube Desktop {_e(meta.get("app_version", ""))}">
<title>MedRCube comparison of {n} runs</title>
<style>{_STYLE}</style></head><body>
<h1>Comparison of {n} runs on the MedRCube benchmark</h1>
<p class="sub">{len(result.matrix.items)} items; runs {_e(", ".join(result.matrix.runs))}.
Sections follow the MedRCube paper: leaderboard (Table 3), correlation analysis (Section 5,
Fig. 3), credibility analysis (Section 6, Fig. 4).</p>
<h2>Leaderboard</h2>
{_leaderboard(result)}
<h2>Correlation between competency voxels</h2>
{_fig3(result, svgs)}
<h2>Credibility</h2>
{_fig4(result, svgs)}
{_drops(result)}{_necessity(result)}
{_footer(result, meta)}
</body></html>
"""
