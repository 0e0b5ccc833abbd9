"""``release``: the corrected benchmark as a new folder in the MedRCube layout (issue 23,
item 3; DESIGN.md "Closing the loop").

:func:`write_release` takes the source benchmark and the accepted corrections (no store:
the command reads them with ``StudyStore.accepted_corrections()``) and writes a new
folder with the same sub-folders and ``test.json`` names:

- every file of the source is in the release, hard-linked where the file system allows
  (``os.link``), else copied (``shutil.copy2``; ``copy=True`` always copies): a linked
  file is never opened for writing, so the source's bytes cannot change;
- a ``test.json`` no correction touches is copied whole; one that has corrections is
  rewritten record by record (:mod:`.release_records`): untouched records, and the
  separators between them, byte for byte as they were; a changed record with only its
  changed values replaced, in the file's style; a retired record left out with its
  separator, so the file stays valid JSON;
- an edited mask is a new file beside the old (:mod:`.release_masks`), the record's
  ``mask_path`` pointing at it;
- beside the dataset folders: ``release.json``, ``changes.json`` and ``CHANGELOG.md``
  (:mod:`.changelog`).

Everything is checked before the first file is written (:mod:`.release_folder`) (the corrections fit their
items, no two contradict each other, the output folder is new or empty and apart from
the source), and written into a hidden folder beside ``out`` that is renamed to ``out``
when whole: a release that fails leaves nothing. No Qt, no store.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from medrcube_desktop.core.file_kinds import ITEMS_FILE_NAME
from medrcube_desktop.core.records import read_items_file
from medrcube_desktop.review.changelog import changelog_text, changes_document, release_document
from medrcube_desktop.review.corrections import ANSWER_KEY, AcceptedCorrection
from medrcube_desktop.review.proposing import conflicts
from medrcube_desktop.review.release_folder import (
    Linker,
    check_out_folder,
    check_source,
    check_version,
    inside,
    mirror,
    move_into_place,
    stage_folder,
    sweep_stale_stages,
)
from medrcube_desktop.review.release_masks import is_volume, new_mask_name, write_mask
from medrcube_desktop.review.release_plan import (
    ItemPlan,
    ReleaseError,
    file_index_base,
    locate,
    plan_item,
)
from medrcube_desktop.review.release_records import (
    RecordsFile,
    assemble,
    read_records_file,
    rewrite_record,
)

__all__ = [
    "RELEASE_FILES", "ReleaseError", "ReleaseSummary", "check_out_folder", "check_source",
    "check_version", "write_release",
]  # fmt: skip

RELEASE_FILES = ("release.json", "changes.json", "CHANGELOG.md")
"""The files a release adds beside its dataset folders."""


@dataclass
class ReleaseSummary:
    """What :func:`write_release` wrote.

    Attributes
    ----------
    out : Path
        The release folder.
    version : str
    items, changed, retired, unchanged, needs_new_answer : int
        Records in the release; changed, retired (left out), unchanged records; changed
        items whose question, options or image changed.
    files_rewritten : list of str
        ``test.json`` files rewritten (relative, POSIX); the others are copies.
    masks_written : list of str
        New mask files (relative to the release root, POSIX).
    linked, copied : int
        Source files hard-linked, and copied (no hard link possible, or ``copy``).
    changes : dict
        The ``changes.json`` document.
    """

    out: Path
    version: str
    items: int
    changed: int
    retired: int
    unchanged: int
    needs_new_answer: int
    files_rewritten: list[str] = field(default_factory=list)
    masks_written: list[str] = field(default_factory=list)
    linked: int = 0
    copied: int = 0
    changes: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The summary as ``release --json`` prints it (``changes.json`` left out: it is
        in the folder)."""
        return {
            "out": str(self.out), "version": self.version, "items": self.items,
            "changed": self.changed, "retired": self.retired, "unchanged": self.unchanged,
            "needs_new_answer": self.needs_new_answer, "files_rewritten": self.files_rewritten,
            "masks_written": self.masks_written, "linked": self.linked, "copied": self.copied,
        }  # fmt: skip


def _item_files(root: Path) -> dict[str, Path]:
    """``<sub-folder>/test.json`` (relative, POSIX) → path, sub-folders sorted (as the
    loader finds them)."""
    try:
        folders = sorted(entry.name for entry in os.scandir(root) if entry.is_dir())
    except OSError as exc:
        raise ReleaseError(f"{root}: cannot list the folder: {exc.strerror}") from exc
    found = {f"{name}/{ITEMS_FILE_NAME}": root / name / ITEMS_FILE_NAME for name in folders}
    found = {rel: path for rel, path in found.items() if path.is_file()}
    if not found:
        raise ReleaseError(f"{root}: no sub-folder holds a {ITEMS_FILE_NAME}")
    return found


