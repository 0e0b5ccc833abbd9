"""Decoding the first item's picture while the window is still being built (issue 25
item 4, first paint): the review window's first render then finds the slice in
:func:`~medrcube_desktop.imaging.render.load_slice_cached`'s cache and only composes it,
so the image is on screen about when the window is.

Qt-free: a plain daemon thread (the render pool belongs to the UI). A failure is left to
the window's own render, which reports it as it always does.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

from medrcube_desktop.core.items import Item

log = logging.getLogger(__name__)


def first_item(items: Sequence[Item], last_item_id: str | None) -> Item | None:
    """The item a review window opens first when no filter is set: the reviewer's last
    one (``last_item_id``, from the study's state) when it is among ``items``, else the
    first (the window's own choice, :meth:`~medrcube_desktop.review.session.
    ReviewSessionState.resume_item_id`, may still differ: then this decode is only
    wasted work, never a wrong image)."""
    if last_item_id is not None:
        for item in items:
            if item.id == last_item_id:
                return item
    return items[0] if items else None


def decode_ahead(item: Item | None) -> threading.Thread | None:
    """Start decoding ``item``'s image (and mask) on a daemon thread, into the slice
    cache the renderer reads (the slice a new item opens on: ``slice_index`` None). A
    DICOM file without a mask, whose decode depends on the view's size (a reduced JPEG
    2000 decode), only has its reader imported (pydicom: most of a small file's first
    decode). Returns the thread (None for no item)."""
    if item is None or item.image_path is None:
        return None
    thread = threading.Thread(target=_decode, args=(item,), name="decode-ahead", daemon=True)
    thread.start()
    return thread


READER_MODULES = {
    "nifti": ("nibabel", "medrcube_desktop.imaging.nifti"),
    "dicom": ("pydicom", "medrcube_desktop.imaging.dicom"),
    "series": ("pydicom", "medrcube_desktop.imaging.series"),
    "itk": ("medrcube_desktop.imaging.itk",),
    "picture": ("PIL.Image", "PIL.PngImagePlugin"),
}
"""What :func:`import_reader_ahead` imports for each :func:`.loading.image_kind`."""


def import_reader_ahead(item: Item | None) -> threading.Thread | None:
    """Import the reader of ``item``'s image kind (nibabel, pydicom, Pillow) on a daemon
    thread, as soon as the benchmark is loaded and before its database is opened (issue
    25, first paint: nibabel's import, with the pydicom it imports, was half of the
    demo's first decode, and it started only after the database was open). The decode
    itself waits for :func:`decode_ahead`, which knows the reviewer's item. Returns the
    thread (None for no item or no image)."""
    if item is None or item.image_path is None:
        return None
    thread = threading.Thread(
        target=_import_reader, args=(item,), name="import-reader", daemon=True
    )
    thread.start()
    return thread


def _import_reader(item: Item) -> None:
    import importlib

    from medrcube_desktop.imaging.loading import image_kind

    try:
        for name in READER_MODULES.get(image_kind(item.image_path), ()):
            importlib.import_module(name)
    except Exception as exc:  # the decode (or the window's render) says what is wrong
        log.debug("reader import ahead of item %s: %s", item.id, exc)


def _decode(item: Item) -> None:
    from medrcube_desktop.core.file_checks import require_item_files
    from medrcube_desktop.imaging.render import _reads_display_side, load_slice_cached

    try:
        image, mask = require_item_files(item)
        if _reads_display_side(image, mask):  # its decode depends on the view's size:
            import pydicom  # noqa: F401

            import medrcube_desktop.imaging.dicom  # noqa: F401  only its reader imported

            return
        load_slice_cached(image, None, mask, item.modality)
    except Exception as exc:  # the window's render says it, with the item
        log.debug("decode ahead of item %s: %s", item.id, exc)
