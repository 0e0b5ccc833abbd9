"""The checks of an item that need the file system (step 2 of :mod:`~.paths`).

``load_benchmark`` does only the record checks when the review window opens a benchmark
(``check_files=False``), so the first item is on screen at about the cost of reading the
JSON. The file checks then run:

- for one item when it is shown or rendered: :func:`require_item_files` (the renderer
  calls it, so an image whose real path leaves the root is never read);
- for every item on a worker thread: ``Benchmark.check_files()``, a generator of
  problems the window lists as they are found;
- eagerly, inside ``load_benchmark``, for ``validate`` and every command (the default).

The same function, :func:`check_item_files`, does all three.
"""

from __future__ import annotations

import os
from pathlib import Path

from medrcube_desktop.core.fields import Report, mask_grid_mismatch
from medrcube_desktop.core.items import Item
from medrcube_desktop.core.paths import RealDirs, check_path
from medrcube_desktop.errors import ImageLoadError

__all__ = ["check_item_files", "item_file_faults", "require_item_files"]


def check_item_files(
    root: Path,
    folder: Path,
    image: tuple[Path, str] | None,
    mask: tuple[Path, str] | None,
    report: Report,
    dirs: RealDirs,
    must_exist: bool = True,
    image_ok: bool = False,
) -> tuple[bool, bool]:
    """Check an item's image and mask files; whether each is usable.

    Parameters
    ----------
    root : Path
        Absolute, resolved benchmark root.
    folder : Path
        The folder of the item's ``test.json``.
    image, mask : tuple of (Path, str) or None
        The lexical path (:func:`~.paths.lexical_path`) and the value as written, or
        ``None`` when absent (or already reported).
    report : Report
        Told what is wrong, under ``image_path`` or ``mask_path``.
    dirs : RealDirs
        Folders resolved so far in this pass.
    must_exist : bool
        False: files that are missing are accepted, and the mask's kind is not checked
        (``load_benchmark(images=False)``).
    image_ok : bool
        True: the image was checked already (only the mask is).

    Returns
    -------
    tuple of (bool, bool)
        Whether the image, and the mask, are usable (a mask that is absent is usable).
    """
    image_ok = image is not None and (
        image_ok
        or check_path(root, image[0], image[1], "image_path", report, dirs, True, must_exist)
    )
    mask_ok = mask is None or check_path(
        root, mask[0], mask[1], "mask_path", report, dirs, False, must_exist
    )
    if mask is not None and mask_ok and image is not None and image_ok and must_exist:
        mismatch = mask_grid_mismatch(image[0], mask[0])
        if mismatch:
            report("mask_path", mismatch)
            mask_ok = False
    return image_ok, mask_ok


def _written(path: Path | None, folder: Path) -> tuple[Path, str] | None:
    """A path and its form relative to ``folder`` (how messages name it)."""
    return None if path is None else (path, os.path.relpath(path, folder))


def item_file_faults(
    item: Item, dirs: RealDirs | None = None, must_exist: bool = True
) -> list[tuple[str, str]]:
    """``(field, message)`` for each thing wrong with ``item``'s files (at most one per
    field); empty when they are fine or the item has no benchmark root (built by hand).

    Parameters
    ----------
    item : Item
        An item from ``load_benchmark``.
    dirs : RealDirs or None
        Share one across a pass over many items; ``None`` starts a fresh one.
    must_exist : bool
        See :func:`check_item_files`.
    """
    if item.root is None:
        return []
    found: dict[str, str] = {}

    def report(field: str | None, message: str) -> None:
        found.setdefault(field or "image_path", message)

    folder = item.source_file.parent
    check_item_files(
        item.root,
        folder,
        _written(item.image_path, folder),
        _written(item.mask_path, folder),
        report,
        dirs or RealDirs(),
        must_exist,
    )
    return list(found.items())


def require_item_files(item: Item) -> tuple[Path, Path | None]:
    """Refuse to read ``item``'s files unless they exist and stay inside the benchmark
    root through every symbolic link (checked now, exactly: no cache survives the call);
    return the image and mask paths to open.

    The one confinement check at open time: every reader of an item's pixels (``render``
    of an item, ``render-batch``, the window, ``validate --deep``, ``evaluate``) calls
    it just before it opens the files and opens what it returns: an image swapped for a
    link out of the benchmark after the benchmark was loaded is refused.

    Returns
    -------
    tuple of (Path, Path or None)
        The image and the mask, as the item names them (their kind is read from the
        name, which a link inside the benchmark may not share with its file).

    Raises
    ------
    ImageLoadError
        Naming the item's ``test.json``, the item and the field.
    """
    faults = item_file_faults(item)
    if faults:
        field, message = faults[0]
        raise ImageLoadError(f"{item.source_file} item {item.id} field {field}: {message}")
    return item.image_path, item.mask_path
