"""Proposals and their decisions as plain data: what ``proposals list --json`` prints and
``proposals export`` writes (JSON or CSV), every proposal with its latest decision and
its whole history. No Qt, no argparse.

A mask's labels are not written (they stay in the database, from which ``release``
reads them): the export gives their SHA-256 and the change's shape.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from medrcube_desktop.core.corrections import (
    ANSWER_KEY,
    BBOX,
    MASK,
    OPEN,
    OPTION_TEXT,
    QUESTION_TEXT,
    RETIRE,
    Decision,
    Proposal,
    changed_field,
    decode_labels,
)
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.store import StudyStore

FORMAT = "medrcube-proposals"
FORMAT_VERSION = 1

CSV_COLUMNS = (
    "uid", "item_id", "source_file", "kind", "field", "rule", "reason", "author",
    "created_at", "change", "status", "decided_by", "decided_at", "decision_reason",
    "revisions", "history", "app_version",
)  # fmt: skip
"""The CSV export's columns, one row per proposal (``change``, ``history``: JSON)."""


def decision_dict(d: Decision) -> dict[str, Any]:
    """One decision as JSON-ready data."""
    return {
        "uid": d.uid, "revision": d.revision, "decision": d.decision, "reason": d.reason,
        "decider": d.decider, "created_at": d.created_at, "app_version": d.app_version,
    }  # fmt: skip


def proposal_dict(p: Proposal, history: list[Decision], *, record: bool = True) -> dict[str, Any]:
    """One proposal as JSON-ready data: its fields (``record_before`` only with
    ``record``), the field it changes, ``status`` (``open`` or the latest decision),
    ``decision`` (the latest, or null) and ``history`` (every decision, oldest first)."""
    latest = history[-1] if history else None
    data: dict[str, Any] = {
        "uid": p.uid, "item_id": p.item_id, "source_file": p.source_file, "kind": p.kind,
        "field": changed_field(p), "rule": p.rule, "reason": p.reason, "author": p.author,
        "created_at": p.created_at, "app_version": p.app_version, "change": p.change,
        "status": latest.decision if latest else OPEN,
        "decision": decision_dict(latest) if latest else None,
        "history": [decision_dict(d) for d in history],
    }  # fmt: skip
    if p.mask_labels is not None:
        data["mask_labels_sha256"] = hashlib.sha256(p.mask_labels).hexdigest()
    if record:
        data["record_before"] = p.record_before
    return data


def mask_slice_text(change: dict[str, Any]) -> str:
    """Which slice a mask change edits, in the words of every place that shows one (the
    list, the export, the window's queue): ``2-D mask``, or ``slice_index 55 along axis
    2 (slice 56 in the viewer)`` (``slice_index`` and ``axis`` as stored, see
    :data:`~medrcube_desktop.core.corrections.MASK`; the viewer numbers slices from 1)."""
    if change.get("slice_index") is None:
        return "2-D mask"
    k = change["slice_index"]
    shown = f" (slice {k + 1} in the viewer)" if isinstance(k, int) else ""
    return f"slice_index {k} along axis {change.get('axis')}{shown}"


def change_text(p: Proposal) -> str:
    """A short line for the change: ``answer C``, ``option_B = 'text'``, ``bbox [..]``,
    ``mask slice_index 12 along axis 2 (slice 13 in the viewer), 512 x 512``,
    ``retire``."""
    change = p.change
    if p.kind == ANSWER_KEY:
        return f"answer {change['answer']}"
    if p.kind == OPTION_TEXT:
        return f"option_{change['letter']} = {change['text']!r}"
    if p.kind == QUESTION_TEXT:
        return f"question = {change['text']!r}"
    if p.kind == BBOX:
        return f"bbox {change['bbox']}"
    if p.kind == MASK:
        return f"mask {mask_slice_text(change)}, {change['shape'][0]} x {change['shape'][1]}"
    return "retire"


