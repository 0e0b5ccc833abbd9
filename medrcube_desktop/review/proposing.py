"""Proposing a correction of an item and deciding on it: the rules that need the item
(issue 23, items 1 and 2). No Qt: the review window's propose dialog and queue, and the
``proposals`` command, call these.

* :func:`build_proposal` makes a :class:`~medrcube_desktop.core.corrections.Proposal`
  from the item on screen: its change checked against the item (:func:`check_change`),
  with the item's ``test.json`` record as it is now (:func:`read_record`).
* :func:`propose` stores it, refusing it in a blind study before the reviewer's own
  commit of the item (:func:`~medrcube_desktop.review.blinding.may_reveal`: a proposal
  is a judgment of the item, so it comes after one's own, as the LLM's reveal does).
* :func:`decide` stores a decision (another reviewer accepts or rejects; the author
  withdraws), under the same blinding rule for who decides.
* :func:`conflicts` names the accepted proposals that set one field of one item to
  different values, so that ``release`` can refuse them.

Every refusal is a :class:`~medrcube_desktop.errors.CorrectionError` whose message names
the ``test.json`` (relative to the benchmark root), the item and the field.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from medrcube_desktop.core.corrections import (
    ACCEPTED,
    ANSWER_KEY,
    BBOX,
    MASK,
    OPTION_TEXT,
    QUESTION_TEXT,
    WITHDRAWN,
    AcceptedCorrection,
    Decision,
    Proposal,
    change_problem,
    changed_field,
    decode_labels,
)
from medrcube_desktop.core.fields import parse_id
from medrcube_desktop.core.files import read_file_text
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.names import same_name
from medrcube_desktop.errors import CorrectionError
from medrcube_desktop.review import blinding
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import StudyStore


def source_file_of(item: Item) -> str:
    """The item's ``test.json`` relative to its benchmark root (POSIX): what
    :attr:`Proposal.source_file` holds. The file's name alone for an item built without
    a root."""
    source = Path(item.source_file)
    if item.root is not None:
        try:
            return source.relative_to(item.root).as_posix()
        except ValueError:
            pass
    return source.name


def read_record(item: Item) -> dict[str, Any]:
    """The item's record as its ``test.json`` holds it now: every field, in the file's
    key order (``json.loads`` keeps it), values as written (an integer ``id`` stays one).

    Raises
    ------
    CorrectionError
        ``"FILE, item ID: …"``: the file cannot be read or parsed, or holds no record of
        that id (it changed since the benchmark was loaded).
    """
    where = f"{source_file_of(item)}, item {item.id}"
    try:
        records = json.loads(read_file_text(item.source_file, "utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise CorrectionError(f"{where}: cannot read the record: {exc}") from exc
    if isinstance(records, list):
        for record in records:
            if isinstance(record, dict) and parse_id(record.get("id"))[0] == item.id:
                return record
    raise CorrectionError(f"{where}: no record of this id in the file (changed since loaded?)")


def check_change(
    item: Item,
    kind: str,
    change: dict[str, Any],
    mask_labels: bytes | None = None,
    *,
    image_size: tuple[int, int] | None = None,
    slice_shape: tuple[int, int] | None = None,
    current_labels: Any = None,
) -> None:
    """Refuse a change that does not fit ``item``.

    Parameters
    ----------
    item : Item
        The item as loaded.
    kind, change, mask_labels
        As :class:`~medrcube_desktop.core.corrections.Proposal` holds them; the shape
        is checked first (:func:`~medrcube_desktop.core.corrections.change_problem`).
    image_size : (width, height) of int, optional
        The source image's size in pixels (columns, rows of the stored array), when
        known: a box must lie inside it (``x1 < width``, ``y1 < height``: its edges are
        the pixels that hold its corners, as ``imaging.compositing.draw_box`` draws them).
    slice_shape : (rows, cols) of int, optional
        The shape of the slice a mask change edits (the 2-D image's, or the volume's
        slice ``slice_index`` along ``axis``), when known: the labels must have it.
    current_labels : numpy.ndarray of (rows, cols), optional
        The labels that slice holds now, when known
        (:func:`~medrcube_desktop.imaging.stored_size.stored_mask_slice`): a mask change
        must differ from them.

    Raises
    ------
    CorrectionError
        ``"FILE, item ID, FIELD: why"``: an answer letter the item has no option of, or
        its current answer; an option letter it lacks, a text equal to the current one
        or to another option's (``gt_answer`` names the answer by its text); a question
        equal to the current one; a box outside the image or equal to the current one;
        labels of another shape than the slice's, or equal to its labels now.
    """
    where = f"{source_file_of(item)}, item {item.id}"
    problem = change_problem(kind, change, mask_labels)
    if problem is None:
        problem = _item_problem(item, kind, change, image_size, slice_shape)
    if problem is None and kind == MASK and current_labels is not None:
        problem = _same_labels(mask_labels, current_labels)
    if problem is not None:
        raise CorrectionError(f"{where}, {problem[0]}: {problem[1]}")


def _item_problem(
    item: Item,
    kind: str,
    change: dict[str, Any],
    image_size: tuple[int, int] | None,
    slice_shape: tuple[int, int] | None,
) -> tuple[str, str] | None:
    """:func:`check_change`'s checks against the item, once the shape is right."""
    letters = ", ".join(item.options)
    if kind == ANSWER_KEY:
        answer = change["answer"]
        if answer not in item.options:
            return "change.answer", f"{answer!r} is not an option of the item ({letters})"
        if answer == item.answer:
            return "change.answer", f"{answer} is already the answer"
    if kind == OPTION_TEXT:
        letter, text = change["letter"], change["text"]
        if letter not in item.options:
            return "change.letter", f"{letter!r} is not an option of the item ({letters})"
        text = text.strip()  # as build_proposal stores it
        if text == item.options[letter].strip():
            return "change.text", f"option_{letter} already reads {text!r}"
        same = [o for o, t in item.options.items() if o != letter and t.strip() == text]
        if same:
            return "change.text", f"option_{same[0]} already reads {text!r} (options differ)"
    if kind == QUESTION_TEXT and change["text"].strip() == item.question.strip():
        return "change.text", "the question already reads so"
    if kind == BBOX:
        return _bbox_fits(item, change["bbox"], image_size)
    if kind == MASK and slice_shape is not None:
        shape = tuple(change["shape"])
        if shape != tuple(slice_shape):
            return "change.shape", f"{list(shape)}: the slice is {list(slice_shape)} (rows, cols)"
    return None


