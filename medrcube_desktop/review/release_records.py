"""The byte-preserving rewrite of a ``test.json`` for a release (issue 23, item 3).

A release keeps every record it does not change exactly as the source wrote it (key
order, indentation, separators, escapes), so that a diff of the two files shows the
corrections and nothing else. :func:`read_records_file` finds each record's span in the
file's text with the standard library's JSON scanner (``json.JSONDecoder.raw_decode``,
walking the top-level list); :func:`rewrite_record` replaces the values of the named
fields inside one record's text, in the style of the file (detected: indentation,
separators, ``\\uXXXX`` escapes or UTF-8), leaving the rest of the record as it was;
:func:`assemble` puts the file back together from the untouched spans, the separators
between them, the rewritten records and without the retired ones. No Qt, no store.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from medrcube_desktop.errors import DatasetError

__all__ = [
    "Member", "RecordsFile", "ReleaseError", "assemble", "members", "read_records_file",
    "rewrite_record",
]  # fmt: skip


class ReleaseError(DatasetError):
    """A release refused for its input: a ``test.json`` that is no JSON list, a
    correction that does not fit its item, two that contradict each other, an unusable
    source or output folder (exit status 2). The message names the file, item and field."""


_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_BOM = "\ufeff"


def _tolerant_int(text: str) -> int | str:
    """An integer too long for ``int()`` kept as its text (the loader reports it)."""
    try:
        return int(text)
    except ValueError:
        return text


_TOLERANT = json.JSONDecoder(parse_int=_tolerant_int)


@dataclass
class RecordsFile:
    """One ``test.json`` as text, with the span of each record of its top-level list.

    Attributes
    ----------
    path : Path
        The file read.
    bom : str
        ``"\\ufeff"`` when the file starts with a UTF-8 byte-order mark, else ``""``
        (kept as it was).
    text : str
        The file's text after the mark.
    spans : list of (int, int)
        ``text[start:end]`` of each record, in file order.
    records : list
        Each record as parsed (a dict for a valid record).
    ensure_ascii : bool
        Whether new text is written with ``\\uXXXX`` escapes: True unless the file
        holds non-ASCII characters as they are (then it is UTF-8 text as written).
    """

    path: Path
    bom: str
    text: str
    spans: list[tuple[int, int]]
    records: list[Any]
    ensure_ascii: bool


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    return match.end() if match else index


def _decode(text: str, index: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, index)
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer beyond int()'s digit limit
        return _TOLERANT.raw_decode(text, index)


def _invalid(path: Path, text: str, index: int, what: str) -> ReleaseError:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return ReleaseError(f"{path}: invalid JSON at line {line} column {column}: {what}")


def read_records_file(path: Path) -> RecordsFile:
    """Read ``path`` (a ``test.json``) and find the span of each record.

    Parameters
    ----------
    path : Path
        A JSON file holding a list (UTF-8, an optional byte-order mark).

    Returns
    -------
    RecordsFile

    Raises
    ------
    ReleaseError
        The file cannot be read, is not UTF-8, not valid JSON or not a list; naming the
        file (and the line and column).
    """
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except OSError as exc:
        raise ReleaseError(f"{path}: cannot read the file: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ReleaseError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    bom = _BOM if text.startswith(_BOM) else ""
    text = text[len(bom) :]
    index = _skip(text, 0)
    if not text.startswith("[", index):
        raise ReleaseError(f"{path}: expected a JSON list of items")
    spans: list[tuple[int, int]] = []
    records: list[Any] = []
    index = _skip(text, index + 1)
    if text.startswith("]", index):
        index += 1
    else:
        while True:
            try:
                record, end = _decode(text, index)
            except json.JSONDecodeError as exc:
                raise _invalid(path, text, exc.pos, exc.msg) from exc
            except RecursionError as exc:
                raise ReleaseError(f"{path}: invalid JSON: nested too deeply") from exc
            spans.append((index, end))
            records.append(record)
            index = _skip(text, end)
            if text.startswith(",", index):
                index = _skip(text, index + 1)
            elif text.startswith("]", index):
                index += 1
                break
            else:
                raise _invalid(path, text, index, "expected ',' or ']'")
    if _skip(text, index) != len(text):
        raise _invalid(path, text, _skip(text, index), "extra data after the list")
    return RecordsFile(path, bom, text, spans, records, ensure_ascii=text.isascii())


@dataclass(frozen=True)
class Member:
    """One ``"key": value`` of a record, as offsets into the file's text."""

    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int


def members(text: str, start: int, end: int) -> list[Member]:
    """The members of the JSON object ``text[start:end]`` (well-formed: it was parsed),
    in the order written (a repeated key listed each time)."""
    found: list[Member] = []
    index = _skip(text, start + 1)
    if text.startswith("}", index):
        return found
    while index < end:
        key, key_end = _DECODER.raw_decode(text, index)
        colon = _skip(text, key_end)
        value_start = _skip(text, colon + 1)
        _, value_end = _decode(text, value_start)
        found.append(Member(key, index, key_end, value_start, value_end))
        index = _skip(text, value_end)
        if not text.startswith(",", index):
            break
        index = _skip(text, index + 1)
    return found


