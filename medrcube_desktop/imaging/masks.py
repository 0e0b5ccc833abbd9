"""Reading a label mask: whole-number labels, and refusing what is not a label mask.

Every reader (pictures in :mod:`.loading`, NIfTI in :mod:`.nifti`, NRRD/MHA in
:mod:`.itk`) turns the mask it read into labels through :func:`mask_labels`, so the
review window, ``render --mask`` and ``validate --deep`` refuse the same files with the
same message. :func:`picture_mask_values` reads a PNG/JPEG/TIFF mask's values. No Qt.

A label mask holds 0 (no structure) and one whole number per structure, and is piecewise
constant: inside a structure every pixel holds the same label, so neighbouring labelled
pixels differ only on the border between two structures. A picture (a photo, a radiograph,
the item's own image) is textured: almost every pixel differs from its neighbour.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from medrcube_desktop.errors import ImageLoadError

MAX_MASK_LABELS = 255
"""Most distinct labels (0, none, not counted) a mask may hold. Segmentations hold a
handful (an 8-bit label map at most 255); thousands mean an intensity image was given as
the mask, which would be drawn as noise, slowly."""

LABEL_MIN, LABEL_MAX = -(2**31), 2**31 - 1
"""The label numbers a mask may hold: int32's range."""


MASK_INTEGRAL_TOLERANCE = 1e-3
"""How far from a whole number a float mask value may be (a scale factor's rounding)."""

PICTURE_MIN_VALUES = 16
"""Distinct non-zero values from which a mask is tested for texture (below, never: a
picture of so few grey levels is rare, and a label mask with a handful of small labels
must not be refused for being fragmented)."""

PICTURE_MIN_DIFFERING = 0.5
"""Share of neighbouring labelled pixel pairs (both non-zero, along each array axis)
that differ, from which a mask of many values is taken for a picture. Measured: label
maps stay far below (117 Voronoi regions in the MNI brain 0.05 at 1 mm, 0.19 at 4 mm; 200
parcels of the cortical ribbon 0.06 at 1 mm, 0.22 at 4 mm; 150 touching nuclei of radius
1-5 pixels 0.02-0.03; the demo's masks 0), pictures far above (the MNI T1 volume and its
PNG slices 0.88-0.91, the nilearn grey/white-matter probability maps 0.89-0.95, CT and MR
DICOM 0.98, photos 0.99). Half sits in the gap, far from both."""


def mask_labels(values: np.ndarray, path: Path | str) -> np.ndarray:
    """Mask voxels as int32 labels: whole numbers (floats rounded within
    :data:`MASK_INTEGRAL_TOLERANCE`), NaN as 0.

    Parameters
    ----------
    values : ndarray, any shape (2-D picture, 3-D volume in its stored axis order),
        integer or float
        The mask as read.
    path : Path or str
        The mask file, named in the messages.

    Raises
    ------
    ImageLoadError
        A float mask holds values that are not whole numbers, a label beyond int32
        (:data:`LABEL_MIN` .. :data:`LABEL_MAX`; an infinity), the mask holds more than
        :data:`MAX_MASK_LABELS` distinct labels, or it looks like a picture (more than
        :data:`PICTURE_MIN_VALUES` values, and at least :data:`PICTURE_MIN_DIFFERING` of
        its neighbouring labelled pixels differ): it is an image, not a label mask.
    """
    if values.dtype.kind == "b":
        return values.astype(np.int32)
    if np.issubdtype(values.dtype, np.integer):
        _require_label_range(values, path)
        labels = values.astype(np.int32, copy=False)
    else:
        nan = np.isnan(values)
        rounded = np.where(nan, 0.0, np.rint(values))
        with np.errstate(invalid="ignore"):  # inf - inf: the range check names it below
            off = ~nan & (np.abs(values - rounded) > MASK_INTEGRAL_TOLERANCE)
        if off.any():
            example = float(values[off].flat[0])
            raise ImageLoadError(
                f"{path}: the mask holds values that are not whole numbers (such as "
                f"{example:g}); a mask holds label numbers (0 = none): is this an image?"
            )
        _require_label_range(rounded, path)
        labels = rounded.astype(np.int32)
    count = label_count(labels)
    if count > MAX_MASK_LABELS:
        raise ImageLoadError(
            f"{path}: the mask holds {count:,} distinct labels, more than the "
            f"{MAX_MASK_LABELS} a label mask may hold (0 = none): is this an image?"
        )
    if count > PICTURE_MIN_VALUES:
        differing = differing_neighbours(labels)
        if differing >= PICTURE_MIN_DIFFERING:
            raise ImageLoadError(
                f"{path}: {count} distinct values, {math.floor(differing * 100)} % of "
                "neighbouring pixels differ: is this a picture? A label mask holds 0 "
                "(none) and one number per structure, the same all over the structure"
            )
    return labels


