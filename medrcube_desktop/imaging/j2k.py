"""JPEG 2000 frames decoded at a reduced resolution, for display only.

A JPEG 2000 codestream holds its image as a wavelet pyramid (ISO/IEC 15444-1 Annex F):
discarding ``n`` of its decomposition levels decodes an image 2**n times smaller on each
side (sides rounded up) for a fraction of the work. pylibjpeg-openjpeg, which pydicom
uses, decodes only the full resolution; Pillow's JPEG 2000 plugin (OpenJPEG) takes the
number of levels to discard as ``Image.reduce`` before ``load()``. The review window
uses this when its view cannot show more pixels; rendering for export, the batch and
evaluation never does. No Qt here.
"""

from __future__ import annotations

import io
import logging
import struct
from dataclasses import dataclass

import numpy as np

JPEG2000_SYNTAXES = frozenset({"1.2.840.10008.1.2.4.90", "1.2.840.10008.1.2.4.91"})
"""JPEG 2000 Image Compression (Lossless Only) and JPEG 2000 (PS3.5 A.4.4)."""

MIN_REDUCTION = 2
"""Reduce only when the image is at least this many times larger than the view."""

log = logging.getLogger(__name__)

_SOC_SIZ = b"\xff\x4f\xff\x51"


@dataclass(frozen=True)
class CodestreamHeader:
    """What the main header of a JPEG 2000 codestream says (ISO/IEC 15444-1 A.5, A.6).

    Attributes
    ----------
    width, height : int
        Image size in pixels (Xsiz - XOsiz, Ysiz - YOsiz).
    components : int
        Csiz.
    precision : int
        Bits of the first component (Ssiz & 0x7F, plus 1).
    signed : bool
        Ssiz's top bit.
    levels : int
        The fewest decomposition levels of any COD or COC marker of the main header:
        at most that many levels can be discarded.
    """

    width: int
    height: int
    components: int
    precision: int
    signed: bool
    levels: int


def read_header(codestream: bytes) -> CodestreamHeader:
    """Parse SIZ, COD and COC of a codestream's main header (a JP2 file: its codestream).

    Raises
    ------
    ValueError
        No codestream, or its main header is truncated.
    """
    start = 0 if codestream[:4] == _SOC_SIZ else codestream.find(_SOC_SIZ)
    if start < 0:
        raise ValueError("no JPEG 2000 codestream (SOC, SIZ markers) found")
    siz = start + 2
    (length,) = struct.unpack_from(">H", codestream, siz + 2)
    xsiz, ysiz, xo, yo = struct.unpack_from(">4I", codestream, siz + 6)
    (components,) = struct.unpack_from(">H", codestream, siz + 38)
    ssiz = codestream[siz + 40]
    levels: list[int] = []
    at = siz + 2 + length
    while at + 4 <= len(codestream):
        marker, size = struct.unpack_from(">HH", codestream, at)
        if marker == 0xFF90:  # SOT: the main header ends
            break
        if marker == 0xFF52:  # COD: Scod, SGcod (4 bytes), then decomposition levels
            levels.append(codestream[at + 9])
        elif marker == 0xFF53:  # COC: Ccoc (1 or 2 bytes), Scoc, then decomposition levels
            levels.append(codestream[at + 4 + (1 if components < 257 else 2) + 1])
        at += 2 + size
    if not levels:
        raise ValueError("JPEG 2000 main header without a COD marker")
    return CodestreamHeader(
        xsiz - xo, ysiz - yo, components, (ssiz & 0x7F) + 1, bool(ssiz & 0x80), min(levels)
    )


