"""Rule 1.4 (VQA suitability: the question needs the image) against the ablation
evidence (issue 24 item 3): each expert's verdict on 1.4 beside "answerable without the
image" (:mod:`medrcube_desktop.review.necessity_evidence`), where the expected relation
is answerable ⇒ 1.4 fail. The evidence is read as a rater whose 1.4 is 0 on an
answerable item and 1 on the others, and every figure of a rule is computed for the pair
(:func:`~.stats.binary_figures`: agreement, Cohen's κ with its bootstrap interval, the
2×2 table, McNemar's p), over the compared items that some ablation run answered.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from medrcube_desktop.core.rubric import CANNOT_JUDGE
from medrcube_desktop.review.agreement.stats import binary_figures

RULE = "1.4"
"""The rule the evidence speaks to."""

EXPECTED = "answerable without the image => rule 1.4 fails"
"""The relation the comparison tests, as the outputs state it."""


def rule_evidence(
    raters: Mapping[str, Mapping[str, Mapping[str, int]]],
    evidence: Mapping[str, Mapping[str, object]],
    items: Sequence[str],
    bootstrap: int,
    seed: int,
    threshold: float | None,
) -> dict[str, object]:
    """Each rater's rule 1.4 against the evidence.

    Parameters
    ----------
    raters : mapping
        Rater label → item id → rule id → 0/1 (first judgments).
    evidence : mapping
        Item id → its evidence row (``"answerable"`` bool), items with an ablation answer.
    items : sequence of str
        The compared items (the study's, blinding applied); those without evidence or
        without the rater's judgment are left out.
    bootstrap, seed : int
        The agreement study's bootstrap (0: no intervals).
    threshold : float or None
        The answerable share the evidence was computed with (recorded; None: unknown).

    Returns
    -------
    dict
        ``{"rule", "expected", "threshold", "raters": {label: {"n", "cannot_judge",
        "answerable", "expert_fail", **PairFigures.to_dict()}}}`` (``cannot_judge``: the
        items left out because the rater abstained on 1.4); the confusion table's rows are the
        expert (0 fail, 1 pass), its columns the evidence (0 answerable, 1 not).
    """
    out: dict[str, dict[str, object]] = {}
    for label, scores in raters.items():
        judged = [i for i in items if i in evidence and i in scores]
        # "cannot judge" is neither pass nor fail: left out pairwise, and counted
        chosen = [i for i in judged if scores[i][RULE] != CANNOT_JUDGE]
        expert = np.array([int(scores[i][RULE]) for i in chosen], dtype=int)
        implied = np.array([0 if evidence[i]["answerable"] else 1 for i in chosen], dtype=int)
        figures = binary_figures(expert, implied, bootstrap, seed)
        out[label] = {
            "n": len(chosen),
            "cannot_judge": len(judged) - len(chosen),
            "answerable": int((implied == 0).sum()),
            "expert_fail": int((expert == 0).sum()),
            **figures.to_dict(),
        }
    return {"rule": RULE, "expected": EXPECTED, "threshold": threshold, "raters": out}


def evidence_lines(found: Mapping[str, object] | None) -> list[str]:
    """One sentence per rater (the command prints them, the pane shows them): "Rule 1.4
    of dr-a against the ablation evidence (answerable => 1.4 fails): 12 items, 3
    answerable; agreement 0.83, Cohen's κ 0.55 [0.10, 0.90]"."""
    if not found:
        return []
    lines = []
    raters: Mapping[str, Mapping[str, Any]] = found["raters"]  # type: ignore[assignment]
    for label, f in raters.items():
        kappa = f["cohen_kappa"]
        ci = f["cohen_kappa_ci95"]
        agreement = f["agreement"]
        lines.append(
            f"Rule {RULE} of {label} against the ablation evidence ({EXPECTED}): {f['n']} "
            f"items, {f['answerable']} answerable, {f['expert_fail']} failed by the expert; "
            f"agreement {'undefined' if agreement is None else f'{agreement:.2f}'}, "
            f"Cohen's κ {'undefined' if kappa is None else f'{kappa:.2f}'}"
            + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")
            + (
                f"; {f['cannot_judge']} left out (cannot judge 1.4)"
                if f.get("cannot_judge")
                else ""
            )
        )
    return lines
