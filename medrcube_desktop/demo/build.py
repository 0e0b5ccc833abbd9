"""Build the demo benchmark from real public medical images that installed packages ship.

The demo is written in the public MedRCube layout::

    OUT/MANIFEST.json             builder version and the provenance of every file
    OUT/<dataset>/test.json       a JSON list of items
    OUT/<dataset>/images/...      images and masks

with three datasets: ``pydicom_testdata`` (pydicom's own test files),
``pydicom_data`` (the pydicom-data package) and ``nilearn_mni152`` (nilearn's bundled
MNI ICBM152 2009a templates). The recipes in :mod:`.dicom_sources` and
:mod:`.mni_sources` read every ground truth from the source at build time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import random
import shutil
import tempfile
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path

from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.demo.dicom_sources import DICOM_RECIPES
from medrcube_desktop.demo.mni_sources import slices_recipe, volume_recipe
from medrcube_desktop.demo.sources import DraftItem, FileRecord, RecipeResult
from medrcube_desktop.errors import DatasetError

log = logging.getLogger(__name__)

BUILDER_VERSION = "2"
"""Bump when the demo's content changes; :func:`ensure_demo` then rebuilds it."""

MANIFEST_NAME = "MANIFEST.json"
ITEMS_FILE = "test.json"
CREATED_BY = "medrcube-desktop demo build"
OPTION_LETTERS: tuple[str, ...] = ("A", "B", "C", "D")

Recipe = Callable[[Path], RecipeResult]


def recipes() -> list[tuple[str, Recipe]]:
    """Every recipe of the demo, in item order, with a progress label each."""
    steps: list[tuple[str, Recipe]] = [(r.source_file, r) for r in DICOM_RECIPES]
    steps.append(("MNI152 T1 volume and tissue masks", volume_recipe))
    steps.append(("MNI152 T1 slices", slices_recipe))
    return steps


def build_demo(out_dir: Path, progress: ProgressFn | None = None) -> Path:
    """Write the demo benchmark into ``out_dir``.

    Parameters
    ----------
    out_dir : Path
        Benchmark root to create; it may exist but must then be an empty folder.
    progress : callable, optional
        Gets a :class:`~medrcube_desktop.core.progress.Progress` (unit "step", its label
        the source) before each step and once at the end with ``done == total``.

    Returns
    -------
    Path
        ``out_dir``.

    Raises
    ------
    DatasetError
        ``out_dir`` is not empty, a source package is missing, a source no longer
        establishes the fact a question relies on, or a file cannot be written (what was
        written is removed again).
    """
    existed = Path(out_dir).exists()
    root = _empty_folder(Path(out_dir))
    try:
        with _quiet_pydicom():
            _build_into(root, progress)
    except OSError as exc:  # a full disk, say: no half demo left behind
        _clear(root, remove_folder=not existed)
        raise DatasetError(
            f"{root}: the demo could not be written ({os_error_text(exc)}); nothing was kept"
        ) from exc
    return root


def os_error_text(exc: BaseException) -> str:
    """What an ``OSError`` says in a line: the first ``strerror`` of its cause chain
    (pydicom re-raises a write error with a traceback in its message, errno lost)."""
    cause: BaseException | None = exc
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror + (f": {cause.filename}" if cause.filename else "")
        cause = cause.__cause__ or cause.__context__
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _clear(root: Path, remove_folder: bool) -> None:
    """Remove what a failed build wrote under ``root`` (and ``root`` if it made it)."""
    if remove_folder:
        shutil.rmtree(root, ignore_errors=True)
        return
    for child in root.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


@contextlib.contextmanager
def _quiet_pydicom():
    """Hide pydicom's warnings about known non-conformances of its regression files.

    Some shipped test files are deliberately malformed (bad_sequence.dcm has invalid UIDs);
    the warnings say nothing a demo user can act on. Errors still surface.
    """
    import pydicom  # noqa: F401  (importing pydicom sets its logger's level: do it first)

    logger = logging.getLogger("pydicom")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            yield
    finally:
        logger.setLevel(level)


def _build_into(root: Path, progress: ProgressFn | None) -> None:
    steps = recipes()
    total = len(steps) + 1
    drafts: list[DraftItem] = []
    files: list[FileRecord] = []
    for done, (label, recipe) in enumerate(steps):
        _report(progress, done, total, label)
        result = recipe(root)
        drafts.extend(result.items)
        files.extend(result.files)
    _report(progress, len(steps), total, f"writing {ITEMS_FILE} and {MANIFEST_NAME}")
    # number items in the order the loader reads them (dataset folders sorted by name)
    drafts.sort(key=lambda draft: draft.dataset)
    items = [finish_item(f"demo-{number:04d}", draft) for number, draft in enumerate(drafts, 1)]
    write_items(root, items)
    write_manifest(root, files)
    _report(progress, total, total, "done")


