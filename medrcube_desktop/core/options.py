"""Options declared once (issue 22 item 2): one :class:`Option` per setting, with its
name (the library's field or parameter), help, default, type, range and CLI flag. The
command's flags (:func:`medrcube_desktop.cli.option_flags.add_flags`), the pane's and
dialog's fields, the library's defaults and the Markdown tables of ``docs/*-options.md``
(:func:`markdown_table`, :func:`replace_between_markers`) are all made from the rows.

Free of Qt and argparse (both are kept to their layers by pyproject's import-linter
contracts), and light: a parser is built from these rows at every start.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

SEED_MAX = 2**32 - 1
"""Largest seed numpy's generators take (``--seed`` accepts 0 to this)."""

MAX_REPLICATES = 100_000
"""Bootstrap replicates at most: 100,000 give a percentile's Monte Carlo error well below
any interval's width; more would only take minutes and gigabytes."""


@dataclass(frozen=True)
class Option:
    """One setting, declared once.

    Attributes
    ----------
    name : str
        The library's name of it: the dataclass field or the function parameter.
    flag : str
        The CLI flag (``"--min-items"``); ``""``: no flag.
    label : str
        The pane's or dialog's label (``"Min. items per voxel"``); ``""``: no field.
    default : object
        The one default (None: none, or not sent); ``%(default)s`` in ``help`` is it.
    help : str
        What it does, for ``--help``, tooltips and the docs (argparse's ``%(default)s``
        may stand for the default).
    type : type
        ``int``, ``float``, ``str`` or ``bool`` (a flag that is present or not); for a
        value of its own syntax (``IN,OUT``), ``str`` and a ``kind``.
    minimum, maximum : int or float or None
        The range, both ends included (None: unbounded on that side).
    choices : tuple of str
        The values allowed (empty: any of ``type`` in the range).
    kind : str
        How the CLI parses the value: the name of a
        :mod:`medrcube_desktop.cli.argtypes` function (``"positive"``, ``"seed"``) or a
        parser the command passes by name; ``""``: ``type`` itself.
    metavar : str
        The value's name in ``--help`` (``"N"``).
    required : bool
        The command refuses to run without it.
    range_words : str
        The range in words where ``minimum`` and ``maximum`` cannot say it (an open end:
        ``"more than 0"``); shown by :meth:`range_text`.
    """

    name: str
    flag: str
    label: str
    default: object
    help: str
    type: type = int
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    kind: str = ""
    metavar: str = ""
    required: bool = False
    range_words: str = ""

    @property
    def dest(self) -> str:
        """The attribute argparse stores the flag's value under (``min_items``)."""
        return self.flag.lstrip("-").replace("-", "_")

    def help_text(self) -> str:
        """``help`` with ``%(default)s`` written as argparse writes it."""
        return self.help % {"default": self.default}

    def range_text(self) -> str:
        """``"1 or more"``, ``"0 to 100000"``, ``"paper, official, both"`` or ``""``."""
        if self.range_words:
            return self.range_words
        if self.choices:
            return ", ".join(self.choices)
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            return f"{_number(low)} to {_number(high)}"
        if low is not None:
            return f"{_number(low)} or more"
        if high is not None:
            return f"at most {_number(high)}"
        return ""


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def options(*rows: Option) -> dict[str, Option]:
    """The table of ``rows`` by name, in their order.

    Raises
    ------
    ValueError
        Two rows with one name or one flag, or a default outside its own range or choices.
    """
    table: dict[str, Option] = {}
    flags: set[str] = set()
    for row in rows:
        if row.name in table or (row.flag and row.flag in flags):
            raise ValueError(f"option {row.name!r} ({row.flag}) declared twice")
        problem = _default_problem(row)
        if problem:
            raise ValueError(f"option {row.name!r}: default {row.default!r} {problem}")
        table[row.name] = row
        flags.add(row.flag)
    return table


def _default_problem(row: Option) -> str:
    value = row.default
    if value is None or value == "" or isinstance(value, bool):  # none, or off
        return ""
    if row.choices and value not in row.choices:
        return f"is not one of {row.choices}"
    if isinstance(value, int | float):
        if row.minimum is not None and value < row.minimum:
            return f"is below {row.minimum}"
        if row.maximum is not None and value > row.maximum:
            return f"is above {row.maximum}"
    return ""


def defaults(table: Mapping[str, Option]) -> dict[str, object]:
    """Each option's default, by name."""
    return {name: row.default for name, row in table.items()}


def values_of(args: object, table: Mapping[str, Option]) -> dict[str, Any]:
    """Each option's value, by name, read from parsed arguments (any object with the
    flags' destinations as attributes, e.g. an ``argparse.Namespace``).

    Raises:
        AttributeError: ``args`` lacks a row's destination (its flag was never added).
    """
    return {name: getattr(args, row.dest) for name, row in table.items()}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _default_text(row: Option) -> str:
    if row.required:
        return "required"
    if row.type is bool:
        return "off" if not row.default else "on"
    return "—" if row.default is None or row.default == "" else f"`{row.default}`"


def markdown_table(rows: Iterable[Option]) -> str:
    """The Markdown table of ``rows``: CLI flag, pane field, default, type, range,
    help (one line per option, ``|`` escaped), ending in a newline."""
    lines = ["| CLI flag | Field | Default | Type | Range | Help |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    for row in rows:
        flag = f"`{row.flag}`" if row.flag else "—"
        kind = "flag" if row.type is bool else row.type.__name__
        lines.append(
            "| " + " | ".join(_cell(c) for c in (
                flag, row.label or "—", _default_text(row), kind, row.range_text() or "—",
                row.help_text(),
            )) + " |"
        )  # fmt: skip
    return "\n".join(lines) + "\n"


def markers(key: str) -> tuple[str, str]:
    """The begin and end markers of the generated part of a page
    (``<!-- compare-options:begin -->``)."""
    return f"<!-- {key}-options:begin -->", f"<!-- {key}-options:end -->"


def replace_between_markers(text: str, key: str, body: str) -> str:
    """``text`` with what stands between :func:`markers` of ``key`` replaced by
    ``body``.

    Raises
    ------
    ValueError
        ``text`` has not exactly one begin marker followed by one end marker.
    """
    begin, end = markers(key)
    found = list(re.finditer(re.escape(begin) + r"(.*?)" + re.escape(end), text, re.S))
    if len(found) != 1 or text.count(begin) != 1 or text.count(end) != 1:
        raise ValueError(f"expected one {begin} … {end} pair, found {len(found)}")
    start, stop = found[0].span(1)
    return text[:start] + "\n" + body + text[stop:]
