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

Degenerate input says so (issue 21): a figure or interval that is undefined is ``None``
and :attr:`PairFigures.undefined` maps its name to the reason (:func:`undefined_reasons`):
no item, one item (every resample is that item: no bootstrap interval), p_e = 1 (both
raters gave one and the same value throughout: no kappa), every resample giving the same
value (a zero-width percentile interval is not an interval). ``--json`` carries the map
as ``"undefined"``; every surface prints ``undefined: <reason>``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from medrcube_desktop.core.rubric import CANNOT_JUDGE, PRINCIPLES, RULE_IDS, all_pass
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement_options import AGREEMENT, MAX_BOOTSTRAP

Scores = Mapping[str, Mapping[str, int | str]]
"""item id → rule id → 0 (fail) / 1 (pass) / :data:`CANNOT_JUDGE` (an expert abstained)."""

DEFAULT_BOOTSTRAP: int = AGREEMENT["bootstrap"].default  # type: ignore[assignment]
"""Bootstrap draws of the intervals unless told (``agreement --bootstrap``, the pane's
field): :data:`~medrcube_desktop.review.agreement_options.AGREEMENT`'s."""

DEFAULT_SEED: int = AGREEMENT["seed"].default  # type: ignore[assignment]
"""Seed of the bootstrap draws unless told (``agreement --seed``)."""

CHUNK_INDICES = 1 << 20
"""Resampled indices made and used at once (8 MB): the draws' memory bound."""


ALIKE = 1e-12
"""Resampled values closer than this are one value: a statistic that is constant in exact
arithmetic (kappa is 0 in every resample when one rater gives one value throughout) comes
out of floating point as values a few 1e-16 apart, and their "interval" is a point
(printed ``[-0.00, -0.00]``), not an interval. Any real spread over n items is far wider
(of order 1/n²)."""


def alike_text(value: float) -> str:
    """``"every resample gives 0"``: the reason an interval of resamples all equal to
    ``value`` (within :data:`ALIKE`) is undefined; rounding noise is not printed."""
    return f"every resample gives {round(float(value), 12) + 0.0:.3g}"


class TooManyDraws(MedRCubeError, ValueError):
    """More bootstrap draws than :data:`MAX_BOOTSTRAP` were asked for."""


def confusion(a: np.ndarray, b: np.ndarray) -> list[list[int]]:
    """``[[both fail, a fails b passes], [a passes b fails, both pass]]`` of two 0/1
    vectors of equal length."""
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    return [
        [int(np.sum((a == 0) & (b == 0))), int(np.sum((a == 0) & (b == 1)))],
        [int(np.sum((a == 1) & (b == 0))), int(np.sum((a == 1) & (b == 1)))],
    ]


def percent_agreement(table: Sequence[Sequence[int]]) -> float | None:
    """p_o = (n00 + n11) / n from a 2×2 table; ``None`` for n = 0."""
    n = sum(map(sum, table))
    return (table[0][0] + table[1][1]) / n if n else None