@dataclass(frozen=True)
class _Style:
    """How one record is written: what separates its members and keys from values."""

    member_sep: str  # ",\n    " or ", " or ","
    key_sep: str  # ": " or ":"
    newline: str  # "\n" or "\r\n"
    indent: str  # the members' indentation ("" when on one line)
    unit: str  # one level of indentation
    ensure_ascii: bool

    @property
    def multiline(self) -> bool:
        return "\n" in self.member_sep


def _style(text: str, start: int, end: int, found: list[Member], ensure_ascii: bool) -> _Style:
    opening = text[start + 1 : found[0].key_start] if found else ""
    if len(found) > 1:
        member_sep = text[found[0].value_end : found[1].key_start]
    else:
        member_sep = "," + opening if "\n" in opening else ", "
    key_sep = text[found[0].key_end : found[0].value_start] if found else ": "
    newline = "\r\n" if "\r\n" in member_sep else "\n"
    indent = member_sep.rsplit("\n", 1)[1] if "\n" in member_sep else ""
    closing_line = text[text.rfind("\n", start, end) + 1 : end - 1] if "\n" in member_sep else ""
    closing = closing_line if not closing_line.strip() else ""
    unit = indent[len(closing) :] if indent.startswith(closing) and indent != closing else "  "
    return _Style(member_sep, key_sep, newline, indent, unit, ensure_ascii)


def _format(value: Any, old: str | None, style: _Style) -> str:
    """``value`` as JSON text in the record's style; a list as the old value's list was
    written (one line or one element a line), else as the record is."""
    if not isinstance(value, list) or not value:
        return json.dumps(value, ensure_ascii=style.ensure_ascii)
    items = [json.dumps(v, ensure_ascii=style.ensure_ascii) for v in value]
    old_list = old is not None and old.startswith("[")
    multiline = ("\n" in old) if old_list and old is not None else style.multiline
    if multiline:
        inner = style.indent + style.unit
        return (
            "[" + style.newline + inner + ("," + style.newline + inner).join(items)
            + style.newline + style.indent + "]"
        )  # fmt: skip
    separator = ", "
    if old_list and old is not None:
        found = re.search(r",[ \t]*", old)
        separator = found.group(0) if found else separator
    elif not style.multiline:
        separator = style.member_sep
    return "[" + separator.join(items) + "]"


def rewrite_record(
    text: str, start: int, end: int, updates: dict[str, Any], ensure_ascii: bool
) -> str:
    """The record ``text[start:end]`` with the values of ``updates`` in place of its own.

    A field the record has keeps its place (its last occurrence, the one a JSON reader
    keeps, is replaced); a field it lacks is added after its last member, in the
    record's style. Every other character of the record stays as it was.

    Parameters
    ----------
    text : str
        The whole file's text (:attr:`RecordsFile.text`).
    start, end : int
        The record's span (a JSON object).
    updates : dict
        Field name → new JSON-serialisable value.
    ensure_ascii : bool
        Write non-ASCII characters as ``\\uXXXX`` escapes (the file's own way).

    Returns
    -------
    str
        The new text of the record alone.
    """
    found = members(text, start, end)
    style = _style(text, start, end, found, ensure_ascii)
    last = {member.key: member for member in found}
    replaced = sorted(
        ((last[key], value) for key, value in updates.items() if key in last),
        key=lambda pair: pair[0].value_start,
    )
    pieces, at = [], start
    for member, value in replaced:
        pieces += [
            text[at : member.value_start],
            _format(value, text[member.value_start : member.value_end], style),
        ]
        at = member.value_end
    added = [(key, value) for key, value in updates.items() if key not in last]
    if added:
        tail = found[-1].value_end if found else start + 1
        pieces.append(text[at:tail])
        for n, (key, value) in enumerate(added):
            lead = style.member_sep if (found or n) else style.member_sep.lstrip(",")
            pieces += [lead, json.dumps(key, ensure_ascii=ensure_ascii), style.key_sep]
            pieces.append(_format(value, None, style))
        at = tail
    pieces.append(text[at:end])
    return "".join(pieces)


def assemble(file: RecordsFile, replaced: dict[int, str | None]) -> bytes:
    """The file's bytes with ``replaced`` records: index → new text, or None to leave
    the record out (with its separator, so the list stays valid JSON).

    Everything else is copied from the source text: the text before the first record,
    each kept record and the separator that followed it, the text after the last. With
    nothing replaced the result is the source's bytes exactly.
    """
    text, spans = file.text, file.spans
    if not spans:
        return (file.bom + text).encode("utf-8")
    kept = [i for i in range(len(spans)) if replaced.get(i, "") is not None]
    pieces = [file.bom, text[: spans[0][0]]]
    for n, i in enumerate(kept):
        start, end = spans[i]
        new = replaced.get(i)
        pieces.append(text[start:end] if new is None else new)
        if n + 1 < len(kept):
            pieces.append(text[end : spans[i + 1][0]])  # the separator that followed it
    if not kept:
        pieces.append(text[spans[-1][1] :].lstrip(" \t\r\n"))  # "]" and what follows
    else:
        pieces.append(text[spans[-1][1] :])
    return "".join(pieces).encode("utf-8")
