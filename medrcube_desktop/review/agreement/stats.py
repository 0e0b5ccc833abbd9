"""Agreement between two raters on the NBME rubric (paper E.6, Table 5), with the
chance-corrected statistics and intervals a paper's reviewers will ask for.

Raters are given as ``{item_id: {rule_id: 0|1|"cannot judge"}}`` (first judgments). Only
items both raters judged are compared; the others are counted as excluded.

"Cannot judge" (an expert's abstention, issue 24) is excluded pairwise: a rule's figures
count an item only if neither rater abstained on that rule; a principle's verdict and
all-match only if neither abstained on any of its rules; the sample-level all-seven
match only if neither abstained on any rule. Each such figure then resamples its own
kept pairs (same draws count and seed). :attr:`AgreementResult.abstentions` gives each
rater's abstention rate per rule over the compared items; it is ``None`` when nobody
abstained, and then every figure and output is exactly what it was before.

Figures per sub-principle and per principle verdict:

- percent agreement p_o = (n00 + n11) / n;
- Cohen's kappa, (p_o − p_e) / (1 − p_e) with p_e = Σ_k p_A(k) p_B(k) (Cohen 1960);
  ``None`` when p_e = 1 (both raters gave one and the same value throughout);
- Gwet's AC1, (p_o − p_e) / (1 − p_e) with p_e = 2 π (1 − π), π the mean of the two
  raters' pass rates (Gwet 2008, Br J Math Stat Psychol 61:29–48, two categories);
- PABAK = 2 p_o − 1 (Byrt, Bishop & Carlin 1993, J Clin Epidemiol 46:423–429);
- the 2×2 table ``[[both fail, A fails B passes], [A passes B fails, both pass]]``;
- McNemar's exact test: two-sided binomial test of the discordant pairs (statsmodels);
  1.0 when there is none.

Bootstrap 95 % intervals resample items with replacement (percentile method, seeded
``numpy.random.Generator``), the same draws for every figure of one call. The draws are
made and used in chunks of about a million indices (:data:`CHUNK_INDICES`), so memory
stays bounded whatever the number of draws; more than :data:`MAX_BOOTSTRAP` draws are
refused (:class:`TooManyDraws`). A percentile
interval collapses to a point when every resample agrees (100 % agreement), so each
agreement also gets a Wilson score interval (``agreement_wilson_ci95``).

The module computes the study (:func:`compare`, :class:`AgreementResult`); its parts are
:mod:`.coefficients` (the figures of one 2×2 table), :mod:`.intervals` (the bootstrap and
Wilson's interval), :mod:`.degenerate` (which figure is undefined, and why),
:mod:`.pair_figures` (every figure of one judgment) and :mod:`.fleiss` (three raters or
more); every name they had here is still importable from here.

Degenerate input says so (issue 21): a figure or interval that is undefined is ``None``
and :attr:`PairFigures.undefined` maps its name to the reason (:func:`undefined_reasons`):
no item, one item (every resample is that item: no bootstrap interval), p_e = 1 (both
raters gave one and the same value throughout: no kappa), every resample giving the same
value (a zero-width percentile interval is not an interval). ``--json`` carries the map
as ``"undefined"``; every surface prints ``undefined: <reason>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from medrcube_desktop.core.rubric import CANNOT_JUDGE, PRINCIPLES, RULE_IDS, all_pass
from medrcube_desktop.review.agreement.coefficients import (
    cohen_kappa,
    confusion,
    gwet_ac1,
    mcnemar_exact_p,
    pabak,
    percent_agreement,
)
from medrcube_desktop.review.agreement.degenerate import NO_ITEM, undefined_reasons
from medrcube_desktop.review.agreement.degenerate import mean_undefined as _mean_undefined
from medrcube_desktop.review.agreement.fleiss import Scores, multi_rater
from medrcube_desktop.review.agreement.intervals import (
    ALIKE,
    CHUNK_INDICES,
    DEFAULT_BOOTSTRAP,
    DEFAULT_SEED,
    MAX_BOOTSTRAP,
    Draws,
    TooManyDraws,
    alike_text,
    interval_undefined,
    wilson_ci,
)
from medrcube_desktop.review.agreement.intervals import draws_of as _draws
from medrcube_desktop.review.agreement.intervals import percentile_ci as _percentile_ci
from medrcube_desktop.review.agreement.pair_figures import PairFigures, binary_figures
from medrcube_desktop.review.agreement.pair_figures import pair_figures as _figures
from medrcube_desktop.review.agreement.pair_figures import rounded as _round
from medrcube_desktop.review.agreement.pair_figures import rounded_interval as _interval

__all__ = [
    "ALIKE",
    "CHUNK_INDICES",
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_SEED",
    "MAX_BOOTSTRAP",
    "AgreementResult",
    "Draws",
    "PairFigures",
    "Scores",
    "TooManyDraws",
    "alike_text",
    "binary_figures",
    "cohen_kappa",
    "compare",
    "confusion",
    "gwet_ac1",
    "interval_undefined",
    "mcnemar_exact_p",
    "multi_rater",
    "pabak",
    "percent_agreement",
    "undefined_reasons",
    "wilson_ci",
]


@dataclass
class AgreementResult:
    """Everything ``agreement`` reports for two raters.

    Attributes
    ----------
    items : list of str
        Items both raters judged, sorted (the rows of every vector below).
    excluded : list of str
        Items of the sample that one rater or both have not judged.
    sample_level, sample_ci95
        Share of items where all seven judgments match, and its interval.
    rules : dict
        Rule id → :class:`PairFigures`.
    principles : dict
        Principle id → ``{"all_match", "all_match_ci95", "verdict": PairFigures}``.
    """

    items: list[str]
    excluded: list[str]
    sample_level: float | None
    sample_ci95: tuple[float, float] | None
    rules: dict[str, PairFigures]
    principles: dict[str, dict[str, object]]
    bootstrap: int = DEFAULT_BOOTSTRAP
    seed: int = DEFAULT_SEED
    first: dict[str, dict[str, int | str]] = field(default_factory=dict)
    second: dict[str, dict[str, int | str]] = field(default_factory=dict)
    sample_undefined: dict[str, str] = field(default_factory=dict)
    """``"agreement"``/``"ci95"`` of the sample level → why it is undefined."""
    abstentions: dict[str, Any] | None = None
    """``None`` when neither rater said "cannot judge" on a compared item (the paper's
    case: every output is then as before). Else ``{"first": R, "second": R,
    "pairs_left_out": {rule: n}, "principles_left_out": {pid: n},
    "sample_level_left_out": n}``, R = ``{"n_items", "counts": {rule: n}, "rates": {rule:
    share of the compared items}, "items_with_any"}``."""

    def to_dict(self) -> dict[str, object]:
        """The ``agreement --json`` object (issue 6)."""
        principles = {}
        for pid, values in self.principles.items():
            verdict: PairFigures = values["verdict"]  # type: ignore[assignment]
            figures = {k: v for k, v in verdict.to_dict().items() if k != "agreement"}
            undefined: dict[str, str] = {
                **values.get("undefined", {}),  # type: ignore[dict-item]
                **figures.pop("undefined", {}),  # type: ignore[dict-item]
            }
            principles[pid] = {
                "all_match": _round(values["all_match"]),  # type: ignore[arg-type]
                "all_match_ci95": _interval(values["all_match_ci95"]),  # type: ignore[arg-type]
                "verdict_agreement": _round(verdict.agreement),
                **figures,
                **({"undefined": undefined} if undefined else {}),
            }
        return {
            "n_samples": len(self.items),
            "n_excluded": len(self.excluded),
            "sample_level": {
                "agreement": _round(self.sample_level),
                "ci95": _interval(self.sample_ci95),
                **({"undefined": self.sample_undefined} if self.sample_undefined else {}),
            },
            "rules": {rule: figures.to_dict() for rule, figures in self.rules.items()},
            "principles": principles,
            "bootstrap": {"draws": self.bootstrap, "seed": self.seed},
            **({"abstentions": self.abstentions} if self.abstentions is not None else {}),
        }

    def verdict(self, principle: str) -> PairFigures:
        """The figures of a principle's verdict (``"1"`` or ``"2"``)."""
        figures = self.principles[principle]["verdict"]
        assert isinstance(figures, PairFigures)
        return figures

    def items_in_cell(self, judgment: str, first: int, second: int) -> list[str]:
        """Items behind one cell of a 2×2 table: ``judgment`` is a rule id or
        ``"P1"``/``"P2"`` (principle verdicts); ``first``/``second`` the values 0/1."""
        out = []
        for item in self.items:
            a, b = self.first[item], self.second[item]
            rules = PRINCIPLES[judgment[1:]] if judgment.startswith("P") else (judgment,)
            if any(CANNOT_JUDGE in (a[r], b[r]) for r in rules):
                continue  # abstained: in no cell (left out of that table)
            va: int | str
            vb: int | str
            if judgment.startswith("P"):
                va, vb = int(all_pass(a, rules)), int(all_pass(b, rules))
            else:
                va, vb = a[judgment], b[judgment]
            if (va, vb) == (first, second):
                out.append(item)
        return out


