"""Image display of the review window: rendering off the GUI thread, slices, window/level,
invert and overlay. A part the window owns (``window.image``): it is given the widgets it
draws into (``image_view``, ``slice_slider``, ``slice_label``, ``image_message``, the
status bar), the session, and what it tells the window, at construction."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QLabel, QSlider, QStatusBar

from medrcube_desktop.core.dataset import text_only_message
from medrcube_desktop.imaging.render import RenderedImage
from medrcube_desktop.imaging.render_cache import RenderCache, render_key
from medrcube_desktop.ui.review.display_state import (
    DisplayChoice,
    window_note,
    window_number,
    window_scale,
)
from medrcube_desktop.ui.widgets.image_view import ImageView
from medrcube_desktop.ui.widgets.render_task import DISPLAY_MAX_SIDE, RenderTask, render_pool
from medrcube_desktop.ui.widgets.text import esc

if TYPE_CHECKING:
    from medrcube_desktop.review.session import ReviewSessionState

SHOWN_PRIORITY = 1
"""Pool priority of the item the reviewer waits for: ahead of every queued prefetch."""

DISPLAY_SIDE_STEP = 128
"""The view size given to the renderer is rounded up to this many device pixels."""

PREFETCH_PRIORITY = 0
PREFETCH_STEPS = (1, -1)
"""Neighbours rendered ahead, in this order: the next item, then the previous one."""
SETTLE_POLL_MS = 50
"""How often :meth:`ImageControls.when_image_settled` looks again."""
CALIPER_HINT = "Caliper:"
"""How the caliper's status-bar hints begin (taken off when the caliper is left)."""