def cohen_kappa(table: Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa of a 2×2 table (Cohen 1960); ``None`` when p_e = 1 or n = 0.

    p_e = p_A(fail) p_B(fail) + p_A(pass) p_B(pass); rows are rater A, columns rater B.
    """
    n = sum(map(sum, table))
    if not n:
        return None
    po = (table[0][0] + table[1][1]) / n
    a_fail, b_fail = (table[0][0] + table[0][1]) / n, (table[0][0] + table[1][0]) / n
    pe = a_fail * b_fail + (1 - a_fail) * (1 - b_fail)
    if math.isclose(pe, 1.0):
        return None
    return (po - pe) / (1 - pe)


def gwet_ac1(table: Sequence[Sequence[int]]) -> float | None:
    """Gwet's AC1 of a 2×2 table (Gwet 2008): p_e = 2 π (1 − π), π = mean pass rate.

    Defined whenever n > 0 (p_e ≤ 0.5), including when both raters are constant.
    """
    n = sum(map(sum, table))
    if not n:
        return None
    po = (table[0][0] + table[1][1]) / n
    pi = ((table[1][0] + table[1][1]) / n + (table[0][1] + table[1][1]) / n) / 2
    pe = 2 * pi * (1 - pi)
    return (po - pe) / (1 - pe)


def pabak(table: Sequence[Sequence[int]]) -> float | None:
    """Prevalence- and bias-adjusted kappa, 2 p_o − 1 (Byrt et al. 1993)."""
    po = percent_agreement(table)
    return None if po is None else 2 * po - 1


def mcnemar_exact_p(table: Sequence[Sequence[int]]) -> float:
    """Two-sided exact McNemar p-value (binomial test of the discordant pairs, via
    ``statsmodels.stats.contingency_tables.mcnemar(exact=True)``); 1.0 without any."""
    if table[0][1] + table[1][0] == 0:
        return 1.0
    from statsmodels.stats.contingency_tables import mcnemar

    return float(mcnemar(np.asarray(table), exact=True).pvalue)


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
            "agreement": _round(self.agreement),
            "ci95": _interval(self.ci95),
            "cohen_kappa": _round(self.cohen_kappa),
            "gwet_ac1": _round(self.gwet_ac1),
            "pabak": _round(self.pabak),
            "confusion": self.confusion,
            "mcnemar_p": _round(self.mcnemar_p),
            "cohen_kappa_ci95": _interval(self.kappa_ci95),
            "gwet_ac1_ci95": _interval(self.ac1_ci95),
            "agreement_wilson_ci95": _interval(self.wilson_ci95),
            **(extra if self.undefined else {}),
        }


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


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(float(value), digits) + 0.0  # no "-0.0"


def _interval(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else [round(ci[0], 6) + 0.0, round(ci[1], 6) + 0.0]


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
        sample_undefined=_mean_undefined(all_seven, kept, "agreement"),
        abstentions=_abstentions(items, a_na, b_na) if either.any() else None,
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


def _abstentions(items: Sequence[str], a_na: np.ndarray, b_na: np.ndarray) -> dict[str, Any]:
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


def _mean_undefined(values: np.ndarray, draws: Draws | None, name: str) -> dict[str, str]:
    """``{name: reason}`` without items, ``{f"{name}_ci95" or "ci95": reason}`` when the
    bootstrap interval of the share ``values`` is undefined (:func:`interval_undefined`)."""
    key = "ci95" if name == "agreement" else f"{name}_ci95"
    if values.size == 0:
        return {name: "no item judged by both raters", key: "no item judged by both raters"}
    why = interval_undefined(values.astype(float)) if draws is not None else None
    if why is None:
        return {}
    return {key: _agrees(why)}


def _agrees(why: str) -> str:
    """:func:`interval_undefined`'s words for a share of agreeing items."""
    return why.replace("every item gives 1 ", "every item agrees ").replace(
        "every item gives 0 ", "no item agrees "
    )


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


@dataclass(frozen=True)
class Draws:
    """``count`` bootstrap resamples of ``n`` items, seeded: made again, chunk by chunk,
    each time they are read, so at most :data:`CHUNK_INDICES` indices exist at once.

    The chunks together are exactly ``default_rng(seed).integers(0, n, (count, n))``
    (one generator, read in order): the figures equal those of drawing all at once.
    """

    n: int
    count: int
    seed: int

    def chunks(self) -> Iterator[np.ndarray]:
        """(rows, n) int arrays of resampled row indices, ``count`` rows in all."""
        rng = np.random.default_rng(self.seed)
        rows = max(1, CHUNK_INDICES // self.n)
        for start in range(0, self.count, rows):
            yield rng.integers(0, self.n, size=(min(rows, self.count - start), self.n))

    def per_draw(self, statistic: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """(count,) ``statistic(chunk)`` of every draw, chunk by chunk."""
        return np.concatenate([statistic(chunk) for chunk in self.chunks()])


def _draws(n: int, bootstrap: int, seed: int) -> Draws | None:
    """The resamples of ``n`` rows, or None without intervals."""
    if bootstrap <= 0 or n == 0:
        return None
    return Draws(n, bootstrap, seed)


def _percentile_ci(values: np.ndarray, draws: Draws | None) -> tuple[float, float] | None:
    """Percentile 95 % interval of the mean of ``values`` over the bootstrap draws; None
    when it is undefined (:func:`interval_undefined`: one item, or every item the same)."""
    if draws is None or interval_undefined(values) is not None:
        return None
    means = draws.per_draw(lambda chunk: values[chunk].mean(axis=1))
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def interval_undefined(values: np.ndarray) -> str | None:
    """Why a bootstrap interval over the (n,) per-item ``values`` is undefined, or None:
    ``"no items"``, ``"one item: every resample is that item"``, ``"every item gives
    1 (no variation to resample)"`` (every resample gives the same value, so the
    percentile interval is a point)."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return "no items"
    if values.size == 1:
        return "one item: every resample is that item"
    if np.ptp(values) == 0:
        return f"every item gives {values[0]:g} (no variation to resample)"
    return None


def undefined_reasons(a: np.ndarray, b: np.ndarray) -> dict[str, str]:
    """Figure name (:class:`PairFigures` field) → why it is undefined for the (n,) 0/1
    judgments ``a`` and ``b`` of two raters; empty when every figure is defined.

    - no item: every figure; one item: the bootstrap intervals (every resample is that
      item; Wilson's interval is defined);
    - p_e = 1 (both raters gave one and the same value to every item): Cohen's kappa and
      its interval (0/0; Gwet's AC1 is defined there, Gwet 2008, but every resample gives
      1: no interval), all three said "both raters gave 'pass' to every item";
    - the bootstrap interval of a figure that every resample gives alike (every item
      agreeing, or both raters constant): a zero-width percentile interval is not one.
    """
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    n = a.size
    if n == 0:
        return dict.fromkeys(
            ("agreement", "ci95", "cohen_kappa", "gwet_ac1", "pabak", "mcnemar_p",
             "kappa_ci95", "ac1_ci95", "wilson_ci95"), "no item judged by both raters",
        )  # fmt: skip
    out: dict[str, str] = {}
    agree = interval_undefined((a == b).astype(float))
    if agree is not None:
        out["ci95"] = _agrees(agree)
    if n == 1:
        out["kappa_ci95"] = out["ac1_ci95"] = "one item: every resample is that item"
    constant = np.ptp(a) == 0 and np.ptp(b) == 0
    if constant and a[0] == b[0]:
        word = "pass" if a[0] else "fail"
        why = f"both raters gave '{word}' to every item"  # kappa: p_e = 1; AC1: always 1
        out["cohen_kappa"] = out["kappa_ci95"] = why
        out.setdefault("ac1_ci95", why)
    elif constant:
        why = "each rater gave one value to every item (every resample gives the same value)"
        out.setdefault("kappa_ci95", why)
        out.setdefault("ac1_ci95", why)
    return out


def _bootstrap_statistics(a: np.ndarray, b: np.ndarray, draws: Draws) -> dict[str, np.ndarray]:
    """Cohen's kappa and Gwet's AC1 of every bootstrap draw (chunk by chunk)."""
    parts = [_draw_statistics(a, b, chunk) for chunk in draws.chunks()]
    return {key: np.concatenate([part[key] for part in parts]) for key in ("kappa", "ac1")}


def _draw_statistics(a: np.ndarray, b: np.ndarray, draws: np.ndarray) -> dict[str, np.ndarray]:
    """Cohen's kappa and Gwet's AC1 of every draw of a (rows, n) chunk at once (vectorised
    forms of :func:`cohen_kappa` and :func:`gwet_ac1`); NaN where kappa is undefined."""
    a_draw, b_draw = a[draws], b[draws]  # (draws, n) 0/1
    n = draws.shape[1]
    po = (a_draw == b_draw).mean(axis=1)
    pa, pb = a_draw.mean(axis=1), b_draw.mean(axis=1)  # pass rates
    pe_kappa = pa * pb + (1 - pa) * (1 - pb)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(np.isclose(pe_kappa, 1.0), np.nan, (po - pe_kappa) / (1 - pe_kappa))
    pi = (pa + pb) / 2
    pe_ac1 = 2 * pi * (1 - pi)
    ac1 = (po - pe_ac1) / (1 - pe_ac1)
    assert n > 0
    return {"kappa": kappa, "ac1": ac1}


def _nan_percentile_ci(values: np.ndarray) -> tuple[float, float] | None:
    """Percentile 95 % interval, draws where the statistic is undefined (NaN) left out."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def wilson_ci(successes: int, n: int) -> tuple[float, float] | None:
    """Wilson score 95 % interval of a proportion (statsmodels ``proportion_confint``,
    method "wilson"); unlike a percentile bootstrap it does not collapse to a point at
    100 % agreement (50 of 50 gives about [0.93, 1.00])."""
    if n == 0:
        return None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    return float(low), float(high)


def binary_figures(
    a: np.ndarray, b: np.ndarray, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = DEFAULT_SEED
) -> PairFigures:
    """Every figure of one binary judgment of two raters (what each rule of
    :func:`compare` gets: agreement, Cohen's κ, AC1, PABAK, the 2×2 table, McNemar's p,
    bootstrap intervals over items), for judgments that are not seven rules: rule 1.4
    against the ablation evidence (:mod:`.necessity`).

    Parameters
    ----------
    a, b : ndarray of shape (n,), int
        0/1 per item, the same items in the same order.
    bootstrap, seed : int
        Draws (0: no intervals) and seed of the item bootstrap.
    """
    a, b = np.asarray(a, dtype=int), np.asarray(b, dtype=int)
    return _figures(a, b, _draws(len(a), bootstrap, seed))


def _figures(a: np.ndarray, b: np.ndarray, draws: Draws | None) -> PairFigures:
    """Every figure of one judgment; an undefined one is None with its reason in
    ``undefined`` (:func:`undefined_reasons`, decided before anything is computed)."""
    table = confusion(a, b)
    agree = (a == b).astype(float)
    n = len(a)
    undefined = undefined_reasons(a, b)
    if draws is None:  # no intervals asked for: nothing to say of them
        undefined = {k: v for k, v in undefined.items() if k == "wilson_ci95" or "ci95" not in k}
    wanted = draws is not None and not {"kappa_ci95", "ac1_ci95"} <= set(undefined)
    per_draw = _bootstrap_statistics(a, b, draws) if wanted and draws is not None else {}
    intervals = {
        "ci95": _percentile_ci(agree, draws),
        "kappa_ci95": _nan_percentile_ci(per_draw["kappa"]) if per_draw else None,
        "ac1_ci95": _nan_percentile_ci(per_draw["ac1"]) if per_draw else None,
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
            "fleiss_kappa": _round(float(fleiss_kappa(counts, method="fleiss"))),
            "krippendorff_alpha": _round(float(alpha)),
            **({"n_samples": len(kept)} if len(kept) != len(items) else {}),
        }
    return {"raters": names, "n_samples": len(items), "rules": rules}
