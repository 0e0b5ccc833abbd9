"""The Table-5-style rows of an agreement study and how figures are printed in them."""

from __future__ import annotations

from typing import Any

from medrcube_desktop.core.rubric import PRINCIPLES, load_rubric
from medrcube_desktop.review.agreement.necessity import evidence_lines
from medrcube_desktop.review.agreement.run import StudyRun
from medrcube_desktop.review.agreement.stats import PairFigures


def table_rows(run: StudyRun) -> list[dict[str, Any]]:
    """Rows of the Table-5-style summary, in paper order: sample level, then each
    principle (verdict agreement; all-match in ``all_match``) followed by its rules.

    Each row: ``key`` ("sample", "P1", "1.1"…), ``label``, ``agreement``, ``ci95``,
    ``cohen_kappa``, ``gwet_ac1``, ``pabak``, ``mcnemar_p``, ``confusion``,
    ``all_match`` (principles only), and ``undefined``: figure → why it is undefined
    (:func:`~.stats.undefined_reasons`; printed by :func:`cell`, :func:`ci_cell` and
    :func:`undefined_notes`).
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
            "undefined": dict(result.sample_undefined),
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
                "undefined": {**values.get("undefined", {}), **verdict.undefined},  # type: ignore[dict-item]
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
        "undefined": dict(figures.undefined),
    }


UNDEFINED = "undefined"

FIGURE_NAMES = {
    "agreement": "Agreement", "ci95": "Agreement interval", "all_match": "All-match share",
    "all_match_ci95": "All-match interval", "cohen_kappa": "Cohen's kappa",
    "kappa_ci95": "Kappa interval", "gwet_ac1": "Gwet's AC1", "ac1_ci95": "AC1 interval",
    "pabak": "PABAK", "mcnemar_p": "McNemar p", "wilson_ci95": "Wilson interval",
}  # fmt: skip
"""How :func:`undefined_notes` names each figure of a row."""


def cell(row: dict[str, Any], key: str, digits: int = 2) -> str:
    """A figure of a :func:`table_rows` row for a table cell: :func:`fmt` (or
    :func:`fmt_p` for ``mcnemar_p``), or ``"undefined"`` where the row says why (the
    reason is in :func:`undefined_notes`)."""
    value = row.get(key)
    if value is None and key in row.get("undefined", {}):
        return UNDEFINED
    return fmt_p(value) if key == "mcnemar_p" else fmt(value, digits)


def ci_cell(row: dict[str, Any], key: str = "ci95") -> str:
    """An interval of a :func:`table_rows` row: ``[0.72, 0.94]``, ``[undefined]`` where
    the row says why, or '' without one."""
    if row.get(key) is None and key in row.get("undefined", {}):
        return f"[{UNDEFINED}]"
    return fmt_ci(row.get(key))


def undefined_notes(rows: list[dict[str, Any]]) -> list[str]:
    """One line per reason of the rows' undefined figures, naming the figures and rows:
    ``"Cohen's kappa, Kappa interval, AC1 interval for 1.1, 1.2 undefined: both raters
    gave 'pass' to every item"``; what every surface prints under its table."""
    groups: dict[str, dict[str, list[str]]] = {}  # reason -> figure -> rows
    for row in rows:
        for key, reason in row.get("undefined", {}).items():
            groups.setdefault(reason, {}).setdefault(key, []).append(str(row["key"]))
    lines = []
    for reason, figures in groups.items():
        by_rows: dict[tuple[str, ...], list[str]] = {}
        for key, keys in figures.items():
            by_rows.setdefault(tuple(keys), []).append(FIGURE_NAMES.get(key, key))
        places = "; ".join(
            f"{', '.join(names)} for {', '.join(keys)}" for keys, names in by_rows.items()
        )
        lines.append(f"{places} {UNDEFINED}: {reason}")
    return lines


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
        + (f" · release {m['release']['version']}" if m.get("release") else "")
    )


def abstention_rows(run: StudyRun) -> list[dict[str, Any]]:
    """One row per rule of the "cannot judge" figures (issue 24): ``rule``, for each
    rater (``first``/``second``, labelled in ``run.meta``) the count and rate of
    abstentions over the compared items (``first_count``, ``first_rate``, ...), and
    ``left_out``: the pairs that rule's figures leave out (either abstained). Empty when
    nobody abstained."""
    found = run.result.abstentions
    if not found:
        return []
    first, second = found["first"], found["second"]
    return [
        {
            "rule": rule,
            "first_count": first["counts"][rule],
            "first_rate": first["rates"][rule],
            "second_count": second["counts"][rule],
            "second_rate": second["rates"][rule],
            "left_out": found["pairs_left_out"][rule],
        }
        for rule in first["counts"]
    ]


def cannot_judge_line(rater: str, rates: dict[str, Any], over: str = "compared") -> str:
    """One rater's :func:`~.stats.rater_abstentions` in a sentence, the same on every
    agreement surface: ``Cannot judge, dr-a (of 8 compared items): 1.4 2 (25 %).``
    (``never`` without an abstention); ``over`` names the items counted."""
    parts = [
        f"{rule} {count} ({rates['rates'][rule] * 100:.0f} %)"
        for rule, count in rates["counts"].items()
        if count
    ]
    n = rates["n_items"]
    return (
        f"Cannot judge, {rater} (of {n} {over} item{'' if n == 1 else 's'}): "
        + (", ".join(parts) if parts else "never")
        + "."
    )


def abstention_lines(run: StudyRun) -> list[str]:
    """The "cannot judge" figures in sentences (empty when nobody abstained): each
    rater's abstention rate per rule over the compared items, and what the pairwise
    exclusion left out of the rules, the principle verdicts and the sample level."""
    found = run.result.abstentions
    if not found:
        return []
    lines = [cannot_judge_line(run.meta[side], found[side]) for side in ("first", "second")]
    pairs = ", ".join(f"{r} {k}" for r, k in found["pairs_left_out"].items() if k)
    verdicts = ", ".join(f"P{p} {k}" for p, k in found["principles_left_out"].items() if k)
    lines.append(
        f"Left out where either rater cannot judge (pairwise): rules {pairs}; principle "
        f"verdicts {verdicts or 'none'}; sample level (all seven) "
        f"{found['sample_level_left_out']} item(s)."
    )
    return lines


def extra_lines(run: StudyRun) -> list[str]:
    """The intra-rater and multi-rater figures in a sentence each (plain text; the
    ``agreement`` command prints them, the Agreement pane shows them escaped): all seven
    matching on the items shown twice, and the range of Fleiss' κ over the rules among
    every rater; rule 1.4 against the ablation evidence when asked for; first, the
    "cannot judge" figures (:func:`abstention_lines`) when someone abstained. Empty when
    there is none of these."""
    lines = abstention_lines(run)
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
    return lines + evidence_lines(run.evidence)  # rule 1.4 vs the ablation evidence
