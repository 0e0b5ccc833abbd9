"""Parsing and checking the fields of one benchmark record.

Helpers for :mod:`medrcube_desktop.core.dataset`. Each takes the raw value(s) of a
record and returns the parsed value, or ``None`` after telling a :data:`Report` callback
what is wrong; the caller keeps at most one problem per field (the first reported). The
messages are shown to users as they are, so changing one changes the validator's output.

This module must not import :mod:`medrcube_desktop.core.dataset`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from medrcube_desktop.core.items import OPTION_LETTERS

OPTION_FIELDS = tuple(f"option_{letter}" for letter in OPTION_LETTERS)
_POSITIONAL_NAME = re.compile(r"#\d+ \(no id\)")
_CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})

Report = Callable[[str | None, str], None]
"""``report(field, message)``: record a problem with ``field`` (``None``: the record)."""


@dataclass(frozen=True)
class OverlongInt:
    """Stands for a JSON integer too long for ``int()`` (``sys.get_int_max_str_digits``).

    Attributes
    ----------
    digits : int
        Number of digits, sign excluded.
    """

    digits: int


def positional_name(index: int) -> str:
    """The name of an item without a usable id (see ``Problem.item``).

    Parameters
    ----------
    index : int
        The item's 0-based position in its file's list.

    Returns
    -------
    str
        ``"#N (no id)"``.
    """
    return f"#{index} (no id)"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def type_name(value: object) -> str:
    """The JSON value's Python type name, as shown in messages (``"int"``, ``"list"``...)."""
    return "int" if isinstance(value, OverlongInt) else type(value).__name__


