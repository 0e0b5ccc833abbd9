"""Review queues: which items a reviewer works through, and in which order."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.rubric import RULE_IDS

ALL = ""
"""Filter value meaning "no restriction"."""

STATUS_REVIEWED = "reviewed"
STATUS_UNREVIEWED = "unreviewed"
STATUS_FLAGGED = "flagged"
STATUS_FAILED = "failed"
"""Any rule failed in the reviewer's latest review; ``"failed:1.3"`` for one rule."""
STATUS_CANNOT_JUDGE = "cannot-judge"
"""The reviewer's latest review says "cannot judge" on some rule (issue 24)."""
STATUS_DISAGREES = "disagrees"
"""The reviewer's latest review differs from the revealed LLM judgment on some rule."""
STATUS_NOTE_MISSING = "note-missing"
"""Disagrees with the LLM and the note the study asks for is missing."""

STATUS_ANSWERABLE = "answerable-without-image"
"""Most models with an ablation run answer it right without the image (issue 24, rule
1.4's evidence); in a blind study only the items the reviewer has committed."""

ORDER_BENCHMARK = "benchmark"
ORDER_RANDOM = "random"

STATUS_CHOICES: tuple[tuple[str, str], ...] = (
    (ALL, "All"),
    (STATUS_UNREVIEWED, "Unreviewed"),
    (STATUS_REVIEWED, "Reviewed"),
    (STATUS_FLAGGED, "Flagged"),
    (STATUS_FAILED, "A rule failed"),
    *((f"{STATUS_FAILED}:{rule}", f"Rule {rule} failed") for rule in RULE_IDS),
    (STATUS_CANNOT_JUDGE, "Cannot judge a rule"),
    (STATUS_DISAGREES, "Disagrees with the LLM"),
    (STATUS_NOTE_MISSING, "Disagrees, note missing"),
    (STATUS_ANSWERABLE, "Answerable without the image"),
)
"""Queue choices in menu order: (status value, title)."""


@dataclass
class ItemFilter:
    """Restrictions on the item list; ``ALL`` ("") means none.

    ``task`` is a Table 6 abbreviation; ``status`` one of :data:`STATUS_CHOICES`;
    ``text`` a case-insensitive search over id, question and options; ``order`` is
    ``"benchmark"`` or ``"random"`` (reproducible per reviewer); ``study`` the name of an
    agreement study whose items only are listed; ``original_task`` the release's
    ``original_task`` as written; ``include_restricted`` also lists the items whose image
    the release does not ship (reviewed on their text only).
    """

    task: str = ALL
    modality: str = ALL
    region: str = ALL
    dataset: str = ALL
    status: str = ALL
    text: str = ""
    order: str = ORDER_BENCHMARK
    study: str = ALL
    original_task: str = ALL
    include_restricted: bool = False


@dataclass
class QueueFacts:
    """What the status filters need to know about the reviewer's work.

    ``failed`` maps item id to the rules failed in the latest review, ``abstained`` to
    those the reviewer cannot judge there; ``disagrees`` holds
    the ids of committed items whose latest review differs from the LLM judgment, and
    ``note_missing`` those of them still lacking the note the study asks for;
    ``study_items`` the items of the chosen agreement study (``None``: no restriction);
    ``assigned`` the items assigned to the reviewer (``None``: no assignment names them);
    ``answerable`` the items answerable without the image that the reviewer may be told
    of (:mod:`~medrcube_desktop.review.necessity_evidence`, blinding applied).
    """

    reviewed: set[str] = field(default_factory=set)
    flagged: set[str] = field(default_factory=set)
    failed: dict[str, list[str]] = field(default_factory=dict)
    disagrees: set[str] = field(default_factory=set)
    note_missing: set[str] = field(default_factory=set)
    study_items: set[str] | None = None
    assigned: set[str] | None = None
    answerable: set[str] = field(default_factory=set)
    abstained: dict[str, list[str]] = field(default_factory=dict)