def from_to(proposal: Proposal) -> tuple[str, str]:
    """What a proposal changes, as ``(from, to)`` plain text: the window's queue shows
    it. ``from`` is the field's value in the record as it was when proposed (the value
    ``changes.json`` gives as ``from``: ``release`` refuses a source that holds another),
    ``to`` the value the release writes (for an answer key its letter and the option's
    text, which is ``gt_answer``'s ``to``; for a mask the slice, in
    :func:`mask_slice_text`'s words, and how many pixels it labels)."""
    record, change = proposal.record_before, proposal.change
    kind = proposal.kind
    if kind == ANSWER_KEY:  # one notation on both sides: the letter and its option's text
        letter = change.get("answer", "")
        now = str(record.get("gt_answer", "?"))
        held = next(
            (key[len("option_") :] for key in sorted(record)
             if key.startswith("option_") and str(record[key]) == now),
            "?",
        )  # fmt: skip
        return f"{held}. {now}", f"{letter}. {record.get(f'option_{letter}', '')!s}"
    if kind == OPTION_TEXT:
        letter = change.get("letter", "")
        return f"option_{letter}: {record.get(f'option_{letter}', '')!s}", str(change.get("text"))
    if kind == QUESTION_TEXT:
        return str(record.get("question", "")), str(change.get("text", ""))
    if kind == BBOX:
        return f"bbox {record.get('bbox', 'none')}", f"bbox {change.get('bbox')}"
    if kind == MASK:
        painted = ""
        if proposal.mask_labels:
            try:
                labels = decode_labels(proposal.mask_labels)
                painted = f", {int(np.count_nonzero(labels))} labelled pixels"
            except ValueError:
                painted = ", labels unreadable"
        return (
            f"mask_path {record.get('mask_path', 'none')}",
            f"{mask_slice_text(change)} {change.get('shape')}{painted}",
        )
    if kind == RETIRE:
        return "in the release", "retired (left out of the release)"
    return "", str(change)


def change_line(proposal: Proposal) -> str:
    """:func:`from_to` in one line, the words of the queue's detail and ``proposals
    list``: ``Now: A. X-ray → Proposed: B. CT``."""
    before, after = from_to(proposal)
    return f"Now: {before} → Proposed: {after}"


def listed(
    store: StudyStore, status: str = "all", item_id: str | None = None, record: bool = False
) -> list[dict[str, Any]]:
    """Every proposal (of one item when given; of one status unless ``status`` is
    ``"all"``) as :func:`proposal_dict`, in creation order. Two queries whatever the
    count."""
    history = store.every_decision()
    found = []
    for p in store.proposals(item_id):
        mine = history.get(p.uid, [])
        if status in ("all", mine[-1].decision if mine else OPEN):
            found.append(proposal_dict(p, mine, record=record))
    return found


def write_export(store: StudyStore, out: Path) -> int:
    """Write every proposal with its latest decision and history to ``out``: a JSON
    document (``{"format": "medrcube-proposals", "format_version": 1, "proposals":
    [...]}``, each with its ``record_before``) for ``.json``, else a CSV of
    :data:`CSV_COLUMNS` (``.csv``). Written whole or not at all. Returns the proposals
    written.

    Raises
    ------
    MedRCubeError
        ``out`` ends neither in ``.json`` nor ``.csv``, or the study holds no proposal
        (nothing is written, so an earlier export is never replaced by an empty one).
    OSError
        The file cannot be written (it is then unchanged).
    """
    suffix = out.suffix.lower()
    if suffix not in (".json", ".csv"):
        raise MedRCubeError(f"{out}: give a .json or .csv file to export the proposals to")
    rows = listed(store, record=True)
    if not rows:
        raise MedRCubeError(f"no proposal in {store.path}; nothing written to {out}")
    if suffix == ".json":
        from medrcube_desktop.core.files import atomic_write

        document = {"format": FORMAT, "format_version": FORMAT_VERSION, "proposals": rows}
        atomic_write(out, json.dumps(document, indent=1, ensure_ascii=False) + "\n")
    else:
        from medrcube_desktop.core.csvfile import write_csv

        write_csv(out, CSV_COLUMNS, (_csv_row(row) for row in rows))
    return len(rows)


def _csv_row(row: dict[str, Any]) -> list[object]:
    decision = row["decision"] or {}
    return [
        row["uid"], row["item_id"], row["source_file"], row["kind"], row["field"],
        row["rule"], row["reason"], row["author"], row["created_at"],
        json.dumps(row["change"], ensure_ascii=False), row["status"],
        decision.get("decider"), decision.get("created_at"), decision.get("reason"),
        len(row["history"]), json.dumps(row["history"], ensure_ascii=False),
        row["app_version"],
    ]  # fmt: skip
