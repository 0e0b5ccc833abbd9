"""A picture Pillow cannot identify is refused naming what is wrong with it: a PNG chunk
before the image data whose CRC does not match (Pillow's own words were "cannot
identify image file <_io.BytesIO object at 0x7f...>", a memory address that changed from
run to run), else that no picture format reads it; as image and as mask."""

from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.declared import png_damaged_chunk
from medrcube_desktop.imaging.loading import load_slice


def _chunk(kind: bytes, data: bytes, crc: int | None = None) -> bytes:
    crc = zlib.crc32(kind + data) if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def _png(depth: int, before: bytes = b"", colour: int = 0) -> bytes:
    values = (np.arange(9 * 7) % 200).reshape(9, 7)
    rows = values.astype(">u2" if depth == 16 else np.uint8).reshape(9, -1).view(np.uint8)
    if colour == 2:  # RGB
        rows = np.repeat(rows, 3, axis=1)
    raw = b"".join(b"\x00" + row.tobytes() for row in rows)
    header = struct.pack(">IIBBBBB", 7, 9, depth, colour, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + before
        + _chunk(b"IDAT", zlib.compress(raw))
        + _chunk(b"IEND", b"")
    )


GAMA = struct.pack(">I", 45455)


@pytest.mark.parametrize(("depth", "colour"), [(8, 0), (16, 0), (8, 2)])
@pytest.mark.parametrize("kind", [b"gAMA", b"sRGB", b"tEXt"])
def test_a_chunk_with_a_bad_crc_is_named(tmp_path, depth, colour, kind):
    body = {b"gAMA": GAMA, b"sRGB": b"\x00", b"tEXt": b"Comment\x00x"}[kind]
    path = tmp_path / "damaged.png"
    path.write_bytes(_png(depth, _chunk(kind, body, crc=12345), colour))
    assert png_damaged_chunk(path) == kind.decode()
    with pytest.raises(ImageLoadError) as caught:
        load_slice(path)
    assert str(caught.value) == (
        f"{path}: cannot decode image: its {kind.decode()} chunk's CRC does not match its "
        "data: the file is damaged (PNG 1.2 section 5.4)"
    )


def test_the_same_as_a_mask(tmp_path):
    image, mask = tmp_path / "image.png", tmp_path / "mask.png"
    image.write_bytes(_png(8))
    mask.write_bytes(_png(8, _chunk(b"gAMA", GAMA, crc=1)))
    with pytest.raises(ImageLoadError) as caught:
        load_slice(image, None, mask)
    assert str(caught.value) == (
        f"{mask}: cannot read mask: its gAMA chunk's CRC does not match its data: the file "
        "is damaged (PNG 1.2 section 5.4)"
    )


def test_whole_chunks_and_other_files_name_none(tmp_path):
    whole = tmp_path / "whole.png"
    whole.write_bytes(_png(16, _chunk(b"gAMA", GAMA)))
    assert png_damaged_chunk(whole) is None
    assert load_slice(whole).pixels.shape == (9, 7)
    other = tmp_path / "other.png"
    other.write_bytes(b"GIF89a" + bytes(40))
    assert png_damaged_chunk(other) is None
