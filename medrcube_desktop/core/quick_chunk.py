"""The loader's fastest path: a run of plainly valid records checked a column at a time.

``load_benchmark`` (without file checks at load) hands each file's records to
:func:`quick_chunk` in runs of :data:`CHUNK`. It pulls each field out of every record of
the run with C loops (``map``, ``itemgetter``, ``str.join``), checks the columns at once,
and builds the items in one comprehension: about a microsecond a record, where
:func:`~medrcube_desktop.core.quick_record.quick_item` takes three to five. It accepts a
run only when every record in it is one that ``quick_item`` accepts, and builds the same
items (tested against the full validation); anything else (one odd record is enough)
makes it return ``None``, and the run goes record by record through ``quick_item`` and
the full validation, which report every problem.

Per distinct value, not per record: task names (one :func:`canonical_task` each) and
image paths (joined and confined to the root once each). An item's ``image_path`` is
kept as text and made a ``Path`` when first read (``Item`` docs).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import itemgetter, sub
from typing import NoReturn, cast

from medrcube_desktop.core.fields import OPTION_FIELDS, parse_bbox
from medrcube_desktop.core.items import OPTION_LETTERS, Item
from medrcube_desktop.core.quick_record import _KNOWN, QuickContext, _failed, _NotQuick
from medrcube_desktop.core.taxonomy import canonical_task

__all__ = ["CHUNK", "QuickChunk", "quick_chunk"]

CHUNK = 512
"""Records per run: large enough for the C loops to pay, small enough that one odd record
sends few others down the slower path."""

_REQUIRED = (
    "id", "question", "option_A", "option_B", "gt_answer", "image_path", "task", "modality",
    "parts", "dataset",
)  # fmt: skip
_get_required = cast("Callable[[dict], tuple]", itemgetter(*_REQUIRED))
_strip = cast("Callable[[object], str]", str.strip)  # TypeError for what is not text
_NONE_TYPE = type(None)
_new = object.__new__
_set = object.__setattr__


@dataclass
class QuickChunk:
    """What :func:`quick_chunk` found in a run of records, all of them valid.

    Attributes
    ----------
    items : list[Item]
        One item per record, in order.
    zero_based, one_based : list[str]
        Ids of the items whose ``correct_index`` names the answer counting from 0 (from 1).
    restricted : list[Item]
        The items marked ``restricted: true`` (their image may be absent).
    """

    items: list[Item]
    zero_based: list[str]
    one_based: list[str]
    restricted: list[Item]


def quick_chunk(
    context: QuickContext, records: Sequence[object], seen_ids: dict[str, str]
) -> QuickChunk | None:
    """The items of ``records`` if every one is plainly valid, else ``None``.

    For loads without file checks (``context.dirs is None``). On success the ids are
    added to ``seen_ids``; on ``None`` nothing is changed. Longer than our functions
    usually are, for speed: each step is one C loop over the run, in one frame.
    """
    if context.dirs is not None or set(map(type, records)) != {dict}:
        return None
    rows = cast("Sequence[dict]", records)
    keys = set().union(*rows)
    try:
        columns = list(zip(*map(_get_required, rows), strict=True))
        ids = _ids(columns[0], seen_ids)
        texts = [list(map(_strip, column)) for column in columns[1:]]
    except (KeyError, TypeError, _NotQuick):  # a field missing, not text, or an odd id
        return None
    question, option_a, option_b, gt_answer, image_path, task, modality, parts, dataset = texts
    if not all(map(all, texts)):
        return None
    if "mask_path" in keys and any(r.get("mask_path") is not None for r in rows):
        return None  # masks are checked record by record
    options = _options(rows, keys, option_a, option_b)
    tasks = _tasks(context, task)
    paths = _image_paths(context, image_path)
    if options is None or tasks is None or paths is None:
        return None
    positions = [
        o.index(g) if o.count(g) == 1 else -1 for o, g in zip(options, gt_answer, strict=True)
    ]
    if -1 in positions:
        return None
    try:
        zero, one = _conventions(rows, keys, ids, positions)
        restricted = _optional(rows, keys, "restricted", bool)
        original = _optional(rows, keys, "original_task", str)
        bbox = _bboxes(rows, keys)
    except _NotQuick:
        return None
    plain = keys <= _KNOWN  # else each item keeps its other fields in ``extra``
    extra = [None] * len(rows) if plain else [_extra(r) for r in rows]
    seen_ids.update(dict.fromkeys(ids, context.rel))
    source, root, letters, raw_task = context.source_file, context.root, OPTION_LETTERS, columns[6]
    # _set(new(Item)...) is None: "or item" gives the item (item_from_fields, inline)
    items = [
        _set(item := _new(Item), "__dict__", {
            "id": i, "question": q, "options": o, "answer": letters[p], "task": tasks[t],
            "raw_task": rt, "modality": m, "region": pa, "dataset": d, "_image_text": ip,
            "source_file": source, "mask_path": None, "bbox": b,
            "extra": {} if x is None else x, "original_task": ot, "restricted": bool(r),
            "root": root,
        }) or item
        for i, q, o, p, t, rt, m, pa, d, ip, b, x, ot, r in zip(
            ids, question, _option_dicts(options), positions, task, raw_task, modality, parts,
            dataset, paths, bbox, extra, original, restricted, strict=True,
        )
    ]  # fmt: skip
    flagged = [item for item, r in zip(items, restricted, strict=True) if r]
    return QuickChunk(items, zero, one, flagged)


def _option_dicts(options: list[tuple[str, ...]]) -> list[dict[str, str]]:
    """Letter to text, per record (a dict display per count: 5 times faster than
    ``dict(zip(letters, texts))``)."""
    counts = set(map(len, options))
    if counts == {4}:
        return [{"A": a, "B": b, "C": c, "D": d} for a, b, c, d in options]
    if counts == {2}:
        return [{"A": a, "B": b} for a, b in options]
    if counts == {3}:
        return [{"A": a, "B": b, "C": c} for a, b, c in options]
    return [dict(zip(OPTION_LETTERS, o, strict=False)) for o in options]


def _extra(record: dict) -> dict[str, object]:
    return {k: v for k, v in record.items() if k not in _KNOWN}


def _ids(raw: Sequence[object], seen_ids: dict[str, str]) -> list[str]:
    """The run's ids (stripped text, or integers as text); raises ``_NotQuick`` unless
    each is one :func:`quick_item` accepts and none was seen before."""
    kinds = set(map(type, raw))
    if kinds == {int}:
        ids = list(map(str, raw))
    elif kinds == {str}:
        ids = list(map(_strip, raw))
        # isprintable is per character: on the joined text it checks every id at once;
        # no id then holds a line break, so "\n#" finds exactly an id starting with "#"
        if not all(ids) or not "".join(ids).isprintable() or "\n#" in "\n" + "\n".join(ids):
            raise _NotQuick
    else:
        raise _NotQuick
    if len(set(ids)) != len(ids) or not seen_ids.keys().isdisjoint(ids):
        raise _NotQuick  # a duplicate: the full validation says which
    return ids


def _options(
    rows: Sequence[dict], keys: set[str], option_a: list[str], option_b: list[str]
) -> list[tuple[str, ...]] | None:
    """Each record's stripped option texts (2 to 6, no gap, none empty), or ``None``."""
    later = [f for f in OPTION_FIELDS[2:] if f in keys]
    if not later:
        return list(zip(option_a, option_b, strict=True))
    last = OPTION_FIELDS.index(later[-1])
    columns = [[r.get(f) for r in rows] for f in OPTION_FIELDS[2 : last + 1]]
    try:
        if not any(None in column for column in columns):  # every record has them all
            stripped = [list(map(_strip, column)) for column in columns]
            if not all(map(all, stripped)):
                return None
            return list(zip(option_a, option_b, *stripped, strict=True))
        options = list(map(_trimmed, zip(option_a, option_b, *columns, strict=True)))
    except TypeError:  # an option that is not text
        return None
    return None if None in options else cast("list[tuple[str, ...]]", options)


