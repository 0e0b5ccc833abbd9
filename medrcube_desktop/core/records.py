"""One ``test.json`` read and each of its records validated: an :class:`Item`, or every
problem found (at most one per field). Plain records go through the fast paths
(:mod:`.quick_chunk` for runs of records, :mod:`.quick_record` for one), held equal to
the full validation here (``tests/core/test_quick_record.py``); anything unusual gets
the full validation, so every problem is reported as it always was.

The loader (:func:`.dataset.load_benchmark`) calls :func:`read_items_file` per file.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from medrcube_desktop.core.fields import (
    OPTION_FIELDS,
    OverlongInt,
    Report,
    check_correct_index,
    correct_index_value,
    index_readings,
    match_answer,
    parse_bbox,
    parse_id,
    parse_options,
    parse_restricted,
    parse_text,
    positional_name,
    report_unusable_values,
    type_name,
)
from medrcube_desktop.core.file_checks import check_item_files
from medrcube_desktop.core.files import not_a_file, read_file_text
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.paths import RealDirs, lexical_path
from medrcube_desktop.core.problems import Problem, UncheckedFiles
from medrcube_desktop.core.quick_chunk import CHUNK, QuickChunk, quick_chunk
from medrcube_desktop.core.quick_record import QuickContext, quick_item
from medrcube_desktop.core.taxonomy import canonical_task

log = logging.getLogger(__name__)

_OTHER_TEXT_FIELDS = ("image_path", "task", "modality", "parts", "dataset")
REQUIRED_FIELDS = ("id", "question", "option_A", "option_B", "gt_answer", *_OTHER_TEXT_FIELDS)
_RELEASE_FIELDS = ("correct_index", "original_task", "restricted")  # the dataset card's
_KNOWN_FIELDS = frozenset(REQUIRED_FIELDS) | set(OPTION_FIELDS) | {"mask_path", "bbox"}
_KNOWN_FIELDS |= set(_RELEASE_FIELDS)


@dataclass
class FileItems:
    """What one ``test.json`` holds, validated (:func:`read_items_file`).

    Attributes
    ----------
    items : list[Item]
        Loadable items in file order (restricted items without their image only when
        ``images`` is False).
    restricted : list[Item]
        Restricted items whose image is absent (never problems).
    problems : list[Problem]
        Every problem of the file and its records.
    unchecked : list[UncheckedFiles]
        With file checks deferred: the files of the records left out.
    """

    items: list[Item] = field(default_factory=list)
    restricted: list[Item] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    unchecked: list[UncheckedFiles] = field(default_factory=list)


@dataclass
class _File:
    """One ``test.json`` being validated."""

    root: Path
    path: Path
    rel: str
    suspect: bool = False  # may hold overlong integers or lone surrogates: scan records
    images: bool = True  # image and mask files must exist (load_benchmark's ``images``)
    dirs: RealDirs | None = None  # None: no file checks at load (``check_files=False``)
    files: tuple | None = None  # (image, mask) of the record just parsed, checks deferred
    unchecked: list[UncheckedFiles] = field(default_factory=list)


def read_items_file(
    root: Path,
    path: Path,
    seen_ids: dict[str, str],
    images: bool = True,
    dirs: RealDirs | None = None,
) -> FileItems:
    """Read and validate one ``test.json`` under ``root``.

    Parameters
    ----------
    root : Path
        The benchmark root (absolute, resolved): every path stays inside it.
    path : Path
        The ``test.json``.
    seen_ids : dict
        Item id → the file that claimed it first, across the benchmark (updated).
    images : bool
        ``load_benchmark``'s ``images``: image and mask files must exist.
    dirs : RealDirs or None
        Real paths per folder for the file checks; None defers them
        (``check_files=False``).

    Returns
    -------
    FileItems
        Never raises for bad content: an unreadable file is one problem.
    """
    result = FileItems()
    rel = path.relative_to(root).as_posix()
    file = _File(root, path, rel, images=images, dirs=dirs)
    records = _read_records(file)
    if isinstance(records, Problem):
        result.problems.append(records)
        return result
    quick = None if file.suspect else _quick_context(file)
    conventions: dict[int, list[str]] = {0: [], 1: []}  # items read only 0- / 1-based
    for start in range(0, len(records), CHUNK):
        chunk = records[start : start + CHUNK]
        run = _quick_run(file, quick, chunk, seen_ids) if quick is not None else None
        if run is not None:
            _add_run(result, run, conventions, images)
            continue
        for index, record in enumerate(chunk, start):
            found = _one_record(file, quick, index, record, seen_ids)
            if isinstance(found, Item):
                _note_convention(conventions, record, found)
                if found.restricted and not os.path.lexists(found.image_path):
                    result.restricted.append(found)
                    if images:
                        continue
                result.items.append(found)
            else:
                result.problems.extend(found)
    result.unchecked.extend(file.unchecked)
    if conventions[0] and conventions[1]:
        zero, one = conventions[0], conventions[1]
        result.problems.append(Problem(
            file.rel, None, "correct_index",
            f"the file mixes conventions: {len(zero)} item(s) read only 0-based (first "
            f"{zero[0]}), {len(one)} only 1-based (first {one[0]}); one of the two groups "
            "has its correct_index off by one",
        ))  # fmt: skip
    return result


def _quick_run(
    file: _File, quick: QuickContext, chunk: list[object], seen_ids: dict[str, str]
) -> QuickChunk | None:
    """A run through :func:`quick_chunk`; on a bug there, logged, record by record."""
    try:
        return quick_chunk(quick, chunk, seen_ids)
    except Exception:  # the records are validated one by one instead
        log.exception("unexpected error in the fast path of %s", file.rel)
        return None


def _one_record(
    file: _File, quick: QuickContext | None, index: int, record: object, seen_ids: dict[str, str]
) -> Item | list[Problem]:
    """One record through the fast path, else the full validation."""
    try:
        quick_found = quick_item(quick, record, seen_ids) if quick is not None else None
        return quick_found or _check_record(file, index, record, seen_ids)
    except Exception as exc:  # last resort, logged: one item must not end validation
        log.exception("unexpected error validating %s item #%d", file.rel, index)
        message = f"internal error, please report it: {type(exc).__name__}: {exc}"
        raw_id = record.get("id") if isinstance(record, dict) else None
        name = raw_id if isinstance(raw_id, str) and raw_id.strip() else positional_name(index)
        return [Problem(file.rel, name, None, message)]


def _add_run(
    result: FileItems, run: QuickChunk, conventions: dict[int, list[str]], images: bool
) -> None:
    """Add the items of a run that :func:`quick_chunk` accepted (as the loop would)."""
    conventions[0].extend(run.zero_based)
    conventions[1].extend(run.one_based)
    absent = [item for item in run.restricted if not os.path.lexists(item.image_path)]
    result.restricted.extend(absent)
    if images and absent:
        left_out = set(map(id, absent))
        result.items.extend(item for item in run.items if id(item) not in left_out)
    else:
        result.items.extend(run.items)


def _note_convention(conventions: dict[int, list[str]], record: object, item: Item) -> None:
    """Add ``item``'s id to ``conventions[0]`` or ``[1]`` when its ``correct_index`` names
    the answer in only that convention (the public release uses one per file; a file
    mixing them has some indices off by one, which each item alone cannot show)."""
    index = correct_index_value(record.get("correct_index") if isinstance(record, dict) else None)
    if index is None:
        return
    zero, one = (letter == item.answer for letter in index_readings(index, item.options))
    if zero != one:
        conventions[0 if zero else 1].append(item.id)


def _quick_context(file: _File) -> QuickContext:
    root = str(file.root)
    return QuickContext(
        root=file.root,
        root_prefix=root if root.endswith(os.sep) else root + os.sep,
        folder=str(file.path.parent),
        source_file=file.path,
        rel=file.rel,
        images=file.images,
        dirs=file.dirs,
    )


def _read_records(file: _File) -> list[object] | Problem:
    """The file's list of records, or the one problem that makes it unusable."""

    def problem(message: str) -> Problem:
        return Problem(file.rel, None, None, message)

    def parse_int(text: str) -> int | OverlongInt:
        try:
            return int(text)
        except ValueError:  # beyond Python's digit limit for int(str)
            file.suspect = True
            return OverlongInt(len(text.lstrip("-")))

    special = not_a_file(file.path)  # a named pipe would block the read forever
    if special is not None:
        return problem(special)
    try:
        text = read_file_text(file.path, "utf-8-sig")  # a BOM from Windows editors is harmless
    except (OSError, UnicodeDecodeError) as exc:
        if file.path.is_symlink() and not file.path.exists():
            return problem("broken symbolic link: the file it points to does not exist")
        return problem(f"cannot read file: {getattr(exc, 'strerror', None) or exc}")
    file.suspect = "\\ud" in text or "\\uD" in text  # escapes that may be lone surrogates
    try:
        try:  # the C parser alone; a number too long for int() needs parse_int
            records = json.loads(text)
        except json.JSONDecodeError:
            raise
        except ValueError:  # "Exceeds the limit ... for integer string conversion"
            records = json.loads(text, parse_int=parse_int)
    except json.JSONDecodeError as exc:
        return problem(f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}")
    except RecursionError:
        return problem("invalid JSON: lists or objects nested too deeply")
    if not isinstance(records, list):
        return problem(f"expected a JSON list of items, found {type_name(records)}")
    return records


