"""Text that UTF-8 can hold: the one place a decoded answer loses half a character.

JSON may escape a lone UTF-16 surrogate (``"\\ud83d"``: an emoji whose second half an
answer cut at its token limit lost), Python's ``json`` decodes it into a ``str``, and
UTF-8 (SQLite's text, every file we write) has no code for it (RFC 3629 section 3:
U+D800..U+DFFF are not encoded), so the write fails with "surrogates not allowed".
Both ways an answer enters the study (``evaluate``'s endpoint, ``import-run``'s file)
store it with U+FFFD REPLACEMENT CHARACTER in that place and say so.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
"""A surrogate code point in a decoded ``str``: a lone one, since a whole escaped pair
(``\\ud83d\\ude00``) decodes to the one character it codes."""


HALF_CHARACTER = (
    "holds half of a UTF-16 surrogate pair (a character cut in two, as an answer cut off "
    "at its token limit has); stored with U+FFFD in its place"
)
"""What is said of an answer :func:`storable` changed, after what names it (``evaluate``'s
log, ``import-run``'s problems): one wording on both ways in."""


def storable(text: str) -> tuple[str, int]:
    """``text`` with each lone surrogate (U+D800..U+DFFF) replaced by U+FFFD, and how
    many were replaced (0: ``text`` itself, unchanged). ASCII text is returned at once."""
    if text.isascii():
        return text, 0
    return _SURROGATE.subn("\ufffd", text)