def _plans(
    files: dict[str, RecordsFile], corrections: Sequence[AcceptedCorrection]
) -> list[ItemPlan]:
    """Every corrected item's plan, in file order; checks first (see :func:`write_release`)."""
    ids: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for rel, file in files.items():
        for index, record in enumerate(file.records):
            if isinstance(record, dict) and isinstance(record.get("id"), str | int):
                ids[str(record["id"]).strip()].append((rel, index))
    found = conflicts(corrections, {item_id: where[0][0] for item_id, where in ids.items()})
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise ReleaseError(f"{found[0]}{more}; reject all but one of them before the release")
    places = locate(ids, corrections)
    per_item: dict[tuple[str, int], list[AcceptedCorrection]] = defaultdict(list)
    ordered = sorted(corrections, key=lambda c: (c.proposal.created_at, c.proposal.uid))
    for c in ordered:
        per_item[places[c.proposal.item_id]].append(c)
    bases: dict[str, int] = {}
    plans = []
    for (rel, index), item_corrections in sorted(
        per_item.items(), key=lambda kv: (list(files).index(kv[0][0]), kv[0][1])
    ):
        base = 0
        if any(c.proposal.kind == ANSWER_KEY for c in item_corrections):  # an answer moves
            if rel not in bases:  # the file's convention: a pass over its records, once
                bases[rel] = file_index_base(files[rel].records)
            base = bases[rel]
        record = files[rel].records[index]
        plans.append(
            plan_item(str(record["id"]).strip(), rel, index, record, item_corrections, base)
        )
    return plans


def _confined(root: Path, folder: Path, written: str, where: str) -> Path:
    path = Path(os.path.normpath(folder / written))
    if not inside(str(path), str(root)):
        raise ReleaseError(f"{where}: {written!r} leaves the benchmark folder")
    return path


def _write_masks(plans: Sequence[ItemPlan], source: Path, stage: Path, version: str) -> list[str]:
    """Each edited mask as a new file; the plans' ``mask_path`` updates filled in."""
    written: list[str] = []
    assigned: set[str] = set()
    for plan in plans:
        if plan.retired or not plan.mask_edits:
            continue
        where = f"{plan.file} item {plan.item_id}: mask_path"
        folder = Path(plan.file).parent
        old = plan.record.get("mask_path")
        image = plan.record.get("image_path")
        if not isinstance(image, str):
            raise ReleaseError(f"{plan.file} item {plan.item_id}: image_path: not text")
        based_on = old if isinstance(old, str) and old.strip() else image
        source_mask = _confined(source, source / folder, old, where) if based_on is old else None
        image_path = _confined(source, source / folder, image, where)

        def taken(rel: str, folder: Path = folder) -> bool:
            return (folder / rel).as_posix() in assigned or os.path.lexists(stage / folder / rel)

        volume = is_volume(based_on) or (source_mask is None and is_volume(image))
        new = new_mask_name(
            based_on, version, taken, plan.item_id, volume=volume, is_mask=source_mask is not None
        )
        target = _confined(stage, stage / folder, new, where)
        assigned.add((folder / new).as_posix())
        target.parent.mkdir(parents=True, exist_ok=True)
        write_mask(target, source_mask, image_path, plan.mask_edits, where)
        plan.updates["mask_path"] = new
        for entry in plan.entries:
            if entry["kind"] == "mask":
                entry["to"] = new
        written.append((folder / new).as_posix())
    return written


def _write_records(
    files: dict[str, RecordsFile], plans: Sequence[ItemPlan], stage: Path
) -> list[str]:
    """Each ``test.json`` into ``stage``: copied whole, or rewritten where it has a
    change. Returns the rewritten ones."""
    per_file: dict[str, dict[int, str | None]] = defaultdict(dict)
    for plan in plans:
        file = files[plan.file]
        if plan.retired:
            per_file[plan.file][plan.index] = None
        elif plan.updates:
            start, end = file.spans[plan.index]
            per_file[plan.file][plan.index] = rewrite_record(
                file.text, start, end, plan.updates, file.ensure_ascii
            )
    for rel, file in files.items():
        target = stage / rel
        if rel in per_file:
            with open(target, "xb") as handle:  # a new file: never one of the source
                handle.write(assemble(file, per_file[rel]))
        else:
            shutil.copyfile(file.path, target)
    return [rel for rel in files if rel in per_file]


