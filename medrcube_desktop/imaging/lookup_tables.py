"""Greyscale values to display levels: the VOI window formulas and the lookup tables
that apply them (DICOM PS3.3 C.11.2), as ``(H, W)`` uint8 grey or ``(H, W, 4)`` uint8
RGBA. :mod:`.render` chooses the window; this module only maps values through it. No Qt.

Whole-number pixels are never windowed one by one: each distinct value goes through the
float64 formula once, into a table, and the slice is a gather from that table, so the
result is byte-identical to the float64 path at a fraction of the cost.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict

import numpy as np

from medrcube_desktop.core.malloc_tuning import tuned as malloc_tuned

LUT_MAX_ENTRIES = 1 << 16
"""Largest value range mapped through a lookup table (a 16-bit picture's)."""

GATHER_CHUNK = 1 << 13
"""Pixels gathered per ``np.take`` call (its intp copy of their indices: 64 KiB, under
glibc's 128 KiB mmap threshold: served from the heap and reused, see
:func:`rgba_by_table`)."""

GATHER_CHUNK_TUNED = 1 << 17
"""Pixels gathered per ``np.take`` call when glibc's allocator is tuned
(:func:`medrcube_desktop.core.malloc_tuning.tuned`): its 1 MiB intp copy then comes
from the heap and is reused, never faulted in again, and a 512x512 slice is gathered
in 2 calls rather than 32 (about 45 us less; 0.7 ms less for a 2048x2048 radiograph)."""

EXACT_WHOLE = 1 << 53
"""Largest magnitude up to which every whole number is a float64 (and an int64): only
values within it go through a table, whose entries are ``float64(low + i)``; beyond it
the float path windows each pixel as stored."""

WORD_TABLES_KEPT = 16
"""RGBA word tables remembered (at most 256 KiB each): a study's slices share a window,
a reviewer's window drag makes one table per step, and only the last few matter."""


def window_to_unit(
    pixels: np.ndarray, center: float, width: float, function: str = "LINEAR"
) -> np.ndarray:
    """Map values through a VOI window to [0, 1].

    Formulas of DICOM PS3.3 C.11.2.1.2.1 (LINEAR), C.11.2.1.3.2 (LINEAR_EXACT) and
    C.11.2.1.3.1 (SIGMOID), with output range y_min = 0, y_max = 1.

    Parameters
    ----------
    pixels : ndarray, float
        Values in modality units (HU for CT).
    center, width : float
        Window Center (0028,1050) and Window Width (0028,1051); width > 0
        (>= 1 for LINEAR).

    Returns
    -------
    ndarray, same shape, float64 in [0, 1]
    """
    x = pixels.astype(np.float64, copy=False)
    function = function.upper()
    if function == "SIGMOID":
        return 1.0 / (1.0 + np.exp(-4.0 * (x - center) / width))
    if function == "LINEAR_EXACT":
        return np.clip((x - (center - width / 2.0)) / width, 0.0, 1.0)
    if width <= 1.0:  # C.11.2.1.2.1 with w = 1: a threshold at c - 0.5
        return (x > center - 0.5).astype(np.float64)
    return np.clip(((x - (center - 0.5)) / (width - 1.0)) + 0.5, 0.0, 1.0)


def window_gray8(
    pixels: np.ndarray, window: tuple[float, float], function: str, monochrome1: bool
) -> np.ndarray:
    """Values through the VOI window to uint8 (NaN black; MONOCHROME1 inverted after
    VOI). The same formula serves a whole slice and a lookup table of its values.

    Parameters
    ----------
    pixels : ndarray, any shape
        Values in modality units; NaN marks padding.
    window : (center, width)
        In the units of ``pixels``.
    function : str
        VOI LUT Function: ``LINEAR``, ``LINEAR_EXACT`` or ``SIGMOID``.
    monochrome1 : bool
        Invert after VOI (PS3.3 C.7.6.3.1.2: the lowest value shows white).

    Returns
    -------
    ndarray, same shape, uint8 display levels
    """
    unit = window_to_unit(pixels, *window, function=function)
    missing = ~np.isfinite(unit)  # NaN voxels (padding, outside a brain mask) show black
    if monochrome1:  # inversion after VOI: air shows dark
        unit = 1.0 - unit
    unit = np.where(missing, 0.0, unit)
    return np.rint(unit * 255.0).astype(np.uint8)


def gray8_by_table(
    pixels: np.ndarray, window: tuple[float, float], function: str, monochrome1: bool
) -> np.ndarray | None:
    """Whole-number pixels through the VOI window by a lookup table, or None.

    Each distinct value is windowed once, by the same formula as the float path
    (:func:`window_gray8`), into a uint8 table of at most :data:`LUT_MAX_ENTRIES`
    entries; the slice is then ``np.take`` on that table, so the result is identical
    to windowing every pixel in float64.

    Parameters
    ----------
    pixels : (H, W) ndarray
        Integer values in modality units (HU for CT), or float values from a 16-bit
        source that are whole numbers.
    window, function, monochrome1
        As for :func:`window_gray8`.

    Returns
    -------
    (H, W) uint8, or None when ``pixels`` are not whole numbers, span more than
    :data:`LUT_MAX_ENTRIES` values, or reach beyond :data:`EXACT_WHOLE` in magnitude
    (the caller windows them in float64).
    """
    if pixels.size == 0:
        return np.zeros(pixels.shape, dtype=np.uint8)
    whole = pixels
    if pixels.dtype.kind == "f":
        sample = pixels.ravel()[::97]  # most float slices fail here, after a few reads
        if not np.array_equal(sample, np.rint(sample)):
            return None
        if not np.isfinite(pixels).all() or not np.array_equal(pixels, np.rint(pixels)):
            return None
        low, high = int(pixels.min()), int(pixels.max())  # whole and finite: exact
    elif pixels.dtype.kind in "iu":
        low, high = int(pixels.min()), int(pixels.max())
    else:
        return None
    # checked before any cast (2**63 would become -2**63 in int64): too many values, or
    # beyond what float64 holds exactly (the table's entries are float64(low + i))
    if high - low >= LUT_MAX_ENTRIES or low < -EXACT_WHOLE or high > EXACT_WHOLE:
        return None
    if pixels.dtype.kind == "f":
        whole = pixels.astype(np.int64)
    if low >= 0 and high < LUT_MAX_ENTRIES:  # index by the value itself: no subtraction
        low = 0
        index = whole
    else:
        index = np.subtract(whole, low, dtype=np.int32 if whole.dtype.itemsize <= 2 else None)
    values = np.arange(low, high + 1, dtype=np.float64)
    table = window_gray8(values, window, function, monochrome1)
    return np.take(table, index)


def rgba_by_table(
    pixels: np.ndarray,
    window: tuple[float, float],
    function: str,
    monochrome1: bool,
    invert: bool = False,
) -> np.ndarray | None:
    """8- or 16-bit integer pixels straight to opaque grey RGBA through one table, or None.

    The table holds one 32-bit RGBA word (bytes R = G = B = the display level, A = 255)
    for every bit pattern of the dtype (256 or 65,536 entries), filled by the float64
    formula (:func:`window_gray8`, then ``255 - level`` when ``invert``) for the values
    the slice spans; the slice is one gather from it. That replaces windowing into a
    uint8 grey image and then spreading it over four channels (two more passes over the
    picture), and no ``value - low`` index array is built: the pixels' own bits index
    the table. Tables are kept (:data:`WORD_TABLES_KEPT`), keyed by dtype, window,
    function and inversions, so the next slice with the same window reuses its table.

    Parameters
    ----------
    pixels : (H, W) ndarray, uint8, int8, uint16 or int16
        Values in modality units (stored values after a whole-number rescale).
    window, function, monochrome1
        As for :func:`window_gray8`.
    invert : bool
        The reviewer's negative display (after VOI and MONOCHROME1).

    Returns
    -------
    (H, W, 4) uint8 RGBA, alpha 255, byte-identical to windowing each pixel in float64;
    None for other dtypes or shapes (the caller uses :func:`gray8_by_table`).
    """
    if pixels.ndim != 2 or pixels.dtype.kind not in "iu" or pixels.dtype.itemsize > 2:
        return None
    if pixels.size == 0:
        return np.zeros(pixels.shape + (4,), dtype=np.uint8)
    low, high = int(pixels.min()), int(pixels.max())
    table = _word_table(pixels.dtype, window, function, monochrome1, invert, low, high)
    bits = np.dtype(pixels.dtype.str.replace("i", "u"))  # same width and byte order
    index = pixels.view(bits).reshape(-1)
    words = np.empty(index.shape, dtype=np.uint32)
    # "wrap": the table has an entry for every bit pattern, so no index is ever out of
    # range, and numpy then skips its per-element bounds check (a third of the gather).
    # In slices of GATHER_CHUNK: np.take first copies the indices as 8-byte intp, 2 MB
    # for a 512x512 slice, and an allocation that large, made and freed on every
    # render, can be given fresh pages by malloc each time (page faults costing more
    # than the gather). Chunks of 512 KiB still did: freed at the top of the heap with
    # the rest of a render they passed glibc's trim threshold, and the next render took
    # ~490 page faults (1-2 ms, more than the whole decode of a 484x484 MR, issue 25);
    # 64 KiB copies are reused in place, at ~30 more calls of ~1 us for 512x512.
    # With the allocator tuned (the app's start), larger chunks are reused as well.
    chunk = GATHER_CHUNK_TUNED if malloc_tuned() else GATHER_CHUNK
    for start in range(0, index.size, chunk):
        stop = start + chunk
        np.take(table, index[start:stop], out=words[start:stop], mode="wrap")
    return words.view(np.uint8).reshape(pixels.shape + (4,))


_WORD_TABLES: OrderedDict[tuple, tuple[int, int, np.ndarray]] = OrderedDict()
_WORD_TABLES_LOCK = threading.Lock()


def _word_table(
    dtype: np.dtype,
    window: tuple[float, float],
    function: str,
    monochrome1: bool,
    invert: bool,
    low: int,
    high: int,
) -> np.ndarray:
    """The RGBA word table for ``dtype`` covering at least the values ``low..high``.

    A remembered table that covers the range is returned as is; otherwise one is built
    over the range joined with the remembered one's (the slices of a study span much
    the same values, so the table soon covers them all).

    Returns
    -------
    (2**bits,) uint32, read-only; entry ``v & (2**bits - 1)`` is the RGBA word of value
    ``v``; entries outside the covered range are 0 and never read.
    """
    key = (
        dtype.kind,
        dtype.itemsize,
        float(window[0]),
        float(window[1]),
        function.upper(),
        monochrome1,
        invert,
    )
    with _WORD_TABLES_LOCK:
        known = _WORD_TABLES.get(key)
        if known is not None:
            if known[0] <= low and high <= known[1]:
                _WORD_TABLES.move_to_end(key)
                return known[2]
            low, high = min(low, known[0]), max(high, known[1])
    values = np.arange(low, high + 1, dtype=np.int64)
    level = window_gray8(values.astype(np.float64), window, function, monochrome1)
    if invert:
        level = 255 - level
    rgba = np.zeros((1 << (8 * dtype.itemsize), 4), dtype=np.uint8)
    slots = values & (rgba.shape[0] - 1)  # two's complement: -1 is the last entry
    rgba[slots, :3] = level[:, None]
    rgba[slots, 3] = 255
    table = rgba.view(np.uint32).ravel()  # bytes R, G, B, A in memory on any byte order
    table.flags.writeable = False
    with _WORD_TABLES_LOCK:
        _WORD_TABLES[key] = (low, high, table)
        _WORD_TABLES.move_to_end(key)
        while len(_WORD_TABLES) > WORD_TABLES_KEPT:
            _WORD_TABLES.popitem(last=False)
    return table


def opaque_rgba(base: np.ndarray) -> np.ndarray:
    """``(H, W)`` grey or ``(H, W, 3)`` RGB uint8 as ``(H, W, 4)`` RGBA, alpha 255."""
    if base.ndim == 2 and sys.byteorder == "little":
        # one 32-bit word per pixel, bytes R, G, B, A: a third of the time of filling
        # the channels one by one through a strided view
        words = base.astype(np.uint32) * np.uint32(0x010101) | np.uint32(0xFF000000)
        return words.view(np.uint8).reshape(base.shape + (4,))
    out = np.empty(base.shape[:2] + (4,), dtype=np.uint8)
    out[..., :3] = base if base.ndim == 3 else base[:, :, None]
    out[..., 3] = 255
    return out


def rgba_words(rgba: np.ndarray) -> np.ndarray:
    """``(H, W)`` uint32 view of a C-contiguous ``(H, W, 4)`` uint8 RGBA array: one word
    per pixel, for setting whole pixels in one pass (``np.copyto(..., where=mask)``)."""
    return rgba.view(np.uint32).reshape(rgba.shape[:2])


def rgba_word(rgb: tuple[int, int, int]) -> np.uint32:
    """The word of an opaque colour, laid out as :func:`rgba_words` reads pixels."""
    return np.array([*rgb, 255], dtype=np.uint8).view(np.uint32)[0]