def _same_labels(data: bytes | None, current: Any) -> tuple[str, str] | None:
    """A mask change whose labels equal the slice's labels now changes nothing."""
    import numpy as np

    labels = decode_labels(data or b"")
    if labels.shape == np.shape(current) and np.array_equal(labels, current):
        return "change.mask_labels", "the slice already has these labels"
    return None


def _bbox_fits(
    item: Item, box: list[float], image_size: tuple[int, int] | None
) -> tuple[str, str] | None:
    """A box inside the image (when its size is known) and other than the item's."""
    if item.bbox is not None and tuple(float(v) for v in box) == tuple(item.bbox):
        return "change.bbox", f"{box} is already the item's box"
    if image_size is not None:
        width, height = image_size
        if box[2] >= width or box[3] >= height:  # its edges are the pixels holding x1, y1
            return "change.bbox", (
                f"{box} reaches outside the image ({width} × {height} pixels: x below "
                f"{width}, y below {height})"
            )
    return None


def build_proposal(
    item: Item,
    kind: str,
    rule: str,
    reason: str,
    author: str,
    change: dict[str, Any],
    mask_labels: bytes | None = None,
    *,
    image_size: tuple[int, int] | None = None,
    slice_shape: tuple[int, int] | None = None,
    current_labels: Any = None,
) -> Proposal:
    """A new proposal for ``item`` (not stored): the change checked
    (:func:`check_change`; a new text stripped of white space at its ends),
    ``record_before`` read from its ``test.json``
    (:func:`read_record`), ``source_file`` relative to the benchmark root.

    Raises
    ------
    CorrectionError
        The change does not fit the item, or its record cannot be read (the message
        names the file, the item and the field). The rule, reason and author are
        checked when it is stored (StoreError).
    """
    check_change(item, kind, change, mask_labels, image_size=image_size,
                 slice_shape=slice_shape, current_labels=current_labels)  # fmt: skip
    return Proposal(
        item_id=item.id,
        kind=kind,
        rule=rule,
        reason=reason,
        author=author,
        change=_stripped(change),
        record_before=read_record(item),
        source_file=source_file_of(item),
        mask_labels=mask_labels,
    )


def _stripped(change: dict[str, Any]) -> dict[str, Any]:
    """``change`` with a new text stripped of white space at its ends (what the release
    writes)."""
    text = change.get("text")
    return {**change, "text": text.strip()} if isinstance(text, str) else dict(change)


def is_blind(store: StudyStore) -> bool:
    """Whether the study of ``store`` is blind (its stored settings)."""
    return StudySettings.load(store).blind


