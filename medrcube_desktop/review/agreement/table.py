"""The Table-5-style rows of an agreement study and how figures are printed in them."""

from __future__ import annotations

from typing import Any

from medrcube_desktop.core.rubric import PRINCIPLES, load_rubric
from medrcube_desktop.review.agreement.run import StudyRun
from medrcube_desktop.review.agreement.stats import PairFigures


def table_rows(run: StudyRun) -> list[dict[str, Any]]:
    """Rows of the Table-5-style summary, in paper order: sample level, then each
    principle (verdict agreement; all-match in ``all_match``) followed by its rules.

    Each row: ``key`` ("sample", "P1", "1.1"…), ``label``, ``agreement``, ``ci95``,
    ``cohen_kappa``, ``gwet_ac1``, ``pabak``, ``mcnemar_p``, ``confusion``,
    ``all_match`` (principles only).
    """
    result = run.result
    rubric = load_rubric()
    labels = {rule.id: rule.label for rule in rubric.rules}
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
                "label": f"{rubric.principle_label(pid)} (verdict)",
                **_figures(verdict),
                "all_match": values["all_match"],
                "all_match_ci95": values["all_match_ci95"],
            }
        )
        for rule in rules:
            rows.append({"key": rule, "label": labels[rule], **_figures(result.rules[rule])})
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


def meta_line(run: StudyRun) -> str:
    m = run.meta
    hashes = ", ".join(h[:12] for h in m.get("prompt_sha256") or []) or "—"
    return (
        f"MedRCube Desktop {m['app_version']} · rubric {m['rubric_version']} · judge model "
        f"{m['judge_model'] or '—'} · prompt SHA-256 {hashes} · {m['created_at']}"
    )


def extra_lines(run: StudyRun) -> list[str]:
    """The intra-rater and multi-rater figures in a sentence each (plain text; the
    ``agreement`` command prints them, the Agreement pane shows them escaped): all seven
    matching on the items shown twice, and the range of Fleiss' κ over the rules among
    every rater. Empty when there is neither."""
    lines = []
    if run.intra:
        n = int(run.intra["n_repeated"])
        lines.append(
            f"Intra-rater ({run.intra['reviewer']}, {n} item{'' if n == 1 else 's'} shown "
            f"twice): all seven match on {fmt(run.intra['sample_level'])}."
        )
    if run.multi:
        kappas = [
            v["fleiss_kappa"] for v in run.multi["rules"].values() if v["fleiss_kappa"] is not None
        ]
        if kappas:
            lines.append(
                f"{len(run.multi['raters'])} raters ({', '.join(run.multi['raters'])}) on the "
                f"{run.multi['n_samples']} items all of them judged: Fleiss' κ per rule from "
                f"{min(kappas):.2f} to {max(kappas):.2f} (Krippendorff's α in the export)."
            )
    return lines
