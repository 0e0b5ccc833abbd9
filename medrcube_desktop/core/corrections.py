"""Corrections to benchmark items: proposals, their decisions, and what a release applies
(issue 23, DESIGN.md "Closing the loop").

A reviewer proposes a correction to one item (the answer key, an option's text, the
question text, the bounding box, the mask) or proposes to retire it; another expert (or
the adjudicator) accepts or rejects it, with a reason. Both are append-only, like
adjudications: a proposal is never changed, a decision is a new revision of the
proposal's decision and the latest revision wins. A reviewer never decides their own
proposal. ``release`` (:mod:`medrcube_desktop.review.release`) applies the accepted ones.

This module holds the vocabulary every layer shares: the kinds, the shape of each kind's
``change`` and the records, and the checks of a change's shape that need no item
(:func:`change_problem`). It lives in ``core`` so that the store (below ``review`` in
DESIGN.md's layers) can build and return these records;
:mod:`medrcube_desktop.review.corrections` re-exports every name. Storage is in
:mod:`medrcube_desktop.store.proposals`, the rules that need the item in
:mod:`medrcube_desktop.review.proposing`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from medrcube_desktop.core.fields import parse_bbox
from medrcube_desktop.core.items import OPTION_LETTERS
from medrcube_desktop.core.names import has_text, hidden_character, is_format

if TYPE_CHECKING:
    import numpy as np

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
the edited labels in :attr:`Proposal.mask_labels` (uint8 or uint16 array of ``shape``).
Only that slice's labels change.

The one convention every part follows (the window's editor, ``proposals propose``,
``release``, ``render --json``): for a volume mask the labels are
``numpy.take(array, slice_index, axis)``, with ``array`` the mask's voxels *as its
reader returns them*: nibabel's ``dataobj`` for NIfTI, voxel order ``(i, j, k)``, so the
window's slices are ``axis`` 2; SimpleITK's ``GetArrayFromImage`` for NRRD/MetaImage,
``(z, y, x)``, so the window's slices are ``axis`` 0 (not ITK's index axis 2). Rows and
columns are the stored slice's (before any display flip or transpose: the window
undoes its display, ``imaging.edit_slice.stored_labels``). For a 2-D mask (a picture, or
one mask for every frame of a multi-frame DICOM) ``slice_index`` and ``axis`` are
``None`` and the labels are the whole mask, rows and columns of the stored picture (EXIF
orientation not applied)."""

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

OPEN = "open"
"""The status of a proposal with no decision yet."""

STATUSES: tuple[str, ...] = (OPEN, ACCEPTED, REJECTED, WITHDRAWN)
"""A proposal's status: :data:`OPEN`, else its latest decision."""

CHANGE_KEYS: dict[str, tuple[str, ...]] = {
    ANSWER_KEY: ("answer",),
    OPTION_TEXT: ("letter", "text"),
    QUESTION_TEXT: ("text",),
    BBOX: ("bbox",),
    MASK: ("slice_index", "axis", "shape"),
    RETIRE: (),
}
"""The keys of each kind's ``change``, no more and no fewer."""

MASK_DTYPES: tuple[str, ...] = ("uint8", "uint16")
"""The dtypes a proposed mask's labels may have."""


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


def changed_field(proposal: Proposal) -> str:
    """The record field a proposal changes: ``gt_answer`` (answer key), ``option_B``
    (option text of letter B), ``question``, ``bbox``, ``mask_path``; ``""`` for
    :data:`RETIRE` (the whole record is left out). The ``field`` of ``changes.json``."""
    if proposal.kind == ANSWER_KEY:
        return "gt_answer"
    if proposal.kind == OPTION_TEXT:
        return f"option_{proposal.change.get('letter', '')}"
    return {QUESTION_TEXT: "question", BBOX: "bbox", MASK: "mask_path"}.get(proposal.kind, "")


def encode_labels(labels: np.ndarray) -> bytes:
    """``labels`` as a ``.npy`` file's bytes (``numpy.save``, no pickle): what
    :attr:`Proposal.mask_labels` holds. ``labels``: (rows, cols) uint8 or uint16."""
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(labels), allow_pickle=False)
    return buffer.getvalue()


