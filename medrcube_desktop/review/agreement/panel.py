"""Several raters at once: the mean agreement of a group of rater pairs, per judgment
and at sample level, with bootstrap intervals (issue 15 item 4).

A *group* is a list of rater pairs: the expert–expert pairs (their mean is the
*ceiling*: how far experts agree with one another), the expert–LLM pairs, one pair
alone, or each rater against a gold standard. Per judgment a group reports the mean over
its pairs of percent agreement, Cohen's kappa and Gwet's AC1 (the formulas of
:mod:`.stats`), each pair computed over the items both of its raters judged; a pair
whose kappa is undefined (p_e = 1) is left out of the mean kappa.

Intervals: items are resampled with replacement over the union of the items of every
pair (one item is one unit, whichever raters judged it: a cluster bootstrap), with the
same seeded draws as :func:`.stats.compare` (:class:`.stats.Draws`), the same draws for
every group and judgment of one call; each draw recomputes every pair over the drawn
items it covers and averages over the pairs. For one pair over exactly its own items
this is :func:`.stats.compare`'s interval.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from medrcube_desktop.core.rubric import CANNOT_JUDGE, PRINCIPLES, RULE_IDS
from medrcube_desktop.review.agreement.stats import (
    ALIKE,
    MAX_BOOTSTRAP,
    Draws,
    Scores,
    TooManyDraws,
    alike_text,
)

JUDGMENTS: tuple[str, ...] = (*RULE_IDS, "P1", "P2", "verdict")
"""Binary columns of a rater's matrix: the seven rules, each principle's verdict (all its
rules pass) and the overall verdict (all seven pass)."""

ROW_KEYS: tuple[str, ...] = ("sample", "verdict", "P1", *PRINCIPLES["1"], "P2", *PRINCIPLES["2"])
"""Rows of a panel table, in paper order after the sample level and the verdict."""

Pair = tuple[str, str]


@dataclass
class RaterMatrix:
    """One rater over the universe of items.

    ``values`` : (n_items, 10) int 0/1 in :data:`JUDGMENTS` order (0 where not judged);
    ``judged`` : (n_items,) bool, the rater judged the item (abstentions or not);
    ``valid`` : (n_items, 11) bool, per :data:`JUDGMENTS` column and the sample level
    last, the rater gave a verdict there (a rule not abstained on; a principle, the
    overall verdict and the sample level none of whose rules was; an adjudicated overall
    verdict always); by default ``judged`` in every column;
    ``abstained`` : (n_items, 7) bool, "cannot judge" per rule (rubric order), or None.
    """

    values: np.ndarray
    judged: np.ndarray
    valid: np.ndarray | None = None
    abstained: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.valid is None:
            self.valid = np.repeat(self.judged[:, None], len(JUDGMENTS) + 1, axis=1)
        if self.abstained is None:
            self.abstained = np.zeros((len(self.judged), len(RULE_IDS)), dtype=bool)


def rater_matrix(
    scores: Scores, universe: Sequence[str], verdicts: Mapping[str, int] | None = None
) -> RaterMatrix:
    """The matrix of ``scores`` (item → rule → 0/1) over ``universe``; ``verdicts``
    (item → 0/1) replaces the derived overall verdict where given (an adjudicated one).

    An abstention (:data:`CANNOT_JUDGE`, issue 24) is never taken as pass or fail: it
    leaves that rule out for that rater (``valid``), and with it the rule's principle,
    the overall verdict (unless adjudicated) and the sample level, as the two-rater
    study excludes them pairwise (:func:`~.stats.compare`); the item's other rules count.

    Raises ``ValueError`` for a score that is not 0/1 or an abstention.
    """
    values = np.zeros((len(universe), len(JUDGMENTS)), dtype=int)
    judged = np.zeros(len(universe), dtype=bool)
    valid = np.zeros((len(universe), len(JUDGMENTS) + 1), dtype=bool)
    abstained = np.zeros((len(universe), len(RULE_IDS)), dtype=bool)
    cols = {pid: [RULE_IDS.index(r) for r in rules] for pid, rules in PRINCIPLES.items()}
    k = len(RULE_IDS)
    for row, item in enumerate(universe):
        if item not in scores:
            continue
        given = [scores[item].get(rule) for rule in RULE_IDS]
        na = [v == CANNOT_JUDGE for v in given]
        rules = [0 if out else v for v, out in zip(given, na, strict=True)]
        if any(v not in (0, 1) or isinstance(v, bool) for v in rules):
            raise ValueError(f"item {item}: every rule must be 0 or 1, got {given!r}")
        values[row, :k] = rules
        values[row, k] = all(rules[c] for c in cols["1"])
        values[row, k + 1] = all(rules[c] for c in cols["2"])
        adjudicated = verdicts is not None and item in verdicts
        verdict = verdicts[item] if adjudicated else all(rules)  # type: ignore[index]
        values[row, k + 2] = int(verdict)
        judged[row] = True
        abstained[row] = na
        valid[row, :k] = [not out for out in na]
        valid[row, k] = not any(na[c] for c in cols["1"])
        valid[row, k + 1] = not any(na[c] for c in cols["2"])
        valid[row, k + 2] = adjudicated or not any(na)
        valid[row, k + 3] = not any(na)  # the all-seven match
    return RaterMatrix(values, judged, valid, abstained)


@dataclass
class GroupFigures:
    """Mean over a group's pairs of one judgment (or the sample level).

    ``n_items`` is each pair's number of items judged by both; ``kappa`` and ``ac1`` are
    ``None`` at sample level (no chance correction of an all-seven match).
    """

    agreement: float | None
    ci95: tuple[float, float] | None
    cohen_kappa: float | None = None
    kappa_ci95: tuple[float, float] | None = None
    gwet_ac1: float | None = None
    ac1_ci95: tuple[float, float] | None = None
    n_items: list[int] = field(default_factory=list)
    undefined: dict[str, str] = field(default_factory=dict)
    """Figure (field name) → why it is undefined, as :attr:`.stats.PairFigures.undefined`."""

    def to_dict(self) -> dict[str, object]:
        def r(v):
            return None if v is None else round(float(v), 6) + 0.0

        def ci(v):
            return None if v is None else [r(v[0]), r(v[1])]

        return {
            "agreement": r(self.agreement),
            "ci95": ci(self.ci95),
            "cohen_kappa": r(self.cohen_kappa),
            "cohen_kappa_ci95": ci(self.kappa_ci95),
            "gwet_ac1": r(self.gwet_ac1),
            "gwet_ac1_ci95": ci(self.ac1_ci95),
            "n_items": self.n_items,
            **({"undefined": dict(self.undefined)} if self.undefined else {}),
        }


@dataclass
class Column:
    """One column of a panel table: a named group of pairs and its figures per row.

    ``kind``: ``"ceiling"`` (mean over expert pairs), ``"llm"`` (mean over expert–LLM
    pairs), ``"pair"`` (one pair), ``"gold"`` (one rater against the gold standard, every gold
    item), ``"gold_adjudicated"`` (the LLM against it over the adjudicated items) or
    ``"gold_independent"`` (an expert against it over the items adjudicated by someone
    else: the only items where the expert's agreement with gold is not partly theirs by
    construction).
    """

    name: str
    kind: str
    pairs: list[Pair]
    rows: dict[str, GroupFigures]
    common: list[int] = field(default_factory=list)
    """Per pair, the items both raters judged, "cannot judge" or not (the sample row's
    ``n_items`` leaves out the items with an abstention)."""

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "kind": self.kind,
            "pairs": [list(p) for p in self.pairs],
            "rows": {key: figures.to_dict() for key, figures in self.rows.items()},
        }


def _weights(chunk: np.ndarray, n: int) -> np.ndarray:
    """(rows, n) float: how often each item is drawn in each resample of ``chunk``."""
    rows = chunk.shape[0]
    flat = (chunk + (np.arange(rows) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(float)


def _pair_statistics(
    a: RaterMatrix, b: RaterMatrix, weights: np.ndarray, exact: bool
) -> dict[str, np.ndarray]:
    """Per resample (rows of ``weights``): ``agreement`` (rows, 11: the 10 judgments and
    the sample level last), ``kappa`` and ``ac1`` (rows, 10); NaN where the pair has no
    drawn item or kappa is undefined. ``exact`` uses :func:`math.isclose`'s tolerance for
    p_e = 1 (point estimates, as :func:`.stats.cohen_kappa`), else numpy's default (the
    draws, as :mod:`.stats`)."""
    assert a.valid is not None and b.valid is not None  # set by __post_init__
    both = (a.valid & b.valid).astype(float)  # (n_items, 11): per judgment, pairwise
    va, vb = a.values.astype(float), b.values.astype(float)
    agree = (a.values == b.values).astype(float)
    sample = agree[:, : len(RULE_IDS)].all(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        count = weights @ both  # (rows, 11)
        po = (weights @ (both * np.column_stack([agree, sample]))) / count
        pa = (weights @ (both[:, :-1] * va)) / count[:, :-1]
        pb = (weights @ (both[:, :-1] * vb)) / count[:, :-1]
        pe = pa * pb + (1 - pa) * (1 - pb)
        one = np.isclose(pe, 1.0, rtol=1e-9, atol=0.0) if exact else np.isclose(pe, 1.0)
        kappa = np.where(one, np.nan, (po[:, :-1] - pe) / (1 - pe))
        pi = (pa + pb) / 2
        pe1 = 2 * pi * (1 - pi)
        ac1 = (po[:, :-1] - pe1) / (1 - pe1)
    return {"agreement": po, "kappa": kappa, "ac1": ac1}


def _group_mean(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Mean over pairs, NaN (no item, undefined kappa) left out."""
    out = {}
    for key in ("agreement", "kappa", "ac1"):
        stack = np.stack([p[key] for p in parts])  # (pairs, rows, k)
        with warnings.catch_warnings():  # "Mean of empty slice": NaN, as meant
            warnings.simplefilter("ignore", RuntimeWarning)
            out[key] = np.nanmean(stack, axis=0)
    return out