def compare(
    first: Scores,
    second: Scores,
    sample: Sequence[str] | None = None,
    bootstrap: int = DEFAULT_BOOTSTRAP,
    seed: int = DEFAULT_SEED,
) -> AgreementResult:
    """Agreement of two raters over the items both judged.

    Parameters
    ----------
    first, second : mapping
        item id → rule id → 0/1 (all seven rules).
    sample : sequence of str, optional
        The study's items; default: every item either rater judged.
    bootstrap : int
        Bootstrap draws for the 95 % intervals (0: no intervals).
    seed : int
        Seed of the bootstrap's ``numpy.random.default_rng``.

    Raises
    ------
    TooManyDraws
        ``bootstrap`` exceeds :data:`MAX_BOOTSTRAP`.
    ValueError
        A score is not 0/1 or a rule is missing.
    """
    if bootstrap > MAX_BOOTSTRAP:
        raise TooManyDraws(
            f"--bootstrap {bootstrap:,}: at most {MAX_BOOTSTRAP:,} draws (the default "
            f"{DEFAULT_BOOTSTRAP:,} gives intervals to two decimals)"
        )
    universe = sorted(set(sample) if sample is not None else set(first) | set(second))
    items = [i for i in universe if i in first and i in second]
    excluded = [i for i in universe if i not in first or i not in second]
    a, a_na = _matrix(first, items)
    b, b_na = _matrix(second, items)
    n = len(items)
    draws = _draws(n, bootstrap, seed)
    either = a_na | b_na  # (n, 7) bool: the pair does not count on that rule
    matches = a == b  # (n, 7) bool
    result_rules = {}
    for k, rule in enumerate(RULE_IDS):
        keep = ~either[:, k]
        result_rules[rule] = _figures(a[keep, k], b[keep, k], _kept(keep, draws))
    principles: dict[str, dict[str, object]] = {}
    for pid, rules in PRINCIPLES.items():
        cols = [RULE_IDS.index(r) for r in rules]
        keep = ~either[:, cols].any(axis=1)  # abstained on a rule of it: no verdict
        kept = _kept(keep, draws)
        all_match = matches[keep][:, cols].all(axis=1)
        verdict_a = a[keep][:, cols].all(axis=1).astype(int)
        verdict_b = b[keep][:, cols].all(axis=1).astype(int)
        principles[pid] = {
            "all_match": float(all_match.mean()) if all_match.size else None,
            "all_match_ci95": _percentile_ci(all_match.astype(float), kept),
            "verdict": _figures(verdict_a, verdict_b, kept),
            "undefined": _mean_undefined(all_match, kept, "all_match"),
        }
    keep = ~either.any(axis=1)  # the all-seven match: an item with any abstention is out
    kept = _kept(keep, draws)
    all_seven = matches[keep].all(axis=1)
    sample_undefined = _mean_undefined(all_seven, kept, "agreement")
    if n:  # items in common, every one left out by a "cannot judge": say so, not "no item"
        for reasons in (
            *(f.undefined for f in result_rules.values()),
            *(p["verdict"].undefined for p in principles.values()),  # type: ignore[attr-defined]
            *(p["undefined"] for p in principles.values()),
            sample_undefined,
        ):
            for key, why in reasons.items():  # type: ignore[attr-defined]
                if why == _NO_ITEM:
                    reasons[key] = _ALL_ABSTAINED  # type: ignore[index]
    return AgreementResult(
        items=items,
        excluded=excluded,
        sample_level=float(all_seven.mean()) if all_seven.size else None,
        sample_ci95=_percentile_ci(all_seven.astype(float), kept),
        rules=result_rules,
        principles=principles,
        bootstrap=bootstrap,
        seed=seed,
        first={i: {r: _value(first[i][r]) for r in RULE_IDS} for i in items},
        second={i: {r: _value(second[i][r]) for r in RULE_IDS} for i in items},
        sample_undefined=sample_undefined,
        abstentions=_abstentions(a_na, b_na) if either.any() else None,
    )