def _is_unicode(text: str) -> bool:
    """False for strings holding lone surrogates (from JSON escapes such as ``\\ud800``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def parse_id(raw: object) -> tuple[str | None, str | None]:
    """Check an item's raw ``id`` value.

    Parameters
    ----------
    raw : object
        The record's ``id`` value as parsed from JSON (``None`` when absent).

    Returns
    -------
    tuple of (str or None, str or None)
        ``(id, None)`` for a usable id (stripped text), else ``(None, what is wrong)``.
    """
    if raw is None:
        return None, "missing or empty"
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        return None, f"expected text or an integer, found {type_name(raw)}"
    text = str(raw).strip()
    if not text:
        return None, "missing or empty"
    if not text.isprintable():  # fast path: printable text has neither problem below
        if not _is_unicode(text):
            return None, "not valid Unicode (lone surrogate)"
        if any(unicodedata.category(char) in _CONTROL_CATEGORIES for char in text):
            return None, "contains a line break or other control character"
    if _POSITIONAL_NAME.fullmatch(text):
        return None, f"{text!r} is reserved for naming items without an id"
    return text, None


def report_unusable_values(record: dict, report: Report) -> None:
    """Report values no later check can use: overlong integers, lone surrogates.

    Parameters
    ----------
    record : dict
        One record; keys and nested values are searched to any depth.
    report : Report
        Called once per bad value found, under the top-level key that holds it.
    """
    for key, value in record.items():
        field = key if _is_unicode(key) else ascii(key)
        stack = [key, value]
        while stack:  # iterative: values may nest as deep as JSON allows
            current = stack.pop()
            if isinstance(current, dict):
                stack.extend([*current, *current.values()])
            elif isinstance(current, list):
                stack.extend(current)
            elif isinstance(current, OverlongInt):
                report(field, f"holds a number with {current.digits} digits, too long to use")
            elif isinstance(current, str) and not _is_unicode(current):
                report(field, "not valid Unicode (lone surrogate)")


def parse_text(
    record: dict, key: str, report: Report, empty: str = "missing or empty"
) -> str | None:
    """The stripped text of ``record[key]``, or ``None`` after reporting why not.

    Parameters
    ----------
    record : dict
        One record.
    key : str
        The field to read.
    report : Report
        Told about a missing, empty or non-text value.
    empty : str
        The message for a missing or blank value.
    """
    value = record.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is None or isinstance(value, str):
        report(key, empty)
    else:
        report(key, f"expected text, found {type_name(value)}")
    return None


def parse_options(record: dict, report: Report) -> tuple[dict[str, str], bool]:
    """Options by letter, and whether all are fine; at most one problem per option.

    Parameters
    ----------
    record : dict
        One record; ``option_A`` and ``option_B`` are required, later options optional
        but contiguous.
    report : Report
        Told about each bad option field.

    Returns
    -------
    tuple of (dict[str, str], bool)
        Letter to stripped option text for the good options, in letter order; and
        ``False`` when any option problem was reported.
    """
    values = [record.get(key) for key in OPTION_FIELDS]
    filled = [v is not None and not (isinstance(v, str) and not v.strip()) for v in values]
    options: dict[str, str] = {}
    ok = True
    for i, key in enumerate(OPTION_FIELDS):
        value, later = values[i], [k for j, k in enumerate(OPTION_FIELDS) if j > i and filled[j]]
        if isinstance(value, str) and filled[i]:
            options[OPTION_LETTERS[i]] = value.strip()
            continue
        if filled[i]:
            report(key, f"expected text, found {type_name(value)}")
        elif i < 2:
            report(key, "missing or empty")
        elif later:
            verb = "is" if len(later) == 1 else "are"
            report(
                key, f"missing, but {', '.join(later)} {verb} present; options must be contiguous"
            )
        elif value is not None:
            report(key, "empty; leave the field out if there is no such option")
        else:
            continue
        ok = False
    return options, ok


def match_answer(
    gt_answer: str | None, options: dict[str, str], options_ok: bool, report: Report
) -> str | None:
    """The letter of the option whose text is ``gt_answer``.

    Parameters
    ----------
    gt_answer : str or None
        Stripped ``gt_answer`` text; ``None`` when already reported.
    options : dict[str, str]
        The good options, from :func:`parse_options`.
    options_ok : bool
        Whether every option was fine; if not, no match is not reported.
    report : Report
        Told when the answer matches no option or several.

    Returns
    -------
    str or None
        The matching letter, or ``None``.
    """
    if gt_answer is None:
        return None  # already reported
    matches = [letter for letter, text in options.items() if text == gt_answer]
    if len(matches) == 1:
        return matches[0]
    if matches:
        report("gt_answer", f"{gt_answer!r} matches more than one option ({', '.join(matches)})")
    elif options_ok:  # with a bad option, the answer may well be the bad one
        report("gt_answer", f"{gt_answer!r} matches no option{_letter_hint(gt_answer, options)}")
    return None


def _letter_hint(gt_answer: str, options: dict[str, str]) -> str:
    """A hint when ``gt_answer`` looks like an option's letter ("B", "(b)", "B.") rather
    than its text, as the MedRCube layout wants (DESIGN.md)."""
    letter = gt_answer.strip("()[]. ").upper()
    if letter in options:
        return (
            f"; gt_answer is the text of the correct option, not its letter "
            f"(option_{letter} is {options[letter]!r})"
        )
    return ""


def parse_restricted(value: object, report: Report) -> bool:
    """The release's ``restricted`` flag: ``true``, ``false`` or absent (``null``)."""
    if value is None or isinstance(value, bool):
        return bool(value)
    report("restricted", f"expected true or false, found {type_name(value)}")
    return False


def correct_index_value(value: object) -> int | None:
    """``correct_index`` as an int: an integer, or ASCII digits ("2" from a CSV export;
    never "²" or "١", which ``str.isdigit`` accepts and ``int`` refuses); else None."""
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None if isinstance(value, bool) or not isinstance(value, int) else value


def index_readings(index: int, options: dict[str, str]) -> tuple[str | None, str | None]:
    """The option letter ``index`` names counting from 0, and counting from 1 (None
    where it names none)."""
    letters = list(options)
    zero = letters[index] if 0 <= index < len(letters) else None
    one = letters[index - 1] if 1 <= index <= len(letters) else None
    return zero, one


