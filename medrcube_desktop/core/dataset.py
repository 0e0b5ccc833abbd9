"""Loading and validating a benchmark in the public MedRCube layout.

Layout (DESIGN.md): a root folder whose sub-folders each hold a ``test.json``, a JSON
list of items. ``image_path`` is relative to the sub-folder that holds the
``test.json``; ``gt_answer`` is the TEXT of the correct option, not its letter.

Bad items are reported as :class:`Problem` records and left out; the good items of
the same file still load. Every item left out has at least one problem, each field at
most one (the most basic found). Only an unusable root raises :class:`DatasetError`.

As in the public MedRCube release, every field is text, except that ``id`` may also be
an integer: ``"option_A": 1`` is reported ("expected text, found int"), not converted.
``mask_path``, ``bbox`` and ``option_C``..``option_F`` are optional; ``null`` is absent.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
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
from medrcube_desktop.core.file_checks import check_item_files, item_file_faults
from medrcube_desktop.core.files import not_a_file
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.paths import RealDirs, lexical_path
from medrcube_desktop.core.quick_chunk import CHUNK, QuickChunk, quick_chunk
from medrcube_desktop.core.quick_record import QuickContext, quick_item
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.errors import DatasetError

log = logging.getLogger(__name__)

_OTHER_TEXT_FIELDS = ("image_path", "task", "modality", "parts", "dataset")
REQUIRED_FIELDS = ("id", "question", "option_A", "option_B", "gt_answer", *_OTHER_TEXT_FIELDS)
ITEMS_FILE = "test.json"
_RELEASE_FIELDS = ("correct_index", "original_task", "restricted")  # the dataset card's
_KNOWN_FIELDS = frozenset(REQUIRED_FIELDS) | set(OPTION_FIELDS) | {"mask_path", "bbox"}
_KNOWN_FIELDS |= set(_RELEASE_FIELDS)
RESTRICTED_NOTE = "image not redistributed: obtain it from the source dataset"
"""What a restricted item without its image is told (never a problem)."""


def text_only_message(item: Item) -> str:
    """What the review window shows in place of a restricted item's image:
    ``"Image not redistributed: obtain it from the source dataset (<dataset>)"``."""
    return f"{RESTRICTED_NOTE[0].upper()}{RESTRICTED_NOTE[1:]} ({item.dataset})"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a benchmark, precise enough to fix by hand.

    Attributes
    ----------
    file : str
        The ``test.json`` concerned, relative to the benchmark root (POSIX separators).
    item : str or None
        The item's ``id``; ``"#N (no id)"``, with N its 0-based position in the list,
        when the item has no usable id (an explicit id of that form is itself reported,
        so the two never collide); ``None`` for a problem with the whole file.
    field : str or None
        The field concerned (``"gt_answer"``, ``"image_path"``...), ``None`` for a
        problem with the whole file or record.
    message : str
        What is wrong, in one sentence.
    """

    file: str
    item: str | None
    field: str | None
    message: str

    def to_dict(self) -> dict[str, str | None]:
        """The JSON shape used by ``medrcube-desktop validate --json``."""
        return asdict(self)

    def __str__(self) -> str:
        where = self.file
        if self.item is not None:
            where += f" item {self.item}"
        if self.field is not None:
            where += f" field {self.field}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Benchmark:
    """A loaded benchmark: the good items and every problem found.

    Attributes
    ----------
    root : Path
        Absolute, resolved benchmark root.
    items : list[Item]
        Loadable items in file order (sub-folders sorted by name).
    problems : list[Problem]
        Every problem found, each listed once (the review window adds the file checks'
        problems here as its background pass finds them).
    restricted : list[Item]
        Items marked ``restricted: true`` whose image the release does not ship (see
        :data:`RESTRICTED_NOTE`): never problems, and not in ``items`` unless loaded
        with ``images=False``. Text-only work (``evaluate --text-only``) can use them.
        A restricted item whose image is there (obtained from the source) is an
        ordinary item.
    files_checked : bool
        Whether the file checks were done at load (``check_files=True``); if not,
        :meth:`check_files` does them.
    unchecked : list[UncheckedFiles]
        With ``files_checked`` False: the files of the records left out for a record
        problem, which :meth:`check_files` checks too (``validate`` lists both kinds).
    """

    root: Path
    items: list[Item]
    problems: list[Problem]
    restricted: list[Item] = field(default_factory=list)
    files_checked: bool = True
    unchecked: list[UncheckedFiles] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The root folder's name."""
        return self.root.name

    def check_files(self, cancel: threading.Event | None = None) -> Iterator[Problem]:
        """The problems of the items' files, item by item, as they are found.

        The checks :func:`load_benchmark` skips with ``check_files=False`` (the file
        exists, is a regular file or a series folder, its real path stays inside the
        root through every symbolic link, its mask is of a kind that fits the image).
        Qt-free; the review window runs it on a worker thread after the first item is
        shown. Problems are yielded, not stored: the caller adds them to ``problems``.

        Parameters
        ----------
        cancel : threading.Event or None
            Checked between items; once set, the generator ends.
        """
        dirs = RealDirs()
        rels: dict[Path, str] = {}
        yield from self._check_unchecked(dirs, cancel)
        for item in self.items:
            if cancel is not None and cancel.is_set():
                return
            if item.restricted and not os.path.lexists(item.image_path):
                continue  # with images=False: listed in ``restricted`` already
            for name, message in item_file_faults(item, dirs):
                rel = rels.get(item.source_file)
                if rel is None:
                    rel = rels[item.source_file] = item.source_file.relative_to(
                        self.root
                    ).as_posix()
                yield Problem(rel, item.id, name, message)

    def _check_unchecked(self, dirs: RealDirs, cancel: threading.Event | None) -> Iterator[Problem]:
        """The file problems of the records left out at load (see ``unchecked``)."""
        for entry in self.unchecked:
            if cancel is not None and cancel.is_set():
                return
            found: dict[str, str] = {}

            def report(name: str | None, message: str, entry=entry, found=found) -> None:
                if name is not None and name not in entry.reported:  # one per field
                    found.setdefault(name, message)

            check_item_files(
                self.root, entry.folder, entry.image, entry.mask, report, dirs, entry.must_exist
            )
            for name, message in found.items():
                yield Problem(entry.file, entry.item, name, message)


