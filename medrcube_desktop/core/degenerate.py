"""When a statistic is undefined, and the words that say so (issue 21, part 6).

A figure computed on degenerate input is not a figure: a correlation over three points,
two of them the same, is ±1 with p = 0 by construction; an odds ratio whose table has an
empty margin is 0/0. The functions here decide *before* a library is called whether a
statistic is defined and, when it is not, give the reason as a short phrase; every
surface (pane, CLI text and ``--json``, report, workbook) prints
:func:`undefined_text` of that one reason, carried by the result object.

Rules
-----
- A correlation (Pearson r, Spearman ρ) needs variation in both variables and at least
  :data:`MIN_DISTINCT_POINTS` distinct (x, y) points. Below four, Fisher's z interval is
  undefined (its standard error is 1/sqrt(n − 3); Fisher 1921, Metron 1:3–32), and
  repeated points (two runs of one model) add no information but shrink the p value.
"""

from __future__ import annotations

import numpy as np

MIN_DISTINCT_POINTS = 4
"""Fewest distinct (x, y) points for a correlation to be given (see the module docstring)."""

UNDEFINED = "undefined"


def undefined_text(reason: str) -> str:
    """``"undefined: <reason>"``: how every surface states an undefined figure."""
    return f"{UNDEFINED}: {reason}"


def correlation_undefined(
    x: np.ndarray,
    y: np.ndarray,
    names: tuple[str, str] = ("x", "y"),
    min_points: int = MIN_DISTINCT_POINTS,
) -> str | None:
    """Why the correlation of paired ``x`` and ``y`` is undefined, or None if it is not.

    Parameters
    ----------
    x, y : array_like of shape (n,), float
        Paired values; pairs where either is NaN are left out first.
    names : (str, str)
        What ``x`` and ``y`` are, for the reason ("Acc_H", "Shortcut Probability").
    min_points : int
        Fewest distinct (x, y) points (:data:`MIN_DISTINCT_POINTS`).

    Returns
    -------
    str or None
        ``"zero variance: Acc_H is the same at every point (0.583)"``, ``"fewer than 4
        distinct points (3 points, 2 distinct)"``, ``"no points"``; zero variance is
        checked first (with it, r is 0/0 whatever the number of points).
    """
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"x and y differ in length: {x.size} and {y.size}")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size == 0:
        return "no points"
    for values, name in ((x, names[0]), (y, names[1])):
        if np.ptp(values) == 0:
            return f"zero variance: {name} is the same at every point ({values[0]:.3g})"
    distinct = len(np.unique(np.stack([x, y], axis=1), axis=0))
    if distinct < min_points:
        return (
            f"fewer than {min_points} distinct points ({x.size} point"
            f"{'' if x.size == 1 else 's'}, {distinct} distinct)"
        )
    return None
