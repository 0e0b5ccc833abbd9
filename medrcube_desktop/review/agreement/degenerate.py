"""Which figures of the agreement study are undefined, and why (issue 21): a figure or
interval that is undefined is ``None`` and :attr:`~.pair_figures.PairFigures.undefined`
maps its name to the reason.

The rules: no item (every figure); one item (every resample is that item: no bootstrap
interval; Wilson's is defined); p_e = 1, both raters giving one and the same value
throughout (no kappa); every resample giving the same value (a zero-width percentile
interval is not an interval). ``--json`` carries the map as ``"undefined"``; every
surface prints ``undefined: <reason>``.
"""

from __future__ import annotations

import numpy as np

from medrcube_desktop.review.agreement.intervals import Draws, interval_undefined

NO_ITEM = "no item judged by both raters"
"""The reason of every figure over no item."""


def undefined_reasons(a: np.ndarray, b: np.ndarray) -> dict[str, str]:
    """Figure name (:class:`~.pair_figures.PairFigures` field) → why it is undefined for
    the (n,) 0/1 judgments ``a`` and ``b`` of two raters; empty when every figure is
    defined.

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
             "kappa_ci95", "ac1_ci95", "wilson_ci95"), NO_ITEM,
        )  # fmt: skip
    out: dict[str, str] = {}
    agree = interval_undefined((a == b).astype(float))
    if agree is not None:
        out["ci95"] = agrees(agree)
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


def mean_undefined(values: np.ndarray, draws: Draws | None, name: str) -> dict[str, str]:
    """``{name: reason}`` without items, ``{f"{name}_ci95" or "ci95": reason}`` when the
    bootstrap interval of the share of the (n,) bool ``values`` is undefined
    (:func:`~.intervals.interval_undefined`); ``"ci95"`` is the key when ``name`` is
    ``"agreement"``. Empty when both are defined or no interval is asked (no draws)."""
    key = "ci95" if name == "agreement" else f"{name}_ci95"
    if values.size == 0:
        return {name: NO_ITEM, key: NO_ITEM}
    why = interval_undefined(values.astype(float)) if draws is not None else None
    if why is None:
        return {}
    return {key: agrees(why)}


def agrees(why: str) -> str:
    """:func:`~.intervals.interval_undefined`'s words for a share of agreeing items
    ("every item gives 1 …" → "every item agrees …", "… 0 …" → "no item agrees …")."""
    return why.replace("every item gives 1 ", "every item agrees ").replace(
        "every item gives 0 ", "no item agrees "
    )