@dataclass(frozen=True)
class UncheckedFiles:
    """The image and mask of a record left out for a record problem, with file checks
    deferred (``check_files=False``): :meth:`Benchmark.check_files` checks them as
    ``validate`` does at load, so the window lists the same problems.

    Attributes
    ----------
    file, item : str
        As in :class:`Problem`.
    folder : Path
        The folder of the ``test.json``.
    image, mask : tuple of (Path, str) or None
        Lexical path and the value as written (``None``: absent or already reported).
    must_exist : bool
        ``load_benchmark``'s ``images``.
    reported : frozenset
        The fields that have a problem already (each field has at most one).
    """

    file: str
    item: str
    folder: Path
    image: tuple[Path, str] | None
    mask: tuple[Path, str] | None
    must_exist: bool
    reported: frozenset[str | None]


def load_benchmark(root: str | Path, images: bool = True, check_files: bool = True) -> Benchmark:
    """Load every ``*/test.json`` under ``root`` and validate each item.

    Parameters
    ----------
    root : str or Path
        Benchmark root folder.
    images : bool
        With False, an item whose image or mask file is missing is kept (its path as
        written, resolved inside ``root``) and masks are not opened: for work on the
        items' text and stored answers only (``compare``, ``import-run``), which a user
        holding results but not the pictures can do. Paths must still stay inside
        ``root``.
    check_files : bool
        With False, only the record checks run (text, options, answer, task, bbox, paths
        inside ``root`` as written): no file is looked at, so 100,000 items load in
        about the time the JSON takes to read. Items whose files are bad stay in
        ``items`` until :meth:`Benchmark.check_files` (or, per item,
        :func:`~medrcube_desktop.core.file_checks.require_item_files`) finds them. The
        review window loads so; ``validate`` and every command check at load.

    Returns
    -------
    Benchmark
        May hold no items at all (every item bad); callers decide what that means.

    Raises
    ------
    DatasetError
        ``root`` does not exist, is not a folder, cannot be listed, or no sub-folder
        holds a ``test.json`` (a broken symbolic link counts, and is reported).
    """
    root_path = Path(root).expanduser()
    if not root_path.exists():
        raise DatasetError(f"{root_path}: benchmark folder does not exist")
    if not root_path.is_dir():
        raise DatasetError(f"{root_path}: not a folder")
    root_path = root_path.resolve()
    files = _find_item_files(root_path)
    if not files:
        raise DatasetError(f"{root_path}: no sub-folder holds a {ITEMS_FILE}")
    benchmark = Benchmark(root=root_path, items=[], problems=[], files_checked=check_files)
    seen_ids: dict[str, str] = {}
    dirs = RealDirs()
    with _collector_paused():
        for path in files:
            _load_file(benchmark, path, seen_ids, images, dirs if check_files else None)
    return benchmark


