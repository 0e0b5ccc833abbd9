"""A small cache of rendered images, bounded in megabytes, for the next and previous items.

The review window renders the neighbours of the current item ahead of the reviewer (on
its render thread) and keeps them here, keyed by everything that decides the pixels: the
item, its files' modification times and the display state (slice, window, invert,
overlay, mask look, convention, display size). A key that differs in any of them is
another entry, so a cached image is never shown for another state. Thread-safe: the
render thread puts, the GUI thread gets. No Qt here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from pathlib import Path

from medrcube_desktop.core.items import Item
from medrcube_desktop.imaging.render import RenderedImage

DEFAULT_CACHE_MB = 256
"""Rendered items kept, in MB (a 512² item with its values is about 3 MB; a 4096² one
about 200 MB, so a few large radiographs push the small ones out)."""


def _mtime(path: Path | None) -> tuple[int, ...]:
    """The file's stamp (:func:`~medrcube_desktop.core.files.file_stamp`): a file
    replaced with its old time kept, or a slice rewritten in a series folder, is a new
    key; ``(-1,)`` when missing (the render fails and is not cached)."""
    from medrcube_desktop.core.files import file_stamp

    return file_stamp(path)


def render_key(
    item: Item,
    slice_index: int | None,
    overlay: bool,
    window: tuple[float, float] | None,
    invert: bool,
    mask_alpha: float,
    mask_outline: bool,
    neurological: bool,
    max_side: int | None,
    display_side: int | None = None,
) -> tuple[Hashable, ...]:
    """The cache key of rendering ``item`` with these display choices (see
    :func:`~medrcube_desktop.imaging.render.render_item` for each)."""
    return (
        item.id,
        str(item.image_path),
        _mtime(item.image_path),
        str(item.mask_path) if item.mask_path else None,
        _mtime(item.mask_path),
        tuple(item.bbox) if item.bbox is not None else None,
        slice_index,
        overlay,
        None if window is None else (float(window[0]), float(window[1])),
        invert,
        round(float(mask_alpha), 3),
        mask_outline,
        neurological,
        max_side,
        display_side,
    )


def rendered_bytes(rendered: RenderedImage) -> int:
    """Memory held by a rendered image: its RGBA and its modality values, in bytes."""
    facts = rendered.facts
    return int(rendered.rgba.nbytes) + (facts.nbytes if facts is not None else 0)


class RenderCache:
    """Least-recently-used rendered images, at most ``capacity_mb`` MB in all.

    An entry larger than the whole capacity is not kept. ``get`` and ``put`` take a lock.
    """

    def __init__(self, capacity_mb: float = DEFAULT_CACHE_MB) -> None:
        self.capacity_bytes = int(capacity_mb * 1024 * 1024)
        self._entries: OrderedDict[Hashable, tuple[RenderedImage, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> RenderedImage | None:
        """The image rendered for ``key`` (now the most recently used), or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry[0]

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._entries

    def put(self, key: Hashable, rendered: RenderedImage) -> None:
        """Keep ``rendered`` under ``key``, dropping the least recently used entries until
        the total fits the capacity."""
        size = rendered_bytes(rendered)
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            if size > self.capacity_bytes:
                return
            self._entries[key] = (rendered, size)
            self._bytes += size
            while self._bytes > self.capacity_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._bytes -= dropped

    def clear(self) -> None:
        """Forget every entry."""
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    @property
    def nbytes(self) -> int:
        """Bytes held now."""
        with self._lock:
            return self._bytes

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
