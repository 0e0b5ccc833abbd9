"""Names people give (runs, models, reviewers): checked once where they enter, and shown
safely wherever they go out.

A name travels to terminals, spreadsheets and file names. A control character in it
crashes openpyxl (``IllegalCharacterError``: one bad name breaks a whole export), and an
escape sequence in it reaches a terminal raw (``ESC ] 0 ; … BEL`` sets the window title).
So a new name is refused when it holds a character that is not shown as itself, shows
nothing at all, or is too long; it is stored in Unicode's composed form (NFC), so ``café``
typed two ways is one name (:func:`check_name`). Every writer makes what an older
database holds visible: :func:`visible` for terminals, :func:`file_text` for every file
(CSV, HTML, SVG and PNG text, workbooks), :func:`figure_text` for matplotlib labels.
"""

from __future__ import annotations

import logging
import unicodedata
from collections.abc import Callable

HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
"""Unicode general categories of characters that are not shown as themselves: controls
(C0, DEL, C1: escape sequences, bells, carriage returns), format characters (bidi
overrides and isolates that reorder what follows, zero-width marks), surrogates, private
use, and the line and paragraph separators."""

JOINERS = frozenset("\u200c\u200d")
"""Zero-width (non-)joiners: format characters that belong to words (Persian, emoji
sequences), so a name may hold them."""


MAX_NAME_LENGTH = 200
"""Characters a new name may have at most: a model's or reviewer's name is a few dozen;
longer ones are cut in tables and make file names the file system refuses."""

BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u034f\u00ad\u180e")
"""Characters that are letters or symbols to Unicode but show as blank space: the Hangul
fillers (U+115F, U+1160, U+3164, U+FFA0), the braille blank (U+2800), the Khmer inherent
vowels, the combining grapheme joiner, the soft hyphen and the Mongolian vowel
separator (most are Unicode's "default ignorable" code points)."""


def _noncharacter(code: int) -> bool:
    """U+FDD0..U+FDEF and the last two code points of every plane (U+FFFE, U+FFFF, …):
    never characters, and illegal in XML 1.0 (an SVG holding one does not parse)."""
    return 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE


def has_text(value: object) -> bool:
    """Whether ``value`` is a string with a visible character: not None, not only white
    space, nor only zero-width or other format characters (Unicode category Cf, e.g.
    U+200B). What a required reason or name must hold (adjudications, proposals and
    their decisions)."""
    return isinstance(value, str) and any(
        not ch.isspace() and unicodedata.category(ch) != "Cf" for ch in value
    )


def name_key(name: str) -> str:
    """``name`` as two names that are one person's compare: stripped, NFKC-folded
    (full-width ``ＤＲ`` is ``DR``) and case-folded (``DR-A`` is ``dr-a``, ``ß`` is
    ``ss``). What decides whether a reviewer is a proposal's author."""
    return unicodedata.normalize("NFKC", name).casefold().strip()


