"""What a file declares it holds, checked before a decoder allocates for it.

A decoder allocates the image its own header declares: a few kilobytes can declare
gigabytes (a decompression bomb), and a file cut short still gets the whole image
allocated and filled with black. Each reader calls the check for its format before it
decodes:

- DICOM with compressed (encapsulated) Pixel Data: the size every frame's codestream
  declares (JPEG 2000 SIZ, JPEG and JPEG-LS SOF), which is what the decoder allocates,
  against the pixel limit and against Rows x Columns (:func:`check_encapsulated`);
- NIfTI, NRRD/MetaImage: the declared voxels' bytes against the bytes the file can hold
  (:func:`check_declared_bytes`);
- PNG: the rows its compressed data really holds (:func:`png_rows_present`).

No Qt here.
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from medrcube_desktop.errors import ImageLoadError

MAX_DEFLATE_RATIO = 1032
"""The largest expansion of deflate (zlib, gzip): 1032 to 1 (zlib technical details, "the
maximum compression factor"). Data compressed with it cannot hold more bytes than this
many times its own size."""

HEADER_BYTES = 1 << 20
"""Bytes of a frame's first fragment read to find its codestream's size (a JPEG's SOF
follows its tables and any APPn segments, which are far smaller)."""

_ITEM = b"\xfe\xff\x00\xe0"  # (FFFE,E000) Item
_DELIMITER = b"\xfe\xff\xdd\xe0"  # (FFFE,E0DD) Sequence Delimitation Item
_J2K_START = b"\xff\x4f\xff\x51"  # SOC, SIZ (ISO/IEC 15444-1 A.4.1, A.5.1)
_JP2_SIGNATURE = b"\x00\x00\x00\x0cjP  \r\n\x87\n"  # ISO/IEC 15444-1 I.5.1
_JPEG_SOI = b"\xff\xd8"
_JPEG_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD})
_JPEG_SOF |= {0xCE, 0xCF, 0xF7}  # the last: JPEG-LS SOF55 (ISO/IEC 14495-1 C.2.2)
NATIVE_SYNTAXES = frozenset(
    {"1.2.840.10008.1.2", "1.2.840.10008.1.2.1", "1.2.840.10008.1.2.2", "1.2.840.10008.1.2.1.99"}
)
"""Transfer syntaxes whose Pixel Data is not encapsulated (PS3.5 A.1, A.2, A.3, A.5)."""


def codestream_size(head: bytes) -> tuple[int, int, int, str] | None:
    """``(width, height, components, kind)`` a codestream's main header declares, or
    None when ``head`` starts no codestream this module knows.

    JPEG 2000 (raw codestream or JP2): SIZ's Xsiz - XOsiz, Ysiz - YOsiz, Csiz (ISO/IEC
    15444-1 A.5.1). JPEG (ISO/IEC 10918-1 B.2.2) and JPEG-LS (14495-1 C.2.2): the frame
    header's X, Y and Nf; a height of 0 (given later by a DNL marker) is returned as 0.
    """
    if head.startswith(_JP2_SIGNATURE):
        start = head.find(_J2K_START)
        if start < 0:
            return None
        head = head[start:]
    if head.startswith(_J2K_START):
        if len(head) < 40:
            return None
        xsiz, ysiz, xo, yo = struct.unpack_from(">4I", head, 8)
        (components,) = struct.unpack_from(">H", head, 40)
        return max(0, xsiz - xo), max(0, ysiz - yo), components, "JPEG 2000 codestream"
    if head.startswith(_JPEG_SOI):
        return _jpeg_frame(head)
    return None


def _jpeg_frame(head: bytes) -> tuple[int, int, int, str] | None:
    at = 2
    while at + 4 <= len(head):
        if head[at] != 0xFF:
            return None
        marker = head[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # standalone markers
            at += 2
            continue
        (length,) = struct.unpack_from(">H", head, at + 2)
        if marker in _JPEG_SOF and at + 10 <= len(head):
            height, width = struct.unpack_from(">HH", head, at + 5)
            kind = "JPEG-LS codestream" if marker == 0xF7 else "JPEG codestream"
            return width, height, head[at + 9], kind
        if marker in (0xDA, 0xD9):  # scan or end before any frame header
            return None
        at += 2 + length
    return None


def _starts_codestream(first: bytes) -> bool:
    return first[:2] in (_J2K_START[:2], _JPEG_SOI) or first[:4] == _JP2_SIGNATURE[:4]


def _fragments(data) -> Iterator[bytes]:
    """The first :data:`HEADER_BYTES` of each fragment of encapsulated Pixel Data that
    starts a codestream (PS3.5 A.4; the Basic Offset Table left out, other fragments
    skipped unread). ``data`` is bytes, or a binary file positioned at the value."""
    if isinstance(data, bytes | bytearray | memoryview):
        buffer = bytes(data)
        at, first = 0, True
        while at + 8 <= len(buffer):
            tag, (length,) = buffer[at : at + 4], struct.unpack_from("<I", buffer, at + 4)
            if tag != _ITEM:
                return
            if not first and _starts_codestream(buffer[at + 8 : at + 12]):
                yield buffer[at + 8 : at + 8 + min(length, HEADER_BYTES)]
            first = False
            at += 8 + length
        return
    first = True
    while True:
        item = data.read(8)
        if len(item) < 8 or item[:4] != _ITEM:
            return
        (length,) = struct.unpack_from("<I", item, 4)
        if length == 0xFFFFFFFF:
            return
        start = data.tell()
        if not first and _starts_codestream(data.read(min(length, 4))):
            data.seek(start)
            yield data.read(min(length, HEADER_BYTES))
        data.seek(start + length)
        first = False


def check_encapsulated(ds, path: Path) -> None:
    """Refuse a DICOM whose compressed frames declare more than the decoder may allocate.

    Every fragment that starts a codestream is looked at (the frame to show and every
    other: a multi-frame file decodes any of them), before anything is decoded: its
    declared width x height must be within the pixel limit (``MEDRCUBE_MAX_PIXELS``) and
    be the Rows x Columns the DICOM header gives (the decoder allocates what the
    codestream declares; a 5 kB file whose JPEG 2000 codestream declares 40,000 x
    40,000 pixels would take gigabytes). Pixel Data left on disk (``defer_size``) is
    read from the file fragment by fragment, only their first bytes.

    Raises
    ------
    ImageLoadError
        ``"PATH: frame N's JPEG 2000 codestream declares WxH pixels …"``.
    """
    from medrcube_desktop.imaging.slice_data import check_pixel_count

    meta = getattr(ds, "file_meta", None)
    syntax = str(getattr(meta, "TransferSyntaxUID", "") or "")
    keys = ds.keys()  # integer tags: `in ds` would make a Tag() of each
    if not syntax or syntax in NATIVE_SYNTAXES or 0x7FE00010 not in keys:
        return
    rows, columns = int(ds.get("Rows", 0) or 0), int(ds.get("Columns", 0) or 0)
    raw = ds.get_item(0x7FE00010, keep_deferred=True)
    value = getattr(raw, "value", None)
    if isinstance(value, bytes | bytearray):
        _check_frames(_fragments(value), path, rows, columns, check_pixel_count)
        return
    tell = getattr(raw, "value_tell", None)
    if tell is None:
        return
    from medrcube_desktop.core.files import open_regular

    with open_regular(path) as handle:
        handle.seek(tell)
        _check_frames(_fragments(handle), path, rows, columns, check_pixel_count)


_PIXEL_ELEMENTS = (
    (0x7FE00010, "Pixel Data (7FE0,0010)"),
    (0x7FE00008, "Float Pixel Data (7FE0,0008)"),
    (0x7FE00009, "Double Float Pixel Data (7FE0,0009)"),
)


def check_native_frames(ds, path: Path, frames: int) -> None:
    """Refuse uncompressed pixel data that holds fewer bytes than its ``frames`` frames.

    pydicom 3 reads one frame of a file (``pixel_array(path, index=…)``, and any Float or
    Double Float Pixel Data) at the offset the header's frame size gives, without bounding
    it by the element's length: a frame the element lacks is read from what follows it in
    the file (Data Set Trailing Padding (FFFC,FFFC), a Digital Signatures Sequence) and
    shown as pixels without a word. Its own length check (``DecodeRunner.validate``)
    runs only on data already in memory. So the same check is made here on the element's
    length as the file states it, without reading the data: the frame size is pydicom's
    (``DecodeRunner.frame_length``: Rows x Columns x Samples per Pixel x Bits Allocated / 8,
    two thirds of that for native YBR_FULL_422, PS3.5 8.2.1 and PS3.3 C.7.6.3.1.2), and
    as in pydicom, data one pad byte short of an even length is accepted.

    Parameters
    ----------
    frames : int
        The Number of Frames (0028,0008) as read, at least 1.

    Raises
    ------
    ImageLoadError
        ``"PATH: cannot decode image: Pixel Data (7FE0,0010) holds less than expected
        (N vs M bytes) …"``, in pydicom's words; also for two pixel elements at once (in
        any transfer syntax) and for an undefined-length one in a native syntax, whose
        frames pydicom would read from the items' tags.
    """
    meta = getattr(ds, "file_meta", None)
    syntax = str(getattr(meta, "TransferSyntaxUID", "") or "")
    keys = ds.keys()  # integer tags: `in ds` would make a Tag() of each
    present = [(tag, name) for tag, name in _PIXEL_ELEMENTS if tag in keys]
    if len(present) > 1:  # pydicom's own decode refuses it; its file read takes the first
        raise ImageLoadError(
            f"{path}: cannot decode image: {' and '.join(n for _, n in present)} are "
            f"{'both' if len(present) == 2 else 'all'} present; one and only one of them may "
            "be (PS3.3 C.7.6.3)"
        )
    if syntax not in NATIVE_SYNTAXES or not present:
        return  # encapsulated frames are delimited by items; pydicom names what is missing
    tag, name = present[0]
    raw = ds.get_item(tag, keep_deferred=True)
    value = getattr(raw, "value", None)
    length = len(value) if isinstance(value, bytes | bytearray) else getattr(raw, "length", None)
    stated = getattr(raw, "length", None)  # a RawDataElement's, or 0xFFFFFFFF: undefined
    if getattr(raw, "is_undefined_length", False) or stated == 0xFFFFFFFF:
        # pydicom reads the items' tags and lengths as pixels of a native syntax
        raise ImageLoadError(
            f"{path}: cannot decode image: {name} has an undefined length (encapsulated "
            f"items) in the uncompressed transfer syntax {syntax} (PS3.5 A.4: only "
            "compressed transfer syntaxes encapsulate)"
        )
    if not isinstance(length, int):
        return
    from pydicom.pixels.decoders.base import DecodeRunner
    from pydicom.pixels.utils import as_pixel_options
    from pydicom.uid import UID

    runner = DecodeRunner(UID(syntax))
    try:
        runner.set_options(**as_pixel_options(ds))
        frame = runner.frame_length(unit="bytes")
    except (AttributeError, KeyError, TypeError, ValueError):
        return  # a group 0028 value absent or not a number: pydicom's decoder says which
    expected = math.ceil(frame * frames)
    if length < expected:
        raise ImageLoadError(
            f"{path}: cannot decode image: {name} holds less than expected ({length} vs "
            f"{expected + expected % 2} bytes) for {frames} frame(s) of {frame:g} bytes: the "
            "file is cut short or Number of Frames, Rows, Columns, Samples per Pixel or Bits "
            "Allocated is wrong"
        )


def _check_frames(fragments, path: Path, rows: int, columns: int, check_pixel_count) -> None:
    frame = 0
    for head in fragments:
        declared = codestream_size(head)
        if declared is None:
            continue
        frame += 1
        width, height, components, kind = declared
        where = f"frame {frame}'s {kind} declares {width}x{height} pixels"
        check_pixel_count(path, width * height, what=where)
        if height and (width, height) != (columns, rows):
            raise ImageLoadError(
                f"{path}: {where}, the DICOM header {columns}x{rows}: refused before "
                "decoding (a damaged or crafted file)"
            )


def check_declared_bytes(
    path: Path, declared: int, held: int, compressed: bool, what: str = "voxels"
) -> None:
    """Refuse a file that cannot hold the data its header declares, before the reader
    allocates for it.

    Parameters
    ----------
    path : Path
        The file (for the message).
    declared : int
        Bytes of data the header declares (voxels x bytes per voxel), in bytes.
    held : int
        Bytes of the file left for that data (file size minus the header), in bytes.
    compressed : bool
        Whether the data is deflate-compressed (gzip, zlib): it then holds at most
        :data:`MAX_DEFLATE_RATIO` times its own size.

    Raises
    ------
    ImageLoadError
        ``"PATH: declares N bytes of voxels but holds M bytes …"``.
    """
    room = held * MAX_DEFLATE_RATIO + 64 if compressed else held
    if declared > room:
        form = "compressed " if compressed else ""
        raise ImageLoadError(
            f"{path}: declares {declared:,} bytes of {what} but holds {max(held, 0):,} "
            f"{form}bytes: cut short or damaged; refused before reading"
        )


def png_rows_present(path: Path) -> tuple[int, int] | None:
    """``(rows held, rows declared)`` of a non-interlaced PNG whose image data ends
    early, or None when it is complete (or not such a PNG).

    A PNG's IDAT data is one zlib stream of every row, each a filter byte and its
    samples (PNG 1.2 §2.3, §6.1, §7.2); a stream that ends, complete and valid, before
    the last row leaves Pillow's image black below it without a word. The stream is
    inflated here in pieces, counting bytes, never holding more than one piece.
    """
    from medrcube_desktop.core.files import open_regular

    with open_regular(path) as handle:
        head = handle.read(33)
    if not head.startswith(b"\x89PNG\r\n\x1a\n") or len(head) < 33:
        return None
    width, height, depth, colour, _, _, interlace = struct.unpack_from(">IIBBBBB", head, 16)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour)
    if channels is None or interlace != 0 or width == 0:
        return None
    row = 1 + (width * channels * depth + 7) // 8
    expected = row * height
    inflater = zlib.decompressobj()
    got = 0
    with open_regular(path) as handle:
        handle.seek(8)
        while True:
            chunk = handle.read(8)
            if len(chunk) < 8:
                break
            length, kind = struct.unpack(">I4s", chunk)
            if kind == b"IEND":
                break
            if kind != b"IDAT":
                handle.seek(length + 4, 1)
                continue
            data = handle.read(length)
            handle.seek(4, 1)  # CRC
            while data and got < expected and not inflater.eof:
                try:
                    got += len(inflater.decompress(data, 1 << 20))
                except zlib.error:  # damaged data: Pillow's decode says so
                    return None
                data = inflater.unconsumed_tail
            if got >= expected or inflater.eof:
                break
    if got >= expected:
        return None
    return got // row, height


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_geometry(head: bytes) -> tuple[int, int, int] | None:
    """``(width, height, bytes per row)`` from a PNG's first 33 bytes (signature and
    IHDR, PNG 1.2 §11.2.2), a row being its filter byte and its samples; None for no PNG
    or a colour type or depth it does not define."""
    if not head.startswith(PNG_SIGNATURE) or len(head) < 33 or head[12:16] != b"IHDR":
        return None
    width, height, depth, colour = struct.unpack_from(">IIBB", head, 16)
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour)
    if channels is None or depth not in (1, 2, 4, 8, 16):
        return None
    return width, height, 1 + (width * channels * depth + 7) // 8


def check_png_declared(path: Path) -> None:
    """Refuse a PNG whose IHDR declares more than the pixel limit or more image bytes
    than its file can hold, before anything is decoded (Pillow allocates the declared
    image: 167 bytes declaring 9000 x 9000 took 1.3 GB).

    The image data (every row: a filter byte and its samples, PNG 1.2 §6.1) is deflated
    in the IDAT chunks, which are smaller than the file: it cannot inflate beyond
    :data:`MAX_DEFLATE_RATIO` times the file's size (more still with interlacing, whose
    passes add filter bytes). A file that is not a PNG is left alone.

    Raises
    ------
    ImageLoadError
        ``"PATH: declares N bytes of image rows but holds M compressed bytes …"``, or the
        pixel limit's message.
    """
    from medrcube_desktop.core.files import open_regular
    from medrcube_desktop.imaging.slice_data import check_pixel_count

    with open_regular(path) as handle:
        geometry = _png_geometry(handle.read(33))
        size = handle.seek(0, 2)
    if geometry is None:
        return
    width, height, row = geometry
    check_pixel_count(path, width * height)
    check_declared_bytes(path, row * height, size, compressed=True, what="image rows")


def png_padded(path: Path) -> tuple[bytes, int, int] | None:
    """For a non-interlaced PNG whose image data ends early (cut short, or a complete
    zlib stream of too few rows): ``(png, rows held, rows declared)``, ``png`` the same
    picture as a complete PNG in memory, its rows as held and the missing ones zero
    bytes (filter None, samples 0: black); None when the data is complete, damaged (the
    decoder then says so) or not such a PNG.

    So that a file cut inside its data and one whose stream ends early are shown alike
    (Pillow refused the first, "image file is truncated", and drew the second black
    below). Call :func:`check_png_declared` first: the rows are inflated in memory.
    """
    found = png_inflated(path)
    return found if found is not None and found[1] < found[2] else None


def png_inflated(path: Path) -> tuple[bytes, int, int] | None:
    """A non-interlaced PNG with its image data inflated once: ``(png, rows held, rows
    declared)``, ``png`` the same picture in memory with its rows stored uncompressed
    (deflate's stored blocks: the decoder only copies them), so that a picture is not
    inflated twice, once here to count its rows and again by Pillow (issue 25: half a
    16-bit PNG's render). Complete data: the file's chunks before and after it kept.
    Data that ends early (:func:`png_padded`): the rows held, zero bytes below (black),
    the chunks before it. None when the data is damaged (the decoder then says so) or
    the file is not such a PNG. Call :func:`check_png_declared` first: the rows are
    inflated in memory."""
    rows = png_image_rows(path)
    return None if rows is None else rows.as_png()


def png_damaged_chunk(path: Path) -> str | None:
    """The type (``"gAMA"``) of the first chunk before a PNG's image data whose CRC does
    not match its type and data (PNG 1.2 §5.4), or None (no such chunk, or not a PNG).

    Pillow refuses such a file at open with only "cannot identify image file" and the
    repr of the object it read (a memory address); this names what is damaged."""
    from medrcube_desktop.core.files import open_regular

    with open_regular(path) as handle:
        data = handle.read()
    if not data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None
    at = 8
    while at + 12 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, at)
        end = at + 12 + length
        if kind == b"IDAT" or end > len(data):
            return None
        (crc,) = struct.unpack_from(">I", data, end - 4)
        if zlib.crc32(data[at + 4 : end - 4]) != crc:
            return kind.decode("latin-1")
        at = end
    return None


@dataclass(frozen=True)
class PngStream:
    """A non-interlaced PNG's chunks as the file holds them, nothing inflated
    (:func:`png_stream`).

    Attributes
    ----------
    width, height, depth, colour : int
        IHDR columns, rows, bit depth and colour type.
    kept, after : list of bytes
        The chunks before and after the image data, each whole (length, type, data,
        CRC as in the file).
    idat : list of memoryview
        The data of each IDAT chunk, in order (views of the file's bytes, not copies):
        together, the zlib stream of the rows (PNG 1.2 §10.1).
    """

    width: int
    height: int
    depth: int
    colour: int
    kept: list[bytes]
    idat: list[memoryview]
    after: list[bytes]


def png_stream(path: Path) -> PngStream | None:
    """The chunks of a non-interlaced PNG whose image data is one run of whole IDAT
    chunks and which ends with IEND, without inflating anything (for a decoder to
    inflate and unfilter in one pass, issue 25's 16-bit PNG); None for anything else
    (interlaced, no image data, an IDAT after another chunk, a chunk cut short, no
    IEND), which :func:`png_image_rows` reads instead. Call :func:`check_png_declared`
    first."""
    from medrcube_desktop.core.files import open_regular

    with open_regular(path) as handle:
        head = handle.read(33)  # signature and IHDR: a JPEG or TIFF is not read on
        if _png_geometry(head) is None or head[28] != 0:  # interlaced: not this way
            return None
        data = head + handle.read()
    width, height, depth, colour = struct.unpack_from(">IIBB", data, 16)
    view = memoryview(data)
    kept: list[bytes] = []
    idat: list[memoryview] = []
    after: list[bytes] = []
    at = 8
    while at + 12 <= len(data):
        length, kind = struct.unpack_from(">I4s", data, at)
        end = at + 12 + length
        if end > len(data):  # cut short inside a chunk
            return None
        if kind == b"IEND":
            return PngStream(width, height, depth, colour, kept, idat, after) if idat else None
        if kind == b"IDAT":
            if after:  # image data after another chunk: not one run
                return None
            idat.append(view[at + 8 : end - 4])
        else:
            (after if idat else kept).append(data[at:end])
        at = end
    return None


@dataclass(frozen=True)
class PngRows:
    """A non-interlaced PNG's image data inflated (:func:`png_image_rows`).

    Attributes
    ----------
    raw : bytes
        Every declared row (PNG 1.2 §6.1: its filter byte, then its filtered samples),
        ``height * (1 + bytes of samples)`` bytes; zero bytes (filter None, samples 0:
        black) for the rows past those the file holds.
    held, height, width : int
        Rows the data holds (``held < height``: it ends early), rows and columns declared.
    depth, colour : int
        IHDR bit depth and colour type.
    kept, after : list of bytes
        The chunks before the image data (IHDR, PLTE, tRNS, ...) and, when the data is
        complete, after it (eXIf, tEXt, ...), each whole: length, type, data, CRC as in
        the file.
    """

    raw: bytes
    held: int
    height: int
    width: int
    depth: int
    colour: int
    kept: list[bytes]
    after: list[bytes]

    @property
    def complete(self) -> bool:
        """Whether the file holds every declared row."""
        return self.held >= self.height

    def as_png(self) -> tuple[bytes, int, int]:
        """``(png, rows held, rows declared)`` of :func:`png_inflated`."""
        complete = self.complete
        idat = _stored_zlib(self.raw) if complete else [zlib.compress(self.raw, 1)]
        after = self.after if complete else []
        parts = [PNG_SIGNATURE, *self.kept, *_chunk(b"IDAT", idat), *after, *_chunk(b"IEND", [])]
        return b"".join(parts), self.held, self.height


def png_image_rows(path: Path) -> PngRows | None:
    """The image data of a non-interlaced PNG, inflated once (see :class:`PngRows`);
    None when the data is damaged (the decoder then says so) or the file is not such a
    PNG. Call :func:`check_png_declared` first: the rows are inflated in memory."""
    from medrcube_desktop.core.files import open_regular

    with open_regular(path) as handle:
        data = handle.read()
    geometry = _png_geometry(data[:33])
    if geometry is None or data[28] != 0:  # interlaced: rows are not in order
        return None
    width, height, row = geometry
    expected = row * height
    kept: list[bytes] = []  # the chunks before the image data (IHDR, PLTE, tRNS, …)
    inflater = zlib.decompressobj()
    rows: list[bytes] = []
    got, at = 0, 8
    while at + 8 <= len(data) and got < expected and not inflater.eof:
        length, kind = struct.unpack_from(">I4s", data, at)
        body = data[at + 8 : at + 8 + length]
        if kind == b"IEND":
            break
        if kind == b"IDAT":
            try:
                piece = inflater.decompress(body, expected - got)
            except zlib.error:
                return None
            rows.append(piece)
            got += len(piece)
        elif not rows:
            kept.append(data[at : at + 12 + length])
        at += 12 + length
    after: list[bytes] = []  # complete: the chunks after the image data (eXIf, tEXt…)
    if got >= expected:
        while at + 12 <= len(data):
            length, kind = struct.unpack_from(">I4s", data, at)
            if kind == b"IEND":
                break
            if kind != b"IDAT":
                after.append(data[at : at + 12 + length])
            at += 12 + length
    raw = rows[0] if len(rows) == 1 else b"".join(rows)
    if got < expected:
        raw += bytes(expected - got)
    depth, colour = data[24], data[25]
    return PngRows(raw, min(got, expected) // row, height, width, depth, colour, kept, after)


def _stored_zlib(raw: bytes) -> list:
    """``raw`` as a zlib stream of stored (uncompressed) deflate blocks (RFC 1950, RFC
    1951 §3.2.4), in parts that view ``raw`` without copying it: what
    ``zlib.compress(raw, 0)`` makes, at the cost of a checksum (it took longer than
    inflating the picture)."""
    view = memoryview(raw)
    parts: list = [b"\x78\x01"]
    for start in range(0, len(raw), 65535):
        block = view[start : start + 65535]
        final = start + 65535 >= len(raw)
        parts += [struct.pack("<BHH", final, len(block), len(block) ^ 0xFFFF), block]
    if not raw:
        parts.append(b"\x01\x00\x00\xff\xff")
    parts.append(struct.pack(">I", zlib.adler32(raw)))
    return parts


def _chunk(kind: bytes, body: list) -> list:
    """A PNG chunk's parts: length, type, the data's parts, CRC of type and data."""
    crc = zlib.crc32(kind)
    for part in body:
        crc = zlib.crc32(part, crc)
    length = sum(len(part) for part in body)
    return [struct.pack(">I", length), kind, *body, struct.pack(">I", crc)]


DEFLATED_SYNTAX = b"1.2.840.10008.1.2.1.99"
"""Deflated Explicit VR Little Endian (PS3.5 A.5): the whole dataset after the file meta
information is deflated, and pydicom inflates all of it in memory when it reads the
file, before any check of its own."""

DEFLATED_BYTES_PER_PIXEL = 16
"""Bytes of inflated dataset allowed per pixel of the limit (8-byte samples, two frames'
worth, with the header): beyond that a deflated DICOM is refused before it is read."""


def check_deflated(path: Path) -> None:
    """Refuse a deflated DICOM whose dataset inflates beyond what the pixel limit allows
    (``MEDRCUBE_MAX_PIXELS`` x :data:`DEFLATED_BYTES_PER_PIXEL` bytes), before pydicom
    inflates it whole; a file of another transfer syntax costs one read of its first
    4 kB. The dataset is inflated here in pieces, counting bytes, only when the file is
    large enough to reach the bound at deflate's largest ratio.

    Raises
    ------
    ImageLoadError
        ``"PATH: the deflated dataset inflates to more than N bytes …"``.
    """
    from medrcube_desktop.core.files import open_regular
    from medrcube_desktop.settings import max_image_pixels

    with open_regular(path) as handle:
        head = handle.read(4096)
        if DEFLATED_SYNTAX not in head or head[128:132] != b"DICM":
            return
        budget = max_image_pixels() * DEFLATED_BYTES_PER_PIXEL
        size = handle.seek(0, 2)
        if size * MAX_DEFLATE_RATIO <= budget:
            return
        handle.seek(132)
        (length,) = struct.unpack("<I", handle.read(12)[8:12])  # (0002,0000) group length
        handle.seek(132 + 12 + length)
        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        total = 0
        while (block := handle.read(1 << 20)) and total <= budget:
            while block and total <= budget:
                try:
                    total += len(inflater.decompress(block, 1 << 22))
                except zlib.error:
                    return  # damaged: pydicom says so
                block = inflater.unconsumed_tail
    if total > budget:
        raise ImageLoadError(
            f"{path}: the deflated DICOM dataset inflates to more than {budget:,} bytes "
            f"(MEDRCUBE_MAX_PIXELS {max_image_pixels():,} x {DEFLATED_BYTES_PER_PIXEL}): "
            "refused before reading"
        )
