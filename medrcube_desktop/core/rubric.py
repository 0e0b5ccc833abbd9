"""The NBME item-writing rubric of the MedRCube quality review (paper E.5, Table 10).

The rubric is data, shipped as ``resources/rubric.json``; its ``version`` is stored with
every review so that scores stay interpretable if the wording ever changes.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib.resources import files

from medrcube_desktop.errors import DatasetError

RULE_IDS: tuple[str, ...] = ("1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3")
"""The seven sub-principles, in the order of Table 10 (keys 1-7 in the review window)."""


@dataclass(frozen=True)
class Rule:
    """One sub-principle: ``id`` ("1.1"), principle id ("1"), short name, full text."""

    id: str
    principle: str
    name: str
    description: str


@dataclass(frozen=True)
class Rubric:
    """The versioned rubric: principle names by id and the seven rules in order."""

    version: str
    principles: dict[str, str]
    rules: tuple[Rule, ...]


@functools.cache
def load_rubric() -> Rubric:
    """Read ``resources/rubric.json`` from the installed package.

    Raises
    ------
    ValueError
        The shipped rubric does not list exactly the seven sub-principles of Table 10.
    """
    raw = json.loads(files("medrcube_desktop.resources").joinpath("rubric.json").read_text("utf-8"))
    rules = tuple(Rule(r["id"], r["principle"], r["name"], r["description"]) for r in raw["rules"])
    if tuple(r.id for r in rules) != RULE_IDS:
        raise ValueError(
            f"rubric.json lists rules {[r.id for r in rules]}, expected {list(RULE_IDS)}"
        )
    return Rubric(raw["version"], {p["id"]: p["name"] for p in raw["principles"]}, rules)


def score_column(rule_id: str) -> str:
    """Database column of a rule: ``"1.1"`` → ``"score_1_1"``."""
    return "score_" + rule_id.replace(".", "_")


def load_review_tags() -> dict[str, tuple[str, ...]]:
    """Quick comment tags per rule id from ``resources/review_tags.json``.

    Raises
    ------
    DatasetError
        The shipped file is missing or malformed (a packaging error).
    """
    try:
        raw = json.loads(
            files("medrcube_desktop.resources").joinpath("review_tags.json").read_text("utf-8")
        )
        tags = {rule: tuple(str(t) for t in raw["tags"].get(rule, [])) for rule in RULE_IDS}
    except (OSError, ValueError, KeyError, AttributeError, TypeError) as exc:
        raise DatasetError(f"review_tags.json: cannot read the quick tags: {exc}") from exc
    return tags