def check_blinding(store: StudyStore, reviewer: str, item_id: str, what: str) -> None:
    """Refuse ``what`` (``"propose a correction"``) of ``item_id`` by ``reviewer`` in a
    blind study before their own commit of it (:func:`blinding.may_reveal`).

    Raises
    ------
    CorrectionError
        ``"item ID: the study is blind: commit your own review of the item before you
        WHAT"``.
    """
    committed = any(  # "DR-A" committed what dr-a did (names compare without case)
        item_id in items
        for name, items in store.committed_items().items()
        if same_name(name, reviewer)
    )
    if not blinding.may_reveal(is_blind(store), committed):
        raise CorrectionError(
            f"item {item_id}: the study is blind: {reviewer}, commit your own review of "
            f"the item before you {what}"
        )


def propose(store: StudyStore, proposal: Proposal) -> Proposal:
    """Store ``proposal`` (made by :func:`build_proposal`) after the blinding check;
    return it as stored.

    Raises
    ------
    CorrectionError
        A blind study and no commit of the item by its author.
    StoreError
        A bad kind, rule, reason, author or change shape, or the write fails.
    """
    check_blinding(store, proposal.author, proposal.item_id, "propose a correction")
    return store.save_proposal(proposal)


def decide(
    store: StudyStore, proposal_uid: str, decision: str, reason: str, decider: str
) -> Decision:
    """Store a decision on a proposal: accept or reject one of another reviewer's
    (in a blind study only after one's own commit of the item), or withdraw one's own.
    A decided proposal may be decided again: the latest decision wins.

    Raises
    ------
    CorrectionError
        The decider may not see the item's proposals yet (blind study, no commit).
    StoreError
        No such proposal, one's own proposal accepted or rejected (or another's
        withdrawn), a withdrawn proposal, an unknown decision, an empty reason.
    """
    proposal = store.proposal(proposal_uid)
    if proposal is not None and decision != WITHDRAWN and not same_name(decider, proposal.author):
        verb = "accept" if decision == ACCEPTED else "reject"
        check_blinding(store, decider.strip(), proposal.item_id, f"{verb} a proposal on it")
    return store.save_decision(Decision(proposal_uid, decision, reason, decider))


def shown_proposals(
    proposals: Iterable[Proposal], viewer: str, blind: bool, committed: set[str]
) -> list[Proposal]:
    """Those of ``proposals`` the viewer may see (the queue's list): in a blind study
    their own and those on items they have committed (``committed``: item ids), else
    all; in the order given."""
    return [
        p
        for p in proposals
        if same_name(p.author, viewer) or blinding.may_reveal(blind, p.item_id in committed)
    ]


def _value(proposal: Proposal) -> str:
    """What a proposal sets its field to, comparable across proposals."""
    change = proposal.change
    if proposal.kind == MASK:
        return "labels sha256 " + hashlib.sha256(proposal.mask_labels or b"").hexdigest()[:12]
    if proposal.kind in (OPTION_TEXT, QUESTION_TEXT):
        return repr(change["text"])
    if proposal.kind == ANSWER_KEY:
        return str(change["answer"])
    return json.dumps(change.get("bbox", change), sort_keys=True)


def _target(proposal: Proposal) -> str:
    """The field a proposal sets, finer for a mask: one slice of the volume (two edits
    of different slices of one mask both apply)."""
    if proposal.kind == MASK and proposal.change.get("axis") is not None:
        from medrcube_desktop.review.proposal_export import mask_slice_text

        return f"mask_path, {mask_slice_text(proposal.change)}"  # the queue's words
    return changed_field(proposal)


def conflicts(
    accepted: Sequence[AcceptedCorrection], files: dict[str, str] | None = None
) -> list[str]:
    """One line per field of an item that accepted proposals set to different values:
    ``"ds1/test.json, item ID, field gt_answer: accepted proposals set it differently:
    C (UID by dr-a), D (UID by dr-b)"``; in the order the items first appear. Proposals that agree
    are no conflict, nor a retirement beside changes (the item is left out). The file
    is the proposal's ``source_file``, else ``files[item_id]`` (the release's own
    reading of the source)."""
    seen: dict[tuple[str, str], dict[str, list[Proposal]]] = {}
    for correction in accepted:
        p = correction.proposal
        if not changed_field(p):
            continue
        seen.setdefault((p.item_id, _target(p)), {}).setdefault(_value(p), []).append(p)
    lines = []
    for (item_id, target), values in seen.items():
        if len(values) > 1:
            source_file = next(iter(values.values()))[0].source_file or (files or {}).get(
                item_id, ""
            )
            said = ", ".join(
                f"{value} ({', '.join(f'{p.uid} by {p.author}' for p in ps)})"
                for value, ps in values.items()
            )
            where = f"{source_file}, " if source_file else ""
            lines.append(
                f"{where}item {item_id}, field {target}: accepted proposals set it "
                f"differently: {said}"
            )
    return lines
