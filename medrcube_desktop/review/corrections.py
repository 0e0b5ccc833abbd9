"""Corrections to benchmark items: proposals, their decisions, and what a release applies
(issue 23, DESIGN.md "Closing the loop").

A reviewer proposes a correction to one item (the answer key, an option's text, the
question text, the bounding box, the mask) or proposes to retire it; another expert (or
the adjudicator) accepts or rejects it, with a reason. Both are append-only, like
adjudications: a proposal is never changed, a decision is a new revision of the
proposal's decision and the latest revision wins. A reviewer never decides their own
proposal. ``release`` (:mod:`medrcube_desktop.review.release`) applies the accepted ones.

This module holds the vocabulary every layer shares: the kinds, the shape of each kind's
``change`` and the records. Storage is in :mod:`medrcube_desktop.store.proposals`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ANSWER_KEY = "answer_key"
"""``change = {"answer": "C"}``: the letter of the new correct option. The release writes
the option's text to ``gt_answer`` (and ``correct_index`` when the record has one)."""

OPTION_TEXT = "option_text"
"""``change = {"letter": "B", "text": "..."}``: the new text of ``option_B``. When the
letter is the answer's, the release writes the new text to ``gt_answer`` as well."""

QUESTION_TEXT = "question_text"
"""``change = {"text": "..."}``: the new ``question``."""

BBOX = "bbox"
"""``change = {"bbox": [x0, y0, x1, y1]}``: pixels of the source image (column, row;
origin top-left of the stored array), ``x0 < x1``, ``y0 < y1``, as ``core.fields.parse_bbox``
accepts."""

MASK = "mask"
"""``change = {"slice_index": k or None, "axis": a or None, "shape": [rows, cols]}`` with
the edited labels in :attr:`Proposal.mask_labels` (uint8 or uint16 array of ``shape``;
``slice_index``/``axis`` name the slice of a volume mask, ``None`` for a 2-D mask, whose
labels are the whole mask). Only that slice's labels change."""

RETIRE = "retire"
"""``change = {}``: the item is left out of the release."""

KINDS: tuple[str, ...] = (ANSWER_KEY, OPTION_TEXT, QUESTION_TEXT, BBOX, MASK, RETIRE)
"""Every kind of proposal."""

NEEDS_NEW_ANSWER_KINDS: frozenset[str] = frozenset((OPTION_TEXT, QUESTION_TEXT, BBOX, MASK))
"""Kinds that change what a model was shown (question, options or image), so a stored
answer no longer answers the corrected item: ``rescore`` marks it "needs a new answer".
An answer-key change is rescored from the stored letter; a retired item is dropped.
The bounding box and mask are drawn on the picture sent to the model (overlay), so they
change the image."""

ACCEPTED = "accepted"
REJECTED = "rejected"
WITHDRAWN = "withdrawn"
"""Decisions. ``withdrawn`` is the proposer's own (the one decision they may make)."""

DECISIONS: tuple[str, ...] = (ACCEPTED, REJECTED, WITHDRAWN)


@dataclass(frozen=True)
class Proposal:
    """One proposed correction of one item.

    Attributes
    ----------
    item_id : str
        The item's benchmark id.
    kind : str
        One of :data:`KINDS`.
    rule : str
        The rubric rule it answers, ``"1.1"``..``"2.3"`` (``core.rubric.RULE_IDS``).
    reason : str
        Why (required, visible text).
    author : str
        The proposing reviewer.
    change : dict
        The kind's change (see each kind's constant above); JSON-serialisable.
    record_before : dict
        The item's ``test.json`` record as it was when proposed (every field, in the
        file's key order).
    source_file : str
        The ``test.json`` holding the item, relative to the benchmark root (POSIX).
    mask_labels : bytes or None
        For :data:`MASK`: the edited labels as a ``.npy`` file's bytes (``numpy.save``),
        shape ``change["shape"]``, dtype uint8 or uint16.
    uid, created_at, app_version : str
        Filled in by the store.
    """

    item_id: str
    kind: str
    rule: str
    reason: str
    author: str
    change: dict[str, Any] = field(default_factory=dict)
    record_before: dict[str, Any] = field(default_factory=dict)
    source_file: str = ""
    mask_labels: bytes | None = None
    uid: str = ""
    created_at: str = ""
    app_version: str = ""


@dataclass(frozen=True)
class Decision:
    """One decision on a proposal (append-only; the latest revision wins).

    Attributes
    ----------
    proposal_uid : str
        The proposal decided.
    decision : str
        One of :data:`DECISIONS`.
    reason : str
        Why (required, visible text).
    decider : str
        Who decided: never the proposal's author, except to withdraw.
    revision : int
        1 for the first decision on the proposal, then 2, 3… (filled in by the store).
    uid, created_at, app_version : str
        Filled in by the store.
    """

    proposal_uid: str
    decision: str
    reason: str
    decider: str
    revision: int = 0
    uid: str = ""
    created_at: str = ""
    app_version: str = ""


@dataclass(frozen=True)
class AcceptedCorrection:
    """A proposal whose latest decision is :data:`ACCEPTED`: what ``release`` applies."""

    proposal: Proposal
    decision: Decision
