"""The NBME item-writing rubric of the MedRCube quality review (paper E.5, Table 10).

The rubric is data, shipped as ``resources/rubric.json`` and read once: the rule ids,
the principles and their sub-principles, the names shown to reviewers and the JSON
schema of a judgment all come from it, and every other module takes them from here.
Its ``version`` is stored with every review so that scores stay interpretable if the
wording ever changes. (Adding or removing a rule also needs a database migration: the
``reviews`` and ``llm_judgments`` tables hold one score column per rule.)
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import Any

from medrcube_desktop.errors import DatasetError

_RULE_ID = re.compile(r"(\d+)\.(\d+)")
"""A rule id: ``<principle id>.<n>`` ("1.1"); its database column is ``score_1_1``."""


@dataclass(frozen=True)
class Rule:
    """One sub-principle: ``id`` ("1.1"), principle id ("1"), short name, full text."""

    id: str
    principle: str
    name: str
    description: str

    @property
    def label(self) -> str:
        """``"1.1 Clinical & Anatomical Accuracy"``."""
        return f"{self.id} {self.name}"


@dataclass(frozen=True)
class Rubric:
    """The versioned rubric: principle names by id and the rules in order.

    Attributes
    ----------
    version : str
        ``"nbme-medrcube-1"``; stored with every review and judgment.
    principles : dict of str to str
        Principle id ("1") → name ("Question Integrity"), in rubric order.
    rules : tuple of Rule
        The sub-principles in rubric order, grouped by principle.
    """

    version: str
    principles: dict[str, str]
    rules: tuple[Rule, ...]

    @property
    def rule_ids(self) -> tuple[str, ...]:
        """The rule ids in order: ``("1.1", …, "2.3")``."""
        return tuple(rule.id for rule in self.rules)

    @property
    def principle_rules(self) -> dict[str, tuple[str, ...]]:
        """Principle id → the ids of its sub-principles, in order."""
        return {
            pid: tuple(rule.id for rule in self.rules if rule.principle == pid)
            for pid in self.principles
        }

    def principle_label(self, pid: str) -> str:
        """``"Principle 1: Question Integrity"``."""
        return f"Principle {pid}: {self.principles[pid]}"


def parse_rubric(raw: Any) -> Rubric:
    """A :class:`Rubric` from the decoded ``rubric.json``, checked.

    Raises
    ------
    ValueError
        A key is missing, an id is repeated or malformed, a rule names an unknown
        principle or does not start with its principle's id, a principle has no rule,
        or the rules of a principle are not listed together.
    """
    try:
        version = str(raw["version"])
        principles = {str(p["id"]): str(p["name"]) for p in raw["principles"]}
        rules = tuple(
            Rule(str(r["id"]), str(r["principle"]), str(r["name"]), str(r["description"]))
            for r in raw["rules"]
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"rubric.json: missing or malformed entry: {exc!r}") from exc
    ids = [rule.id for rule in rules]
    if not version or not rules or len(set(ids)) != len(ids):
        raise ValueError(f"rubric.json: needs a version and distinct rule ids, got {ids}")
    if len(principles) != len(raw["principles"]):
        raise ValueError("rubric.json: a principle id is listed twice")
    for rule in rules:
        match = _RULE_ID.fullmatch(rule.id)
        if rule.principle not in principles or match is None or match[1] != rule.principle:
            raise ValueError(
                f"rubric.json: rule {rule.id!r} must be '<principle>.<n>' of a listed "
                f"principle ({list(principles)})"
            )
    order = [rule.principle for rule in rules]
    grouped = [pid for n, pid in enumerate(order) if n == 0 or order[n - 1] != pid]
    if grouped != list(principles):
        raise ValueError(
            "rubric.json: every principle needs rules, listed together in principle order"
        )
    return Rubric(version, principles, rules)


@functools.cache
def load_rubric() -> Rubric:
    """Read ``resources/rubric.json`` from the installed package (once).

    Raises
    ------
    ValueError
        The shipped rubric is malformed (see :func:`parse_rubric`; a packaging error).
    """
    text = files("medrcube_desktop.resources").joinpath("rubric.json").read_text("utf-8")
    return parse_rubric(json.loads(text))


RULE_IDS: tuple[str, ...] = load_rubric().rule_ids
"""The sub-principles in rubric order, ("1.1", …, "2.3") for Table 10 (keys 1-7 in the
review window)."""

PRINCIPLES: dict[str, tuple[str, ...]] = load_rubric().principle_rules
"""Principle id → its sub-principles: {"1": ("1.1", …, "1.4"), "2": ("2.1", …, "2.3")}."""


CANNOT_JUDGE = "cannot judge"
"""An expert's value of a rule on which they abstain (issue 24): neither pass (1) nor
fail (0). A string, so that arithmetic on it fails loudly; it is never stored as 0 or 1
(``reviews.abstained`` lists such rules, schema v11) and LLM judgments never use it.
Compare with ``is``/``==`` (:func:`abstained_rules`), never with truthiness: it is a
non-empty string."""


def abstained_rules(scores: Mapping[str, object]) -> list[str]:
    """The rule ids of ``scores`` (rule id → 0, 1, :data:`CANNOT_JUDGE` or None) whose
    value is :data:`CANNOT_JUDGE`, in rubric order."""
    return [rule for rule in RULE_IDS if scores.get(rule) == CANNOT_JUDGE]


def all_pass(scores: Mapping[str, object], rules: Iterable[str] = RULE_IDS) -> bool:
    """True when every rule of ``rules`` is scored 1 (pass): an abstention
    (:data:`CANNOT_JUDGE`) or a missing or unscored rule makes it False."""
    return all(scores.get(rule) == 1 for rule in rules)


def score_column(rule_id: str) -> str:
    """Database column of a rule: ``"1.1"`` → ``"score_1_1"``."""
    return "score_" + rule_id.replace(".", "_")


def judgment_schema() -> dict[str, Any]:
    """JSON schema of a judgment: an object with one key per rule id, each 0 or 1, and
    nothing else (OpenAI structured outputs, strict mode: every key required,
    ``additionalProperties`` false)."""
    return {
        "type": "object",
        "properties": {rule: {"type": "integer", "enum": [0, 1]} for rule in RULE_IDS},
        "required": list(RULE_IDS),
        "additionalProperties": False,
    }


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
