"""The 95 % intervals of the agreement study (paper E.6, Table 5): the item bootstrap
(percentile method, seeded, in bounded memory) and Wilson's score interval.

Bootstrap intervals resample items with replacement (seeded ``numpy.random.Generator``),
the same draws for every figure of one call. The draws are made and used in chunks of
about a million indices (:data:`CHUNK_INDICES`), so memory stays bounded whatever the
number of draws; more than :data:`MAX_BOOTSTRAP` draws are refused (:class:`TooManyDraws`,
raised by :func:`~.stats.compare`). A percentile interval collapses to a point when every
resample agrees (100 % agreement), so each agreement also gets a Wilson score interval.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.agreement_options import AGREEMENT, MAX_BOOTSTRAP

__all__ = [
    "ALIKE",
    "CHUNK_INDICES",
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_SEED",
    "MAX_BOOTSTRAP",
    "Draws",
    "TooManyDraws",
    "alike_text",
    "bootstrap_statistics",
    "draw_statistics",
    "draws_of",
    "interval_undefined",
    "nan_percentile_ci",
    "percentile_ci",
    "wilson_ci",
]

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


def draws_of(n: int, bootstrap: int, seed: int) -> Draws | None:
    """The resamples of ``n`` rows, or None without intervals (``bootstrap`` ≤ 0 or no
    row)."""
    if bootstrap <= 0 or n == 0:
        return None
    return Draws(n, bootstrap, seed)


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


def percentile_ci(values: np.ndarray, draws: Draws | None) -> tuple[float, float] | None:
    """Percentile 95 % interval of the mean of the (n,) float ``values`` over the
    bootstrap draws; None when it is undefined (:func:`interval_undefined`: one item, or
    every item the same) or without draws."""
    if draws is None or interval_undefined(values) is not None:
        return None
    means = draws.per_draw(lambda chunk: values[chunk].mean(axis=1))
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def nan_percentile_ci(values: np.ndarray) -> tuple[float, float] | None:
    """Percentile 95 % interval of the (count,) per-draw ``values``, draws where the
    statistic is undefined (NaN) left out; None when every draw is."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def bootstrap_statistics(a: np.ndarray, b: np.ndarray, draws: Draws) -> dict[str, np.ndarray]:
    """``{"kappa", "ac1"}``: (count,) Cohen's kappa and Gwet's AC1 of every bootstrap
    draw of the (n,) 0/1 judgments ``a`` and ``b`` (chunk by chunk)."""
    parts = [draw_statistics(a, b, chunk) for chunk in draws.chunks()]
    return {key: np.concatenate([part[key] for part in parts]) for key in ("kappa", "ac1")}


def draw_statistics(a: np.ndarray, b: np.ndarray, draws: np.ndarray) -> dict[str, np.ndarray]:
    """Cohen's kappa and Gwet's AC1 of every draw of a (rows, n) chunk of indices at once
    (vectorised forms of :func:`~.coefficients.cohen_kappa` and
    :func:`~.coefficients.gwet_ac1`); NaN where kappa is undefined."""
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


def wilson_ci(successes: int, n: int) -> tuple[float, float] | None:
    """Wilson score 95 % interval of a proportion (statsmodels ``proportion_confint``,
    method "wilson"); unlike a percentile bootstrap it does not collapse to a point at
    100 % agreement (50 of 50 gives about [0.93, 1.00]). None for n = 0."""
    if n == 0:
        return None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(successes, n, alpha=0.05, method="wilson")
    return float(low), float(high)