def _ci(values: np.ndarray) -> tuple[float, float] | None:
    """Percentile 95 % interval of the finite draws; None without any, or when every
    draw gives the same value (a point is not an interval: :func:`_interval_why`)."""
    if _interval_why(values) is not None:
        return None
    finite = values[np.isfinite(values)]
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def _interval_why(values: np.ndarray) -> str | None:
    """Why the bootstrap interval of ``values`` (the draws) is undefined, in the words of
    :func:`.stats.undefined_reasons`, or None."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return "undefined in every resample"
    if np.ptp(finite) <= ALIKE:  # constant up to rounding (see stats.ALIKE)
        return alike_text(finite[0])
    return None


ALL_ABSTAINED = "every item a pair judged has a 'cannot judge' of either here"
"""Why a row's figure is undefined when its pairs judged items in common but each is
left out of that row by an abstention (pairwise exclusion)."""


def _say_undefined(figures: GroupFigures) -> None:
    """Fill ``figures.undefined`` for each None figure or interval of a judgment row."""
    for name, value, why in (
        ("agreement", figures.agreement, "no item judged by both raters of any pair"),
        ("cohen_kappa", figures.cohen_kappa,
         "p_e = 1 for every pair (both raters gave one and the same value throughout)"),
        ("gwet_ac1", figures.gwet_ac1, "no item judged by both raters of any pair"),
    ):  # fmt: skip
        if value is None:
            figures.undefined.setdefault(name, why)


def _point(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def group_columns(
    raters: Mapping[str, RaterMatrix],
    groups: Sequence[tuple[str, str, Sequence[Pair]]],
    bootstrap: int,
    seed: int,
) -> list[Column]:
    """The figures of each group ``(name, kind, pairs)`` over the raters' universe.

    Every :class:`RaterMatrix` covers the same universe (same rows); the draws resample
    its rows. Raises :class:`~.stats.TooManyDraws` beyond :data:`~.stats.MAX_BOOTSTRAP`.
    """
    if bootstrap > MAX_BOOTSTRAP:
        raise TooManyDraws(f"--bootstrap {bootstrap:,}: at most {MAX_BOOTSTRAP:,} draws")
    n = len(next(iter(raters.values())).judged) if raters else 0
    pairs = sorted({pair for _, _, group in groups for pair in group})
    point = {p: _pair_statistics(raters[p[0]], raters[p[1]], np.ones((1, n)), True) for p in pairs}
    valid = {name: m.valid for name, m in raters.items() if m.valid is not None}
    counts = {p: (valid[p[0]] & valid[p[1]]).sum(axis=0) for p in pairs}
    draws: dict[Pair, list[dict[str, np.ndarray]]] = {p: [] for p in pairs}
    if bootstrap > 0 and n > 0:
        for chunk in Draws(n, bootstrap, seed).chunks():
            weights = _weights(chunk, n)
            for p in pairs:
                draws[p].append(_pair_statistics(raters[p[0]], raters[p[1]], weights, False))
    columns = []
    for name, kind, group in groups:
        est = _group_mean([point[p] for p in group])
        boot = (
            _group_mean([{k: np.concatenate([d[k] for d in draws[p]]) for k in est} for p in group])
            if bootstrap > 0 and n > 0 and group
            else None
        )
        rows: dict[str, GroupFigures] = {}
        for key in ROW_KEYS:
            col = len(JUDGMENTS) if key == "sample" else JUDGMENTS.index(key)
            figures = GroupFigures(
                _point(est["agreement"][0, col]),
                _ci(boot["agreement"][:, col]) if boot else None,
                n_items=[int(counts[p][col]) for p in group],
            )
            intervals = [("ci95", "agreement")]
            if key != "sample":
                figures.cohen_kappa = _point(est["kappa"][0, col])
                figures.gwet_ac1 = _point(est["ac1"][0, col])
                if boot:
                    figures.kappa_ci95 = _ci(boot["kappa"][:, col])
                    figures.ac1_ci95 = _ci(boot["ac1"][:, col])
                intervals += [("kappa_ci95", "kappa"), ("ac1_ci95", "ac1")]
                _say_undefined(figures)
            elif figures.agreement is None:
                figures.undefined["agreement"] = "no item judged by both raters of any pair"
            for field_name, stat in intervals:
                why = _interval_why(boot[stat][:, col]) if boot is not None else None
                if why is not None:
                    figures.undefined[field_name] = why
            rows[key] = figures
        common = [int((raters[a].judged & raters[b].judged).sum()) for a, b in group]
        if any(common):  # items in common, each left out of a row by a "cannot judge"
            for figures in rows.values():
                if figures.n_items and not any(figures.n_items):
                    for key in ("agreement", "cohen_kappa", "gwet_ac1"):
                        if key in figures.undefined:
                            figures.undefined[key] = ALL_ABSTAINED
        columns.append(Column(name, kind, list(group), rows, common))
    return columns
