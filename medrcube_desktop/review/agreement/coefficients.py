"""The figures of one 2×2 table of two raters' binary judgments (paper E.6, Table 5):
percent agreement, Cohen's kappa, Gwet's AC1, PABAK and McNemar's exact p.

The table is ``[[both fail, A fails B passes], [A passes B fails, both pass]]`` (rows
rater A, columns rater B; :func:`confusion`). Each figure is ``None`` where it is
undefined (no item; kappa also when p_e = 1); why is said by
:func:`~.degenerate.undefined_reasons`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


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
