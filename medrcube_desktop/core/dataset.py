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
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from medrcube_desktop.core.file_checks import check_item_files, item_file_faults
from medrcube_desktop.core.file_kinds import ITEMS_FILE_NAME
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.paths import RealDirs
from medrcube_desktop.core.problems import Problem, UncheckedFiles
from medrcube_desktop.core.records import REQUIRED_FIELDS, read_items_file
from medrcube_desktop.core.write_guard import protect_benchmark
from medrcube_desktop.errors import DatasetError

__all__ = [
    "ITEMS_FILE", "REQUIRED_FIELDS", "RESTRICTED_NOTE", "Benchmark", "Problem",
    "UncheckedFiles", "load_benchmark", "text_only_message",
]  # fmt: skip


ITEMS_FILE = ITEMS_FILE_NAME
RESTRICTED_NOTE = "image not redistributed: obtain it from the source dataset"
"""What a restricted item without its image is told (never a problem)."""


def text_only_message(item: Item) -> str:
    """What the review window shows in place of a restricted item's image:
    ``"Image not redistributed: obtain it from the source dataset (<dataset>)"``."""
    return f"{RESTRICTED_NOTE[0].upper()}{RESTRICTED_NOTE[1:]} ({item.dataset})"


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
            found = read_items_file(
                root_path, path, seen_ids, images, dirs if check_files else None
            )
            benchmark.items.extend(found.items)
            benchmark.restricted.extend(found.restricted)
            benchmark.problems.extend(found.problems)
            benchmark.unchecked.extend(found.unchecked)
    protect_benchmark(root_path, benchmark)  # no writer of this process replaces its files
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
