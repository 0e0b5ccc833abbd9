"""The one writer of every CSV file the app makes: formula-safe cells, written whole.

A cell a spreadsheet would run as a formula (a leading ``=``, ``+``, ``-``, ``@``, tab
or carriage return, after OWASP's "CSV Injection" guidance) is written with a leading
``'``; :func:`restore_cell` takes that quote off again when a file is read back, so
writing what was read gives the same cells. Item ids, model and reviewer names and
comments come from benchmark files or people: every text cell goes through
:func:`neutralise_cell`, never only the ones thought risky.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from medrcube_desktop.core.files import atomic_path
from medrcube_desktop.core.names import file_text

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat a cell as a formula (OWASP)."""

CSV_ENCODING = "utf-8-sig"
"""UTF-8 with a byte-order mark: Excel then reads accents and symbols as UTF-8."""


def neutralise_cell(text: str) -> str:
    """Prefix ``'`` to a cell a spreadsheet would run as a formula.

    A cell that already starts with quotes followed by a formula character gets one more
    quote, so :func:`restore_cell` undoes this exactly: ``"=1"`` → ``"'=1"``,
    ``"'=1"`` → ``"''=1"``, ``"'a"`` and ``"1"`` stay as they are.
    """
    return "'" + text if text.lstrip("'")[:1] in FORMULA_STARTS and text.lstrip("'") else text


def restore_cell(text: str) -> str:
    """Undo :func:`neutralise_cell`: drop one leading ``'`` before quotes and a formula
    character (``"'=1"`` → ``"=1"``); any other cell is returned unchanged."""
    if text.startswith("'") and text.lstrip("'")[:1] in FORMULA_STARTS and text.lstrip("'"):
        return text[1:]
    return text


def safe_cell(value: object) -> object:
    """``value`` as a CSV writer should get it: text with its hidden characters visible
    (:func:`~medrcube_desktop.core.names.file_text`: a name from an older database may
    hold ESC or BEL) and through :func:`neutralise_cell`; numbers and ``None`` (an empty
    cell) as they are; anything else as its text, treated the same."""
    if value is None or isinstance(value, bool | int | float):
        return value
    return neutralise_cell(file_text(value))


def write_csv(path: str | Path, header: Sequence[str], rows: Iterable[Sequence[object]]) -> Path:
    """Write ``header`` and ``rows`` to ``path`` as CSV, every cell formula-safe.

    The file is UTF-8 with a byte-order mark (:data:`CSV_ENCODING`), separated by
    commas, and written whole or not at all (:func:`~medrcube_desktop.core.files.atomic_path`:
    a temporary file in the same folder, flushed, renamed over ``path``). Cells are
    given raw: this function neutralises them (:func:`safe_cell`), so a caller never
    needs to, and must not (a cell would get two quotes).

    Parameters
    ----------
    path : str or Path
        The file; its folder must exist.
    header : sequence of str
    rows : iterable of sequences
        One sequence of cells per row.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    OSError
        The file cannot be written; ``path`` is then unchanged.
    """
    path = Path(path)
    with atomic_path(path) as tmp, tmp.open("w", encoding=CSV_ENCODING, newline="") as out:
        writer = csv.writer(out)
        writer.writerow([safe_cell(name) for name in header])
        for row in rows:
            writer.writerow([safe_cell(cell) for cell in row])
    return path