def _trimmed(values: tuple[object, ...]) -> tuple[str, ...] | None:
    """The options up to the first absent one, stripped, if none follows it."""
    count = values.index(None) if None in values else len(values)
    if values.count(None) != len(values) - count:
        return None  # an option after a gap
    options = tuple(map(_strip, values[:count]))
    return options if all(options) else None


def _tasks(context: QuickContext, names: list[str]) -> dict[str, object] | None:
    """Canonical task per distinct name (cached in ``context.tasks``); None if unknown."""
    known = context.tasks
    for name in set(names).difference(known):
        known[name] = canonical_task(name)
    return None if any(known[name] is None for name in set(names)) else known  # type: ignore[return-value]


def _image_paths(context: QuickContext, values: list[str]) -> list[str] | None:
    """The normalised absolute path of each ``image_path`` as text, or ``None`` when one
    is not plainly relative and inside the root (the full validation says why)."""
    texts = context.texts
    for value in set(values).difference(texts):
        texts[value] = _joined(context, value)
    paths = list(map(texts.__getitem__, values))
    return None if None in paths else cast("list[str]", paths)


def _joined(context: QuickContext, value: str) -> str | None:
    """``value`` joined to the file's folder and normalised, if plainly inside the root."""
    if value[0] in "/\\" or "\0" in value or ":" in value:  # odd: the full path decides
        return None
    if os.sep == "/" and "//" not in value and value[-1] != "/" and "/." not in "/" + value:
        return context.folder + "/" + value  # no empty, "." or ".." part: normal already
    joined = os.path.normpath(context.folder + os.sep + value)
    return joined if joined.startswith(context.root_prefix) else None