class ImageControls(QObject):
    """Render the current item and apply the reviewer's display choices.

    Display choices: ``display_window`` (None: each file's own window) carries to the next
    item only where it means the same (:mod:`~medrcube_desktop.ui.review.display_state`: CT to
    CT); ``show_overlay`` is reset on every new item; ``invert``, the mask's look and the
    convention persist. A window that is not the file's own, a hidden overlay and an
    inverted image are always named in the image's corner.
    """

    def __init__(
        self,
        session: Callable[[], ReviewSessionState],
        view: ImageView,
        slider: QSlider,
        slice_label: QLabel,
        message: QLabel,
        status: QStatusBar,
        key_of: Callable[[str], str],
        on_shown: Callable[[], None],
        convention_changed: Callable[[bool], None],
        neurological: bool = False,
    ) -> None:
        """``session()`` is the window's session now (another reviewer binds another);
        ``key_of(action_id)`` the key an action has (as remapped), named in the image's
        corner; ``on_shown()`` is called each time the image asked for is settled (drawn,
        failed with its message, or text only); ``convention_changed(neurological)`` when
        View › Neurological convention is toggled. A QObject child of ``view``: the
        renders' signals, emitted on the render pool, reach it on the GUI thread."""
        super().__init__(view)
        self._session = session
        self.image_view, self.slice_slider, self.slice_label = view, slider, slice_label
        self.image_message, self.status = message, status
        self.key_of, self.on_shown, self.convention_changed = key_of, on_shown, convention_changed
        self.neurological = neurological  # patient right on screen right (remembered)
        self.display_window: tuple[float, float] | None = None  # None: the file's own
        self._window_scale: str | None = None  # units of the item the window was set on
        self._window_origin = "set by you"
        self.invert = False
        self.show_overlay = True  # key M hides the mask and box (this item only)
        self.mask_alpha = 0.4  # opacity of a filled mask, 0.1 .. 1
        self.mask_outline = False  # draw only the border of each label
        self._full_resolution = False  # this item zoomed in: no reduced decode
        self._shown_window: tuple[float, float] | None = None
        self._file_windows: list[tuple[float, float]] = []
        self.render_cache = RenderCache()  # shown and prefetched items, bounded in MB
        self._prefetch_stale = threading.Event()
        self._awaited: int | None = None  # generation of the render in flight
        self._generation = 0
        self._fit_next = True
        self._positions: tuple | None = None  # (visible list, id -> index)
        self._prefetch_waits = True  # until the first image settles: it has the cores alone
        view.window_dragged.connect(self._drag_window)
        view.full_resolution_wanted.connect(self.show_full_resolution)
        slider.valueChanged.connect(self._slice_changed)

    @property
    def session(self) -> ReviewSessionState:
        """The window's session now."""
        return self._session()

    def start_item(self) -> None:
        """A new current item: clear the view, render it fitted to the window, then its
        neighbours ahead (after it: it goes first)."""
        self._fit_next = True
        self.image_view.clear()
        self.slice_slider.blockSignals(True)
        self.slice_slider.setRange(0, 0)
        self.slice_slider.blockSignals(False)
        self._render(None)
        if not self._prefetch_waits:
            self._prefetch_neighbours()

    def _settled(self) -> None:
        """The image asked for is settled: say so; after the window's first image, start
        the prefetch it held back (issue 25, first paint: nothing else decodes beside the
        first image on a machine of few cores)."""
        if self._prefetch_waits:
            self._prefetch_waits = False
            if self.session.current is not None:
                self._prefetch_neighbours()
        self.on_shown()

    def show_nothing(self, message: str) -> None:
        """No item: drop any render in flight, clear the view, say ``message``."""
        self._generation += 1
        self.image_view.clear()
        self.slice_slider.setVisible(False)
        self.slice_label.setText("")
        self.image_message.setText(message)

    def stop(self) -> None:
        """The window closes: prefetches still queued are skipped, not rendered at exit."""
        self._prefetch_stale.set()

    def _display_args(self, item, slice_index, overlay, window) -> tuple:
        """render_item's arguments after the item, in order (also the cache key's)."""
        return (
            slice_index,
            overlay,
            window,
            self.invert,
            self.mask_alpha,
            self.mask_outline,
            self.neurological,
            DISPLAY_MAX_SIDE,
            self._display_side(),
        )

    def _display_side(self) -> int | None:
        """What the view can show, for a reduced JPEG 2000 decode: its longer side in
        device pixels rounded up to a multiple of :data:`DISPLAY_SIDE_STEP` (a small
        resize keeps the cached render); None once the reviewer zoomed in (full)."""
        if self._full_resolution:
            return None
        side = self.image_view.display_side()
        return -(-side // DISPLAY_SIDE_STEP) * DISPLAY_SIDE_STEP

    def show_full_resolution(self) -> None:
        """The reviewer zoomed in past a reduced decode: render this item in full (once;
        the result is cached like any render). A new item starts reduced again."""
        if not self._full_resolution:
            self._full_resolution = True
            self._rerender_same_slice()

    def _render(self, slice_index: int | None) -> None:
        """Show the current item: at once from the cache (a prefetched neighbour), else
        rendered on the render pool ahead of any queued prefetch."""
        self._generation += 1
        self._awaited = None  # a render still in flight is for an earlier request
        item = self.session.current
        if self.session.text_only(item.id):  # the release does not ship its image
            self.image_view.show_message(text_only_message(item))
            self.slice_slider.setVisible(False)
            self.slice_label.setText("")
            self.image_message.setText(esc(f"Text only: {text_only_message(item)}."))
            self._settled()
            return
        args = self._display_args(item, slice_index, self.show_overlay, self.display_window)
        key = render_key(item, *args)
        cached = self.render_cache.get(key)
        if cached is not None:
            self._on_rendered(self._generation, cached)
            return
        task = RenderTask(self._generation, item, *args, cache=self.render_cache, key=key)
        task.signals.done.connect(self._on_rendered)
        task.signals.failed.connect(self._on_render_failed)
        self.image_message.setText("Rendering…")
        self._awaited = self._generation
        render_pool().start(task, SHOWN_PRIORITY)

    def _prefetch_neighbours(self) -> None:
        """Render the next and previous visible items ahead (as they will open: overlay
        shown, the window carried only where it means the same). Prefetches still queued
        for an earlier item are skipped when they come up."""
        self._prefetch_stale.set()
        stale = self._prefetch_stale = threading.Event()
        current = self.session.current
        if current is None:
            return
        visible = self.session.visible
        position = self._visible_position(current.id)
        if position is None:
            return
        choice = DisplayChoice(self.display_window, self._window_scale, self._window_origin)
        for step in PREFETCH_STEPS:
            if not 0 <= position + step < len(visible):
                continue
            item = visible[position + step]
            if self.session.text_only(item.id):
                continue  # nothing to render
            args = self._display_args(item, None, True, choice.carried_to(item).window)
            key = render_key(item, *args)
            if key in self.render_cache:
                continue
            task = RenderTask(
                0,
                item,
                *args,
                cache=self.render_cache,
                key=key,
                still_wanted=lambda event=stale: not event.is_set(),
            )
            render_pool().start(task, PREFETCH_PRIORITY)

    def _visible_position(self, item_id: str) -> int | None:
        """Index of ``item_id`` in the session's visible list (a table rebuilt when the
        list changes, so a step costs no scan of 100,000 items)."""
        visible = self.session.visible
        table = self._positions
        if table is None or table[0] is not visible or len(table[1]) != len(visible):
            table = (
                visible,
                dict(zip(map(attrgetter("id"), visible), range(len(visible)), strict=True)),
            )
            self._positions = table
        return table[1].get(item_id)

    def _on_rendered(self, generation: int, result: RenderedImage) -> None:
        if generation != self._generation:
            return  # a newer request superseded this one
        self._awaited = None
        self._shown_window = result.window
        self.image_view.corner_text = "\n".join(
            self._corner_notes(result)
        )  # a line each: clear of the bottom letter
        self._file_windows = result.file_windows
        new_item = self._fit_next
        self._fit_next = False
        self.image_view.set_image(
            result.rgba, result.pixel_aspect, new_item, result.edge_labels, result.facts
        )
        if new_item and self.image_view.measuring:  # D pressed while it loaded
            self._say_caliper_spacing()
        elif new_item:
            self._forget_caliper_hint()  # the caliper was left with the item before
        self.slice_slider.blockSignals(True)
        self.slice_slider.setRange(0, max(0, result.slice_count - 1))
        self.slice_slider.setValue(result.slice_index)
        self.slice_slider.blockSignals(False)
        self.slice_slider.setVisible(result.slice_count > 1)
        many = result.slice_count > 1
        self.slice_label.setText(
            f"Slice {result.slice_index + 1} of {result.slice_count}" if many else ""
        )
        window = (
            f"Window C {window_number(result.window[0])} / W {window_number(result.window[1])}"
            if result.window
            else ""
        )
        if window and self.display_window is not None:
            window += (
                f" ({self._window_origin}; {self.key_of('view.window_reset')}: the file's own)"
            )
        legend = "  ".join(
            f"<span style='color:rgb{colour}'>■</span> label {label}"
            for label, colour in result.legend
        )
        parts = [window, legend, *(esc(note) for note in result.notes)]
        self.image_message.setText("  ·  ".join(part for part in parts if part))
        if self.session.current is not None:  # the review records that it was seen
            self.session.image_displayed(self.session.current.id, True)
        self._settled()

    def _corner_notes(self, result: RenderedImage) -> list[str]:
        """The window, the slice, and every display choice that is not the default."""
        corner = []
        if result.window:
            if self.display_window is not None:
                corner.append(window_note(result.window, self._window_origin))
            else:
                corner.append(
                    f"W {window_number(result.window[1])}  C {window_number(result.window[0])}"
                )
        if result.slice_count > 1:
            corner.append(f"{result.slice_index + 1} / {result.slice_count}")
        if not self.show_overlay:
            corner.append(f"overlay hidden ({self.key_of('view.overlay')})")
        if self.invert:
            corner.append(f"inverted ({self.key_of('view.invert')})")
        return corner

    def open_item_display(self, previous, item) -> str | None:
        """A new item: show its overlay; keep the window only where it means the same.

        Returns a message for the status bar when a choice was reset, else None.
        """
        reset = []
        self._full_resolution = False
        if not self.show_overlay:
            self.show_overlay = True
            reset.append("overlay shown again")
        choice = DisplayChoice(self.display_window, self._window_scale, self._window_origin)
        carried = choice.carried_to(item)
        if self.display_window is not None and carried.window is None:
            reset.append(
                "window back to the file's own (a window carries only from CT to CT, whose "
                "Hounsfield units mean the same in every file)"
            )
        self.display_window, self._window_origin = carried.window, carried.origin
        self._window_scale = carried.scale
        return "New item: " + "; ".join(reset) + "." if reset else None

    def _on_render_failed(self, generation: int, message: str) -> None:
        if generation != self._generation:
            return
        self._awaited = None
        self.image_view.clear()
        self.image_message.setText(
            f"<span style='color:#b42318'>Cannot show the image: {esc(message)}</span>"
        )
        self._settled()

    def image_settled(self) -> bool:
        """Whether the image asked for last is on screen: no render of the current item
        is in flight (it was drawn, failed with its message shown, or is text only)."""
        return self._awaited is None

    def when_image_settled(self, wait_ms: int, then: Callable[[bool], None]) -> None:
        """Call ``then(True)`` once :meth:`image_settled`, or ``then(False)`` when it is not
        within ``wait_ms`` milliseconds (checked every :data:`SETTLE_POLL_MS`, on the GUI
        thread's event loop: a screenshot must wait for "Rendering…" to end)."""
        if self.image_settled():
            then(True)
        elif wait_ms <= 0:
            then(False)
        else:
            QTimer.singleShot(
                SETTLE_POLL_MS, lambda: self.when_image_settled(wait_ms - SETTLE_POLL_MS, then)
            )

    def _slice_changed(self, value: int) -> None:
        if self.session.current is not None:
            self._render(value)

    def set_window(self, window: tuple[float, float] | None, origin: str = "set by you") -> None:
        """Use ``window`` (center, width) for this item, and for the next ones where it
        means the same (CT to CT); None resets to each file's own (or default) window.
        ``origin`` is how the image's corner names it."""
        self.display_window = window
        self._window_origin = origin
        current = self.session.current
        self._window_scale = window_scale(current) if current is not None else None
        self._rerender_same_slice()

    def next_file_window(self) -> None:
        """Key V: the next window stored in the file (DICOM may hold several)."""
        windows = self._file_windows
        if not windows:
            self.status.showMessage("The file stores no window.", 3000)
            return
        current = self.display_window or self._shown_window
        position = (windows.index(current) + 1 if current in windows else 0) % len(windows)
        self.set_window(windows[position], f"file window {position + 1} of {len(windows)}")
        self.status.showMessage(f"File window {position + 1} of {len(windows)}", 3000)

    def toggle_invert(self) -> str:
        """Key I: show greyscale images negative (kept from item to item); what it did."""
        self.invert = not self.invert
        self._rerender_same_slice()
        return "Negative (inverted) image" if self.invert else "Image no longer inverted"

    def _drag_window(self, dx: int, dy: int) -> None:
        """Right-drag: horizontal widens/narrows the window, vertical moves its center."""
        base = self.display_window or self._shown_window
        if base is None or self.session.current is None:
            return  # colour image: nothing to window
        center, width = base
        width = max(1.0, width * math.exp(dx / 200.0))
        self.set_window((center + dy * width / 300.0, width))  # by the reviewer now

    def _rerender_same_slice(self) -> None:
        if self.session.current is not None:
            self._render(self.slice_slider.value() if self.slice_slider.isVisible() else None)

    def toggle_neurological(self) -> None:
        """View › Neurological convention: patient right on screen right (remembered)."""
        self.neurological = not self.neurological
        self._rerender_same_slice()
        self.convention_changed(self.neurological)

    def toggle_outline(self) -> str:
        """Key O: masks as filled areas or as outlines (kept from item to item); what it
        did."""
        self.mask_outline = not self.mask_outline
        self._rerender_same_slice()
        return "Masks drawn as outlines" if self.mask_outline else "Masks drawn filled"

    def change_opacity(self, step: float) -> None:
        """Keys [ and ]: mask fill opacity down or up by ``step`` (0.1 to 1)."""
        self.mask_alpha = round(min(1.0, max(0.1, self.mask_alpha + step)), 2)
        self._rerender_same_slice()
        self.status.showMessage(f"Mask opacity {self.mask_alpha:.0%}", 2000)

    def toggle_overlay(self) -> None:
        """Key M: hide or show the item's mask and box (the slice stays the same); the next
        item shows its overlay again."""
        self.show_overlay = not self.show_overlay
        self._rerender_same_slice()
        self.status.showMessage(
            "Overlay shown." if self.show_overlay else "Overlay hidden (M shows it).", 3000
        )

    def toggle_caliper(self) -> str | None:
        """Key D: measure a distance by dragging (mm from the pixel spacing); again, or
        Esc, leaves it and clears the line. "Caliper off" when it left it (the status
        bar names the spacing when it starts)."""
        view = self.image_view
        if view.measuring:
            view.clear_caliper()
            self._forget_caliper_hint()
            return "Caliper off"
        view.set_measuring(True)
        self._say_caliper_spacing()
        return None

    def _forget_caliper_hint(self) -> None:
        """Take the caliper's hint off the status bar once the caliper is left (it said
        "drag on the image" for 6 s, after the caliper was gone)."""
        if self.status.currentMessage().startswith(CALIPER_HINT):
            self.status.clearMessage()

    def _say_caliper_spacing(self) -> None:
        """The status bar names the spacing the caliper measures with: that of the image
        shown, or, while the item still loads, that it is said when the image arrives."""
        facts = self.image_view.facts
        if facts is None:
            message = (
                f"{CALIPER_HINT} drag on the image once it is shown (its spacing is said then)."
            )
        elif facts.spacing_source:
            message = (
                f"{CALIPER_HINT} drag on the image; lengths in mm from {facts.spacing_source}."
            )
        else:
            message = (
                f"{CALIPER_HINT} drag on the image; the file gives no pixel spacing, so "
                "lengths are in pixels."
            )
        self.status.showMessage(message, 6000)

    def escape(self) -> str:
        """Esc: on the image, clear the caliper; elsewhere (the comment box), back to the
        image, where the keys score. What it did, for the status bar ("" for nothing)."""
        view = self.image_view
        if view.hasFocus() and (view.measuring or view.caliper is not None):
            view.clear_caliper()
            self._forget_caliper_hint()
            return "Caliper off"
        if view.hasFocus():
            return ""  # nothing to do: any message on the status bar stays
        view.setFocus()
        return "Back to the image: keys score again"

    def step_slice(self, step: int) -> str:
        """PgDn/PgUp: move ``step`` slices through a volume or multi-frame file; what it
        did ("Slice 3 of 24")."""
        slider = self.slice_slider
        if not slider.isVisible():
            return "This image has one slice"
        slider.setValue(slider.value() + step)
        return f"Slice {slider.value() + 1} of {slider.maximum() + 1}"
