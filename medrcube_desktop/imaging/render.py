"""Rendering an item's image to an ``(H, W, 4) uint8`` RGBA array, with its overlay.

Intensity pipeline (DICOM PS3.3 C.11, PS3.14): modality LUT / Rescale (done on load),
then the file's window (VOI LUT Function honoured), then MONOCHROME1 inversion. Without
a window: CT gets a soft-tissue window on Hounsfield units, 8-bit pictures are shown as
stored, everything else is mapped from its robust range (0.5th to 99.5th percentile),
never clipped at 8 bits. No Qt here: the UI wraps the array in a QImage.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from medrcube_desktop.core.file_checks import require_item_files
from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.auto_window import foreground_window, is_flat_window, robust_window
from medrcube_desktop.imaging.compositing import GRAPHICS_RGB, MASK_ALPHA, draw_box, draw_mask
from medrcube_desktop.imaging.loading import image_kind, load_slice
from medrcube_desktop.imaging.lookup_tables import (
    gray8_by_table,
    opaque_rgba,
    rgba_by_table,
    rgba_word,
    rgba_words,
    window_gray8,
)
from medrcube_desktop.imaging.pixel_facts import PixelFacts
from medrcube_desktop.imaging.slice_data import (
    SliceData,
    to_neurological,
)

CT_SOFT_TISSUE_WINDOW = (40.0, 400.0)

CT_PRESETS: dict[str, tuple[float, float]] = {
    "brain": (40.0, 80.0),
    "subdural": (75.0, 215.0),
    "stroke": (32.0, 8.0),
    "lung": (-600.0, 1500.0),
    "mediastinum": (50.0, 350.0),
    "abdomen": (40.0, 400.0),
    "liver": (30.0, 150.0),
    "bone": (400.0, 1800.0),
}
"""CT window presets as (center, width) in Hounsfield units (Radiopaedia, "Windowing
(CT)"; the stroke window is the narrow one used to see early ischaemia)."""
"""(center, width) in HU used for CT without a window in the file (abdomen/mediastinum)."""


@dataclass
class RenderedImage:
    """A rendered slice.

    Attributes
    ----------
    rgba : ndarray, shape (H, W, 4), uint8
        Display pixels, row 0 at the top, alpha 255.
    slice_index, slice_count : int
        Slice (or frame) shown, 0-based, and how many the file holds.
    window : tuple of (float, float) or None
        (center, width) used, in modality units; ``None`` for colour or unchanged 8-bit.
    notes : list[str]
        Things the reviewer should know about this image.
    pixel_aspect : float
        Height / width of one pixel (row / column spacing): show the image stretched
        vertically by this factor (DICOM Pixel Spacing or Pixel Aspect Ratio, NIfTI zooms).
    edge_labels : dict or None
        Patient direction at each edge ("top", "bottom", "left", "right"), e.g. "A" at
        the top of an axial slice; None when the file does not record orientation.
    legend : list of (label, (r, g, b))
        Colour of each mask label drawn, when the mask has several labels.
    file_windows : list of (center, width)
        The windows the file offers, for the reviewer to switch between.
    gray : bool
        The three colour channels are equal everywhere (a greyscale slice with nothing
        drawn in colour), so one channel holds the whole picture.
    facts : PixelFacts or None
        The modality-unit values under the picture (RGB for colour), their unit and the
        pixel spacing, for the cursor readout and the caliper.
    """

    rgba: np.ndarray
    slice_index: int = 0
    slice_count: int = 1
    window: tuple[float, float] | None = None
    notes: list[str] = field(default_factory=list)
    pixel_aspect: float = 1.0
    edge_labels: dict[str, str] | None = None
    legend: list[tuple[int, tuple[int, int, int]]] = field(default_factory=list)
    file_windows: list[tuple[float, float]] = field(default_factory=list)
    gray: bool = False
    facts: PixelFacts | None = None


def to_gray8(
    data: SliceData, window: tuple[float, float] | None = None, invert: bool = False
) -> tuple[np.ndarray, tuple[float, float] | None]:
    """Map a greyscale slice to ``(H, W)`` uint8 and return the window used.

    Parameters
    ----------
    data : SliceData
        Greyscale pixels in modality units.
    window : (center, width) or None
        A window chosen by the user (preset, drag), used instead of the file's or the
        default one, with the LINEAR_EXACT function.
    invert : bool
        Show negative (after VOI and after MONOCHROME1 handling).
    """
    gray, used = _to_gray8(data, window)
    return (255 - gray if invert else gray), used


def gray_rgba(
    data: SliceData, window: tuple[float, float] | None = None, invert: bool = False
) -> tuple[np.ndarray, tuple[float, float] | None]:
    """A greyscale slice as ``(H, W, 4)`` uint8 RGBA (R = G = B, alpha 255) and the
    window used: :func:`to_gray8` spread over four channels, byte for byte, in one
    gather for 8- and 16-bit integers (:func:`.lookup_tables.rgba_by_table`)."""
    voi = _choose_voi(data, window)
    if isinstance(voi, tuple):
        center_width, function = voi
        monochrome1 = data.photometric == "MONOCHROME1"
        rgba = rgba_by_table(data.pixels, center_width, function, monochrome1, invert)
        if rgba is not None:
            return rgba, center_width
    gray, used = _gray8_through(data, voi)
    return opaque_rgba(255 - gray if invert else gray), used


def _choose_voi(
    data: SliceData, override: tuple[float, float] | None
) -> tuple[tuple[float, float], str] | str:
    """The window and VOI LUT Function for ``data``: the user's (LINEAR_EXACT), the
    file's, CT's soft-tissue window, else the robust range of the values (the
    foreground's for MR); or ``"stored"`` (8-bit, shown as stored) or ``"none"`` (no
    finite value: black)."""
    pixels = data.pixels
    if override is not None:
        return (float(override[0]), max(float(override[1]), 1e-6)), "LINEAR_EXACT"
    if data.window is not None:
        return data.window, data.voi_lut_function
    if data.source_bits == 8:
        return "stored"
    if data.modality == "CT":
        return CT_SOFT_TISSUE_WINDOW, "LINEAR_EXACT"
    if pixels.dtype.kind in "iu" or np.isfinite(pixels).any():
        window = foreground_window(pixels) if data.modality == "MR" else robust_window(pixels)
        return window, "LINEAR_EXACT"
    return "none"


def _to_gray8(
    data: SliceData, override: tuple[float, float] | None
) -> tuple[np.ndarray, tuple[float, float] | None]:
    return _gray8_through(data, _choose_voi(data, override))


def _gray8_through(
    data: SliceData, voi: tuple[tuple[float, float], str] | str
) -> tuple[np.ndarray, tuple[float, float] | None]:
    """``(H, W)`` uint8 of ``data`` through ``voi`` (see :func:`_choose_voi`), by a
    lookup table when the values are whole numbers, else in float64."""
    pixels = data.pixels
    if voi == "stored":
        if pixels.dtype == np.uint8:  # shown as stored: nothing to compute
            return pixels, None
        return np.clip(np.rint(pixels), 0, 255).astype(np.uint8), None
    if not isinstance(voi, tuple):
        return np.zeros(pixels.shape, dtype=np.uint8), None
    window, function = voi
    monochrome1 = data.photometric == "MONOCHROME1"
    looked_up = gray8_by_table(pixels, window, function, monochrome1)
    if looked_up is not None:
        return looked_up, window
    return window_gray8(pixels, window, function, monochrome1), window


def compose_rgba(
    data: SliceData,
    bbox: tuple[float, float, float, float] | None = None,
    mask_alpha: float = MASK_ALPHA,
    window: tuple[float, float] | None = None,
    invert: bool = False,
    mask_outline: bool = False,
) -> RenderedImage:
    """Turn loaded pixels, mask and box into display RGBA.

    Parameters
    ----------
    data : SliceData
        Output of :func:`medrcube_desktop.imaging.loading.load_slice`.
    bbox : (x0, y0, x1, y1) or None
        Box in pixel coordinates of the slice (column, row), drawn as a red outline.
    mask_alpha : float
        Opacity of the red mask fill, 0..1.
    window, invert
        User window (center, width) and negative display for greyscale; see ``to_gray8``.
    mask_outline : bool
        Draw only the border of each label (its pixels with a 4-neighbour outside it), in
        full colour, so the tissue inside stays visible.
    """
    if data.is_color:
        out, window = opaque_rgba(data.pixels), None
    else:
        out, window = gray_rgba(data, window, invert)
    drawn = data.mask is not None or data.graphics is not None or data.supplemental is not None
    if not drawn:
        return _finish(out, data, bbox, window, [], gray=not data.is_color)
    rgb = out[..., :3]  # a view: drawing on it draws on ``out``
    legend: list[tuple[int, tuple[int, int, int]]] = []
    if data.mask is not None:
        legend = draw_mask(rgb, data.mask, mask_alpha, mask_outline)
    if data.supplemental is not None and data.supplemental_rgb is not None:
        rgb[data.supplemental] = data.supplemental_rgb[data.supplemental]
    if data.graphics is not None:  # the file's overlay planes, as radiology viewers draw them
        # whole pixels as 32-bit words in one masked pass (not a boolean gather of
        # three-byte pixels through the strided RGB view)
        np.copyto(rgba_words(out), rgba_word(GRAPHICS_RGB), where=data.graphics)
    return _finish(out, data, bbox, window, legend)


def box_on_slice(
    data: SliceData, bbox: tuple[float, float, float, float]
) -> tuple[int, int, int, int] | None:
    """The item's box on the displayed slice, ``(x0, y0, x1, y1)`` int clipped to it, or
    None when the box lies wholly outside the image (or is not finite).

    ``bbox`` is in the file's stored pixels (x = column, y = row), as ``test.json`` gives
    it; a reduced decode (``data.reduction``) and the display transform are applied.
    """
    h, w = data.stored_shape or (data.pixels.shape[0], data.pixels.shape[1])
    if data.reduction > 1:  # the box is in file pixels, the slice on a coarser grid
        bbox = (
            bbox[0] / data.reduction,
            bbox[1] / data.reduction,
            bbox[2] / data.reduction,
            bbox[3] / data.reduction,
        )
    return data.transform.box(bbox, (h, w))


def _finish(
    out: np.ndarray,
    data: SliceData,
    bbox: tuple[float, float, float, float] | None,
    window: tuple[float, float] | None,
    legend: list,
    gray: bool = False,
) -> RenderedImage:
    """Draw the box on the RGBA ``out`` and wrap it with what the viewer shows beside."""
    notes = list(data.notes)
    if window is not None and is_flat_window(window) and _one_value(data.pixels):
        notes.append(f"the image holds one value ({window[0]:g}) throughout: shown mid-grey")
    if _no_number(data.pixels):
        notes.append(
            "no pixel of this slice holds a finite value (NaN or infinite): nothing to window"
        )
    if data.mask is not None and data.slice_count == 1 and not data.mask.any():
        notes.append("the mask labels no pixel: nothing to draw")
    if bbox is not None:
        box = box_on_slice(data, bbox)
        if box is None:
            notes.append(f"the item's box {list(bbox)} lies outside the image: not drawn")
        else:
            draw_box(out, box)
            gray = False  # the box is red
    unit = "RGB" if data.is_color else data.value_unit
    facts = PixelFacts(
        data.pixels,
        unit,
        data.pixel_spacing,
        data.spacing_source,
        reduction=data.reduction,
        transform=data.transform,
        slice_index=data.slice_index,
        voxel_axes=data.voxel_axes,
    )
    return RenderedImage(
        out,
        data.slice_index,
        data.slice_count,
        window,
        notes,
        data.pixel_aspect,
        data.edge_labels(),
        legend,
        list(data.file_windows),
        gray,
        facts,
    )


def _no_number(pixels: np.ndarray) -> bool:
    """Whether no value of float ``pixels`` is finite (a whole pass only when the first
    one is not)."""
    if pixels.dtype.kind != "f" or not pixels.size or np.isfinite(pixels.flat[0]):
        return False
    return not np.isfinite(pixels).any()


def _one_value(pixels: np.ndarray) -> bool:
    """Whether the finite values of ``pixels`` are all the same (and there is one)."""
    finite = pixels if pixels.dtype.kind in "iu" else pixels[np.isfinite(pixels)]
    return bool(finite.size) and finite.min() == finite.max()


def render_file(
    path: Path,
    slice_index: int | None = None,
    mask_path: Path | None = None,
    bbox: tuple[float, float, float, float] | None = None,
    modality: str | None = None,
) -> RenderedImage:
    """Load and render one image file; see :func:`compose_rgba` and ``load_slice``.

    ``modality`` is the item's modality, a hint for NIfTI files (which record none).

    Raises
    ------
    ImageLoadError
        The image or mask cannot be read.
    """
    return compose_rgba(load_slice(path, slice_index, mask_path, modality), bbox)


def render_item(
    item: Item,
    slice_index: int | None = None,
    overlay: bool = True,
    window: tuple[float, float] | None = None,
    invert: bool = False,
    mask_alpha: float = MASK_ALPHA,
    mask_outline: bool = False,
    neurological: bool = False,
    max_side: int | None = None,
    display_side: int | None = None,
) -> RenderedImage:
    """Render an item's image with its mask and box (paper Appendix E.1).

    ``slice_index`` ``None`` shows the slice with the largest mask area, else the
    central slice or frame. ``overlay=False`` draws neither mask nor box (the mask still
    picks the slice), so the reviewer can see the tissue under them. ``window``,
    ``invert``, ``mask_alpha`` and ``mask_outline`` are the reviewer's display choices (see
    :func:`compose_rgba`). The decoded slice is cached, so re-windowing the same slice does
    not decode the file again. ``neurological`` shows axial and coronal slices with the
    patient's right on screen right (radiological convention is the default).
    ``max_side`` (pixels) shrinks a larger result by an integer factor for display only;
    the batch renderer never passes it, so its output keeps full resolution.
    ``display_side`` (device pixels, the view's longer side) lets a JPEG 2000 file at
    least twice as large decode at a reduced resolution that still covers it (display
    only, see :mod:`.j2k`; ``None``, as for export, batch and evaluation: full).

    Raises
    ------
    ImageLoadError
        The image or mask cannot be read, or their real path leaves the benchmark root
        (checked on every call: the window loads benchmarks without file checks).
    """
    image, mask = require_item_files(item)  # checked now, on every call
    data = load_slice_cached(image, slice_index, mask, item.modality, display_side)
    if neurological:
        data = to_neurological(data)
    if not overlay:
        data = dataclasses.replace(data, mask=None, graphics=None)
    bbox = item.bbox if overlay else None
    rendered = compose_rgba(data, bbox, mask_alpha, window, invert, mask_outline)
    return shrink_for_display(rendered, max_side) if max_side else rendered


def shrink_for_display(rendered: RenderedImage, max_side: int) -> RenderedImage:
    """Reduce by the smallest integer factor that brings both sides to ``max_side`` or less.

    Box averaging (Pillow ``Image.reduce``) keeps thin outlines visible better than
    dropping pixels; the physical aspect and orientation are unchanged. A note says so.
    """
    from PIL import Image

    height, width = rendered.rgba.shape[:2]
    factor = -(-max(height, width) // max_side)  # ceiling division
    if factor <= 1:
        return rendered
    small = np.asarray(Image.fromarray(rendered.rgba).reduce(factor))
    note = f"shown at 1/{factor} resolution ({width}x{height} pixels in the file)"
    facts = rendered.facts
    if facts is not None:  # the readout and caliper still read the full-resolution values
        facts = dataclasses.replace(facts, factor=facts.factor * factor)
    return dataclasses.replace(rendered, rgba=small, notes=[*rendered.notes, note], facts=facts)


def load_slice_cached(
    path: Path,
    slice_index: int | None,
    mask_path: Path | None,
    modality: str | None,
    display_side: int | None = None,
) -> SliceData:
    """:func:`load_slice` behind a small cache keyed by the files' paths and stamps
    (:func:`~medrcube_desktop.core.files.file_stamp`: a replaced file is read again).

    The returned object is shared: callers must not modify it (use ``dataclasses.replace``).
    """
    from medrcube_desktop.core.files import file_stamp

    if display_side is not None and not _reads_display_side(path, mask_path):
        display_side = None  # one entry whatever the view's size (the decode ahead's)
    stamp = (file_stamp(path), file_stamp(mask_path))
    key = (str(path), slice_index, str(mask_path) if mask_path else None, modality, stamp,
           display_side)  # fmt: skip
    with _IN_FLIGHT_LOCK:  # one decode of a slice at a time: a second caller waits for it
        lock = _IN_FLIGHT.setdefault(key, threading.Lock())
    try:
        with lock:
            return _cached_slice(*key)
    finally:
        with _IN_FLIGHT_LOCK:
            if not lock.locked():
                _IN_FLIGHT.pop(key, None)


_IN_FLIGHT: dict[tuple, threading.Lock] = {}
_IN_FLIGHT_LOCK = threading.Lock()
"""A lock per slice being decoded (:func:`load_slice_cached`): the window's first render
waits for the decode ahead of the same slice (:mod:`.decode_ahead`) instead of decoding
it again beside it."""


def _reads_display_side(path: Path, mask_path: Path | None) -> bool:
    """Whether :func:`load_slice` decodes ``path`` differently for another
    ``display_side``: only a DICOM file without a mask does (a reduced JPEG 2000 decode);
    an unknown kind is left to ``load_slice`` to refuse."""
    if mask_path is not None:
        return False
    try:
        return image_kind(Path(path)) == "dicom"
    except ImageLoadError:
        return True


@functools.lru_cache(maxsize=8)
def _cached_slice(path, slice_index, mask_path, modality, _stamp, display_side) -> SliceData:
    mask = Path(mask_path) if mask_path else None
    return load_slice(Path(path), slice_index, mask, modality, display_side)