def _check_record(
    file: _File, index: int, record: object, seen_ids: dict[str, str]
) -> Item | list[Problem]:
    """Validate one record: the item, or every problem found (at most one per field)."""
    if not isinstance(record, dict):
        message = f"item is a {type_name(record)}, not a JSON object"
        return [Problem(file.rel, positional_name(index), None, message)]
    item_id, id_problem = parse_id(record.get("id"))
    name = item_id if item_id is not None else positional_name(index)
    found: dict[str | None, Problem] = {}

    def report(field: str | None, message: str) -> None:
        found.setdefault(field, Problem(file.rel, name, field, message))

    if file.suspect:
        report_unusable_values(record, report)
    if item_id is None:
        report("id", str(id_problem))
    elif item_id in seen_ids:  # bad items claim their id too: they get fixed, not dropped
        report("id", f"duplicate id (first seen in {seen_ids[item_id]})")
    else:
        seen_ids[item_id] = file.rel
    file.files = None
    item = _parse_fields(file, name, record, report)
    if found:
        if file.files is not None:  # the files as validate would check them
            file.unchecked.append(
                UncheckedFiles(file.rel, name, file.path.parent, *file.files, file.images,
                               frozenset(found))
            )  # fmt: skip
        return list(found.values())
    if item is None:  # a bug; the caller reports it as an internal error
        raise RuntimeError(f"{file.rel} item {name} left out without a problem")
    return item


