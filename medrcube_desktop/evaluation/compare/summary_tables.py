"""The credibility and text-only tables of a :class:`~.result.CompareResult` as rows of
text, what the ``compare`` command prints and the Compare models pane's Credibility tab
shows (Qt-free: the pane only puts the strings in cells).

Fractions (Acc_H, Rationality, Shortcut Probability) are 0–1 with three decimals; the
text-only accuracies and drops are in percent (points) with one decimal, as the
leaderboard and the Image necessity tab print them; an interval is ``[low, high]`` (bootstrap 95 %, clustered by image, for the
credibility figures; Woolf's for the log odds ratio); a missing value is ``"—"``; the
log odds ratio, the permutation p and the correlation are written by the result objects
(:meth:`~.credibility_models.ModelCredibility.log_or_text`,
:meth:`~.credibility_models.Correlation.summary`), ``"undefined: <reason>"`` where so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from medrcube_desktop.evaluation.compare.credibility_models import Correlation, ModelCredibility
from medrcube_desktop.evaluation.compare.item_filters import right_without_image
from medrcube_desktop.evaluation.compare.result import CompareResult, TextOnlyDrop

CREDIBILITY_COLUMNS: tuple[str, ...] = (
    "Run", "A", "B", "C", "D", "Acc_H", "Rationality", "Shortcut Probability",
    "SP − Acc_H", "log OR", "Permutation p",
)  # fmt: skip
"""Header of :func:`credibility_rows`."""

DROP_COLUMNS: tuple[str, ...] = ("Image run", "Text run", "n", "With image %",
                                 "Without image %", "Drop (points)")  # fmt: skip
"""Header of :func:`drop_rows`."""

VOXEL_COLUMNS: tuple[str, ...] = ("Voxel", "n", "With image %", "Without image %",
                                  "Drop (points)")  # fmt: skip
"""Header of :func:`drop_voxel_rows`."""

MISSING = "—"


def number(value: float | None, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals, or :data:`MISSING` for None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.{digits}f}"


def with_interval(value: float | None, low: float | None, high: float | None, digits=3) -> str:
    """``"0.667 [0.500, 0.800]"``; the interval left out when it is missing."""
    text = number(value, digits)
    if text == MISSING or low is None or high is None:
        return text
    return f"{text} [{number(low, digits)}, {number(high, digits)}]"


def credibility_row(f: ModelCredibility) -> list[str]:
    """One run's cells under :data:`CREDIBILITY_COLUMNS`."""
    return [
        f.run + f.mark(),  # " (text only)", " (blank ablation)"…
        str(f.a), str(f.b), str(f.c), str(f.d),
        with_interval(f.acc_h, f.acc_h_low, f.acc_h_high),
        with_interval(f.rationality, f.rationality_low, f.rationality_high),
        with_interval(f.shortcut_prob, f.shortcut_prob_low, f.shortcut_prob_high),
        number(f.baseline),
        f.log_or_text(),
        f.p_permutation_text(),
    ]  # fmt: skip


def credibility_rows(result: CompareResult, order: Sequence[str] | None = None) -> list[list[str]]:
    """:func:`credibility_row` of every run, in leaderboard order: ``order`` (the run
    names as a leaderboard shows them), by default ``result.order`` (what ``compare``
    prints)."""
    return [credibility_row(f) for f in result.in_order(order=list(order or result.order))]


def correlation_text(correlation: Correlation | None, why: str = "") -> str:
    """The Acc_H–SP Pearson r over the image runs as
    :meth:`~.credibility_models.Correlation.summary` states it: ``"Pearson r (Acc_H,
    Shortcut Probability) over the image runs: r = 0.693 (95% CI 0.412 to 0.851), p <
    1e-05, n = 33 models"``, or ``"...: r undefined: <reason>, n = 3 models"``; ``why``
    when there is none."""
    head = "Pearson r (Acc_H, Shortcut Probability) over the image runs"
    if correlation is None:
        return f"{head}: not computed" + (f" ({why})" if why else "")
    return f"{head}: {correlation.summary()}"


def percent(value: float | None) -> str:
    """A 0–1 ``value`` in percent with one decimal (``0.31`` → ``"31.0"``), or
    :data:`MISSING` for None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return number(float(value) * 100, 1)


def _row(frame_row) -> list[str]:
    return [str(int(frame_row["n"])), percent(frame_row["with_image"]),
            percent(frame_row["without_image"]), percent(frame_row["drop"])]  # fmt: skip


def drop_rows(result: CompareResult) -> list[list[str]]:
    """Each (image run, text-only run) pair's overall accuracy with and without the
    image and the drop (paper Table 4), under :data:`DROP_COLUMNS`, image runs in
    leaderboard order."""
    return [[d.image_run, d.text_run, *_row(d.table.loc["Overall"])] for d in ordered_drops(result)]


def ordered_drops(result: CompareResult) -> list[TextOnlyDrop]:
    """``result.drops`` in the order of :func:`drop_rows`."""
    rank = {run: n for n, run in enumerate(result.order)}
    return sorted(result.drops, key=lambda d: rank.get(d.image_run, len(rank)))


def drop_voxel_rows(drop: TextOnlyDrop) -> list[list[str]]:
    """One pair's accuracy with and without the image per voxel, under
    :data:`VOXEL_COLUMNS` (voxels sorted; the Overall row left out)."""
    table = drop.table.drop(index="Overall")
    return [[str(voxel), *_row(row)] for voxel, row in table.iterrows()]


def leakage_count(result: CompareResult) -> int:
    """Items some text-only run got right (the grid's "Right in a text-only run")."""
    return int(right_without_image(result.matrix).sum())


def leakage_text(count: int) -> str:
    """The Credibility tab's line of :func:`leakage_count`: ``"17 items right in at least
    one text-only run (…)"``, worded apart from the Image necessity tab's "answerable
    without the image" (right under ablation by most models): one text-only run right
    counts here, a chance guess included."""
    items = f"{count} item{'' if count == 1 else 's'}"
    return (
        f"{items} right in at least one text-only run (a lucky guess counts; not the "
        "Image necessity tab's “answerable without the image”, which takes most models)."
    )
