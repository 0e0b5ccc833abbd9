"""Names people give (runs, models, reviewers): checked once where they enter, and shown
safely wherever they go out.

A name travels to terminals, spreadsheets and file names. A control character in it
crashes openpyxl (``IllegalCharacterError``: one bad name breaks a whole export), and an
escape sequence in it reaches a terminal raw (``ESC ] 0 ; … BEL`` sets the window title).
So a new name is refused when it holds a character that is not shown as itself
(:func:`check_name`), and every writer makes what an older database holds visible:
:func:`visible` for terminals, :func:`spreadsheet_text` for workbooks.
"""

from __future__ import annotations

import logging
import unicodedata

HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
"""Unicode general categories of characters that are not shown as themselves: controls
(C0, DEL, C1: escape sequences, bells, carriage returns), format characters (bidi
overrides and isolates that reorder what follows, zero-width marks), surrogates, private
use, and the line and paragraph separators."""

JOINERS = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: format characters that belong to words (Persian, emoji
sequences), so a name may hold them."""


def hidden(char: str) -> bool:
    """Whether one character is not shown as itself (:data:`HIDDEN_CATEGORIES`, less
    :data:`JOINERS`)."""
    return char not in JOINERS and unicodedata.category(char) in HIDDEN_CATEGORIES


def _escape(char: str) -> str:
    """``\\x1b``, ``\\u202e``, ``\\U000e0001``: the character as Python writes it."""
    return char.encode("unicode_escape").decode("ascii")


def visible(text: str, keep: str = "\n\t") -> str:
    """``text`` with every hidden character (:func:`hidden`) but those in ``keep``
    written out as its escape (``ESC`` → ``\\x1b``, U+202E → ``\\u202e``): what a
    terminal or a spreadsheet may be given.

    Parameters
    ----------
    text : str
    keep : str
        Hidden characters left as they are (by default line feed and tab, which
        messages of several lines need).

    Returns
    -------
    str
        ``text`` itself when nothing needs escaping.
    """
    if text.isprintable():  # the usual case, at C speed
        return text
    return "".join(_escape(c) if hidden(c) and c not in keep else c for c in text)


def spreadsheet_text(text: str) -> str:
    """``text`` as a workbook cell may hold it: every character that openpyxl refuses
    (``openpyxl.cell.cell.ILLEGAL_CHARACTERS_RE``, C0 controls but tab, line feed and
    carriage return) and every other hidden character written out as its escape."""
    return visible(text, keep="\n\t\r")


class VisibleFormatter(logging.Formatter):
    """A logging formatter for a terminal: every record as :func:`visible` shows it (a
    name in a log line, from an older database or a file name, is shown, not run)."""

    def format(self, record: logging.LogRecord) -> str:  # noqa: A003 (logging API)
        return visible(super().format(record))


def check_name(text: str, what: str = "name") -> str:
    """``text`` stripped, when it can serve as a name (a run's, a model's, a reviewer's).

    Parameters
    ----------
    text : str
        The name as given.
    what : str
        What it names, for the message (``"run name"``).

    Returns
    -------
    str
        The name without leading and trailing white space.

    Raises
    ------
    ValueError
        The name is blank, or holds a character that is not shown as itself (a control
        character such as ESC or a tab, a bidi override, a line separator; see
        :data:`HIDDEN_CATEGORIES`): the message names the first such character and its
        position, and shows the name with it made visible.
    """
    name = text.strip()
    if not name:
        raise ValueError(f"{what}: must not be blank")
    for at, char in enumerate(name, 1):
        if hidden(char):
            label = unicodedata.name(char, "") or "a control character"
            raise ValueError(
                f"{what} '{visible(name)}': character {at} is U+{ord(char):04X} "
                f"({label.lower()}), which is not shown as itself (terminals would run "
                "it, spreadsheets refuse it); give the name without it"
            )
    return name
