"""The review CSV format: columns, formula-safe cells, reading and writing.

One row per review; the columns are :data:`CSV_COLUMNS`. Cells that a spreadsheet would
run as a formula are written with a leading ``'`` by the app's one CSV writer
(:mod:`medrcube_desktop.core.csvfile`), and reading takes that quote off again, so
writing what was read gives the same cells. Used by
:mod:`medrcube_desktop.store.exchange`.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from medrcube_desktop.core.csvfile import (  # FORMULA_STARTS, neutralise_cell: re-exported
    FORMULA_STARTS,  # noqa: F401
    neutralise_cell,  # noqa: F401
    restore_cell,
    write_csv,
)
from medrcube_desktop.core.files import read_file_bytes
from medrcube_desktop.core.rubric import CANNOT_JUDGE, RULE_IDS
from medrcube_desktop.errors import StoreError
from medrcube_desktop.store.review_queries import Review

CSV_COLUMNS: tuple[str, ...] = (
    "item_id",
    *RULE_IDS,
    "comment",
    "tags",
    "revision",
    "repeat",
    "started_at",
    "committed_at",
    "active_seconds",
    "blind",
    "reviewer",
    "image_shown",
)
"""Header of an exported CSV, in order (``tags`` are joined with ``;``; ``blind`` is 1 for
a judgment made before anything was revealed; ``reviewer`` is informative, an import
uses ``--reviewer``; a rule cell is 0, 1 or ``cannot judge`` (the expert abstained,
:data:`CANNOT_JUDGE_CELLS`); ``image_shown`` is 1 when the image was on screen at the commit, 0
when it was not (text only), empty when not known)."""

CANNOT_JUDGE_CELLS: tuple[str, ...] = (CANNOT_JUDGE, "na", "n/a")
"""Rule cells read as "cannot judge" (issue 24), compared case-insensitively after
stripping: ``cannot judge`` (what the app writes), ``NA`` and ``N/A`` (R, spreadsheets).
An empty cell is not one: a rule must be scored or abstained on explicitly."""

REQUIRED_COLUMNS: tuple[str, ...] = ("item_id", *RULE_IDS)
"""Columns an imported CSV must have; ``comment``, ``tags``, ``started_at``,
``committed_at``, ``active_seconds`` and ``repeat`` are optional, others are ignored."""

MAX_FIELD_CHARS = 64 * 1024 * 1024
"""Longest cell read back (characters); the csv module's default, 128 KiB, is shorter
than a comment the app accepts."""

TAG_SEPARATOR = ";"
"""Separator of the quick tags in the ``tags`` cell."""


@dataclass(frozen=True)
class CsvReview:
    """One valid row of a review CSV, cells restored (:func:`restore_cell`).

    Attributes
    ----------
    line : int
        Line of the file the row starts on (1 = header).
    item_id, comment : str
    scores : dict[str, int | str]
        Rule id to 0, 1 or ``CANNOT_JUDGE`` (a cell of :data:`CANNOT_JUDGE_CELLS`), all
        seven rules.
    tags : tuple of str
    repeat : bool
    started_at, committed_at : str or None
        ISO 8601 UTC times (a time without offset is read as UTC); ``None`` when the
        file gives none.
    active_seconds : float
        Seconds, 0 when the file gives none.
    """

    line: int
    item_id: str
    scores: dict[str, int | str]
    comment: str
    tags: tuple[str, ...]
    repeat: bool
    started_at: str | None
    committed_at: str | None
    active_seconds: float
    blind: bool = False
    image_shown: bool | None = None


def review_cells(review: Review) -> list[str]:
    """The cells of one review in :data:`CSV_COLUMNS` order, raw (the writer,
    :func:`~medrcube_desktop.core.csvfile.write_csv`, makes them formula-safe)."""
    cells = [
        review.item_id,
        *(str(review.scores[rule]) for rule in RULE_IDS),
        review.comment,
        TAG_SEPARATOR.join(review.tags),
        str(review.revision),
        str(int(review.repeat)),
        review.started_at,
        review.committed_at,
        repr(float(review.active_seconds)),
        str(int(review.blind)),
        review.reviewer,
        "" if review.image_shown is None else str(int(review.image_shown)),
    ]
    return cells


def write_reviews_csv(path: Path, rows: Iterable[list[str]]) -> None:
    """Write the header and ``rows`` (from :func:`review_cells`) to ``path`` with the
    app's one CSV writer (:func:`~medrcube_desktop.core.csvfile.write_csv`: UTF-8 with a
    byte-order mark, formula-safe cells, written whole or not at all). Raises StoreError
    naming ``path``.
    """
    path = path.expanduser()
    try:
        if path.is_dir():
            raise StoreError(f"{path}: is a folder, not a CSV file")
        write_csv(path, CSV_COLUMNS, rows)
    except OSError as exc:
        raise StoreError(f"{path}: cannot write the CSV file: {exc.strerror or exc}") from exc


def read_reviews_csv(path: Path) -> tuple[list[CsvReview], list[str]]:
    """The valid rows of a review CSV, and one message per bad cell of the other rows.

    Parameters
    ----------
    path : Path
        UTF-8 text (a byte-order mark is allowed), separated by ``,``, or by ``;`` or a
        tab when the header line holds no comma (spreadsheets in some locales). The
        header must name :data:`REQUIRED_COLUMNS`; unknown columns are ignored.

    Returns
    -------
    rows : list of CsvReview
        In file order.
    problems : list of str
        ``"FILE line N item ID column COL: reason"``; blank lines are ignored.

    Raises
    ------
    StoreError
        The file cannot be read, is empty, is not UTF-8 or not CSV, or its header lacks
        a required column or repeats one (the message names the file).
    """
    try:
        data = read_file_bytes(path)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the CSV file: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise StoreError(
            f"{path}: line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8 CSV"
        ) from exc
    if not text.strip():
        raise StoreError(f"{path}: the file is empty; expected a header {','.join(CSV_COLUMNS)}")
    first_line = text.splitlines()[0]
    delimiter = next((d for d in (",", ";", "\t") if d in first_line), ",")
    # strict: an unclosed quote is an error, not a comment that swallows the rows after it
    csv.field_size_limit(max(csv.field_size_limit(), MAX_FIELD_CHARS))  # long comments
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = [name.strip() for name in next(reader)]
        columns = _columns(path, header)
        rows: list[CsvReview] = []
        problems: list[str] = []
        line = reader.line_num + 1
        for cells in reader:
            if any(cell.strip() for cell in cells):
                parsed = _parse_row(path, line, cells, columns, len(header), problems)
                if parsed is not None:
                    rows.append(parsed)
            line = reader.line_num + 1
    except csv.Error as exc:
        raise StoreError(f"{path}: line {reader.line_num}: not valid CSV: {exc}") from exc
    return rows, problems


def _columns(path: Path, header: list[str]) -> dict[str, int]:
    """Position of every known column in the header (raises StoreError if unusable)."""
    known = set(REQUIRED_COLUMNS) | set(CSV_COLUMNS)
    doubled = sorted({name for name in header if name in known and header.count(name) > 1})
    if doubled:
        raise StoreError(f"{path}: column {', '.join(doubled)} appears more than once")
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    if missing:
        raise StoreError(
            f"{path}: missing column {', '.join(missing)} (required: {', '.join(REQUIRED_COLUMNS)})"
        )
    return {name: header.index(name) for name in known if name in header}


def _parse_row(
    path: Path,
    line: int,
    cells: list[str],
    columns: dict[str, int],
    width: int,
    problems: list[str],
) -> CsvReview | None:
    """One CSV row as a review, or ``None`` after adding its problems to ``problems``."""

    def cell(name: str) -> str:
        index = columns.get(name)
        return restore_cell(cells[index]) if index is not None and index < len(cells) else ""

    item_id = cell("item_id").strip()
    found: list[tuple[str, str]] = []  # (column, reason)
    if not item_id:
        found.append(("item_id", "no item id"))
    if len(cells) != width:
        found.append(("(row)", f"{len(cells)} fields, the header has {width}"))
    scores: dict[str, int | str] = {}
    for rule in RULE_IDS:
        value = cell(rule).strip()
        if value in ("0", "1"):
            scores[rule] = int(value)
        elif value.casefold() in CANNOT_JUDGE_CELLS:
            scores[rule] = CANNOT_JUDGE
        else:
            found.append((rule, f"score must be 0, 1 or {CANNOT_JUDGE!r} (NA), got {value!r}"))
    times = {}
    for name in ("started_at", "committed_at"):
        try:
            times[name] = _utc_time(cell(name).strip())
        except ValueError as exc:
            what = (
                "a time out of range"
                if str(exc).startswith("out of range")
                else "not an ISO 8601 time"
            )
            found.append((name, f"{what}: {cell(name).strip()!r}"))
    started, committed = times.get("started_at"), times.get("committed_at")
    if (
        started
        and committed
        and datetime.fromisoformat(started) > datetime.fromisoformat(committed)
    ):
        found.append(("started_at", f"{started} is after committed_at {committed}"))
    seconds = _active_seconds(cell("active_seconds").strip())
    if seconds is None:
        found.append(("active_seconds", f"not a number >= 0: {cell('active_seconds')!r}"))
    repeat = cell("repeat").strip()
    if repeat not in ("", "0", "1"):
        found.append(("repeat", f"must be 0 or 1, got {repeat!r}"))
    blind = cell("blind").strip()
    if blind not in ("", "0", "1"):
        found.append(("blind", f"must be 0 or 1, got {blind!r}"))
    image_shown = cell("image_shown").strip()
    if image_shown not in ("", "0", "1"):
        found.append(("image_shown", f"must be 0, 1 or empty, got {image_shown!r}"))
    if found:
        item = item_id or "(no id)"
        problems.extend(f"{path} line {line} item {item} column {c}: {why}" for c, why in found)
        return None
    tags = tuple(t.strip() for t in cell("tags").split(TAG_SEPARATOR) if t.strip())
    return CsvReview(
        line=line,
        item_id=item_id,
        scores=scores,
        comment=cell("comment"),
        tags=tags,
        repeat=repeat == "1",
        started_at=times.get("started_at"),
        committed_at=times.get("committed_at"),
        active_seconds=seconds or 0.0,
        blind=blind == "1",  # unknown (no column) is not claimed to be blind
        image_shown=None if image_shown == "" else image_shown == "1",
    )


def _utc_time(text: str) -> str | None:
    """ISO 8601 time as UTC with offset (a time without offset is taken as UTC); ``None``
    for an empty cell. Raises ValueError for anything else, a time that is out of range
    in UTC included (``9999-12-31T23:59:59-05:00``, year 1 east of Greenwich)."""
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment.timestamp()  # what sorting the revisions needs
        return moment.astimezone(UTC).isoformat()
    except (OverflowError, OSError) as exc:
        raise ValueError(f"out of range: {exc}") from exc


def _active_seconds(text: str) -> float | None:
    """Seconds from a cell (0 when empty); ``None`` when not a finite number >= 0."""
    if not text:
        return 0.0
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None
