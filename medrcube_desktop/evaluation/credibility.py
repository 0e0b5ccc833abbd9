"""Credibility of correct diagnoses: paired low/high-level outcomes on the same image
(paper Section 6 and Appendix H).

For every image (matched by its resolved path), every pair of a high-level item H with a
prerequisite item L on that image falls in one group:

- A: L right, H right (grounded success);   B: L right, H wrong;
- C: L wrong, H wrong;                        D: L wrong, H right (luck or shortcut).

Luck Rate = D / (A + D); Rationality = 1 − Luck Rate; Shortcut Probability
P_SC = D / (C + D) (eq. 6); Acc_H = (A + D) / (A + B + C + D) (eq. 5). A figure whose
denominator is zero is ``None``.

Presets decide which tasks are high-level and which are prerequisites:

- ``paper``: high = DD, AD, SG; prerequisites = every low- and mid-level task (MR, VR,
  IPR, OR, RG), view recognition included (Section 3).
- ``official``: what the public ``shortcut_analysis.py`` does, on the task names as
  written in the benchmark: exactly "Disease Diagnosis", "Abnormity Diagnosis" and
  "Severity Grading" are high; "View Identification" and "Report Generation" are
  ignored; every other task is a prerequisite. Names that this rule treats differently
  from the paper's taxonomy are warned about (never silently reclassified).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TypedDict

from medrcube_desktop.core.taxonomy import Level
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare_options import CREDIBILITY_PRESETS, SETTINGS
from medrcube_desktop.evaluation.metrics import Outcome

_PRESET: str = SETTINGS["preset"].default  # type: ignore[assignment]

OFFICIAL_HIGH = ("Disease Diagnosis", "Abnormity Diagnosis", "Severity Grading")
OFFICIAL_IGNORED = ("View Identification", "Report Generation")
PRESETS = CREDIBILITY_PRESETS
"""The pairings (``paper``, ``official``), declared with the ``--preset`` option."""
GROUP_CORRECTNESS = {"A": (True, True), "B": (True, False), "C": (False, False), "D": (False, True)}
"""Each group's (L right, H right), as the module docstring defines the groups."""


@dataclass(frozen=True)
class Pair:
    """One (prerequisite, high-level) pair on one image, and its group (A–D)."""

    image: str
    low: Outcome
    high: Outcome

    @property
    def group(self) -> str:
        """A, B, C or D (see the module docstring)."""
        return {(True, True): "A", (True, False): "B", (False, False): "C", (False, True): "D"}[
            (self.low.correct, self.high.correct)
        ]


def pair_role(item, preset: str, warnings: set[str]) -> str | None:
    """``"high"``, ``"low"`` (a prerequisite) or ``None`` (left out) for an item under
    ``preset``; a name the official preset reads differently from the paper adds a
    warning to ``warnings``. (What :func:`pair_outcomes` uses; the vectorised pairing of
    many runs, :func:`~medrcube_desktop.evaluation.compare.credibility_stats.pair_index`,
    calls it once per item.)"""
    return _role(Outcome(item, None), preset, warnings)


def _role(outcome: Outcome, preset: str, warnings: set[str]) -> str | None:
    """``"high"``, ``"low"`` (a prerequisite) or ``None`` (left out) for one item."""
    item = outcome.item
    if preset == "paper":
        return "high" if item.task.level == Level.HIGH else "low"
    name = item.raw_task
    if name in OFFICIAL_HIGH:
        return "high"
    if name in OFFICIAL_IGNORED:
        return None
    if item.task.level == Level.HIGH:
        warnings.add(
            f"task {name!r} ({item.task.abbreviation}, high level in the paper) is not "
            f"spelled as the official script expects ({', '.join(OFFICIAL_HIGH)}): the "
            "official preset counts it as a prerequisite"
        )
    return "low"


def pair_outcomes(
    outcomes: Sequence[Outcome],
    preset: str = _PRESET,
    group: str | None = None,
    limit: int | None = None,
) -> tuple[list[Pair], list[str]]:
    """Every (prerequisite, high-level) pair on the same image, and the warnings; only
    those of ``group`` ("A".."D") when given, and at most ``limit`` of them (the first,
    by image then item order). The pairs are made one at a time, so a limit bounds the
    memory however many pairs the benchmark has (:func:`image_group_counts` counts
    them all).

    Raises
    ------
    MedRCubeError
        Unknown preset.
    """
    by_image, warnings = _by_image(outcomes, preset)
    if group is None:
        every = (
            Pair(image, low, high)
            for image in sorted(by_image)
            for high in by_image[image]["high"]
            for low in by_image[image]["low"]
        )
        return list(islice(every, limit)), warnings
    if group not in GROUP_CORRECTNESS:
        raise MedRCubeError(f"group must be one of A, B, C, D, got {group!r}")
    # only the pairs of the group are made: its L and H of the wanted correctness on each
    # image (walking every pair for a group with none took minutes at 100 M pairs)
    low_right, high_right = GROUP_CORRECTNESS[group]

    def wanted() -> Iterator[Pair]:
        for image in sorted(by_image):
            lows = [low for low in by_image[image]["low"] if low.correct == low_right]
            for high in by_image[image]["high"]:
                if high.correct == high_right:
                    yield from (Pair(image, low, high) for low in lows)

    return list(islice(wanted(), limit)), warnings


