"""Agreement of three raters or more (the expert panel beside Table 5): Fleiss' kappa
(statsmodels) and Krippendorff's alpha (krippendorff, nominal) per rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.review.agreement.pair_figures import rounded

Scores = Mapping[str, Mapping[str, int | str]]
"""item id → rule id → 0 (fail) / 1 (pass) / :data:`CANNOT_JUDGE` (an expert abstained)."""


def multi_rater(raters: Mapping[str, Scores], sample: Sequence[str] | None = None) -> dict:
    """Fleiss' kappa (statsmodels) and Krippendorff's alpha (krippendorff, nominal) per
    rule for three or more raters, over the items every rater judged.

    Returns ``{"raters": [...], "n_samples": n, "rules": {rule: {"fleiss_kappa",
    "krippendorff_alpha"}}}``; a figure is ``None`` where it is undefined, decided before
    the libraries are called, and the rule then has ``"undefined"``: the reason (no item
    judged by every rater, one item, or every rater giving one value to every item). An
    item where some rater cannot judge a rule is left out of that rule, whose entry then
    gives its own ``"n_samples"``.
    """
    import krippendorff
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    names = sorted(raters)
    universe = sorted(
        set(sample) if sample is not None else set().union(*map(set, raters.values()))
    )
    items = [i for i in universe if all(i in raters[name] for name in names)]
    rules: dict[str, dict[str, float | str | None]] = {}
    for rule in RULE_IDS:
        # an item where a rater cannot judge the rule is left out of that rule (issue 24)
        kept = [i for i in items if all(raters[n][i][rule] != CANNOT_JUDGE for n in names)]
        data = np.array([[raters[n][i][rule] for n in names] for i in kept], dtype=int)
        data = data.reshape(len(kept), len(names))
        why = (
            "no item judged by every rater"
            if len(kept) == 0
            else "one item judged by every rater: agreement beyond chance needs at least 2"
            if len(kept) == 1
            else f"every rater gave '{'pass' if data.flat[0] else 'fail'}' to every item"
            if np.all(data == data.flat[0])
            else None
        )
        if why is not None:
            rules[rule] = {"fleiss_kappa": None, "krippendorff_alpha": None, "undefined": why}
            continue
        counts, _ = aggregate_raters(data, n_cat=2)
        alpha = krippendorff.alpha(
            reliability_data=data.T.astype(float), level_of_measurement="nominal"
        )
        rules[rule] = {
            "fleiss_kappa": rounded(float(fleiss_kappa(counts, method="fleiss"))),
            "krippendorff_alpha": rounded(float(alpha)),
            **({"n_samples": len(kept)} if len(kept) != len(items) else {}),
        }
    return {"raters": names, "n_samples": len(items), "rules": rules}
