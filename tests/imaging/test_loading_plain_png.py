"""A complete 8- or 16-bit greyscale PNG is unfiltered by Pillow's own decoder straight
into its array (issue 25: the 16-bit PNG's render), from the rows inflated once: the
pixels are Pillow's, byte for byte, for every filter a row can use, and any PNG outside
that plain case (colour, EXIF, text, a bad CRC, data cut short) goes Pillow's whole way.
"""

import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.imaging import loading
from medrcube_desktop.imaging.declared import png_image_rows, png_stream
from medrcube_desktop.imaging.loading import _plain_grey_png, load_slice


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png(values: np.ndarray, filters: list[int], extra: bytes = b"") -> bytes:
    """A grey PNG of ``values`` (uint8 or >u2-able uint16) whose row ``i`` uses filter
    ``filters[i % len(filters)]`` (PNG 1.2 §6: None, Sub, Up, Average, Paeth), filtered
    here by the specification's formulas, with ``extra`` chunks after IHDR."""
    height, width = values.shape
    depth = 16 if values.dtype == np.uint16 else 8
    bpp = depth // 8
    rows = values.astype(">u2").view(np.uint8) if depth == 16 else values
    rows = rows.reshape(height, width * bpp).astype(np.int64)
    out = bytearray()
    previous = np.zeros(width * bpp, dtype=np.int64)
    for i, row in enumerate(rows):
        kind = filters[i % len(filters)]
        left = np.concatenate([np.zeros(bpp, dtype=np.int64), row[:-bpp]])
        up_left = np.concatenate([np.zeros(bpp, dtype=np.int64), previous[:-bpp]])
        if kind == 0:
            filtered = row
        elif kind == 1:
            filtered = row - left
        elif kind == 2:
            filtered = row - previous
        elif kind == 3:
            filtered = row - (left + previous) // 2
        else:
            p = left + previous - up_left
            pa, pb, pc = np.abs(p - left), np.abs(p - previous), np.abs(p - up_left)
            predictor = np.where(
                (pa <= pb) & (pa <= pc), left, np.where(pb <= pc, previous, up_left)
            )
            filtered = row - predictor
        out += bytes([kind]) + (filtered % 256).astype(np.uint8).tobytes()
        previous = row
    ihdr = struct.pack(">IIBBBBB", width, height, depth, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", ihdr)
        + extra
        + _chunk(b"IDAT", zlib.compress(bytes(out), 6))
        + _chunk(b"IEND", b"")
    )


def _spy(monkeypatch) -> list:
    """Record the SliceData the plain path returns (None: it declined)."""
    calls = []
    plain = loading._plain_grey_png

    def spy(path, stream):
        found = plain(path, stream)
        calls.append(found)
        return found

    monkeypatch.setattr(loading, "_plain_grey_png", spy)
    return calls


@pytest.mark.parametrize("depth", [8, 16])
@pytest.mark.parametrize("filters", [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4]])
def test_every_row_filter_gives_pillows_pixels(tmp_path, monkeypatch, depth, filters):
    rng = np.random.default_rng(depth + len(filters) + filters[0])
    top = 65535 if depth == 16 else 255
    values = rng.integers(0, top + 1, (37, 53), dtype=np.uint16 if depth == 16 else np.uint8)
    path = tmp_path / "grey.png"
    path.write_bytes(_png(values, filters))
    calls = _spy(monkeypatch)
    data = load_slice(path)
    assert calls and calls[0] is not None  # the plain path decoded it
    expected = np.asarray(Image.open(path))
    assert np.array_equal(expected, values)  # the file written holds ``values``
    assert data.pixels.dtype == expected.dtype
    assert np.array_equal(data.pixels, values)
    assert not data.pixels.flags.writeable  # shared through the slice cache, as Pillow's
    assert data.source_bits == depth and data.value_unit == "grey level"


def test_pillows_own_16_bit_png_with_a_resolution_decodes_alike(tmp_path, monkeypatch):
    rng = np.random.default_rng(7)
    values = rng.integers(0, 4096, (512, 512), dtype=np.uint16)
    path = tmp_path / "dpi.png"
    Image.fromarray(values).save(path, dpi=(96, 96))  # a pHYs chunk; Pillow's own filters
    calls = _spy(monkeypatch)
    data = load_slice(path)
    assert calls[0] is not None
    assert np.array_equal(data.pixels, values)


def test_other_pngs_go_pillows_way(tmp_path, monkeypatch):
    rng = np.random.default_rng(11)
    grey = rng.integers(0, 256, (20, 30), dtype=np.uint8)
    cases = {}
    cases["rgb"] = tmp_path / "rgb.png"
    Image.fromarray(rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)).save(cases["rgb"])
    cases["text"] = tmp_path / "text.png"  # a text chunk could carry XMP orientation
    cases["text"].write_bytes(_png(grey, [4], _chunk(b"tEXt", b"Comment\x00hello")))
    cases["exif"] = tmp_path / "exif.png"
    exif = Image.Exif()
    exif[0x0112] = 6
    Image.fromarray(grey).save(cases["exif"], exif=exif)
    bad = bytearray(_png(grey, [0], _chunk(b"gAMA", struct.pack(">I", 45455))))
    bad[33 + 8 + 4] ^= 0xFF  # the gAMA value changed: its CRC no longer matches
    cases["bad_crc"] = tmp_path / "bad_crc.png"
    cases["bad_crc"].write_bytes(bytes(bad))
    for name, path in cases.items():
        stream = png_stream(path)
        assert stream is not None, name
        assert _plain_grey_png(path, stream) is None, name
        calls = _spy(monkeypatch)
        try:
            expected = np.asarray(Image.open(path))
        except Exception:  # Pillow refuses it: so does the load, as before
            with pytest.raises(Exception):  # noqa: B017
                load_slice(path)
            continue
        data = load_slice(path)
        assert calls == [None], name
        if name == "exif":  # turned upright: Pillow's pixels, rotated
            assert data.pixels.shape == expected.shape[::-1]
        else:
            assert np.array_equal(data.pixels, expected), name