def _check_rewritten(
    source: Path, stage: Path, rewritten: Sequence[str], plans: Sequence[ItemPlan]
) -> None:
    """Refuse a release whose corrected records the loader would refuse and the source
    did not (two options of one text after an option correction, say)."""
    changed = {plan.item_id for plan in plans if not plan.retired}
    for rel in rewritten:
        before = read_items_file(source, source / rel, {}, images=False, dirs=None).problems
        after = read_items_file(stage, stage / rel, {}, images=False, dirs=None).problems
        known = {(p.item, p.field, p.message) for p in before}
        new = [p for p in after if p.item in changed and (p.item, p.field, p.message) not in known]
        if new:
            first = new[0]
            more = f" (and {len(new) - 1} more)" if len(new) > 1 else ""
            raise ReleaseError(
                f"{rel} item {first.item}: {first.field or 'record'}: after the corrections, "
                f"{first.message}{more}"
            )


def _write_json(path: Path, document: Any) -> None:
    with open(path, "x", encoding="utf-8") as handle:
        handle.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def write_release(
    source_root: str | Path,
    corrections: Sequence[AcceptedCorrection],
    out: str | Path,
    version: str,
    *,
    copy: bool = False,
    created_at: str | None = None,
    app_version: str | None = None,
) -> ReleaseSummary:
    """Write the corrected benchmark ``source_root`` + ``corrections`` to ``out``.

    Parameters
    ----------
    source_root : str or Path
        The source benchmark (sub-folders holding ``test.json``); only read.
    corrections : sequence of AcceptedCorrection
        The accepted corrections (``StudyStore.accepted_corrections()``); applied in the
        order they were proposed.
    out : str or Path
        A new or empty folder, apart from the source.
    version : str
        The release's version (:func:`check_version`), recorded in ``release.json`` and
        in the names of edited masks.
    copy : bool
        Copy every file instead of hard-linking it.
    created_at, app_version : str or None
        Recorded in ``release.json``; now (UTC, ISO 8601) and this app's version when None.

    Returns
    -------
    ReleaseSummary

    Raises
    ------
    ReleaseError
        Before anything is written: a bad version or output folder, a source that is no
        benchmark, a correction of an item not in the source, two corrections setting
        one field of an item to different values, a correction that does not fit its
        record (each naming the item and the field); after: corrected records the loader
        refuses, a mask that cannot be edited; a ``test.json`` that cannot be read as a
        JSON list (naming the file). Nothing is left in ``out`` then.
    OSError
        A file cannot be written (the disk is full); nothing is left in ``out``.
    """
    from medrcube_desktop import __version__

    check_version(version)
    given = Path(source_root).expanduser()
    source = check_source(given)
    out = Path(out).expanduser().absolute()
    check_out_folder(source, out)
    files = {rel: read_records_file(path) for rel, path in _item_files(source).items()}
    plans = _plans(files, list(corrections))
    total = sum(len(file.records) for file in files.values())
    made = [p for p in (out.parent, *out.parent.parents) if not os.path.lexists(p)]
    out.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale_stages(out)  # an earlier run killed before it could remove its stage
    stage = stage_folder(out)
    stage.mkdir()
    try:
        linker = Linker(copy)
        skip = {os.path.join(os.path.realpath(p.path.parent), p.path.name) for p in files.values()}
        mirror(source, stage, skip, linker)
        masks = _write_masks(plans, source, stage, version)
        rewritten = _write_records(files, plans, stage)
        _check_rewritten(source, stage, rewritten, plans)
        changes = changes_document(version, plans, total)
        release = release_document(
            version, str(given.absolute()),
            created_at or datetime.now(UTC).isoformat(timespec="seconds"),
            app_version or __version__, changes,
        )  # fmt: skip
        _write_json(stage / "changes.json", changes)
        _write_json(stage / "release.json", release)
        with open(stage / "CHANGELOG.md", "x", encoding="utf-8") as handle:
            handle.write(changelog_text(release, changes))
        move_into_place(stage, out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        for folder in made:  # the parents this call made, innermost first, while empty
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    counts = changes["counts"]
    return ReleaseSummary(
        out=out, version=version, items=release["items"], changed=counts["changed"],
        retired=counts["retired"], unchanged=counts["unchanged"],
        needs_new_answer=counts["needs_new_answer"], files_rewritten=rewritten,
        masks_written=masks, linked=linker.linked, copied=linker.copied, changes=changes,
    )  # fmt: skip