def reduce_level(full_side: int, levels: int, display_side: int) -> int:
    """Levels to discard: the most (``<= levels``) that keep the longer side of the
    image (``ceil(full_side / 2**n)``) at ``display_side`` pixels or more; 0 when the
    image is not :data:`MIN_REDUCTION` times larger than the view."""
    if display_side <= 0 or full_side < MIN_REDUCTION * display_side:
        return 0
    n = 0
    while n < levels and -(-full_side // 2 ** (n + 1)) >= display_side:
        n += 1
    return n


def decode_reduced(
    codestream: bytes, n: int, header: CodestreamHeader, dtype: np.dtype
) -> np.ndarray:
    """Decode ``codestream`` with ``n`` resolution levels discarded (Pillow, OpenJPEG).

    Pillow scales a grey component of ``precision`` bits up to its 8- or 16-bit mode
    and adds 2**(precision-1) to signed values; both are undone here, so the result
    holds the stored values, as pydicom's full decode does.

    Returns
    -------
    ndarray, (ceil(H / 2**n), ceil(W / 2**n)) of ``dtype`` (the DICOM's stored type),
    or ``(.., .., 3) uint8`` RGB for a colour image.

    Raises
    ------
    ValueError, OSError
        Pillow cannot decode it, or gives a mode or size that is not expected.
    """
    from PIL import Image

    image = Image.open(io.BytesIO(codestream))
    expected = (-(-header.width // 2**n), -(-header.height // 2**n))
    _load_reduced(image, n, expected)
    if image.size != expected:
        raise ValueError(f"Pillow decoded {image.size}, expected {expected}")
    pixels = np.asarray(image)
    if header.components == 3 and image.mode == "RGB" and dtype == np.uint8:
        return pixels
    container = {"L": 8, "I;16": 16}.get(image.mode)
    if header.components != 1 or container is None or header.precision > container:
        raise ValueError(f"unexpected JPEG 2000 image: mode {image.mode}, {header}")
    values = pixels.astype(np.int32) >> (container - header.precision)
    if header.signed:
        values -= 2 ** (header.precision - 1)
    info = np.iinfo(dtype)
    if values.size and (values.min() < info.min or values.max() > info.max):
        raise ValueError(f"decoded values do not fit the stored type {np.dtype(dtype)}")
    return values.astype(dtype)


def _load_reduced(image, n: int, size: tuple[int, int]) -> None:
    """``image.reduce = n; image.load()``, with the reduced size rounded up as OpenJPEG
    rounds it (ISO/IEC 15444-1 B.5: ceil(side / 2**n)).

    Pillow 13's plugin rounds half up instead (``int((side + 2**(n-1)) / 2**n)``), so a
    side such as 1841 at n = 2 (460.25: OpenJPEG 461, Pillow 460) fails with "broken data
    stream". Where the two agree Pillow's own load is used; otherwise its tile is set to
    the rounded-up size and the base loader runs it. The caller checks the size.
    """
    from PIL import ImageFile

    image.reduce = n
    rounded = tuple(int((side + (2**n >> 1)) / 2**n) for side in image.size)
    if rounded == size or not image.tile:
        image.load()
        return
    tile = image.tile[0]
    image._size = size
    args = (tile.args[0], n, image.layers, *tile.args[3:])
    image.tile = [ImageFile._Tile(tile.codec_name, (0, 0, *size), tile.offset, args)]
    ImageFile.ImageFile.load(image)


def reduced_frame(ds, display_side: int) -> tuple[np.ndarray, int] | None:
    """The single frame of a JPEG 2000 DICOM ``ds`` decoded for a view of
    ``display_side`` device pixels (its longer side), and the levels discarded.

    None when the full decode is wanted: not JPEG 2000, several frames, an image less
    than :data:`MIN_REDUCTION` times the view, or any error (logged: the caller then
    decodes in full, as without this path).

    Returns
    -------
    (pixels, n) : the stored values on a grid 2**n times coarser (see
    :func:`decode_reduced`) and ``n >= 1``.
    """
    syntax = str(getattr(getattr(ds, "file_meta", None), "TransferSyntaxUID", ""))
    if syntax not in JPEG2000_SYNTAXES or int(ds.get("NumberOfFrames", 1) or 1) != 1:
        return None
    rows, columns = int(ds.Rows), int(ds.Columns)
    if max(rows, columns) < MIN_REDUCTION * display_side:
        return None
    try:
        from pydicom.encaps import generate_frames

        codestream = next(generate_frames(ds.PixelData, number_of_frames=1))
        header = read_header(codestream)
        if (header.width, header.height) != (columns, rows):
            raise ValueError(f"codestream is {header.width}x{header.height}, not {columns}x{rows}")
        signed = int(ds.get("PixelRepresentation", 0)) == 1
        if header.components == 1 and header.signed != signed:
            raise ValueError("codestream signedness differs from Pixel Representation")
        n = reduce_level(max(rows, columns), header.levels, display_side)
        if n == 0:
            return None
        bits = int(ds.get("BitsAllocated", 16))
        dtype = np.dtype(f"{'i' if signed else 'u'}{max(1, bits // 8)}")
        return decode_reduced(codestream, n, header, dtype), n
    except Exception as exc:  # any failure: the full decode shows the image as before
        log.warning("reduced JPEG 2000 decode failed, decoding in full: %s", exc)
        return None
