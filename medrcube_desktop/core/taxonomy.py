"""The MedRCube task taxonomy: canonical tasks, their abbreviations and levels.

Source: paper Section 3 and Appendix C/F (Table 6). The public release spells some
tasks differently from the paper ("Abnormity Diagnosis" for Abnormality Diagnosis,
"View Identification" for View Recognition); :func:`canonical_task` maps every known
spelling to one :class:`Task`.

Levels (paper Section 3, DESIGN.md): low = perception (MR VR IPR), mid = semantic
grounding (OR RG), high = cognition (DD AD SG).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    """The three levels of the competency hierarchy."""

    LOW = "low"
    MID = "mid"
    HIGH = "high"


@dataclass(frozen=True)
class Task:
    """One canonical MedRCube task.

    Attributes
    ----------
    name : str
        Canonical name as the paper writes it, e.g. ``"Abnormality Diagnosis"``.
    abbreviation : str
        Two- or three-letter code of Table 6, e.g. ``"AD"``.
    level : Level
        Level in the competency hierarchy.
    """

    name: str
    abbreviation: str
    level: Level


TASKS: tuple[Task, ...] = (
    Task("Modality Recognition", "MR", Level.LOW),
    Task("View Recognition", "VR", Level.LOW),
    Task("Imaging Protocols Recognition", "IPR", Level.LOW),
    Task("Organ Recognition", "OR", Level.MID),
    Task("Region of Interest Grounding", "RG", Level.MID),
    Task("Disease Diagnosis", "DD", Level.HIGH),
    Task("Abnormality Diagnosis", "AD", Level.HIGH),
    Task("Severity Grading", "SG", Level.HIGH),
)

_BY_ABBREVIATION = {t.abbreviation: t for t in TASKS}

# Spellings seen in the paper, the public release and common variants. Keys are
# normalised with _normalise() (lower case, single spaces, no punctuation).
_ALIASES: dict[str, str] = {
    "modality recognition": "MR",
    "modality identification": "MR",
    "modality classification": "MR",
    "view recognition": "VR",
    "view identification": "VR",
    "view classification": "VR",
    "plane recognition": "VR",
    "imaging protocols recognition": "IPR",
    "imaging protocol recognition": "IPR",
    "protocol recognition": "IPR",
    "imaging sequence recognition": "IPR",
    "organ recognition": "OR",
    "organ identification": "OR",
    "region of interest grounding": "RG",
    "roi grounding": "RG",
    "region grounding": "RG",
    "lesion grounding": "RG",
    "disease diagnosis": "DD",
    "abnormality diagnosis": "AD",
    "abnormity diagnosis": "AD",
    "abnormality detection": "AD",
    "severity grading": "SG",
    "severity grade": "SG",
}


def _normalise(text: str) -> str:
    text = re.sub(r"[^a-z0-9 ]+", " ", text.lower().replace("_", " ").replace("-", " "))
    return " ".join(text.split())


def canonical_task(spelling: str) -> Task | None:
    """Map any known spelling of a task to its canonical :class:`Task`.

    Parameters
    ----------
    spelling : str
        Task name as written in a ``test.json`` (case, underscores, hyphens and extra
        spaces are ignored) or a Table 6 abbreviation such as ``"AD"``.

    Returns
    -------
    Task or None
        ``None`` when the spelling is unknown; callers report it as a problem.
    """
    if spelling.strip().upper() in _BY_ABBREVIATION:
        return _BY_ABBREVIATION[spelling.strip().upper()]
    code = _ALIASES.get(_normalise(spelling))
    return _BY_ABBREVIATION[code] if code else None


def task_by_abbreviation(abbreviation: str) -> Task:
    """Return the task with a Table 6 abbreviation; raises ``KeyError`` if unknown."""
    return _BY_ABBREVIATION[abbreviation]
