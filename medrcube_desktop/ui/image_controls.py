"""Image display of the review window: rendering off the GUI thread, slices, window/level,
invert and overlay. A mixin of :class:`~medrcube_desktop.ui.main_window.MainWindow`, which
provides the widgets (``image_view``, ``slice_slider``, ``slice_label``, ``image_message``)
and the session; kept apart so each module stays small."""

from __future__ import annotations

import math

from medrcube_desktop.imaging.render import RenderedImage
from medrcube_desktop.ui.display_state import (
    DisplayChoice,
    window_note,
    window_number,
    window_scale,
)
from medrcube_desktop.ui.image_view import RenderTask, render_pool
from medrcube_desktop.ui.text import esc


class ImageControls:
    """Render the current item and apply the reviewer's display choices.

    Display choices: ``display_window`` (None: each file's own window) carries to the next
    item only where it means the same (:mod:`~medrcube_desktop.ui.display_state`: CT to
    CT); ``show_overlay`` is reset on every new item; ``invert``, the mask's look and the
    convention persist. A window that is not the file's own, a hidden overlay and an
    inverted image are always named in the image's corner.
    """

    display_window: tuple[float, float] | None = None
    _window_scale: str | None = None  # units of the item the window was set on
    _window_origin: str = "set by you"
    invert: bool = False
    show_overlay: bool = True
    mask_alpha: float = 0.4  # opacity of a filled mask, 0.1 .. 1
    mask_outline: bool = False  # draw only the border of each label
    neurological: bool = False  # patient right on screen right (a remembered setting)
    _shown_window: tuple[float, float] | None = None

    def _render(self, slice_index: int | None) -> None:
        self._generation += 1
        task = RenderTask(
            self._generation,
            self.session.current,
            slice_index,
            self.show_overlay,
            self.display_window,
            self.invert,
            self.mask_alpha,
            self.mask_outline,
            self.neurological,
        )
        task.signals.done.connect(self._on_rendered)
        task.signals.failed.connect(self._on_render_failed)
        self.image_message.setText("Rendering…")
        render_pool().start(task)

    def _on_rendered(self, generation: int, result: RenderedImage) -> None:
        if generation != self._generation:
            return  # a newer request superseded this one
        self._shown_window = result.window
        self.image_view.corner_text = "\n".join(
            self._corner_notes(result)
        )  # a line each: clear of the bottom letter
        self._file_windows = result.file_windows
        new_item = self._fit_next
        self._fit_next = False
        self.image_view.set_image(result.rgba, result.pixel_aspect, new_item, result.edge_labels)
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
                f" ({self._window_origin}; {self._key_of('view.window_reset')}: the file's own)"
            )
        legend = "  ".join(
            f"<span style='color:rgb{colour}'>■</span> label {label}"
            for label, colour in result.legend
        )
        parts = [window, legend, *(esc(note) for note in result.notes)]
        self.image_message.setText("  ·  ".join(part for part in parts if part))
        self._announce_first()

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
            corner.append(f"overlay hidden ({self._key_of('view.overlay')})")
        if self.invert:
            corner.append(f"inverted ({self._key_of('view.invert')})")
        return corner

    def _open_item_display(self, previous, item) -> str | None:
        """A new item: show its overlay; keep the window only where it means the same.

        Returns a message for the status bar when a choice was reset, else None.
        """
        reset = []
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
        self.image_view.clear()
        self.image_message.setText(
            f"<span style='color:#b42318'>Cannot show the image: {esc(message)}</span>"
        )
        self._announce_first()

    def _announce_first(self) -> None:
        if not self._shown_first:
            self._shown_first = True
            self.first_item_shown.emit()

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
        windows = getattr(self, "_file_windows", [])
        if not windows:
            self.statusBar().showMessage("The file stores no window.", 3000)
            return
        current = self.display_window or self._shown_window
        position = (windows.index(current) + 1 if current in windows else 0) % len(windows)
        self.set_window(windows[position], f"file window {position + 1} of {len(windows)}")
        self.statusBar().showMessage(f"File window {position + 1} of {len(windows)}", 3000)

    def toggle_invert(self) -> None:
        """Key I: show greyscale images negative (kept from item to item)."""
        self.invert = not self.invert
        self._rerender_same_slice()

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
        self.convention_changed.emit(self.neurological)

    def toggle_outline(self) -> None:
        """Key O: masks as filled areas or as outlines (kept from item to item)."""
        self.mask_outline = not self.mask_outline
        self._rerender_same_slice()

    def change_opacity(self, step: float) -> None:
        """Keys [ and ]: mask fill opacity down or up by ``step`` (0.1 to 1)."""
        self.mask_alpha = round(min(1.0, max(0.1, self.mask_alpha + step)), 2)
        self._rerender_same_slice()
        self.statusBar().showMessage(f"Mask opacity {self.mask_alpha:.0%}", 2000)

    def toggle_overlay(self) -> None:
        """Key M: hide or show the item's mask and box (the slice stays the same); the next
        item shows its overlay again."""
        self.show_overlay = not self.show_overlay
        self._rerender_same_slice()
        self.statusBar().showMessage(
            "Overlay shown." if self.show_overlay else "Overlay hidden (M shows it).", 3000
        )

    def step_slice(self, step: int) -> None:
        """PgDn/PgUp: move ``step`` slices through a volume or multi-frame file."""
        if self.slice_slider.isVisible():
            self.slice_slider.setValue(self.slice_slider.value() + step)
