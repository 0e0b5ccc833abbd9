"""Reading a corrected release (issue 23): ``release.json``, ``changes.json`` and the
release's ``test.json`` files, as ``rescore``, ``evaluate --only-changed`` and
``compare --release-diff`` take them.

The folder is the one ``release`` writes (``/work/wt/ISSUE23.md``, "Release folder and
changes.json"): the MedRCube layout, with ``release.json`` (``{"format":
"medrcube-release", "format_version": 1, "version", "source", ...}``) and
``changes.json`` (``{"format": "medrcube-release-changes", "format_version": 1,
"version", "items": [{"item_id", "file", "status": "changed" | "retired",
"needs_new_answer", "answer_before", "answer_after", "changes": [{"kind", "rule", ...}]}],
"counts"}``) beside the dataset folders. Nothing here writes: the release is read only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from medrcube_desktop.errors import DatasetError

if TYPE_CHECKING:
    from medrcube_desktop.core.items import Item

RELEASE_FILE = "release.json"
CHANGES_FILE = "changes.json"
RELEASE_FORMAT = "medrcube-release"
CHANGES_FORMAT = "medrcube-release-changes"
FORMAT_VERSION = 1
STATUSES: tuple[str, ...] = ("changed", "retired")


@dataclass(frozen=True)
class ItemChange:
    """One item of ``changes.json``.

    Attributes
    ----------
    item_id, file, task, dataset : str
        The item, its ``test.json`` relative to the release root (POSIX), as written.
    status : str
        ``"changed"`` or ``"retired"``.
    needs_new_answer : bool
        A change of a kind in ``review.corrections.NEEDS_NEW_ANSWER_KINDS``: the stored
        answers no longer answer the item.
    answer_before, answer_after : str or None
        Answer letters; ``answer_after`` is None when retired.
    changes : tuple of dict
        Each correction applied (``kind``, ``rule``, ``field``, ``from``, ``to``, ...).
    """

    item_id: str
    file: str
    status: str
    needs_new_answer: bool
    answer_before: str | None
    answer_after: str | None
    task: str = ""
    dataset: str = ""
    changes: tuple[dict[str, Any], ...] = ()

    @property
    def retired(self) -> bool:
        """The item is left out of the release."""
        return self.status == "retired"

    @property
    def key_changed(self) -> bool:
        """A kept item whose answer letter changed."""
        return not self.retired and self.answer_before != self.answer_after

    @property
    def kinds(self) -> tuple[str, ...]:
        """The kinds of its corrections, in order, each once (``("retire",)`` for an
        item retired without a listed correction)."""
        kinds = tuple(dict.fromkeys(str(c.get("kind", "")) for c in self.changes))
        return kinds or (("retire",) if self.retired else ())

    @property
    def rules(self) -> tuple[str, ...]:
        """The rubric rules its corrections answer, in order, each once."""
        return tuple(dict.fromkeys(str(c.get("rule", "")) for c in self.changes if c.get("rule")))


@dataclass(frozen=True)
class Release:
    """A release folder, read.

    Attributes
    ----------
    root : Path
        Absolute, resolved release folder.
    version : str
        ``release.json``'s ``version`` (``changes.json`` holds the same).
    source : str
        The source benchmark the release was written from (absolute, as recorded).
    meta : dict
        ``release.json`` as read.
    changes : dict[str, ItemChange]
        ``changes.json``'s items by item id, in the file's order.
    digest : str
        SHA-256 (hex) of ``release.json`` then ``changes.json`` bytes: what tells a
        release rewritten under the same version.
    items : list of Item
        The release's items as every figure over stored answers reads them
        (:func:`~medrcube_desktop.evaluation.compare.inputs.scored_benchmark`: restricted
        ones included, images not required), benchmark order.
    """

    root: Path
    version: str
    source: str
    meta: dict[str, Any]
    changes: dict[str, ItemChange]
    digest: str
    items: list[Item] = field(default_factory=list)

    @property
    def retired(self) -> set[str]:
        """Ids of the items retired (absent from the release)."""
        return {i for i, c in self.changes.items() if c.retired}

    @property
    def needs_new_answer(self) -> list[str]:
        """Ids of the kept items whose stored answers no longer count, in
        ``changes.json`` order."""
        return [i for i, c in self.changes.items() if c.needs_new_answer and not c.retired]

    def describe(self) -> dict[str, object]:
        """``{"version", "dir", "digest"}``: what an export records of the release it
        was computed on."""
        return {"version": self.version, "dir": str(self.root), "digest": self.digest}


def _bad(path: Path, what: str) -> DatasetError:
    return DatasetError(f"{path}: {what}")


def _read_json(path: Path) -> tuple[Any, bytes]:
    """The document and its bytes; NaN and Infinity (which Python's ``json`` accepts,
    JSON does not) are refused as not JSON, so no count or field is ever NaN."""
    if not path.is_file():
        raise _bad(path, "missing: not a release folder (`release` writes one)")
    data = path.read_bytes()

    def no_constant(name: str) -> Any:
        raise _bad(path, f"not valid JSON ({name} is not a JSON number)")

    try:
        return json.loads(data, parse_constant=no_constant), data
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _bad(path, f"not valid JSON ({exc})") from None


def _check_version(path: Path, version: str) -> None:
    """A version ``release --version`` would take (it names runs ``<run>@<version>``
    and files); else ``release.json`` is blamed."""
    from medrcube_desktop.review.release_folder import check_version
    from medrcube_desktop.review.release_records import ReleaseError

    try:
        check_version(version)
    except ReleaseError as exc:
        said = str(exc).removeprefix("--version ")
        raise _bad(path, f"field 'version': {said}") from None


def _header(path: Path, doc: Any, fmt: str) -> str:
    """The document's version, after checking its format fields."""
    if not isinstance(doc, dict):
        raise _bad(path, f"expected a JSON object, found {type(doc).__name__}")
    if doc.get("format") != fmt:
        raise _bad(path, f"field 'format': expected {fmt!r}, found {doc.get('format')!r}")
    if doc.get("format_version") != FORMAT_VERSION:
        raise _bad(
            path,
            f"field 'format_version': this app reads {FORMAT_VERSION}, found "
            f"{doc.get('format_version')!r}",
        )
    version = doc.get("version")
    if not isinstance(version, str) or not version.strip():
        raise _bad(path, f"field 'version': expected a non-empty text, found {version!r}")
    return version


