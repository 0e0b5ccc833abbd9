"""Painting a label mask with a round brush whose radius is in millimetres (issue 23: a
proposed mask correction), on a pixel grid that may be anisotropic. No Qt here: the
mask editor (``ui/corrections/mask_editor.py``) only turns mouse positions into image
coordinates and calls these functions.

Coordinates: ``(x, y)`` are continuous image coordinates of the array painted (x the
column, y the row, 0 at the top-left corner of pixel ``[0, 0]``), so pixel ``[r, c]``
covers ``c <= x < c + 1``, ``r <= y < r + 1`` and its centre is ``(c + 0.5, r + 0.5)``.
A pixel is painted when the distance **in mm** from its centre to the brush's path is at
most the radius: ``hypot(dx * col_mm, dy * row_mm) <= radius_mm``, with ``(row_mm,
col_mm)`` the pixel spacing (DICOM Pixel Spacing order, :attr:`~.slice_data.SliceData.
pixel_spacing`). A stroke is the union of the discs along each segment between two
successive positions (a capsule per segment), so a fast drag leaves no gaps.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import numpy as np

__all__ = ["brush_pixels", "labels_npy", "paint_stroke", "stroke_pixels"]

Point = tuple[float, float]


def _spacing(spacing: tuple[float, float] | None) -> tuple[float, float]:
    """``(row_mm, col_mm)``; 1 mm a pixel when the image gives no spacing.

    Raises
    ------
    ValueError
        A spacing that is not finite and positive.
    """
    if spacing is None:
        return 1.0, 1.0
    row_mm, col_mm = float(spacing[0]), float(spacing[1])
    if not (math.isfinite(row_mm) and math.isfinite(col_mm) and row_mm > 0 and col_mm > 0):
        raise ValueError(f"pixel spacing must be positive millimetres, got {spacing!r}")
    return row_mm, col_mm


def stroke_pixels(
    shape: tuple[int, int],
    points: Sequence[Point],
    radius_mm: float,
    spacing: tuple[float, float] | None,
) -> np.ndarray:
    """The pixels a brush of ``radius_mm`` covers along ``points``.

    Parameters
    ----------
    shape : (rows, cols)
        The grid painted.
    points : sequence of (x, y) float
        The brush's positions in image coordinates (see the module), in order; one point
        is a single disc.
    radius_mm : float
        Brush radius in mm (in pixels when ``spacing`` is None), > 0.
    spacing : (row_mm, col_mm) or None
        Millimetres between pixel centres down the rows and across the columns.

    Returns
    -------
    (rows, cols) bool
        True where the pixel's centre lies within ``radius_mm`` of the path.

    Raises
    ------
    ValueError
        No point, a radius that is not positive and finite, or a bad spacing.
    """
    if not points:
        raise ValueError("a stroke needs at least one point")
    if not (math.isfinite(radius_mm) and radius_mm > 0):
        raise ValueError(f"the brush radius must be positive millimetres, got {radius_mm!r}")
    row_mm, col_mm = _spacing(spacing)
    rows, cols = int(shape[0]), int(shape[1])
    covered = np.zeros((rows, cols), dtype=bool)
    path = list(points) if len(points) > 1 else [points[0], points[0]]
    reach_x, reach_y = radius_mm / col_mm, radius_mm / row_mm  # the radius in pixels
    for (ax, ay), (bx, by) in zip(path[:-1], path[1:], strict=True):
        c0 = max(0, math.floor(min(ax, bx) - reach_x - 0.5))
        c1 = min(cols, math.ceil(max(ax, bx) + reach_x + 0.5))
        r0 = max(0, math.floor(min(ay, by) - reach_y - 0.5))
        r1 = min(rows, math.ceil(max(ay, by) + reach_y + 0.5))
        if c0 >= c1 or r0 >= r1:
            continue  # wholly off the grid
        # pixel centres relative to the segment's start, in mm
        px = (np.arange(c0, c1, dtype=np.float64) + 0.5 - ax) * col_mm
        py = (np.arange(r0, r1, dtype=np.float64) + 0.5 - ay) * row_mm
        dx, dy = (bx - ax) * col_mm, (by - ay) * row_mm
        length2 = dx * dx + dy * dy
        gx, gy = px[np.newaxis, :], py[:, np.newaxis]
        if length2 == 0.0:
            dist2 = gx * gx + gy * gy
        else:
            t = np.clip((gx * dx + gy * dy) / length2, 0.0, 1.0)
            ex, ey = gx - t * dx, gy - t * dy
            dist2 = ex * ex + ey * ey
        covered[r0:r1, c0:c1] |= dist2 <= radius_mm * radius_mm
    return covered


def brush_pixels(
    shape: tuple[int, int], centre: Point, radius_mm: float, spacing: tuple[float, float] | None
) -> np.ndarray:
    """One dab of the brush at ``centre`` (x, y): :func:`stroke_pixels` of one point."""
    return stroke_pixels(shape, [centre], radius_mm, spacing)


def paint_stroke(
    labels: np.ndarray,
    points: Sequence[Point],
    radius_mm: float,
    spacing: tuple[float, float] | None,
    value: int,
) -> int:
    """Set the pixels of a stroke to ``value`` (0 erases), in place.

    Parameters
    ----------
    labels : (rows, cols) integer array
        The labels painted, changed in place.
    points, radius_mm, spacing
        See :func:`stroke_pixels`.
    value : int
        The label painted; 0 erases.

    Returns
    -------
    int
        How many pixels changed value.
    """
    covered = stroke_pixels(labels.shape[:2], points, radius_mm, spacing)
    changed = covered & (labels != value)
    labels[changed] = value
    return int(np.count_nonzero(changed))


def labels_npy(labels: np.ndarray) -> bytes:
    """The labels as the bytes of a ``.npy`` file (:func:`numpy.save`), what
    :attr:`~medrcube_desktop.review.corrections.Proposal.mask_labels` holds.

    Parameters
    ----------
    labels : (rows, cols) integer array
        Labels, 0 = none.

    Returns
    -------
    bytes
        A ``.npy`` of dtype uint8 when every label fits (0..255), else uint16, same shape.

    Raises
    ------
    ValueError
        Not 2-D, not whole numbers, or a label below 0 or above 65535.
    """
    array = np.asarray(labels)
    if array.ndim != 2:
        raise ValueError(f"mask labels must be 2-D (rows, cols), got shape {array.shape}")
    if array.dtype.kind not in "iub":
        raise ValueError(f"mask labels must be whole numbers, got {array.dtype}")
    low = int(array.min(initial=0))
    high = int(array.max(initial=0))
    if low < 0 or high > 65535:
        raise ValueError(f"mask labels must lie in 0..65535, got {low}..{high}")
    out = array.astype(np.uint8 if high <= 255 else np.uint16)
    buffer = io.BytesIO()
    np.save(buffer, out, allow_pickle=False)
    return buffer.getvalue()