def check_correct_index(
    value: object, answer: str | None, options: dict[str, str], options_ok: bool, report: Report
) -> None:
    """Cross-check the release's ``correct_index`` against ``gt_answer``'s option.

    The dataset card does not say whether it counts from 0 or from 1: either reading
    that names the answer's option is accepted; when neither does, the message gives
    both readings.
    """
    if value is None:
        return
    index = correct_index_value(value)
    if index is None:
        report("correct_index", f"expected an integer, found {type_name(value)}")
        return
    if answer is None or not options_ok:
        return  # the answer (or an option) is reported already
    value = index
    zero, one = index_readings(index, options)
    if answer in (zero, one):
        return
    if zero is None and one is None:
        report(
            "correct_index",
            f"correct_index {value} names no option (the item has {len(options)}), "
            f"gt_answer is {answer}",
        )
        return
    readings = (
        f"{f'option {zero}' if zero else 'no option'} (0-based) or {one or 'no option'} (1-based)"
    )
    report("correct_index", f"correct_index {value} is {readings}, gt_answer is {answer}")


def parse_bbox(value: object, report: Report) -> tuple[float, float, float, float] | None:
    """Check an optional ``bbox`` value.

    Parameters
    ----------
    value : object
        The record's ``bbox`` value (``None`` when absent).
    report : Report
        Told when the value is not four finite numbers forming a box.

    Returns
    -------
    tuple of 4 float or None
        ``(x0, y0, x1, y1)`` in image pixels, or ``None`` when absent or reported.
    """
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 4 or not all(map(_is_number, value)):
        report("bbox", "expected [x0, y0, x1, y1] in pixels")
        return None
    try:
        x0, y0, x1, y1 = (float(v) for v in value)
    except OverflowError:  # an integer beyond the float range, such as 10**400
        x0 = y0 = x1 = y1 = math.inf
    if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
        report("bbox", "coordinates must be finite numbers (no NaN, Infinity or huge values)")
        return None
    if x1 <= x0 or y1 <= y0 or min(x0, y0) < 0:
        report("bbox", f"{list(value)} is not a box with x0 < x1, y0 < y1 and no negative corner")
        return None
    return (x0, y0, x1, y1)


_VOLUME_SUFFIXES = (".nii", ".nii.gz", ".nrrd", ".nhdr", ".mha", ".mhd")
_PLANE_SUFFIXES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp", ".dcm", ".dicom", ".ima")
_JPEG_SUFFIXES = (".jpg", ".jpeg")
_PICTURE_MASKS = (".png", ".tif", ".tiff", ".bmp")


def mask_grid_mismatch(image: Path, mask: Path) -> str:
    """Why ``mask`` cannot lie on ``image``'s grid, judged by the kinds of the two files
    ('' when it can, or when a kind is unknown).

    A 2-D image (a picture or a DICOM file) takes a picture mask (PNG, TIFF, BMP: lossless;
    a JPEG's compression changes labels); a volume (NIfTI, NRRD/MHA, a DICOM series
    folder) a volume mask. Checked when a benchmark loads, so ``validate`` finds it rather
    than the first render (the readers in ``imaging/`` still check the shapes).
    """
    image_name, mask_name = image.name.lower(), mask.name.lower()
    volume = image.is_dir() or image_name.endswith(_VOLUME_SUFFIXES)
    plane = not volume and image_name.endswith(_PLANE_SUFFIXES)
    if plane and mask_name.endswith(_VOLUME_SUFFIXES):
        return (
            f"{mask.name} is a volume, but the image {image.name} is 2-D: give a PNG mask "
            "of the image's width and height"
        )
    if mask_name.endswith(_JPEG_SUFFIXES):
        return f"{mask.name} is a JPEG: its lossy compression changes the labels; use a PNG"
    if volume and mask_name.endswith(_PICTURE_MASKS):
        return (
            f"{mask.name} is a 2-D picture, but the image {image.name} is a volume: give a "
            "NIfTI (or NRRD/MHA) mask of the volume's shape"
        )
    return ""