def _letter(path: Path, item_id: str, name: str, value: Any, allow_none: bool) -> str | None:
    if value is None and allow_none:
        return None
    if not isinstance(value, str) or not value:
        raise _bad(path, f"item {item_id!r}, field {name!r}: expected a letter, found {value!r}")
    return value


def _item_change(path: Path, n: int, entry: Any) -> ItemChange:
    if not isinstance(entry, dict):
        raise _bad(path, f"items[{n}]: expected an object, found {type(entry).__name__}")
    item_id = entry.get("item_id")
    if isinstance(item_id, int) and not isinstance(item_id, bool):
        item_id = str(item_id)
    if not isinstance(item_id, str) or not item_id:
        raise _bad(path, f"items[{n}], field 'item_id': expected an id, found {item_id!r}")
    status = entry.get("status")
    if status not in STATUSES:
        raise _bad(
            path,
            f"item {item_id!r}, field 'status': expected one of {', '.join(STATUSES)}, "
            f"found {status!r}",
        )
    needs = entry.get("needs_new_answer", False)
    if not isinstance(needs, bool):
        raise _bad(path, f"item {item_id!r}, field 'needs_new_answer': expected true or false, "
                         f"found {needs!r}")  # fmt: skip
    changes = entry.get("changes", [])
    if not isinstance(changes, list) or not all(isinstance(c, dict) for c in changes):
        raise _bad(path, f"item {item_id!r}, field 'changes': expected a list of objects")
    before = _letter(path, item_id, "answer_before", entry.get("answer_before"), True)
    after = _letter(path, item_id, "answer_after", entry.get("answer_after"), status == "retired")
    return ItemChange(
        item_id=item_id, file=str(entry.get("file", "")), status=status,
        needs_new_answer=needs, answer_before=before, answer_after=after,
        task=str(entry.get("task", "")), dataset=str(entry.get("dataset", "")),
        changes=tuple(changes),
    )  # fmt: skip