def _value(value: object) -> int | str:
    """A stored score as compared: 0/1 as int, an abstention as :data:`CANNOT_JUDGE`."""
    return CANNOT_JUDGE if value == CANNOT_JUDGE else int(value)  # type: ignore[call-overload]


def _kept(keep: np.ndarray, draws: Draws | None) -> Draws | None:
    """The draws for the pairs ``keep`` (an (n,) bool mask) leaves: ``draws`` itself when
    it keeps every pair (so nothing changes without an abstention), else fresh draws of
    the kept pairs with the same count and seed (None without intervals or pairs)."""
    if draws is None or bool(keep.all()):
        return draws
    return _draws(int(keep.sum()), draws.count, draws.seed)


def rater_abstentions(mask: np.ndarray) -> dict[str, object]:
    """One rater's "cannot judge" over the items of ``mask`` ((n_items, 7) bool, rubric
    order): ``{"n_items", "counts": {rule: int}, "rates": {rule: float (0–1, rounded to
    6 digits)}, "items_with_any"}``; the one computation of every agreement surface (two
    raters, the experts panel, ``--gold``)."""
    n = len(mask)
    counts = mask.sum(axis=0) if n else np.zeros(len(RULE_IDS), dtype=int)
    return {
        "n_items": n,
        "counts": {rule: int(counts[k]) for k, rule in enumerate(RULE_IDS)},
        "rates": {rule: _round(counts[k] / n) if n else None for k, rule in enumerate(RULE_IDS)},
        "items_with_any": int(mask.any(axis=1).sum()) if n else 0,
    }


