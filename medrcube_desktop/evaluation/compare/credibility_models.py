"""Credibility across models (issue 14 item 3; paper Section 6, Appendix H, Fig. 4).

Each model's (prerequisite L, high-level H) pairs fall in groups A (both right), B (L
right, H wrong), C (both wrong) and D (L wrong, H right); see
:mod:`medrcube_desktop.evaluation.credibility`. From the counts, per model:

- Acc_H = (A+D)/N (eq. 5), Rationality = 1 − D/(A+D), Shortcut Probability
  SP = D/(C+D) (eq. 6);
- the independence baseline SP − P(H right), P(H right) = (A+D)/N over the pairs: if L
  and H answers are independent, P(H right | L wrong) = P(H right), so the baseline is 0;
- the log odds ratio ln(A·C/(B·D)) with Woolf's 95 % interval (Woolf 1955, "On
  estimating the relation between blood group and disease", Ann. Hum. Genet. 19:251),
  SE = sqrt(1/A + 1/B + 1/C + 1/D), under one rule
  (:func:`~.credibility_stats.odds_ratio_cells`): when a cell is 0, 0.5 is added to every
  cell (Haldane–Anscombe, Haldane 1956, Anscombe 1956) and the figure says so
  (``haldane``); when a margin is 0 (L or H has one outcome on every pair) it is 0/0 and
  undefined, with the reason (``log_or_undefined``).

Across models, the paper reports Pearson r = 0.693 (p < 1e-5) between Acc_H and SP and
reads it as "opportunistic evolution" (Appendix H, H1). Under independence SP equals Acc_H
in expectation, so a strong positive r is expected by construction whenever models
differ in accuracy: :func:`independent_r` simulates it, and :func:`permutation_p` tests
each model's dependence of H on L directly.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from medrcube_desktop.core.degenerate import correlation_undefined, undefined_text
from medrcube_desktop.core.options import defaults
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_stats import (
    CORRECTION_NOTE,
    bootstrap_intervals,
    image_counts,
    log_odds_ratio_of,
    odds_ratio_cells,
    odds_ratio_reason,
    pair_cells,
    pair_index,
    permutation_p_exact,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare_options import SETTINGS

_D = defaults(SETTINGS)  # the defaults of --preset, --bootstrap and --seed, declared once

Counts = tuple[int, int, int, int]
"""(A, B, C, D) pair counts of one model."""

Z95 = 1.959963984540054  # the standard normal's 97.5 % quantile


def model_pairs(
    matrix: RunMatrix,
    preset: str = _D["preset"],  # type: ignore[assignment]
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], list[str]]:
    """Each run's paired outcomes, and the pairing warnings (paper §6).

    Items a run did not answer (NaN in ``matrix.correct``) are left out of its pairs; an
    unparsed answer is wrong. The pairs are those of :func:`~medrcube_desktop.evaluation.
    credibility.pair_outcomes` with ``preset`` ("paper" or "official"), built once for
    every run (:func:`~.credibility_stats.pair_index`).

    Returns
    -------
    pairs : dict of str to (low, high)
        Run name → two (n_pairs,) bool arrays: the prerequisite L and the high-level H
        answer of each pair is right.
    warnings : list of str
        The preset's warnings, over all runs.

    Raises
    ------
    MedRCubeError
        Unknown preset.
    """
    index = pair_index(matrix, preset)
    low, high = matrix.correct[index.low], matrix.correct[index.high]
    valid = ~(np.isnan(low) | np.isnan(high))
    result = {
        run: (low[valid[:, c], c] == 1.0, high[valid[:, c], c] == 1.0)
        for c, run in enumerate(matrix.runs)
    }
    return result, list(index.warnings)


def counts_of(low: np.ndarray, high: np.ndarray) -> Counts:
    """(A, B, C, D) of paired (n_pairs,) bool outcomes ``low`` (L) and ``high`` (H)."""
    low, high = np.asarray(low, bool), np.asarray(high, bool)
    return (
        int(np.sum(low & high)),
        int(np.sum(low & ~high)),
        int(np.sum(~low & ~high)),
        int(np.sum(~low & high)),
    )


def group_counts(
    matrix: RunMatrix,
    preset: str = _D["preset"],  # type: ignore[assignment]
) -> tuple[dict[str, Counts], list[str]]:
    """Run name → (A, B, C, D), and the pairing warnings (see :func:`model_pairs`)."""
    per_image = image_counts(matrix, preset)
    totals = per_image.totals  # (n_runs, 4)
    counts = {run: tuple(int(x) for x in totals[c]) for c, run in enumerate(matrix.runs)}
    return counts, list(per_image.warnings)  # type: ignore[return-value]


@dataclass(frozen=True)
class ModelCredibility:
    """One model's credibility figures (paper §6, eqs. 5–6); ``None``: denominator 0.

    ``baseline`` = SP − Acc_H (0 in expectation under independence of L and H).
    ``log_or`` and its Woolf 95 % interval ``log_or_low``, ``log_or_high`` are natural
    logs; ``haldane`` is True when 0.5 was added to every cell because one was 0; all
    three are ``None`` when the odds ratio is undefined (no pairs, or a margin is 0:
    :func:`~.credibility_stats.odds_ratio_cells`), and ``log_or_undefined`` says why
    (the permutation p and the bootstrap interval of the log odds ratio are then
    ``None`` too). :meth:`log_or_text` is how every surface writes it.

    The rest is filled by :func:`credibility_table` (``None`` otherwise): each figure's
    bootstrap 95 % interval clustered by image (``*_low``, ``*_high``; ``log_or_boot_*``
    for the log odds ratio, beside Woolf's), the replicates ``n_boot``, the exact
    one-sided permutation p of L shuffled among the model's pairs (``p_permutation``,
    :func:`~.credibility_stats.permutation_p_exact`), the ``preset``, whether the
    run is ``text_only`` and its ``image_mode`` (``RunMatrix.image_modes``).
    """

    run: str
    a: int
    b: int
    c: int
    d: int
    acc_h: float | None
    rationality: float | None
    shortcut_prob: float | None
    baseline: float | None
    log_or: float | None
    log_or_low: float | None
    log_or_high: float | None
    haldane: bool
    acc_h_low: float | None = None
    acc_h_high: float | None = None
    rationality_low: float | None = None
    rationality_high: float | None = None
    shortcut_prob_low: float | None = None
    shortcut_prob_high: float | None = None
    log_or_boot_low: float | None = None
    log_or_boot_high: float | None = None
    n_boot: int | None = None
    p_permutation: float | None = None
    preset: str | None = None
    text_only: bool | None = None
    log_or_undefined: str | None = None
    image_mode: str | None = None

    def mark(self) -> str:
        """What follows the run's name in a table: its ablation mark
        (:func:`~medrcube_desktop.evaluation.image_modes.mode_mark`), "" for an image run."""
        from medrcube_desktop.evaluation.image_modes import mode_mark

        return mode_mark(self.image_mode or ("text-only" if self.text_only else "image"))

    @property
    def n_pairs(self) -> int:
        return self.a + self.b + self.c + self.d

    def log_or_text(self, digits: int = 2, mark: str | None = None) -> str:
        """The log odds ratio as every surface writes it: ``"1.39 [0.41, 2.37]"``, with
        ``" (+0.5 to every cell: a cell was empty (Haldane-Anscombe))"`` when corrected,
        or ``"undefined: <reason>"``. With ``mark`` (a table's column), a corrected value
        ends in ``mark`` instead and the table says :data:`CORRECTION_NOTE` once below."""
        if self.log_or is None or self.log_or_low is None or self.log_or_high is None:
            return undefined_text(self.log_or_undefined or "no pairs")
        text = f"{self.log_or:.{digits}f} [{self.log_or_low:.{digits}f}, {self.log_or_high:.{digits}f}]"
        if not self.haldane:
            return text
        return text + mark if mark is not None else f"{text} ({CORRECTION_NOTE})"

    def p_permutation_text(self) -> str:
        """The permutation p as every surface writes it (``"0.0312"``, ``"< 0.0001"``),
        or ``"undefined: <reason>"`` (the odds ratio's)."""
        if self.p_permutation is None:
            return undefined_text(self.log_or_undefined or "no pairs")
        p = self.p_permutation
        return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def log_odds_ratio(counts: Counts) -> tuple[float, float, float, bool]:
    """ln(A·C/(B·D)), its Woolf 95 % interval (low, high) and whether the
    Haldane–Anscombe 0.5 was added (a cell was 0; Woolf 1955), under the rule of
    :func:`~.credibility_stats.odds_ratio_cells`.

    Raises
    ------
    MedRCubeError
        The odds ratio is undefined (no pairs, or a margin is 0); the message is
        ``"undefined: <reason>"`` (:func:`~.credibility_stats.odds_ratio_reason`).
    """
    reason = odds_ratio_reason(counts)
    if reason is not None:
        raise MedRCubeError(f"log odds ratio {undefined_text(reason)}")
    used, corrected, _ = odds_ratio_cells(np.asarray(counts, dtype=float))
    haldane = bool(corrected)
    a, b, c, d = (float(x) for x in used)
    value = math.log(a * c / (b * d))
    se = math.sqrt(1 / a + 1 / b + 1 / c + 1 / d)
    return value, value - Z95 * se, value + Z95 * se, haldane


def model_credibility(counts: Mapping[str, Counts]) -> list[ModelCredibility]:
    """:class:`ModelCredibility` of each run in ``counts`` (run → (A, B, C, D)), in order."""
    figures = []
    for run, (a, b, c, d) in counts.items():
        n = a + b + c + d
        acc_h = (a + d) / n if n else None
        sp = d / (c + d) if c + d else None
        log_or = low = high = None
        haldane = False
        reason = odds_ratio_reason((a, b, c, d))
        if reason is None:
            log_or, low, high, haldane = log_odds_ratio((a, b, c, d))
        figures.append(
            ModelCredibility(
                run,
                a,
                b,
                c,
                d,
                acc_h=acc_h,
                rationality=1 - d / (a + d) if a + d else None,
                shortcut_prob=sp,
                baseline=sp - acc_h if sp is not None and acc_h is not None else None,
                log_or=log_or,
                log_or_low=low,
                log_or_high=high,
                haldane=haldane,
                log_or_undefined=reason,
            )
        )
    return figures


FEW_IMAGES = 20
"""Below this many images holding pairs, the credibility intervals are said to be
unreliable: a cluster bootstrap needs a few tens of clusters (Cameron, Gelbach & Miller
2008 find it too narrow with few clusters)."""


def credibility_table(
    matrix: RunMatrix,
    preset: str = _D["preset"],  # type: ignore[assignment]
    n_boot: int = _D["n_boot"],  # type: ignore[assignment]
    seed: int = _D["seed"],  # type: ignore[assignment]
    cluster: str = "image",
) -> tuple[list[ModelCredibility], list[str]]:
    """Every run's :class:`ModelCredibility` with bootstrap intervals and permutation p.

    Pairs (paper §6, ``preset``) are built once for all runs
    (:func:`~.credibility_stats.pair_index`); the intervals resample images with
    replacement, all pairs of a drawn image along (``cluster="image"``; ``"pair"``
    resamples pairs, which ignores that items on one image are answered alike), ``n_boot``
    replicates from ``numpy.random.default_rng(seed)``
    (:func:`~.credibility_stats.bootstrap_intervals`); ``n_boot=0`` leaves them out.
    The permutation p is exact (:func:`~.credibility_stats.permutation_p_exact`).

    Returns
    -------
    figures : list of ModelCredibility
        One per run, in ``matrix.runs`` order.
    warnings : list of str
        The preset's warnings, and one per run without pairs (naming it).

    Raises
    ------
    MedRCubeError
        Unknown preset.
    ValueError
        ``cluster`` is neither "image" nor "pair".
    """
    if cluster not in ("image", "pair"):
        raise ValueError(f"cluster must be 'image' or 'pair', not {cluster!r}")
    per_image = image_counts(matrix, preset)
    totals = per_image.totals  # (n_runs, 4)
    counts = {run: tuple(int(x) for x in totals[c]) for c, run in enumerate(matrix.runs)}
    figures = model_credibility(counts)  # type: ignore[arg-type]
    warnings = list(per_image.warnings)
    n_images = per_image.counts.shape[0]
    if 0 < n_images < FEW_IMAGES:
        warnings.append(
            f"the {preset} preset's pairs lie on only {n_images} image"
            f"{'' if n_images == 1 else 's'}: intervals that resample images rest on that "
            "few clusters and come out too narrow (of zero width on one image), and "
            "Woolf's interval of the log odds ratio, which takes pairs as independent, is "
            "too narrow as well"
            + (" (on one image the log odds ratio is 0 by construction: every "
               "prerequisite is paired with every high-level item)" if n_images == 1 else "")
        )  # fmt: skip
    warnings += [
        f"run {run!r} has no (prerequisite, high-level) pair under the {preset} preset: "
        "no credibility figures"
        for run, total in zip(matrix.runs, totals.sum(axis=1), strict=True)
        if total == 0
    ]
    p = permutation_p_exact(totals)
    extra: list[dict[str, Any]] = [
        {
            "p_permutation": _opt(p[c]),
            "preset": preset,
            "text_only": matrix.text_only[c],
            "image_mode": matrix.image_modes[c],
        }
        for c in range(len(matrix.runs))
    ]
    if n_boot:
        if cluster == "image":
            per_cluster = per_image.counts
        else:  # one cluster per pair: the pairs listed (memory grows with them)
            cells = pair_cells(matrix, pair_index(matrix, preset))
            per_cluster = np.moveaxis(cells, 0, -1).astype(np.float64)
        bounds = bootstrap_intervals(per_cluster, n_boot, seed)
        for c, row in enumerate(extra):
            row["n_boot"] = n_boot
            for name in ("acc_h", "rationality", "shortcut_prob"):
                row[f"{name}_low"], row[f"{name}_high"] = map(_opt, bounds[name][:, c])
            row["log_or_boot_low"], row["log_or_boot_high"] = map(_opt, bounds["log_or"][:, c])
    return [dataclasses.replace(f, **row) for f, row in zip(figures, extra, strict=True)], warnings


def _opt(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


@dataclass(frozen=True)
class Correlation:
    """Pearson r over ``n`` models, its 95 % interval (Fisher z) and two-sided p.

    When r is undefined (:func:`~medrcube_desktop.core.degenerate.correlation_undefined`:
    zero variance, fewer than 4 distinct points), ``r``, ``low``, ``high`` and ``p`` are
    None and ``undefined`` gives the reason; :meth:`summary` is how every surface
    writes it (the JSON has ``"r": null`` and ``"undefined": "<reason>"``).
    """

    r: float | None
    low: float | None
    high: float | None
    p: float | None
    n: int
    undefined: str | None = None

    @property
    def defined(self) -> bool:
        """r, its interval and p are numbers."""
        values = (self.r, self.low, self.high, self.p)
        return self.undefined is None and all(v is not None and math.isfinite(v) for v in values)

    def summary(self) -> str:
        """``"r = 0.693 (95% CI 0.412 to 0.851), p = 0.0001, n = 33 models"``, or
        ``"r undefined: fewer than 4 distinct points (3 points, 2 distinct), n = 3
        models"``: the one statement of the pane, the CLI, the report and the figure."""
        models = f"n = {self.n} model{'' if self.n == 1 else 's'}"
        if not self.defined:
            return f"r {undefined_text(self.undefined or 'not a number')}, {models}"
        assert self.r is not None and self.low is not None and self.high is not None
        p = self.p if self.p is not None else math.nan
        p_text = "p < 1e-05" if p < 1e-5 else f"p = {p:.2g}" if p < 0.001 else f"p = {p:.3f}"
        return f"r = {self.r:.3f} (95% CI {self.low:.3f} to {self.high:.3f}), {p_text}, {models}"


def accuracy_shortcut_correlation(figures: Sequence[ModelCredibility]) -> Correlation:
    """Pearson r between Acc_H and SP across models (paper Fig. 4 right: r = 0.693).

    Models without both figures are left out. The interval is Fisher's z transform
    (``scipy.stats.pearsonr(...).confidence_interval()``). Before scipy is called, r is
    checked to be defined (:func:`~medrcube_desktop.core.degenerate.correlation_undefined`):
    with zero variance or fewer than 4 distinct (Acc_H, SP) points (two runs of one
    model are one point) every figure is None and ``undefined`` says why; no scipy
    warning is raised.
    """
    from scipy import stats

    usable = [f for f in figures if f.acc_h is not None and f.shortcut_prob is not None]
    x = np.array([f.acc_h for f in usable], dtype=float)
    y = np.array([f.shortcut_prob for f in usable], dtype=float)
    reason = correlation_undefined(x, y, ("Acc_H", "Shortcut Probability"))
    if reason is not None:
        if not usable:
            reason = "no model has both Acc_H and Shortcut Probability (no pairs with L wrong)"
        return Correlation(None, None, None, None, len(usable), reason)
    result = stats.pearsonr(x, y)
    interval = result.confidence_interval(0.95)
    return Correlation(
        float(result.statistic),
        float(interval.low),
        float(interval.high),
        float(result.pvalue),
        len(usable),
    )


def independent_r(
    acc_low: Sequence[float], acc_high: Sequence[float], n_pairs: int, seed: int = 0
) -> float:
    """The Acc_H–SP Pearson r when every model's L and H answers are independent.

    Model m answers ``n_pairs`` pairs, L right with probability ``acc_low[m]`` and H right
    with ``acc_high[m]``, independently. Since SP = P(H | not L) = P(H) then, r is near 1
    when the models differ in accuracy: the paper's r = 0.693 is what independence gives.
    """
    from scipy import stats

    rng = np.random.default_rng(seed)
    p_low = np.asarray(acc_low, dtype=float)[:, None]
    p_high = np.asarray(acc_high, dtype=float)[:, None]
    low = rng.random((p_low.shape[0], n_pairs)) < p_low
    high = rng.random((p_high.shape[0], n_pairs)) < p_high
    acc_h = high.mean(axis=1)
    sp = (high & ~low).sum(axis=1) / np.maximum((~low).sum(axis=1), 1)
    return float(stats.pearsonr(acc_h, sp).statistic)


def _log_or_rows(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Log odds ratio of each row of (k, n_pairs) bool arrays, under the rule of
    :func:`~.credibility_stats.odds_ratio_cells` (NaN where undefined)."""
    cells = np.stack(
        [(low & high).sum(1), (low & ~high).sum(1), (~low & ~high).sum(1), (~low & high).sum(1)],
        axis=-1,
    ).astype(float)
    return log_odds_ratio_of(cells)


def permutation_p(
    low: np.ndarray, high: np.ndarray, n_permutations: int = 2000, seed: int = 0
) -> float:
    """One-sided permutation p that the log odds ratio is as large as observed.

    The low-level outcomes are shuffled among the model's pairs (both margins kept),
    ``n_permutations`` times at once; p = (1 + #{perm ≥ observed}) / (1 + n_permutations).
    Pairs are treated as exchangeable: an item in several pairs (one H with every
    prerequisite on its image) is shuffled pair by pair, not as one answer.

    Parameters
    ----------
    low, high : (n_pairs,) bool
        L and H right, per pair (:func:`model_pairs`).

    Raises
    ------
    MedRCubeError
        No pairs, or the odds ratio is undefined (a margin is 0: every shuffle gives the
        same table); the message says which.
    """
    low, high = np.asarray(low, bool), np.asarray(high, bool)
    if low.size == 0:
        raise MedRCubeError("no pairs: nothing to permute")
    reason = odds_ratio_reason(counts_of(low, high))
    if reason is not None:
        raise MedRCubeError(f"permutation p {undefined_text(reason)}")
    observed = _log_or_rows(low[None, :], high[None, :])[0]
    rng = np.random.default_rng(seed)
    shuffled = rng.permuted(np.broadcast_to(low, (n_permutations, low.size)), axis=1)
    permuted = _log_or_rows(shuffled, np.broadcast_to(high, shuffled.shape))
    return float((1 + np.sum(permuted >= observed - 1e-12)) / (1 + n_permutations))
