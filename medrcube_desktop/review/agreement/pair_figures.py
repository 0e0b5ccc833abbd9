"""Every figure of one binary judgment (a rule, a principle's verdict, rule 1.4 against
the evidence) of two raters, with its intervals and the reasons of those undefined
(paper E.6, Table 5): :class:`PairFigures` and its JSON form (``agreement --json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from medrcube_desktop.review.agreement.coefficients import (
    cohen_kappa,
    confusion,
    gwet_ac1,
    mcnemar_exact_p,
    pabak,
    percent_agreement,
)
from medrcube_desktop.review.agreement.degenerate import undefined_reasons
from medrcube_desktop.review.agreement.intervals import (
    ALIKE,
    DEFAULT_BOOTSTRAP,
    DEFAULT_SEED,
    Draws,
    alike_text,
    bootstrap_statistics,
    draws_of,
    nan_percentile_ci,
    percentile_ci,
    wilson_ci,
)


def rounded(value: float | None, digits: int = 6) -> float | None:
    """``value`` rounded to ``digits`` for JSON (never ``-0.0``); None stays None."""
    return None if value is None else round(float(value), digits) + 0.0  # no "-0.0"


def rounded_interval(ci: tuple[float, float] | None) -> list[float] | None:
    """An interval as a JSON list, each bound rounded to 6 digits; None stays None."""
    return None if ci is None else [round(ci[0], 6) + 0.0, round(ci[1], 6) + 0.0]


@dataclass
class PairFigures:
    """Statistics of one binary judgment (a rule or a principle verdict) for two raters."""

    agreement: float | None
    ci95: tuple[float, float] | None
    cohen_kappa: float | None
    gwet_ac1: float | None
    pabak: float | None
    confusion: list[list[int]]
    mcnemar_p: float | None
    kappa_ci95: tuple[float, float] | None = None
    ac1_ci95: tuple[float, float] | None = None
    wilson_ci95: tuple[float, float] | None = None
    undefined: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """The JSON form of ``agreement --json``; ``"undefined"`` (figure → reason, the
        JSON names) only when a figure is undefined."""
        names = {"ci95": "ci95", "kappa_ci95": "cohen_kappa_ci95", "ac1_ci95": "gwet_ac1_ci95",
                 "wilson_ci95": "agreement_wilson_ci95"}  # fmt: skip
        extra = {"undefined": {names.get(k, k): v for k, v in self.undefined.items()}}
        return {
            "agreement": rounded(self.agreement),
            "ci95": rounded_interval(self.ci95),
            "cohen_kappa": rounded(self.cohen_kappa),
            "gwet_ac1": rounded(self.gwet_ac1),
            "pabak": rounded(self.pabak),
            "confusion": self.confusion,
            "mcnemar_p": rounded(self.mcnemar_p),
            "cohen_kappa_ci95": rounded_interval(self.kappa_ci95),
            "gwet_ac1_ci95": rounded_interval(self.ac1_ci95),
            "agreement_wilson_ci95": rounded_interval(self.wilson_ci95),
            **(extra if self.undefined else {}),
        }


def binary_figures(
    a: np.ndarray, b: np.ndarray, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED
) -> PairFigures:
    """Every figure of one binary judgment of two raters (what each rule of
    :func:`~.stats.compare` gets: agreement, Cohen's κ, AC1, PABAK, the 2×2 table,
    McNemar's p, bootstrap intervals over items), for judgments that are not seven rules:
    rule 1.4 against the ablation evidence (:mod:`.necessity`).

    Parameters
    ----------
    a, b : ndarray of shape (n,), int
        0/1 per item, the same items in the same order.
    bootstrap, seed : int
        Draws (0: no intervals) and seed of the item bootstrap.
    """
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    return pair_figures(a, b, draws_of(len(a), bootstrap, seed))


def pair_figures(a: np.ndarray, b: np.ndarray, draws: Draws | None) -> PairFigures:
    """Every figure of one judgment, the (n,) int 0/1 ``a`` and ``b``, its bootstrap
    intervals over ``draws`` (None: no interval); an undefined one is None with its
    reason in ``undefined`` (:func:`~.degenerate.undefined_reasons`, decided before
    anything is computed)."""
    table = confusion(a, b)
    agree = (a == b).astype(float)
    n = len(a)
    undefined = undefined_reasons(a, b)
    if draws is None:  # no intervals asked for: nothing to say of them
        undefined = {k: v for k, v in undefined.items() if k == "wilson_ci95" or "ci95" not in k}
    wanted = draws is not None and not {"kappa_ci95", "ac1_ci95"} <= set(undefined)
    per_draw = bootstrap_statistics(a, b, draws) if wanted and draws is not None else {}
    intervals = {
        "ci95": percentile_ci(agree, draws),
        "kappa_ci95": nan_percentile_ci(per_draw["kappa"]) if per_draw else None,
        "ac1_ci95": nan_percentile_ci(per_draw["ac1"]) if per_draw else None,
    }
    for key, ci in intervals.items():
        if key in undefined:
            intervals[key] = None
        elif ci is not None and ci[1] - ci[0] <= ALIKE:  # every resample alike: no interval
            intervals[key] = None
            undefined[key] = alike_text(ci[0])
    return PairFigures(
        agreement=percent_agreement(table),
        ci95=intervals["ci95"],
        cohen_kappa=cohen_kappa(table),
        gwet_ac1=gwet_ac1(table),
        pabak=pabak(table),
        confusion=table,
        mcnemar_p=mcnemar_exact_p(table) if n else None,
        kappa_ci95=intervals["kappa_ci95"],
        ac1_ci95=intervals["ac1_ci95"],
        wilson_ci95=wilson_ci(int(agree.sum()), n),
        undefined=undefined,
    )
