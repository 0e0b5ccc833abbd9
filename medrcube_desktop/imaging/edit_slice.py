"""The slice a correction is drawn on (issue 23: a proposed box or mask), and the moves
between what the editor shows and what the file stores. No Qt here.

The editors show the slice as the review window does (radiological or neurological
convention, EXIF orientation, radiograph flips: a :class:`~.geometry.DisplayTransform`),
at full resolution (never a reduced decode nor a display shrink, so one shown pixel is
one file pixel). A proposal stores what the file stores: the box in the stored array's
pixels (column x, row y; as ``test.json`` gives it), the mask labels in the stored
slice's ``(rows, cols)`` order. :func:`stored_box` and :func:`stored_labels` undo the
display transform exactly (the eight symmetries of a rectangle).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from medrcube_desktop.core.file_checks import require_item_files
from medrcube_desktop.core.items import Item
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.geometry import DisplayTransform
from medrcube_desktop.imaging.pixel_facts import PixelFacts
from medrcube_desktop.imaging.render import compose_rgba, load_slice_cached
from medrcube_desktop.imaging.slice_data import to_neurological

__all__ = [
    "CORNERS",
    "EditSlice",
    "corner_points",
    "drag_corner",
    "load_edit_slice",
    "shown_box",
    "stored_box",
    "stored_labels",
]

Box = tuple[int, int, int, int]


@dataclass(frozen=True)
class EditSlice:
    """One slice of an item, ready for an editor.

    Attributes
    ----------
    item_id : str
    rgba : (H, W, 4) uint8
        The slice without mask nor box, as shown (display transform applied).
    pixel_aspect : float
        Height / width of one shown pixel (the view draws it so).
    transform : DisplayTransform
        Stored → shown.
    stored_shape : (rows, cols)
        The stored slice's shape (what a mask proposal's labels have).
    spacing : (row_mm, col_mm) or None
        Millimetres between the *shown* pixels' centres; None: the file gives none.
    spacing_source : str or None
        Where ``spacing`` comes from ("Pixel Spacing (0028,0030)"...).
    labels : (H, W) int32 or None
        The item's mask on this slice, as shown; None without a mask.
    slice_index, slice_count : int
        The slice shown (0-based) and how many the file holds.
    volume_axis : int or None
        For a volume mask: the axis of the stored array the slice is taken along
        (:attr:`~.slice_data.SliceData.slice_axis`: 2 for NIfTI, nibabel's
        ``data[:, :, k]``; 0 for NRRD/MHA, SimpleITK's ``array[z]``), the ``axis`` of
        the mask correction (:data:`~medrcube_desktop.core.corrections.MASK`); None for
        a 2-D mask (the whole mask is the slice).
    box : (x0, y0, x1, y1) int or None
        The item's box on the shown slice (inclusive pixels), None without one or when
        it misses the image.
    facts : PixelFacts
        For the editor's cursor readout (the file pixel under the cursor).
    edge_labels : dict or None
        Patient direction at the shown slice's edges (as the review window draws them).
    notes : list of str
        What the editor should say (a resampled mask cannot be edited, see
        :attr:`mask_editable`).
    """

    item_id: str
    rgba: np.ndarray
    pixel_aspect: float
    transform: DisplayTransform
    stored_shape: tuple[int, int]
    spacing: tuple[float, float] | None
    spacing_source: str | None
    labels: np.ndarray | None
    slice_index: int
    slice_count: int
    volume_axis: int | None
    box: Box | None
    facts: PixelFacts
    edge_labels: dict[str, str] | None = None
    notes: tuple[str, ...] = ()

    @property
    def shown_shape(self) -> tuple[int, int]:
        """``(rows, cols)`` of the shown slice."""
        return int(self.rgba.shape[0]), int(self.rgba.shape[1])

    @property
    def mask_editable(self) -> str | None:
        """None when the mask can be painted here, else why not (a volume mask that was
        resampled onto the image's grid: its own grid differs from what is painted)."""
        if any("mask resampled" in note for note in self.notes):
            return (
                f"item {self.item_id} field mask_path: the mask lies on another voxel grid "
                "than the image (it is resampled for display), so its labels cannot be "
                "painted on the image's grid"
            )
        return None

    def mask_change(self) -> dict[str, object]:
        """The ``change`` of a mask proposal on this slice
        (:data:`~medrcube_desktop.review.corrections.MASK`)."""
        volume = self.volume_axis is not None
        return {
            "slice_index": self.slice_index if volume else None,
            "axis": self.volume_axis if volume else None,
            "shape": [self.stored_shape[0], self.stored_shape[1]],
        }


def load_edit_slice(
    item: Item,
    slice_index: int | None = None,
    window: tuple[float, float] | None = None,
    invert: bool = False,
    neurological: bool = False,
) -> EditSlice:
    """Read ``item``'s slice for an editor (full resolution, as the window shows it).

    Parameters
    ----------
    item : Item
    slice_index : int or None
        The slice the review window shows (None: the one it opens on).
    window, invert, neurological
        The review window's display choices (see :func:`~.render.render_item`).

    Raises
    ------
    ImageLoadError
        The image or mask cannot be read (the message names the file).
    """
    image, mask = require_item_files(item)
    data = load_slice_cached(image, slice_index, mask, item.modality)
    if neurological:
        data = to_neurological(data)
    rendered = compose_rgba(
        dataclasses.replace(data, mask=None, graphics=None), None, 0.0, window, invert
    )
    if data.reduction != 1 or rendered.facts is None:  # never for a full decode
        raise ImageLoadError(f"item {item.id}: the image was decoded reduced; cannot edit it")
    stored = data.stored_shape or (int(data.pixels.shape[0]), int(data.pixels.shape[1]))
    box = None
    if item.bbox is not None:
        box = data.transform.box(item.bbox, stored)
    volume_axis = data.slice_axis if data.voxel_axes is not None else None
    return EditSlice(
        item_id=item.id,
        rgba=rendered.rgba,
        pixel_aspect=data.pixel_aspect,
        transform=data.transform,
        stored_shape=(int(stored[0]), int(stored[1])),
        spacing=data.pixel_spacing,
        spacing_source=data.spacing_source,
        labels=None if data.mask is None else np.array(data.mask, dtype=np.int32),
        slice_index=data.slice_index,
        slice_count=data.slice_count,
        volume_axis=volume_axis,
        box=box,
        facts=rendered.facts,
        edge_labels=data.edge_labels(),
        notes=tuple(data.notes),
    )


def stored_box(box: Box, transform: DisplayTransform, shown_shape: tuple[int, int]) -> Box:
    """A box on the shown slice moved back to the stored array's pixels.

    Parameters
    ----------
    box : (x0, y0, x1, y1) int
        Inclusive pixels of the shown slice (column, row), ``x0 <= x1``, ``y0 <= y1``.
    transform : DisplayTransform
        Stored → shown.
    shown_shape : (rows, cols)
        The shown slice's shape.

    Returns
    -------
    (x0, y0, x1, y1) int
        Inclusive pixels of the stored array; :meth:`DisplayTransform.box` of it gives
        ``box`` back.
    """
    x0, y0, x1, y1 = box
    r0, c0 = transform.stored_pixel(y0, x0, shown_shape)
    r1, c1 = transform.stored_pixel(y1, x1, shown_shape)
    return min(c0, c1), min(r0, r1), max(c0, c1), max(r0, r1)


def shown_box(box: Box, transform: DisplayTransform, stored_shape: tuple[int, int]) -> Box | None:
    """A stored box on the shown slice (:meth:`DisplayTransform.box`), None off the image."""
    return transform.box(box, stored_shape)


def stored_labels(labels: np.ndarray, transform: DisplayTransform) -> np.ndarray:
    """Shown labels back in the stored slice's order (the inverse of
    :meth:`DisplayTransform.apply`): flips undone, then the transpose.

    Parameters
    ----------
    labels : (H, W) array
        As shown.

    Returns
    -------
    (rows, cols) array, contiguous, same dtype
    """
    array = labels[:: -1 if transform.flip_rows else 1, :: -1 if transform.flip_cols else 1]
    if transform.transpose:
        array = np.swapaxes(array, 0, 1)
    return np.ascontiguousarray(array)


CORNERS: tuple[str, ...] = ("top-left", "top-right", "bottom-right", "bottom-left")
"""A box's corners, in the order :func:`corner_points` gives them."""


def corner_points(box: Box) -> list[tuple[float, float]]:
    """The four corners of an inclusive-pixel box as continuous image points ``(x, y)``
    (pixel ``[r, c]`` covers ``c <= x < c + 1``, ``r <= y < r + 1``), in
    :data:`CORNERS` order: the outline drawn around pixels ``x0..x1``, ``y0..y1``."""
    x0, y0, x1, y1 = box
    return [(x0, y0), (x1 + 1, y0), (x1 + 1, y1 + 1), (x0, y1 + 1)]


def drag_corner(box: Box, corner: int, x: float, y: float, shape: tuple[int, int]) -> Box:
    """The box after its corner ``corner`` (index into :data:`CORNERS`) is dragged to the
    continuous image point ``(x, y)``: that corner's two edges move to the pixel border
    nearest the point, the opposite corner stays.

    The box stays on the image (``shape``: rows, cols) and at least two pixels wide and
    high (``x0 < x1``, ``y0 < y1``, as ``core.fields.parse_bbox`` requires): a corner
    dragged past the opposite one stops there.

    Returns
    -------
    (x0, y0, x1, y1) int, inclusive pixels
    """
    rows, cols = shape
    x0, y0, x1, y1 = box
    bx, by = math.floor(x + 0.5), math.floor(y + 0.5)  # the nearest border, halves up
    if corner in (0, 3):  # the left edge
        x0 = max(0, min(bx, x1 - 1))
    else:
        x1 = min(cols - 1, max(bx - 1, x0 + 1))
    if corner in (0, 1):  # the top edge
        y0 = max(0, min(by, y1 - 1))
    else:
        y1 = min(rows - 1, max(by - 1, y0 + 1))
    return x0, y0, x1, y1
