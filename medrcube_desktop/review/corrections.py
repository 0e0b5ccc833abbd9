"""Corrections to benchmark items: proposals, their decisions, and what a release applies
(issue 23, DESIGN.md "Closing the loop").

The vocabulary is defined in :mod:`medrcube_desktop.core.corrections` (the store, below
``review`` in the layers, builds and returns these records) and re-exported here under
the same names: ``from medrcube_desktop.review.corrections import Proposal`` is the same
class. The rules that need the item (validation against it, blinding, conflicts) are in
:mod:`medrcube_desktop.review.proposing`.
"""

from __future__ import annotations

from medrcube_desktop.core.corrections import (
    ACCEPTED,
    ANSWER_KEY,
    BBOX,
    CHANGE_KEYS,
    DECISIONS,
    KINDS,
    MASK,
    MASK_DTYPES,
    NEEDS_NEW_ANSWER_KINDS,
    OPEN,
    OPTION_TEXT,
    QUESTION_TEXT,
    REJECTED,
    RETIRE,
    STATUSES,
    WITHDRAWN,
    AcceptedCorrection,
    Decision,
    Proposal,
    change_problem,
    changed_field,
    decode_labels,
    encode_labels,
)

__all__ = [
    "ACCEPTED", "ANSWER_KEY", "BBOX", "CHANGE_KEYS", "DECISIONS", "KINDS", "MASK",
    "MASK_DTYPES", "NEEDS_NEW_ANSWER_KINDS",
    "OPEN", "OPTION_TEXT", "QUESTION_TEXT", "REJECTED", "RETIRE", "STATUSES", "WITHDRAWN",
    "AcceptedCorrection", "Decision", "Proposal", "change_problem", "changed_field",
    "decode_labels", "encode_labels",
]  # fmt: skip
