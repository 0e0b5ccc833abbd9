"""What a run's figures are computed over, and its paired-outcome figures, for every
surface (issue 21, "one computation per figure"): the ``credibility`` command and the
Evaluate pane's summary and Paired outcomes view call these, so they count the same
items and the same pairs.

A run's figures cover every item of the benchmark it answered, the restricted ones
included: a text-only run answers them (their text ships), and leaving them out gave
the pane another accuracy than ``compare`` and ``credibility`` for the same run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from medrcube_desktop.evaluation.compare_options import SETTINGS

if TYPE_CHECKING:
    from medrcube_desktop.core.items import Item
    from medrcube_desktop.evaluation.credibility import CredibilityFigures
    from medrcube_desktop.evaluation.metrics import Outcome


def scored_items(items: Sequence[Item], restricted: Sequence[Item] = ()) -> list[Item]:
    """The items a run's figures cover: ``items`` (a benchmark's, or a review session's)
    and the ``restricted`` ones shipped without their image, each once (an item in both
    lists counts once, where it first comes).

    The figures that use these (accuracy, the A–D counts) do not depend on the items'
    order; :func:`~medrcube_desktop.evaluation.compare.inputs.scored_benchmark` gives
    them in benchmark order, for the figures that do (bootstrap intervals).
    """
    seen: set[str] = set()
    out = []
    for item in (*items, *restricted):
        if item.id not in seen:
            seen.add(item.id)
            out.append(item)
    return out


def items_to_evaluate(
    items: Sequence[Item], restricted: Sequence[Item], text_only: bool
) -> list[Item]:
    """The items an evaluation sends to the model: with ``text_only`` the restricted
    items too (their text ships; ``evaluate --text-only`` and the pane's Text only),
    without it only the items with their image."""
    return scored_items(items, restricted) if text_only else list(items)


def paired_figures(
    outcomes: Sequence[Outcome],
    preset: str = SETTINGS["preset"].default,  # type: ignore[assignment]
) -> tuple[CredibilityFigures, dict[str, int], list[str]]:
    """A run's paired-outcome figures (paper Section 6): the A–D counts of its pairs of a
    prerequisite and a high-level item on one image, the figures from them, and the
    warnings (the preset's, and that there is no pair at all).

    Parameters
    ----------
    outcomes : sequence of Outcome
        The run's answers over :func:`scored_items`
        (:func:`~medrcube_desktop.evaluation.runner.run_outcomes`).
    preset : {"paper", "official"}

    Returns
    -------
    figures : CredibilityFigures
        :func:`~medrcube_desktop.evaluation.credibility.figures_from_counts`: the
        ``credibility --json`` document.
    counts : dict
        ``{"A": a, "B": b, "C": c, "D": d}`` (int).
    warnings : list of str

    Raises
    ------
    MedRCubeError
        Unknown preset.
    """
    from medrcube_desktop.evaluation.credibility import figures_from_counts, image_group_counts

    counts, warnings = image_group_counts(outcomes, preset)
    if not sum(counts.values()):
        warnings.append(
            f"no image holds both a prerequisite and a high-level item ({preset} preset, "
            f"--preset {preset}):"
            " every figure is undefined"
        )
    return figures_from_counts(counts), counts, warnings