def ensure_demo(target: Path, progress: ProgressFn | None = None) -> Path:
    """Build the demo into ``target`` unless an up-to-date one is already there.

    The demo is current when ``target/MANIFEST.json`` records this module's
    :data:`BUILDER_VERSION`. Otherwise it is built in a hidden sibling folder that then
    replaces ``target`` by renaming, so a crash never leaves a half-written demo.

    Parameters
    ----------
    target : Path
        Benchmark root of the demo.
    progress : callable, optional
        As for :func:`build_demo`; not called when nothing is built.

    Returns
    -------
    Path
        ``target``.
    """
    target = Path(target)
    if demo_is_current(target):
        return target
    log.info("building the demo benchmark into %s", target)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.building-", dir=target.parent))
    try:
        build_demo(staging, progress)
        _replace(target, staging)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target


def demo_is_current(target: Path) -> bool:
    """True when ``target/MANIFEST.json`` exists and records :data:`BUILDER_VERSION`."""
    try:
        manifest = json.loads((Path(target) / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(manifest, dict) and manifest.get("builder_version") == BUILDER_VERSION


def finish_item(item_id: str, draft: DraftItem) -> dict[str, object]:
    """Give a draft its id and four options, shuffled with ``random.Random(item_id)``.

    Returns
    -------
    dict
        One ``test.json`` record: ``gt_answer`` is the text of the correct option;
        ``mask_path`` and ``bbox`` appear only when set.
    """
    question = draft.question
    rng = random.Random(item_id)
    others = [c for c in question.choices if c != question.answer]
    options = [question.answer, *rng.sample(others, len(OPTION_LETTERS) - 1)]
    rng.shuffle(options)
    record: dict[str, object] = {"id": item_id, "question": question.text}
    record.update(
        {f"option_{letter}": text for letter, text in zip(OPTION_LETTERS, options, strict=True)}
    )
    record.update(
        gt_answer=question.answer,
        image_path=draft.image_path,
        task=question.task,
        modality=draft.modality,
        parts=draft.region,
        dataset=draft.dataset,
    )
    if draft.mask_path is not None:
        record["mask_path"] = draft.mask_path
    if draft.bbox is not None:
        record["bbox"] = list(draft.bbox)
    record["source_fact"] = question.source_fact
    return record


def write_items(root: Path, items: list[dict[str, object]]) -> None:
    """Write each dataset's items, in order, to ``root/<dataset>/test.json``."""
    by_dataset: dict[str, list[dict[str, object]]] = {}
    for item in items:
        by_dataset.setdefault(str(item["dataset"]), []).append(item)
    for dataset, records in by_dataset.items():
        text = json.dumps(records, indent=2, ensure_ascii=False)
        (root / dataset / ITEMS_FILE).write_text(text + "\n", encoding="utf-8")


def write_manifest(root: Path, files: list[FileRecord]) -> None:
    """Write ``root/MANIFEST.json``: builder version and provenance of every file."""
    manifest = {
        "builder_version": BUILDER_VERSION,
        "created_by": CREATED_BY,
        "images": [record.to_dict() for record in files],
    }
    text = json.dumps(manifest, indent=2, ensure_ascii=False)
    (root / MANIFEST_NAME).write_text(text + "\n", encoding="utf-8")


def check_output_folder(path: Path) -> None:
    """Raise :class:`DatasetError` unless ``path`` is missing or an empty folder (``..``
    after a folder that does not exist yet taken out first, as the build would)."""
    path = Path(os.path.realpath(path))
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise DatasetError(f"{path}: the demo must be built into a new or empty folder")


def _empty_folder(path: Path) -> Path:
    check_output_folder(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"{path}: cannot create the demo folder: {exc}") from exc
    return path


def _replace(target: Path, staging: Path) -> None:
    """Put ``staging`` in place of ``target`` by renames; then delete the old demo."""
    old = None
    if target.exists() or target.is_symlink():
        old = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:8]}")
        target.rename(old)
    staging.rename(target)
    if old is not None:
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink()


def _report(progress: ProgressFn | None, done: int, total: int, label: str) -> None:
    report(progress, Progress(done, total, "step", label))