def _abstentions(a_na: np.ndarray, b_na: np.ndarray) -> dict[str, Any]:
    """How often each rater said "cannot judge" on the compared items, and what that
    left out (:attr:`AgreementResult.abstentions`)."""
    rates = rater_abstentions
    either = a_na | b_na
    return {
        "first": rates(a_na),
        "second": rates(b_na),
        "pairs_left_out": {rule: int(either[:, k].sum()) for k, rule in enumerate(RULE_IDS)},
        "principles_left_out": {
            pid: int(either[:, [RULE_IDS.index(r) for r in rules]].any(axis=1).sum())
            for pid, rules in PRINCIPLES.items()
        },
        "sample_level_left_out": int(either.any(axis=1).sum()),
    }


_NO_ITEM = NO_ITEM
_ALL_ABSTAINED = "every item both raters judged has a 'cannot judge' of either here"
"""Why a figure of :func:`compare` is undefined when the raters judged items in common
but each of them is left out of it by an abstention (pairwise exclusion)."""


def _matrix(scores: Scores, items: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(n_items, 7) int array of 0/1 in rubric order, and the (n_items, 7) bool mask of
    abstentions (:data:`CANNOT_JUDGE`, whose cell in the first array is 0 and unused)."""
    out = np.zeros((len(items), len(RULE_IDS)), dtype=int)
    abstained = np.zeros((len(items), len(RULE_IDS)), dtype=bool)
    for row, item in enumerate(items):
        for col, rule in enumerate(RULE_IDS):
            value = scores[item].get(rule)
            if value == CANNOT_JUDGE:
                abstained[row, col] = True
                continue
            if value not in (0, 1) or isinstance(value, bool):
                raise ValueError(
                    f"item {item}: rule {rule} must be 0, 1 or {CANNOT_JUDGE!r}, got {value!r}"
                )
            out[row, col] = value
    return out, abstained
