"""Drawing on a rendered ``(H, W, 4)`` uint8 RGBA image: label masks (filled or
outlined), the item's box, and the colours they use. Pixels are changed in place; no Qt.
"""

from __future__ import annotations

import numpy as np

MASK_RGB = (255, 0, 0)
MASK_ALPHA = 0.4
"""Semi-transparent red for masks, red outlines for boxes (paper Appendix E.1)."""

GRAPHICS_RGB = (255, 255, 0)
"""Colour of the file's own overlay planes (DICOM 60xx): yellow, apart from the red masks."""

LABEL_PALETTE: tuple[tuple[int, int, int], ...] = (
    (230, 159, 0),  # orange
    (86, 180, 233),  # sky blue
    (0, 158, 115),  # bluish green
    (240, 228, 66),  # yellow
    (0, 114, 178),  # blue
    (213, 94, 0),  # vermillion
    (204, 121, 167),  # reddish purple
)
"""Colour-blind-safe colours for masks with several labels (Okabe & Ito, 2008, "Color
Universal Design"), used in label order and repeated past seven labels."""


def draw_mask(
    rgb: np.ndarray, mask: np.ndarray, alpha: float, outline: bool
) -> list[tuple[int, tuple[int, int, int]]]:
    """Blend every label of ``mask`` into ``rgb`` in one pass; return the legend.

    Parameters
    ----------
    rgb : (H, W, 3) uint8
        Display pixels, changed in place (a view of the RGBA array). Only the labelled
        pixels are blended, in float64, and rounded once, as the whole-image float
        blend did.
    mask : (H, W) int
        Labels, 0 = none. One label is drawn red, several in the palette's colours (in
        label order); each pixel's colour comes from a lookup table by its label's rank,
        so the cost does not grow with the number of labels.
    alpha : float
        Opacity of the fill, 0..1.
    outline : bool
        Only each label's border (a pixel with a 4-neighbour of another label, or on the
        image edge), in full colour.
    """
    values, inverse = np.unique(mask, return_inverse=True)
    rank = inverse.reshape(mask.shape)
    labels = [int(v) for v in values if v != 0]
    colours = (
        [MASK_RGB]
        if len(labels) == 1
        else [LABEL_PALETTE[i % len(LABEL_PALETTE)] for i in range(len(labels))]
    )
    lut = np.zeros((len(values), 3), dtype=np.float64)
    lut[values != 0] = np.asarray(colours, dtype=np.float64).reshape(-1, 3)
    drawn = (values != 0)[rank]
    if outline:
        drawn &= _differs_from_a_neighbour(rank)
        rgb[drawn] = lut[rank[drawn]].astype(np.uint8)
    else:
        blended = (1.0 - alpha) * rgb[drawn] + alpha * lut[rank[drawn]]
        rgb[drawn] = np.clip(np.rint(blended), 0, 255).astype(np.uint8)
    return list(zip(labels, colours, strict=True)) if len(labels) > 1 else []


def _differs_from_a_neighbour(rank: np.ndarray) -> np.ndarray:
    """(H, W) bool: a 4-neighbour holds another value, or the pixel is on the edge (what
    a label keeps of itself after ``binary_erosion`` with its default cross, removed)."""
    padded = np.pad(rank, 1, constant_values=-1)
    centre = padded[1:-1, 1:-1]
    return (
        (padded[:-2, 1:-1] != centre)
        | (padded[2:, 1:-1] != centre)
        | (padded[1:-1, :-2] != centre)
        | (padded[1:-1, 2:] != centre)
    )


def draw_box(rgba: np.ndarray, bbox: tuple[float, float, float, float]) -> None:
    """Draw a red rectangle outline in place; thickness scales with the image size.

    The box is clipped to the image; its edges are the pixels that contain x0, x1 (columns)
    and y0, y1 (rows).
    """
    h, w = rgba.shape[:2]
    t = max(1, round(min(h, w) / 256))
    x0, y0, x1, y1 = (int(np.floor(v)) for v in bbox)
    x0, x1 = max(0, min(x0, w - 1)), max(0, min(x1, w - 1))
    y0, y1 = max(0, min(y0, h - 1)), max(0, min(y1, h - 1))
    red = np.array([*MASK_RGB, 255], dtype=np.uint8)
    rgba[y0 : min(y0 + t, h), x0 : x1 + 1] = red
    rgba[max(y1 - t + 1, 0) : y1 + 1, x0 : x1 + 1] = red
    rgba[y0 : y1 + 1, x0 : min(x0 + t, w)] = red
    rgba[y0 : y1 + 1, max(x1 - t + 1, 0) : x1 + 1] = red