def _require_label_range(values: np.ndarray, path: Path | str) -> None:
    """Refuse labels that int32 cannot hold (1e30, inf): clipping or casting them would
    invent a label (2**31 - 1, or -2**31 from a float32's rounding) no structure has."""
    if values.size == 0:
        return
    # the ends as Python numbers: exact, where a float32 compared with 2**31 - 1 would
    # round that bound to 2**31 and let 2**31 through
    low, high = values.min().item(), values.max().item()
    if low >= LABEL_MIN and high <= LABEL_MAX:
        return
    example = float(low if not low >= LABEL_MIN else high)
    raise ImageLoadError(
        f"{path}: the mask holds {example:g}, beyond the label numbers a mask may hold "
        f"({LABEL_MIN:,} to {LABEL_MAX:,}; 0 = none): is this an image?"
    )


def differing_neighbours(labels: np.ndarray) -> float:
    """Share of neighbouring pixel pairs, both labelled (non-zero), whose labels differ.

    Pairs are taken along every axis of length > 1 (rows and columns; and slices for a
    volume). 0 when no two labelled pixels touch.

    Parameters
    ----------
    labels : ndarray, int, any shape
    """
    differ = pairs = 0
    for axis in range(labels.ndim):
        if labels.shape[axis] < 2:
            continue
        moved = np.moveaxis(labels, axis, 0)
        after, before = moved[1:], moved[:-1]
        both = (after != 0) & (before != 0)
        pairs += int(np.count_nonzero(both))
        differ += int(np.count_nonzero(both & (after != before)))
    return differ / pairs if pairs else 0.0


COUNT_CHUNK = 1 << 18
"""Values counted per ``np.bincount`` call in :func:`label_count` (its intp copy: 2 MiB)."""


def label_count(labels: np.ndarray) -> int:
    """Distinct non-zero values of an int32 array, in one pass (a histogram when the
    values span a small range, else a sort). Values spanning at most two levels (a
    binary mask, the usual case) are counted from the minimum and maximum alone: both
    are present, and nothing lies between them (issue 25, first paint: the histogram of
    the demo's 197x233x189 mask took longer than reading it)."""
    if labels.size == 0:
        return 0
    low, high = int(labels.min()), int(labels.max())
    if high - low <= 1:
        return len({low, high} - {0})
    if high - low <= 1 << 20:
        # counted in runs of COUNT_CHUNK values: bincount copies its input as intp, and a
        # volume's whole copy (8 bytes a voxel, 70 MB for the demo's 197x233x189 mask,
        # fresh pages on a first load) cost more than the counting (issue 25, first paint)
        flat = labels.reshape(-1)
        present = np.zeros(high - low + 1, dtype=bool)
        for start in range(0, flat.size, COUNT_CHUNK):
            part = flat[start : start + COUNT_CHUNK]
            shifted = part if low == 0 else part - low
            present |= np.bincount(shifted, minlength=present.size) > 0
        zero = 0 - low
        return int(present.sum()) - int(0 <= zero < present.size and bool(present[zero]))
    values = np.unique(labels)
    return int(values.size) - int(bool((values == 0).any()))


def picture_mask_values(img, path: Path) -> np.ndarray:
    """The label values of a mask read by Pillow, ``(H, W)`` in stored order.

    Grey (``L``, ``1``, ``I``, ``I;16``, ``F``): the values. Palette (``P``): the palette
    indices, which are the labels (the PASCAL VOC convention), not the colours' brightness.
    ``LA``, ``PA``: the grey or the index, alpha ignored.
    RGB, RGBA: accepted only as grey stored in colour (red = green = blue everywhere),
    the grey then being the label (alpha ignored). Any other colour picture is refused:
    its colours are no label numbers, and turning them to brightness would invent labels.

    Raises
    ------
    ImageLoadError
        A colour mask whose channels differ, or a mode that holds no grey values.
    """
    mode = img.mode
    if mode == "F" or mode.startswith("I"):
        return np.asarray(img)
    if mode in ("L", "1", "P"):
        return np.asarray(img if mode != "1" else img.convert("L")).astype(np.int32)
    if mode in ("LA", "PA"):  # grey or palette index, and alpha
        return np.asarray(img)[..., 0].astype(np.int32)
    if mode in ("RGB", "RGBA"):
        rgb = np.asarray(img)[..., :3]
        red = rgb[..., 0]
        if np.array_equal(red, rgb[..., 1]) and np.array_equal(red, rgb[..., 2]):
            return red.astype(np.int32)
        differ = int(np.count_nonzero((red != rgb[..., 1]) | (red != rgb[..., 2])))
        raise ImageLoadError(
            f"{path}: the mask is a colour picture ({mode}, red, green and blue differ in "
            f"{differ:,} pixels); a mask holds label numbers (0 = none): save it as a "
            "greyscale or palette PNG"
        )
    raise ImageLoadError(f"{path}: a {mode} picture cannot be a mask (it holds no label numbers)")