def _by_image(
    outcomes: Sequence[Outcome], preset: str
) -> tuple[dict[str, dict[str, list[Outcome]]], list[str]]:
    """The prerequisite ("low") and high-level ("high") outcomes on each image (by its
    resolved path) under ``preset``, and the preset's warnings. MedRCubeError for an
    unknown preset."""
    if preset not in PRESETS:
        raise MedRCubeError(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    warnings: set[str] = set()
    by_image: dict[str, dict[str, list[Outcome]]] = {}
    for outcome in outcomes:
        role = _role(outcome, preset, warnings)
        if role is None:
            continue
        image = str(Path(outcome.item.image_path).resolve())
        by_image.setdefault(image, {"high": [], "low": []})[role].append(outcome)
    return by_image, sorted(warnings)


def image_group_counts(
    outcomes: Sequence[Outcome], preset: str = _PRESET
) -> tuple[dict[str, int], list[str]]:
    """The A–D counts of :func:`pair_outcomes`' pairs, and the warnings, without listing
    the pairs: on each image, A = (L right) × (H right), B = (L right) × (H wrong),
    C = (L wrong) × (H wrong), D = (L wrong) × (H right). Linear in the outcomes; a
    benchmark whose thousands of items share one picture has millions of pairs (7,626
    items on one image: 10.9 M), which listing them held in memory.

    Raises
    ------
    MedRCubeError
        Unknown preset.
    """
    by_image, warnings = _by_image(outcomes, preset)
    counts = dict.fromkeys("ABCD", 0)
    for roles in by_image.values():
        low_right = sum(1 for low in roles["low"] if low.correct)
        high_right = sum(1 for high in roles["high"] if high.correct)
        low_wrong, high_wrong = len(roles["low"]) - low_right, len(roles["high"]) - high_right
        counts["A"] += low_right * high_right
        counts["B"] += low_right * high_wrong
        counts["C"] += low_wrong * high_wrong
        counts["D"] += low_wrong * high_right
    return counts, warnings


class CredibilityFigures(TypedDict):
    """The paper's credibility figures over paired L/H outcomes (Section 6, Appendix H).

    ``group_a``..``group_d``: pairs with both right, prerequisite right and high wrong,
    both wrong, prerequisite wrong and high right. Luck Rate = D/(A+D), Rationality =
    1 − Luck Rate, Shortcut Probability = D/(C+D), Acc_H = (A+D)/(A+B+C+D); each None
    when its denominator is 0.
    """

    group_a: int
    group_b: int
    group_c: int
    group_d: int
    total_pairs: int
    luck_rate: float | None
    rationality: float | None
    shortcut_prob: float | None
    acc_h: float | None


def credibility(pairs: Sequence[Pair]) -> CredibilityFigures:
    """Group counts and the paper's credibility figures (:class:`CredibilityFigures`)."""
    counts = dict.fromkeys("ABCD", 0)
    for pair in pairs:
        counts[pair.group] += 1
    return figures_from_counts(counts)


def figures_from_counts(counts: dict[str, int]) -> CredibilityFigures:
    """The paper's credibility figures from the group counts ``{"A": a, ..., "D": d}``
    (Section 6, eqs. 5-6; :class:`CredibilityFigures`)."""
    a, b, c, d = (counts[g] for g in "ABCD")
    luck = d / (a + d) if a + d else None
    return {  # a TypedDict: the JSON of `credibility --json` as it is
        "group_a": a,
        "group_b": b,
        "group_c": c,
        "group_d": d,
        "total_pairs": a + b + c + d,
        "luck_rate": luck,
        "rationality": 1 - luck if luck is not None else None,
        "shortcut_prob": d / (c + d) if c + d else None,
        "acc_h": (a + d) / (a + b + c + d) if a + b + c + d else None,
    }


_DENOMINATORS = {
    "luck_rate": "no pair with H right (A+D = 0)",
    "rationality": "no pair with H right (A+D = 0)",
    "shortcut_prob": "no pair with L wrong (C+D = 0)",
    "acc_h": "no pairs",
}


def undefined_figures(figures: CredibilityFigures) -> dict[str, str]:
    """Figure name → why it is undefined (``None`` in ``figures``: its denominator is
    0), e.g. ``{"shortcut_prob": "no pair with L wrong (C+D = 0)"}``; empty when every
    figure is defined. ``credibility --json`` adds it as ``"undefined"`` when not empty."""
    return {key: why for key, why in _DENOMINATORS.items() if figures[key] is None}  # type: ignore[literal-required]


def figure_text(figures: CredibilityFigures, key: str, digits: int = 3) -> str:
    """One figure of ``figures`` as the ``credibility`` command and the paired-outcome
    view write it: ``"0.583"``, a count, or ``"undefined: <reason>"``
    (:func:`~medrcube_desktop.core.degenerate.undefined_text`)."""
    from medrcube_desktop.core.degenerate import undefined_text

    value = figures[key]  # type: ignore[literal-required]
    if value is None:
        return undefined_text(_DENOMINATORS.get(key, "no value"))
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)