def _conventions(
    rows: Sequence[dict], keys: set[str], ids: list[str], positions: list[int]
) -> tuple[list[str], list[str]]:
    """Ids whose ``correct_index`` names the answer 0-based, and 1-based; raises
    ``_NotQuick`` for an index that is not an integer naming it either way."""
    if "correct_index" not in keys:
        return [], []
    given = [r.get("correct_index") for r in rows]
    if not set(map(type, given)) <= {int, _NONE_TYPE}:
        return _raise()
    if None in given:  # only the items that give one
        present = [
            (i, c, p) for i, c, p in zip(ids, given, positions, strict=True) if c is not None
        ]
        ids = [i for i, _, _ in present]
        given = [c for _, c, _ in present]
        positions = [p for _, _, p in present]
    offsets = list(map(sub, cast("list[int]", given), positions))
    kinds = set(offsets)
    if not kinds <= {0, 1}:
        return _raise()
    if len(kinds) < 2:
        return (list(ids), []) if kinds == {0} else ([], list(ids))
    zero = [i for i, d in zip(ids, offsets, strict=True) if d == 0]
    one = [i for i, d in zip(ids, offsets, strict=True) if d == 1]
    return zero, one


def _optional(rows: Sequence[dict], keys: set[str], name: str, kind: type) -> list:
    """An optional field's values (``None`` where absent; text stripped); raises
    ``_NotQuick`` for a value of another kind, or empty text."""
    if name not in keys:
        return [None] * len(rows)
    values = [r.get(name) for r in rows]
    if not set(map(type, values)) <= {kind, _NONE_TYPE}:
        return _raise()
    if kind is str:
        values = [v if v is None else v.strip() for v in values]
        if "" in values:
            return _raise()
    return values


def _bboxes(rows: Sequence[dict], keys: set[str]) -> list:
    """Each record's parsed ``bbox`` or ``None``; raises ``_NotQuick`` for a bad one."""
    if "bbox" not in keys:
        return [None] * len(rows)
    return [None if r.get("bbox") is None else parse_bbox(r["bbox"], _failed) for r in rows]


def _raise() -> NoReturn:
    raise _NotQuick