def read_release(root: str | Path, items: bool = True, check_files: bool = True) -> Release:
    """Read the release folder ``root`` (never written).

    Parameters
    ----------
    root : str or Path
        A folder ``release`` wrote.
    items : bool
        Load its ``test.json`` files too (:attr:`Release.items`) and check
        ``changes.json`` against them; False reads the two JSON files only.
    check_files : bool
        With False the records are read without looking at any file (``rescore``, which
        needs ids and answer keys only: about a third of the time); True reads them as
        every figure over stored answers does
        (:func:`~medrcube_desktop.evaluation.compare.inputs.scored_benchmark`).

    Raises
    ------
    DatasetError
        ``release.json`` or ``changes.json`` is missing, not JSON, of another format or
        version, or a field is bad (the message names the file, the item and the
        field); the two files name different versions; an item is listed twice; a
        retired item is still in the release, a changed one is not, or its
        ``answer_after`` is not the release's answer letter.
    """
    folder = Path(root).expanduser()
    if not folder.is_dir():
        raise DatasetError(f"{folder}: release folder does not exist or is not a folder")
    folder = folder.resolve()
    meta, meta_bytes = _read_json(folder / RELEASE_FILE)
    version = _header(folder / RELEASE_FILE, meta, RELEASE_FORMAT)
    _check_version(folder / RELEASE_FILE, version)
    changes_path = folder / CHANGES_FILE
    doc, doc_bytes = _read_json(changes_path)
    if _header(changes_path, doc, CHANGES_FORMAT) != version:  # which is wrong is not known
        raise _bad(
            changes_path,
            f"field 'version': {doc['version']!r}, but {RELEASE_FILE} says {version!r} "
            f"({folder / RELEASE_FILE}: field 'version'): the two files are of different "
            "releases",
        )
    entries = doc.get("items")
    if not isinstance(entries, list):
        raise _bad(changes_path, "field 'items': expected a list")
    changes: dict[str, ItemChange] = {}
    for n, entry in enumerate(entries):
        change = _item_change(changes_path, n, entry)
        if change.item_id in changes:
            raise _bad(changes_path, f"item {change.item_id!r} is listed twice")
        changes[change.item_id] = change
    digest = hashlib.sha256(meta_bytes + b"\0" + doc_bytes).hexdigest()
    release = Release(folder, version, str(meta.get("source", "")), meta, changes, digest)
    if items:
        from medrcube_desktop.core.dataset import load_benchmark

        # images=False: what compare.inputs.scored_benchmark reads (not imported: it
        # reads this module back)
        benchmark = load_benchmark(folder, images=False, check_files=check_files)
        loaded = benchmark.items
        _check_against(changes_path, changes, loaded, benchmark.problems)
        release = Release(folder, version, release.source, meta, changes, digest, loaded)
    return release


def _check_against(
    path: Path, changes: dict[str, ItemChange], items: list[Item], problems: Sequence[Any] = ()
) -> None:
    """``changes`` agrees with the release's items (see :func:`read_release`); an item
    missing because its ``test.json`` does not load is blamed on that file
    (``problems``: the loader's :class:`~medrcube_desktop.core.problems.Problem` list)."""
    by_id = {item.id: item for item in items}
    for change in changes.values():
        if change.retired or change.item_id in by_id:
            continue
        for problem in problems:
            if problem.item == change.item_id or (
                problem.item is None and problem.file == change.file
            ):
                field = f", field {problem.field!r}" if problem.field else ""
                named = f", item {problem.item!r}" if problem.item else ""
                raise _bad(
                    path.parent / problem.file,
                    f"{problem.message.rstrip('.')}{named}{field} (changes.json lists item "
                    f"{change.item_id!r} in it)",
                )
    for change in changes.values():
        item = by_id.get(change.item_id)
        if change.retired and item is not None:
            raise _bad(path, f"item {change.item_id!r}, field 'status': retired, but "
                             f"{item.source_file} still holds it")  # fmt: skip
        if change.retired:
            continue
        if item is None:
            raise _bad(path, f"item {change.item_id!r}: changed, but no test.json of the "
                             "release holds it (or it cannot be loaded: `validate` says why)")  # fmt: skip
        if change.answer_after != item.answer:
            raise _bad(
                path,
                f"item {change.item_id!r}, field 'answer_after': {change.answer_after!r}, "
                f"but the release's answer is {item.answer!r}",
            )


def release_of(folder: str | Path) -> Release | None:
    """The release ``folder`` is (read without its items), or None when it holds no
    ``release.json`` (a benchmark of its own): how ``credibility`` and ``compare`` say
    which release their figures were computed on.

    Raises
    ------
    DatasetError
        ``folder`` holds a ``release.json`` that :func:`read_release` refuses.
    """
    path = Path(folder).expanduser()
    if not (path / RELEASE_FILE).exists():
        return None
    return read_release(path, items=False)