def _parse_fields(file: _File, item_id: str, record: dict, report: Report) -> Item | None:
    """Check every field but ``id``; the item, or ``None`` after reporting why not."""
    question = parse_text(record, "question", report)
    options, options_ok = parse_options(record, report)
    answer = match_answer(parse_text(record, "gt_answer", report), options, options_ok, report)
    texts = {key: parse_text(record, key, report) for key in _OTHER_TEXT_FIELDS}
    folder = file.path.parent
    image = mask = None  # (lexical path, as written)
    if texts["image_path"]:
        lexical = lexical_path(file.root, folder, texts["image_path"], "image_path", report)
        image = None if lexical is None else (lexical, texts["image_path"])
    restricted = parse_restricted(record.get("restricted"), report)
    # a restricted item ships without its image (and mask): not a fault, not looked at
    absent = restricted and image is not None and not os.path.lexists(image[0])
    if file.dirs is not None and image is not None and not absent:
        image = image if _check_image(file, image, report) else None
    raw_task = texts["task"]
    task = canonical_task(raw_task) if raw_task else None
    if raw_task and task is None:
        report("task", f"unknown task name {raw_task!r}")
    mask_ok = True
    if record.get("mask_path") is not None:
        written = parse_text(
            record, "mask_path", report, empty="empty; leave the field out if no mask"
        )
        lexical = lexical_path(file.root, folder, written, "mask_path", report) if written else None
        mask = (lexical, str(written)) if lexical else None
        mask_ok = mask is not None
        if mask is not None and file.dirs is not None and not absent:
            _, mask_ok = check_item_files(
                file.root, folder, image, mask, report, file.dirs, file.images, image_ok=True
            )
    if file.dirs is None and not absent and (image is not None or mask is not None):
        file.files = (image, mask)  # for the deferred checks, if the record is left out
    bbox = parse_bbox(record.get("bbox"), report)
    check_correct_index(record.get("correct_index"), answer, options, options_ok, report)
    original_task = None
    if record.get("original_task") is not None:
        original_task = parse_text(record, "original_task", report, empty="empty; leave it out")
    if not (question and answer and task and image and mask_ok and all(texts.values())):
        return None
    return Item(
        id=item_id,
        question=question,
        options=options,
        answer=answer,
        task=task,
        raw_task=record["task"],
        modality=str(texts["modality"]),
        region=str(texts["parts"]),
        dataset=str(texts["dataset"]),
        image_path=image[0],
        source_file=file.path,
        mask_path=mask[0] if mask else None,
        bbox=bbox,
        extra={k: v for k, v in record.items() if k not in _KNOWN_FIELDS},
        original_task=original_task,
        restricted=restricted,
        root=file.root,
    )


def _check_image(file: _File, image: tuple[Path, str], report: Report) -> bool:
    """The image's file checks at load (``check_files=True``)."""
    assert file.dirs is not None
    ok, _ = check_item_files(
        file.root, file.path.parent, image, None, report, file.dirs, file.images
    )
    return ok