def test_a_png_cut_short_is_padded_as_before(tmp_path, monkeypatch):
    values = np.random.default_rng(5).integers(0, 65536, (40, 16), dtype=np.uint16)
    whole = _png(values, [2])
    path = tmp_path / "short.png"
    path.write_bytes(whole[: len(whole) // 2])  # inside the compressed data, no IEND
    calls = _spy(monkeypatch)
    rows = png_image_rows(path)
    assert rows is not None and 0 < rows.held < 40
    assert png_stream(path) is None  # no IEND: not read as a plain stream
    data = load_slice(path)
    assert calls == []  # no stream: the plain path is not even tried, Pillow reads it
    assert np.array_equal(data.pixels[: rows.held], values[: rows.held])
    assert not data.pixels[rows.held + 1 :].any()  # black below (a partial row aside)
    assert any("cut short" in note for note in data.notes)


def test_a_whole_stream_of_too_few_rows_is_not_taken_for_a_picture(tmp_path, monkeypatch):
    # the zlib stream is complete and the file ends with IEND, but it holds 12 of 20
    # rows: Pillow's decoder stops there without an error; the rows below must not be
    # the empty array's leftovers, but black and said, as the other way gives them
    values = np.random.default_rng(3).integers(0, 65536, (20, 16), dtype=np.uint16)
    whole = _png(values, [0])
    raw = b"".join(b"\x00" + values[r].astype(">u2").tobytes() for r in range(12))
    head = whole[: whole.index(b"IDAT") - 4]
    path = tmp_path / "few.png"
    path.write_bytes(head + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b""))
    assert png_stream(path) is not None  # a plain stream by its chunks
    calls = _spy(monkeypatch)
    data = load_slice(path)
    assert calls == [None]
    assert np.array_equal(data.pixels[:12], values[:12]) and not data.pixels[12:].any()
    assert any("ends after row 12 of 20" in note for note in data.notes)


def test_a_last_row_that_is_the_unwritten_pattern_still_decodes(tmp_path, monkeypatch):
    # the pattern that marks an unwritten last row, held by the picture itself: the
    # plain path cannot tell, declines, and the other way gives Pillow's pixels
    values = np.random.default_rng(4).integers(0, 65536, (6, 9), dtype=np.uint16)
    values[-1] = loading._last_row_pattern(9, np.uint16)
    path = tmp_path / "pattern.png"
    path.write_bytes(_png(values, [4]))
    calls = _spy(monkeypatch)
    data = load_slice(path)
    assert calls == [None]
    assert np.array_equal(data.pixels, values)
    assert np.array_equal(np.asarray(Image.open(path)), values)
    assert not any("cut short" in note for note in data.notes)


def test_the_stream_is_the_files_idat_data_in_order(tmp_path):
    values = np.random.default_rng(6).integers(0, 256, (30, 40), dtype=np.uint8)
    png = _png(values, [1], _chunk(b"gAMA", struct.pack(">I", 45455)))
    at = png.index(b"IDAT") - 4
    length = struct.unpack(">I", png[at : at + 4])[0]
    body = png[at + 8 : at + 8 + length]
    split = _chunk(b"IDAT", body[:7]) + _chunk(b"IDAT", body[7:])  # two IDAT chunks
    path = tmp_path / "two.png"
    path.write_bytes(png[:at] + split + _chunk(b"tIME", bytes(7)) + _chunk(b"IEND", b""))
    stream = png_stream(path)
    assert (stream.width, stream.height, stream.depth, stream.colour) == (40, 30, 8, 0)
    assert [bytes(part) for part in stream.idat] == [body[:7], body[7:]]
    assert [chunk[4:8] for chunk in stream.kept] == [b"IHDR", b"gAMA"]
    assert [chunk[4:8] for chunk in stream.after] == [b"tIME"]
    assert np.array_equal(load_slice(path).pixels, values)
    # an IDAT after another chunk is not one run: not a plain stream
    path.write_bytes(png[:at] + _chunk(b"IDAT", body[:7]) + _chunk(b"tIME", bytes(7))
                     + _chunk(b"IDAT", body[7:]) + _chunk(b"IEND", b""))  # fmt: skip
    assert png_stream(path) is None


def test_a_damaged_jpeg_is_said_to_be_damaged_or_no_picture(tmp_path):
    # a JPEG whose start-of-image marker is overwritten: Pillow identifies no format
    from io import BytesIO

    from PIL import Image

    from medrcube_desktop.errors import ImageLoadError

    out = BytesIO()
    Image.fromarray(np.zeros((8, 8), dtype=np.uint8)).save(out, format="JPEG")
    path = tmp_path / "scan.jpg"
    path.write_bytes(b"\x00\x00" + out.getvalue()[2:])
    with pytest.raises(ImageLoadError) as caught:
        load_slice(path)
    assert str(caught.value) == (
        f"{path}: cannot decode image: Pillow recognises no picture format in it "
        "(PNG, JPEG, TIFF...): damaged, or not a picture"
    )