def matches(item: Item, f: ItemFilter, facts: QueueFacts) -> bool:
    """True when ``item`` passes every restriction of ``f``."""
    if f.task and item.task.abbreviation != f.task:
        return False
    if (f.modality and item.modality != f.modality) or (f.region and item.region != f.region):
        return False
    if f.dataset and item.dataset != f.dataset:
        return False
    if f.original_task and item.original_task != f.original_task:
        return False
    if f.text and not _mentions(item, f.text):
        return False
    if facts.study_items is not None and item.id not in facts.study_items:
        return False
    if facts.assigned is not None and item.id not in facts.assigned:
        return False
    return _status_matches(item.id, f.status, facts)


def filter_items(items: Sequence[Item], f: ItemFilter, facts: QueueFacts) -> list[Item]:
    """The items that pass every restriction of ``f``, in order (what :func:`matches`
    says item by item, but a restriction that is not set costs nothing: the unfiltered
    list of 100,000 items is a copy, not 100,000 calls)."""
    chosen = list(items)
    for value, name in (
        (f.task, "task.abbreviation"), (f.modality, "modality"), (f.region, "region"),
        (f.dataset, "dataset"), (f.original_task, "original_task"),
    ):  # fmt: skip
        if value:
            get = attrgetter(name)
            chosen = [item for item in chosen if get(item) == value]
    if f.text:
        chosen = [item for item in chosen if _mentions(item, f.text)]
    if facts.study_items is not None:
        chosen = [item for item in chosen if item.id in facts.study_items]
    if facts.assigned is not None:
        chosen = [item for item in chosen if item.id in facts.assigned]
    if f.status != ALL:
        _status_matches("", f.status, facts)  # ValueError for an unknown status, always
        chosen = [item for item in chosen if _status_matches(item.id, f.status, facts)]
    return chosen


def _mentions(item: Item, text: str) -> bool:
    needle = text.casefold().strip()
    haystack = " ".join([item.id, item.question, *item.options.values()]).casefold()
    return all(word in haystack for word in needle.split())


def _status_matches(item_id: str, status: str, facts: QueueFacts) -> bool:
    if status == ALL:
        return True
    if status == STATUS_REVIEWED:
        return item_id in facts.reviewed
    if status == STATUS_UNREVIEWED:
        return item_id not in facts.reviewed
    if status == STATUS_FLAGGED:
        return item_id in facts.flagged
    if status == STATUS_DISAGREES:
        return item_id in facts.disagrees
    if status == STATUS_NOTE_MISSING:
        return item_id in facts.note_missing
    if status == STATUS_ANSWERABLE:
        return item_id in facts.answerable
    if status == STATUS_FAILED:
        return bool(facts.failed.get(item_id))
    if status == STATUS_CANNOT_JUDGE:
        return bool(facts.abstained.get(item_id))
    if status.startswith(f"{STATUS_FAILED}:"):
        return status.split(":", 1)[1] in facts.failed.get(item_id, [])
    raise ValueError(f"unknown queue status {status!r}")


def reviewer_seed(reviewer: str, purpose: str) -> int:
    """A 64-bit seed from a reviewer's name and a purpose (SHA-256; stable across runs
    and machines, unlike Python's salted ``hash``)."""
    digest = hashlib.sha256(f"{purpose}\0{reviewer}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def ordered(items: Sequence[Item], order: str, reviewer: str) -> list[Item]:
    """Items in benchmark order, or shuffled with a seed fixed per reviewer."""
    result = list(items)
    if order == ORDER_RANDOM:
        random.Random(reviewer_seed(reviewer, "order")).shuffle(result)
    elif order != ORDER_BENCHMARK:
        raise ValueError(f"unknown order {order!r}")
    return result


def is_repeat_candidate(reviewer: str, item_id: str, share: float) -> bool:
    """Whether ``item_id`` is one of the share of items ``reviewer`` sees twice.

    Fixed per reviewer and item (SHA-256 of both mapped to [0, 1)), so the choice
    survives restarts and does not depend on the order of review.
    """
    if share <= 0:
        return False
    digest = hashlib.sha256(f"repeat\0{reviewer}\0{item_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share
