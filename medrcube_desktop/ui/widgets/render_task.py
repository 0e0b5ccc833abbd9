"""Rendering an item off the GUI thread: the one render pool and its task, which touch
no widget and only emit signals (the window, the pairs view and the compare detail use
them)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.render import RenderedImage, render_item
from medrcube_desktop.imaging.render_cache import RenderCache

log = logging.getLogger(__name__)

DISPLAY_MAX_SIDE = 4096
"""Images larger than this (pixels per side) are shown reduced; the file is untouched."""

_RENDER_POOL: QThreadPool | None = None


def render_pool() -> QThreadPool:
    """The one worker thread that renders images, in request order.

    One thread keeps decoding off the GUI thread without renders racing each other for
    memory or for process-wide state (warning filters, pydicom's logger); stale results
    are dropped by the window.
    """
    global _RENDER_POOL
    if _RENDER_POOL is None:
        _RENDER_POOL = QThreadPool()
        _RENDER_POOL.setMaxThreadCount(1)
    return _RENDER_POOL


def failure_text(item_id: str, exc: BaseException) -> str:
    """What a failed render says: the error, naming the item once (a file check's error,
    ``"<test.json> item <id> field image_path: …"``, names it already)."""
    text = str(exc)
    if f" item {item_id} field " in text or text.startswith(f"item {item_id}:"):
        return text
    return f"item {item_id}: {text}"


class RenderSignals(QObject):
    """Signals of :class:`RenderTask`: (generation, result) or (generation, error text)."""

    done = Signal(int, object)
    failed = Signal(int, str)


class RenderTask(QRunnable):
    """Renders an item off the GUI thread; touches no widget, only emits signals.

    Run it on :func:`render_pool`; ``generation`` lets the receiver drop a result that a
    newer request superseded. ``max_side`` (pixels) reduces the picture for display.
    With a ``cache`` and ``key``, a result already there is used and a new one is kept.
    ``still_wanted`` (a prefetch's): checked before rendering; False skips the task (the
    reviewer moved elsewhere), with nothing emitted.
    """

    def __init__(
        self,
        generation: int,
        item: Item,
        slice_index: int | None,
        overlay: bool = True,
        window: tuple[float, float] | None = None,
        invert: bool = False,
        mask_alpha: float = 0.4,
        mask_outline: bool = False,
        neurological: bool = False,
        max_side: int = DISPLAY_MAX_SIDE,
        display_side: int | None = None,
        cache: RenderCache | None = None,
        key: Hashable | None = None,
        still_wanted: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__()
        self.cache, self.key, self.still_wanted = cache, key, still_wanted
        self.generation, self.item, self.slice_index = generation, item, slice_index
        self.overlay, self.window, self.invert = overlay, window, invert
        self.mask_alpha, self.mask_outline = mask_alpha, mask_outline
        self.neurological = neurological
        self.max_side = max_side
        self.display_side = display_side
        self.signals = RenderSignals()

    def run(self) -> None:
        if self.still_wanted is not None and not self.still_wanted():
            return  # a prefetch the reviewer no longer needs
        cached = self.cache.get(self.key) if self.cache is not None else None
        if cached is not None:
            self._emit_done(cached)
            return
        try:
            result: RenderedImage = render_item(
                self.item,
                self.slice_index,
                self.overlay,
                self.window,
                self.invert,
                self.mask_alpha,
                self.mask_outline,
                self.neurological,
                self.max_side,
                self.display_side,
            )
        except Exception as exc:  # shown to the user in the view, and logged
            if self.still_wanted is not None:  # a prefetch: shown when the item is opened
                log.warning("prefetch of item %s failed: %s", self.item.id, exc)
                return
            if isinstance(exc, ImageLoadError):  # a bad input, not a bug: one line
                log.warning("rendering item %s failed: %s", self.item.id, exc)
            else:
                log.exception("rendering item %s failed", self.item.id)
            try:
                self.signals.failed.emit(self.generation, failure_text(self.item.id, exc))
            except RuntimeError:
                log.debug("render of item %s failed after the window closed", self.item.id)
            return
        if self.cache is not None:
            self.cache.put(self.key, result)
        self._emit_done(result)

    def _emit_done(self, result: RenderedImage) -> None:
        try:
            self.signals.done.emit(self.generation, result)
        except RuntimeError:  # the window (and its receiver) closed while rendering
            log.debug("render of item %s finished after the window closed", self.item.id)
