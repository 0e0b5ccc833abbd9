"""Counts in words: ``1 item``, ``3 items``; one place for every surface (the CLI's
messages, the window's status lines and dialogs), so none prints "1 restricted items"."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``n`` and ``noun``, the noun in the plural unless ``n`` is 1.

    Parameters
    ----------
    n : int
        The count.
    noun : str
        The singular (``"restricted item"``).
    many : str, optional
        The plural when it is not ``noun + "s"`` (``"their images"``).

    Examples
    --------
    >>> plural(1, "restricted item"), plural(3, "restricted item")
    ('1 restricted item', '3 restricted items')
    """
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def verb(n: int, one: str, many: str) -> str:
    """The verb (or pronoun) that agrees with ``n``: ``verb(1, "has", "have")``."""
    return one if n == 1 else many