def same_name(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` name the same person (:func:`name_key` of both equal)."""
    return name_key(a) == name_key(b)


BIDI_CONTROLS = frozenset("\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e"
                          "\u2066\u2067\u2068\u2069")  # fmt: skip
"""The bidirectional controls: the marks (LRM, RLM, ALM), embeddings and overrides
(U+202A..U+202E) and isolates (U+2066..U+2069). In a text they reorder what a reader sees
("accept" can show as "tpecca"), so a text people decide on must not hold them."""


def is_format(char: str) -> bool:
    """Whether one character is a format character (Unicode category Cf: zero-width
    space U+200B, the joiners, the soft hyphen, every bidi control): it shows nothing,
    so two texts that differ only by one look the same."""
    return unicodedata.category(char) == "Cf"


def hidden_character(
    text: str, what: str, is_hidden: Callable[[str], bool] | None = None
) -> str | None:
    """The message that refuses ``text`` for its first hidden character, or ``None``
    when it has none: ``"WHAT: character N is U+202E (right-to-left override), which is
    not shown as itself; give the text without it"``. The check :func:`check_name`
    makes of a name, for other texts: a proposed option or question (``is_hidden``
    :func:`is_format`), a reason (``BIDI_CONTROLS.__contains__``).

    Parameters
    ----------
    text : str
    what : str
        What the text is, to start the message (``"change.text"``).
    is_hidden : callable, optional
        Which characters are refused; by default :func:`hidden`'s.
    """
    found = _first_hidden(text, is_hidden or hidden)
    if found is None:
        return None
    at, char, label = found
    return (
        f"{what}: character {at} is U+{ord(char):04X} ({label}), which is not shown as "
        "itself; give the text without it"
    )


def _first_hidden(text: str, is_hidden: Callable[[str], bool]) -> tuple[int, str, str] | None:
    """(position from 1, character, its lower-case Unicode name) of the first character
    of ``text`` that ``is_hidden``, or ``None``."""
    for at, char in enumerate(text, 1):
        if is_hidden(char):
            return at, char, (unicodedata.name(char, "") or "a control character").lower()
    return None


def hidden(char: str) -> bool:
    """Whether one character is not shown as itself (:data:`HIDDEN_CATEGORIES`, less
    :data:`JOINERS`, and the noncharacters such as U+FFFF)."""
    if char in JOINERS:
        return False
    return unicodedata.category(char) in HIDDEN_CATEGORIES or _noncharacter(ord(char))


def _shows(char: str) -> bool:
    """Whether one character leaves a mark: not white space, not a mark without a base,
    a control, a format character or a separator, not :data:`BLANK_LOOKING`."""
    return unicodedata.category(char)[0] not in "MCZ" and char not in BLANK_LOOKING


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


def file_text(text: object) -> str:
    """``text`` as any file the app writes may hold it (CSV, HTML, SVG and PNG text and
    metadata, workbook cells): every hidden character but tab, line feed and carriage
    return written out as its escape, as :func:`visible` does for a terminal.

    What is left is legal XML 1.0 (no C0 control but tab, line feed, carriage return; no
    surrogate; no U+FFFE or U+FFFF), what openpyxl accepts
    (``openpyxl.cell.cell.ILLEGAL_CHARACTERS_RE``), and shows a bidi override or a
    terminal escape sequence as text instead of acting on it.

    Parameters
    ----------
    text : object
        Its ``str`` is taken.

    Returns
    -------
    str
    """
    return visible(str(text), keep="\n\t\r")


spreadsheet_text = file_text
"""A workbook cell's text: :func:`file_text` (one rule for every file)."""


def html_text(text: object) -> str:
    """``text`` for an HTML page: :func:`file_text`, then ``html.escape`` (``&``, ``<``,
    ``>`` and both quotes as entities)."""
    import html

    return html.escape(file_text(text))


LABEL_LENGTH = 40
"""Characters of a name a figure shows beside a point or on an axis; a longer one is cut
with "…" (a 5,000-character run name would squeeze the axes to nothing)."""


def figure_text(text: object, limit: int | None = None) -> str:
    """``text`` for a matplotlib label: :func:`file_text`, tab and carriage return
    escaped too (so no control character reaches a glyph lookup or an SVG), line feeds
    kept (they break a title's lines), ``$`` escaped (it would start mathtext, and a
    lone one raises).

    Parameters
    ----------
    text : object
        Its ``str`` is taken.
    limit : int, optional
        Characters kept at most (of ``text`` made visible); a longer text is cut and
        ends in "…". For names: :data:`LABEL_LENGTH`.
    """
    shown = visible(str(text), keep="\n")  # a tab or CR has no glyph: escaped too
    if limit is not None and len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return shown.replace("$", r"\$")


class VisibleFormatter(logging.Formatter):
    """A logging formatter for a terminal: every record as :func:`visible` shows it (a
    name in a log line, from an older database or a file name, is shown, not run)."""

    def format(self, record: logging.LogRecord) -> str:  # noqa: A003 (logging API)
        return visible(super().format(record))


def check_name(text: str, what: str = "name") -> str:
    """``text`` in composed form (NFC) and stripped, when it can serve as a new name (a
    run's, a model's, a reviewer's).

    Parameters
    ----------
    text : str
        The name as given.
    what : str
        What it names, for the message (``"run name"``).

    Returns
    -------
    str
        The name, NFC-normalised (``unicodedata.normalize``: ``"cafe\\u0301"`` becomes
        ``"caf\\u00e9"``), without leading and trailing white space: what is stored.

    Raises
    ------
    ValueError
        The name is blank or shows nothing (only marks, fillers such as U+3164 or
        U+2800, format characters), is longer than :data:`MAX_NAME_LENGTH`, or holds a character that is not shown as itself (a control
        character such as ESC or a tab, a bidi override, a line separator; see
        :data:`HIDDEN_CATEGORIES`): the message names the first such character and its
        position, and shows the name with it made visible.
    """
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        raise ValueError(f"{what}: must not be blank")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(
            f"{what} '{visible(name[:40])}…': {len(name):,} characters, at most "
            f"{MAX_NAME_LENGTH} are allowed"
        )
    if (found := _first_hidden(name, hidden)) is not None:
        at, char, label = found
        raise ValueError(
            f"{what} '{visible(name)}': character {at} is U+{ord(char):04X} "
            f"({label}), which is not shown as itself (terminals would run "
            "it, spreadsheets refuse it); give the name without it"
        )
    if not any(_shows(char) for char in name):
        shown = ", ".join(f"U+{ord(c):04X}" for c in name[:8])
        raise ValueError(f"{what} ({shown}): shows no visible character; give a name that does")
    return name
