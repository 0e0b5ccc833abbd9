"""What a release does to each item, decided before anything is written (issue 23, item 3).

From the accepted corrections and the source records: which record each correction is
about (:func:`locate`), whether two of them contradict each other (:func:`conflicts`:
the same field of one item set to different values), and per item the new field values,
the mask edits and the entries of ``changes.json`` (:func:`plan_item`). Pure: no file is
read or written here, no store.

The answer key follows DESIGN.md: ``gt_answer`` is the TEXT of the correct option. An
answer-key correction writes the new option's text to ``gt_answer`` and, when the record
has a ``correct_index``, the new option's position counted as the record counts (from 0
or from 1, read from its own index and old answer; else as the rest of its file does:
``core.fields.check_correct_index`` accepts either). An option-text correction of the
answer's option writes the new text to ``gt_answer`` too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from medrcube_desktop.core.corrections import change_problem
from medrcube_desktop.core.corrections import decode_labels as read_labels
from medrcube_desktop.core.fields import (
    OPTION_FIELDS,
    correct_index_value,
    index_readings,
)
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.review.corrections import (
    ANSWER_KEY,
    BBOX,
    KINDS,
    NEEDS_NEW_ANSWER_KINDS,
    OPTION_TEXT,
    QUESTION_TEXT,
    RETIRE,
    AcceptedCorrection,
    Proposal,
    changed_field,
)
from medrcube_desktop.review.release_masks import MaskEdit
from medrcube_desktop.review.release_records import ReleaseError

__all__ = [
    "ItemPlan", "ReleaseError", "file_index_base", "locate", "plan_item",
]  # fmt: skip


def locate(
    ids: dict[str, list[tuple[str, int]]], corrections: Sequence[AcceptedCorrection]
) -> dict[str, tuple[str, int]]:
    """The record of each corrected item: ``(file, index)``.

    Parameters
    ----------
    ids : dict
        Item id (text; an integer id as its digits) → every ``(file, index)`` holding it
        (``file`` relative to the root, POSIX).
    corrections : sequence of AcceptedCorrection
        Their ``proposal.source_file`` picks among several records of one id.

    Raises
    ------
    ReleaseError
        An item not in the source, or in several files and none named by the proposal.
    """
    found: dict[str, tuple[str, int]] = {}
    for c in corrections:
        p = c.proposal
        where = ids.get(p.item_id, [])
        named = [w for w in where if w[0] == p.source_file]
        if len(where) == 1 or len(named) == 1:
            found[p.item_id] = (named or where)[0]
        elif not where:
            raise ReleaseError(
                f"item {p.item_id}: not in the source benchmark (proposal {p.uid or '?'}, "
                f"file {p.source_file or '?'})"
            )
        else:
            files = ", ".join(sorted({w[0] for w in where}))
            raise ReleaseError(f"item {p.item_id}: id held by several records ({files})")
    return found


def file_index_base(records: Sequence[Any]) -> int:
    """Whether a file's ``correct_index`` values count from 0 or 1: the reading that names
    the answer in more of its records (0 when none says)."""
    counts = [0, 0]
    for record in records:
        if not isinstance(record, dict) or record.get("correct_index") is None:
            continue
        index = correct_index_value(record["correct_index"])
        options = _options(record)
        answer = _answer(record, options)
        if index is None or answer is None:
            continue
        zero, one = index_readings(index, options)
        counts[0] += zero == answer
        counts[1] += one == answer
    return 1 if counts[1] > counts[0] else 0


def _options(record: dict) -> dict[str, str]:
    return {
        f.removeprefix("option_"): record[f]
        for f in OPTION_FIELDS
        if isinstance(record.get(f), str)
    }


def _answer(record: dict, options: dict[str, str]) -> str | None:
    """The letter whose stripped text is the stripped ``gt_answer`` (one only)."""
    gt = record.get("gt_answer")
    if not isinstance(gt, str):
        return None
    matches = [letter for letter, text in options.items() if text.strip() == gt.strip()]
    return matches[0] if len(matches) == 1 else None


@dataclass
class ItemPlan:
    """What the release does to one item.

    Attributes
    ----------
    item_id, file : str
        The item and its ``test.json`` (relative to the root, POSIX).
    index : int
        The record's position in the file's list.
    record : dict
        The source record.
    corrections : list of AcceptedCorrection
        Every accepted correction of the item, in the order they were proposed.
    retired : bool
        The record is left out (its other corrections are listed, not applied).
    updates : dict
        Field → new value (``mask_path`` filled in once the new mask is named).
    mask_edits : list of MaskEdit
        The accepted mask edits, in order.
    answer_before, answer_after : str or None
        The answer's letter before and after (after is None when retired).
    entries : list of dict
        One ``changes.json`` change per correction (a mask's ``to`` filled in later).
    """

    item_id: str
    file: str
    index: int
    record: dict[str, Any]
    corrections: list[AcceptedCorrection]
    retired: bool = False
    updates: dict[str, Any] = field(default_factory=dict)
    mask_edits: list[MaskEdit] = field(default_factory=list)
    answer_before: str | None = None
    answer_after: str | None = None
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def needs_new_answer(self) -> bool:
        """A kept item whose question, options or image changed (``rescore``)."""
        kinds = {c.proposal.kind for c in self.corrections}
        return not self.retired and bool(kinds & NEEDS_NEW_ANSWER_KINDS)

    @property
    def task(self) -> str:
        """The canonical task name (the record's own when unknown)."""
        raw = str(self.record.get("task", ""))
        task = canonical_task(raw) if raw else None
        return task.name if task is not None else raw


def _entry(c: AcceptedCorrection, name: str | None, before: Any, after: Any) -> dict[str, Any]:
    p, d = c.proposal, c.decision
    return {
        "kind": p.kind, "field": name, "from": before, "to": after, "rule": p.rule,
        "reason": p.reason, "proposer": p.author, "proposed_at": p.created_at,
        "proposal_uid": p.uid, "acceptor": d.decider, "accepted_at": d.created_at,
        "acceptance_reason": d.reason,
    }  # fmt: skip


def plan_item(
    item_id: str,
    file: str,
    index: int,
    record: Any,
    corrections: Sequence[AcceptedCorrection],
    index_base: int = 0,
) -> ItemPlan:
    """The new values of one item's fields from its accepted corrections.

    Parameters
    ----------
    item_id, file, index, record
        The item's record in the source (``record`` must be a JSON object).
    corrections : sequence of AcceptedCorrection
        The item's, in the order to apply (the latest of two mask edits of one slice
        wins; other fields are never set twice: :func:`conflicts` runs first).
    index_base : int
        0 or 1: how the file counts ``correct_index`` (:func:`file_index_base`), used
        when the record's own index does not tell.

    Raises
    ------
    ReleaseError
        A correction that does not fit the record, naming the item and the field: an
        unknown kind, an option that does not exist, empty text, a bad box, mask labels
        that are not of the shape the correction says.
    """
    if not isinstance(record, dict):
        raise ReleaseError(f"{file} item {item_id}: the record is not a JSON object")
    plan = ItemPlan(item_id, file, index, record, list(corrections))
    options = _options(record)
    before = _answer(record, options)
    plan.answer_before = before
    after_options, letter = dict(options), before
    pending_answer: list[dict[str, Any]] = []  # answer-key entries: "to" known at the end
    for c in plan.corrections:
        p = c.proposal
        change = p.change or {}
        where = f"{file} item {item_id}"
        if p.kind not in KINDS:
            raise ReleaseError(f"{where}: unknown kind of correction {p.kind!r}")
        _check_change(p, where)
        _check_unchanged_since(p, record, where)
        if p.kind == RETIRE:
            plan.retired = True
            plan.entries.append(_entry(c, None, None, None))
        elif p.kind == ANSWER_KEY:
            letter = _letter(change.get("answer"), options, f"{where}: gt_answer")
            pending_answer.append(_entry(c, "gt_answer", record.get("gt_answer"), None))
            plan.entries.append(pending_answer[-1])
        elif p.kind == OPTION_TEXT:
            key = f"option_{_letter(change.get('letter'), options, f'{where}: option')}"
            text = change["text"]
            after_options[key.removeprefix("option_")] = text
            plan.updates[key] = text
            plan.entries.append(_entry(c, key, record.get(key), text))
        elif p.kind == QUESTION_TEXT:
            text = change["text"]
            plan.updates["question"] = text
            plan.entries.append(_entry(c, "question", record.get("question"), text))
        elif p.kind == BBOX:
            box = list(change["bbox"])
            plan.updates["bbox"] = box
            plan.entries.append(_entry(c, "bbox", record.get("bbox"), box))
        else:  # MASK
            labels = read_labels(p.mask_labels or b"")
            plan.mask_edits.append(MaskEdit(labels, change.get("slice_index"), change.get("axis")))
            plan.entries.append(_entry(c, "mask_path", record.get("mask_path"), None))
    _answer_updates(plan, options, after_options, before, letter, index_base, pending_answer)
    plan.answer_after = None if plan.retired else letter
    return plan


def _answer_updates(
    plan: ItemPlan,
    options: dict[str, str],
    after_options: dict[str, str],
    before: str | None,
    letter: str | None,
    index_base: int,
    answer_entries: list[dict[str, Any]],
) -> None:
    """``gt_answer`` (and ``correct_index``) after the answer-key and option-text
    corrections; the answer-key entries, whose ``to`` is the final text."""
    record = plan.record
    if letter is not None and (letter != before or after_options[letter] != options[letter]):
        plan.updates["gt_answer"] = after_options[letter]
        value = record.get("correct_index")
        number = correct_index_value(value) if value is not None else None
        if number is not None and letter != before:
            zero, one = index_readings(number, options)
            base = 0 if zero == before else 1 if one == before else index_base
            new = list(options).index(letter) + base
            plan.updates["correct_index"] = str(new) if isinstance(value, str) else new
    for entry in answer_entries:
        entry["to"] = plan.updates.get("gt_answer", record.get("gt_answer"))


def _letter(value: Any, options: dict[str, str], where: str) -> str:
    if not isinstance(value, str) or value not in options:
        have = ", ".join(options) or "none"
        raise ReleaseError(f"{where}: no option {value!r} in the record (it has {have})")
    return value


def _check_unchanged_since(proposal: Proposal, record: dict, where: str) -> None:
    """Refuse a correction of a field whose source value is no longer the one it was
    proposed on (``Proposal.record_before``): the release is built on another version
    of the benchmark than the review. Skipped when the proposal holds no record."""
    name = changed_field(proposal)
    before = proposal.record_before
    if not before or not name or before.get(name) == record.get(name):
        return
    raise ReleaseError(
        f"{where}: {name}: the source holds {record.get(name)!r}, the proposal "
        f"{proposal.uid or '?'} was made on {before.get(name)!r}: is this the benchmark "
        "the review was made on?"
    )


def _check_change(proposal: Proposal, where: str) -> None:
    """The store's check of a change's shape
    (:func:`~medrcube_desktop.core.corrections.change_problem`, which ``save_proposal``
    and ``proposals propose`` run): one check, so that the release refuses exactly
    what the store would have, with the same words, naming the record's field."""
    problem = change_problem(proposal.kind, proposal.change, proposal.mask_labels)
    if problem is not None:
        name = changed_field(proposal) or "record"
        raise ReleaseError(f"{where}: {name}: {problem[1]} ({problem[0]})")