def decode_labels(data: bytes) -> np.ndarray:
    """The array a ``.npy`` file's bytes hold (:func:`encode_labels`'s inverse; pickled
    objects are refused).

    Raises
    ------
    ValueError
        ``data`` is not the bytes of a ``.npy`` file of one array.
    """
    import numpy as np

    if not isinstance(data, bytes | bytearray | memoryview):
        raise ValueError(f"expected the bytes of a .npy file, found {type(data).__name__}")
    data = bytes(data)
    if not data.startswith(b"\x93NUMPY"):
        raise ValueError("not a .npy file (no NUMPY header)")
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise ValueError(f"not a .npy file: {exc}") from exc
    if not isinstance(array, np.ndarray):
        raise ValueError("not a .npy file of one array")
    return array


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def change_problem(
    kind: str, change: object, mask_labels: bytes | None = None
) -> tuple[str, str] | None:
    """What is wrong with a change's shape, judged without the item: ``(field,
    message)``, or ``None`` when it is well formed. The item's own checks (the letter is
    one of its options, the box inside its image...) are
    :func:`medrcube_desktop.review.proposing.check_change`'s.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    change : object
        The proposal's ``change`` (a dict with exactly :data:`CHANGE_KEYS` of ``kind``).
    mask_labels : bytes or None
        :attr:`Proposal.mask_labels`: for :data:`MASK` a ``.npy`` of a 2-D
        :data:`MASK_DTYPES` array of ``change["shape"]`` (rows, cols); else ``None``.

    Returns
    -------
    tuple of (str, str) or None
        ``field`` names the part (``"kind"``, ``"change.answer"``, ``"change.bbox"``,
        ``"mask_labels"``...); ``message`` says what is wrong, with the value.
    """
    if kind not in KINDS:
        return "kind", f"unknown kind {kind!r}: one of {', '.join(KINDS)}"
    if not isinstance(change, dict):
        return "change", f"expected an object of {', '.join(CHANGE_KEYS[kind]) or 'no field'}"
    for key in CHANGE_KEYS[kind]:
        if key not in change:
            return f"change.{key}", f"missing: a {kind} change needs it"
    for key in change:
        if key not in CHANGE_KEYS[kind]:
            return f"change.{key}", f"not a field of a {kind} change"
    if kind != MASK and mask_labels is not None:
        return "mask_labels", f"only a mask change has labels, not a {kind} change"
    if kind in (ANSWER_KEY, OPTION_TEXT):
        key = "answer" if kind == ANSWER_KEY else "letter"
        if change[key] not in OPTION_LETTERS:
            return f"change.{key}", f"{change[key]!r} is not an option letter (A to F)"
    if kind in (OPTION_TEXT, QUESTION_TEXT):
        if not has_text(change["text"]):
            return "change.text", "the new text must have a visible character"
        # a zero-width or bidi character: a text that looks like another (or the same)
        hidden = hidden_character(change["text"], "change.text", is_format)
        if hidden is not None:
            return "change.text", hidden.removeprefix("change.text: ")
    if kind == BBOX:
        return _bbox_problem(change["bbox"])
    if kind == MASK:
        return _mask_problem(change, mask_labels)
    return None


def _bbox_problem(value: object) -> tuple[str, str] | None:
    """``parse_bbox``'s rule (four finite numbers, ``x0 < x1``, ``y0 < y1``, no negative
    corner), as a problem of ``change.bbox``."""
    found: list[str] = []
    parse_bbox(value if value is not None else "missing", lambda _, m: found.append(m))
    if not found:
        return None
    return "change.bbox", found[0] if str(value) in found[0] else f"{value!r}: {found[0]}"


def _mask_problem(change: dict[str, Any], data: bytes | None) -> tuple[str, str] | None:
    """A mask change's slice, shape and labels."""
    shape, index, axis = change["shape"], change["slice_index"], change["axis"]
    if not (isinstance(shape, list | tuple) and len(shape) == 2 and all(map(_is_int, shape))
            and min(shape) > 0):  # fmt: skip
        return "change.shape", f"{shape!r}: expected [rows, cols], two positive integers"
    if (index is None) != (axis is None):
        return "change.slice_index", "slice_index and axis are both given (a volume) or both null"
    if index is not None and not (_is_int(index) and index >= 0):
        return "change.slice_index", f"{index!r}: expected an integer from 0"
    if axis is not None and not (_is_int(axis) and 0 <= axis <= 2):
        return "change.axis", f"{axis!r}: expected 0, 1 or 2"
    if data is None:
        return "mask_labels", "a mask change needs its labels (a .npy file's bytes)"
    try:
        labels = decode_labels(data)
    except ValueError as exc:
        return "mask_labels", str(exc)
    if str(labels.dtype) not in MASK_DTYPES:
        return "mask_labels", f"dtype {labels.dtype}: expected {' or '.join(MASK_DTYPES)}"
    if list(labels.shape) != list(shape):
        return "mask_labels", f"shape {list(labels.shape)} differs from change.shape {list(shape)}"
    return None