_pause_lock = threading.Lock()
_pause = {"depth": 0, "was_enabled": True}


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside.

    Loading creates objects that live on (records, items) and no cycles, yet every 700
    allocations start a collection that walks the young ones again: a fifth of the
    loading time for 100,000 items. The objects made meanwhile join the oldest
    generation, collected as rarely as Python collects it. Reference counting still frees everything. Nested
    or concurrent loads turn the collector back on when the last one ends, and only if
    it was on before the first.
    """
    with _pause_lock:
        if _pause["depth"] == 0:
            _pause["was_enabled"] = gc.isenabled()
            gc.disable()
        _pause["depth"] += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pause["depth"] -= 1
            if _pause["depth"] == 0 and _pause["was_enabled"]:
                # the new objects straight to the oldest generation (a freeze and thaw
                # moves lists, walks nothing): else the first collection after the load
                # walks all of them at once, 70 ms for 100,000 items
                gc.freeze()
                gc.unfreeze()
                gc.enable()


def _find_item_files(root: Path) -> list[Path]:
    """``<sub-folder>/test.json`` for every sub-folder that has one, sorted by folder."""
    try:
        with os.scandir(root) as entries:
            folders = sorted(entry.name for entry in entries if entry.is_dir())
    except OSError as exc:
        raise DatasetError(f"{root}: cannot list the folder: {exc.strerror}") from exc
    paths = (root / name / ITEMS_FILE for name in folders)
    return [path for path in paths if os.path.lexists(path)]  # lexists: keep broken links


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


def _load_file(
    benchmark: Benchmark,
    path: Path,
    seen_ids: dict[str, str],
    images: bool = True,
    dirs: RealDirs | None = None,
) -> None:
    """Add the items and problems of one ``test.json`` to ``benchmark``."""
    rel = path.relative_to(benchmark.root).as_posix()
    file = _File(benchmark.root, path, rel, images=images, dirs=dirs)
    records = _read_records(file)
    if isinstance(records, Problem):
        benchmark.problems.append(records)
        return
    quick = None if file.suspect else _quick_context(file)
    conventions: dict[int, list[str]] = {0: [], 1: []}  # items read only 0- / 1-based
    for start in range(0, len(records), CHUNK):
        chunk = records[start : start + CHUNK]
        run = _quick_run(file, quick, chunk, seen_ids) if quick is not None else None
        if run is not None:
            _add_run(benchmark, run, conventions, images)
            continue
        for index, record in enumerate(chunk, start):
            found = _one_record(file, quick, index, record, seen_ids)
            if isinstance(found, Item):
                _note_convention(conventions, record, found)
                if found.restricted and not os.path.lexists(found.image_path):
                    benchmark.restricted.append(found)
                    if images:
                        continue
                benchmark.items.append(found)
            else:
                benchmark.problems.extend(found)
    benchmark.unchecked.extend(file.unchecked)
    if conventions[0] and conventions[1]:
        zero, one = conventions[0], conventions[1]
        benchmark.problems.append(Problem(
            file.rel, None, "correct_index",
            f"the file mixes conventions: {len(zero)} item(s) read only 0-based (first "
            f"{zero[0]}), {len(one)} only 1-based (first {one[0]}); one of the two groups "
            "has its correct_index off by one",
        ))  # fmt: skip


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
    benchmark: Benchmark, run: QuickChunk, conventions: dict[int, list[str]], images: bool
) -> None:
    """Add the items of a run that :func:`quick_chunk` accepted (as the loop would)."""
    conventions[0].extend(run.zero_based)
    conventions[1].extend(run.one_based)
    absent = [item for item in run.restricted if not os.path.lexists(item.image_path)]
    benchmark.restricted.extend(absent)
    if images and absent:
        left_out = set(map(id, absent))
        benchmark.items.extend(item for item in run.items if id(item) not in left_out)
    else:
        benchmark.items.extend(run.items)


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
        text = file.path.read_text(encoding="utf-8-sig")  # a BOM from Windows editors is harmless
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
