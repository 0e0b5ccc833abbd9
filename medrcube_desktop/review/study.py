"""Study-wide settings of a review database: blinding, comment rules, repeats.

Stored in the database (``app_state`` key ``study.settings``, JSON) rather than in the
user's settings, so every reviewer of a study works under the same protocol.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import asdict, dataclass, fields

from medrcube_desktop.errors import StoreError
from medrcube_desktop.store import StudyStore

STATE_KEY = "study.settings"
log = logging.getLogger(__name__)


@dataclass
class StudySettings:
    """How a study's reviews are collected.

    Attributes
    ----------
    blind : bool
        Hide the LLM judgment and other reviewers' scores of an item until the reviewer
        has committed their own seven scores (default True; turn off for plain curation
        passes). Avoids anchoring bias.
    require_comment_on_fail : bool
        A review with a failed rule needs a comment.
    require_comment_on_disagreement : bool
        A reviewer whose scores differ from the revealed LLM judgment must say why.
    repeat_share : float
        Share of items (0–1) shown a second time, blind to the first scores, to measure
        intra-rater agreement. Which items is fixed per reviewer (hash of name and id).
    repeat_gap : int
        A repeated item comes back after at least this many other first reviews.
    llm_model : str
        Model whose judgments are revealed; '' means the model with most judgments.
    idle_after_s : float
        A pause without input longer than this (seconds) is idle and not counted in
        the active time.
    """

    blind: bool = True
    require_comment_on_fail: bool = True
    require_comment_on_disagreement: bool = True
    repeat_share: float = 0.1
    repeat_gap: int = 10
    llm_model: str = ""
    idle_after_s: float = 60.0

    @classmethod
    def load(cls, store: StudyStore) -> StudySettings:
        """The study's settings; defaults for missing or invalid values (logged).

        Raises
        ------
        StoreError
            The database cannot be read.
        """
        raw = store.get_state(STATE_KEY)
        settings = cls()
        if not raw:
            return settings
        try:
            values = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            log.warning("%s: ignoring unreadable study settings: %s", store.path, exc)
            return settings
        if not isinstance(values, dict):
            return settings
        for f in fields(cls):
            if f.name not in values:
                continue
            value, default = values[f.name], getattr(settings, f.name)
            if not _valid(f.name, value, default):
                log.warning("%s: ignoring study setting %s=%r", store.path, f.name, value)
                continue
            setattr(settings, f.name, type(default)(value))  # within LIMITS: no overflow
        return settings

    def save(self, store: StudyStore) -> None:
        """Store these settings in the study database (raises StoreError)."""
        for name, (low, high) in LIMITS.items():
            value = getattr(self, name)
            if not _valid(name, value, 0.0):
                raise StoreError(
                    f"study setting {name} must be between {low:g} and {high:g}, got {value!r}"
                )
        store.set_state(STATE_KEY, json.dumps(asdict(self)))


LIMITS: dict[str, tuple[float, float]] = {
    "repeat_share": (0.0, 1.0),
    "repeat_gap": (0, 1_000_000),
    "idle_after_s": (1.0, 86_400.0),
}
"""Accepted range of each number (NaN and infinity are never accepted)."""


def _valid(name: str, value: object, default: object) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, str):
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    low, high = LIMITS.get(name, (0.0, float("inf")))
    return math.isfinite(value) and low <= value <= high
