"""A PNG inflated once (issue 25 item 3: its rows counted, then decoded from memory with
the image data stored uncompressed) is the picture Pillow decodes from the file: the same
pixels, mode and EXIF orientation for every kind of PNG, and the same render."""

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.imaging.declared import png_inflated, png_padded
from medrcube_desktop.imaging.render import render_file


def _pictures(tmp_path):
    rng = np.random.default_rng(3)
    made = {}
    grey16 = rng.integers(0, 4096, (300, 257), dtype=np.uint16)
    made["grey16"] = Image.fromarray(grey16)
    made["grey8"] = Image.fromarray(rng.integers(0, 256, (129, 77), dtype=np.uint8))
    made["rgb"] = Image.fromarray(rng.integers(0, 256, (64, 90, 3), dtype=np.uint8))
    made["rgba"] = Image.fromarray(rng.integers(0, 256, (40, 33, 4), dtype=np.uint8))
    made["la"] = Image.fromarray(rng.integers(0, 256, (31, 45, 2), dtype=np.uint8), "LA")
    made["palette"] = made["rgb"].convert("P", palette=Image.Palette.ADAPTIVE, colors=17)
    made["bilevel"] = made["grey8"].convert("1")
    paths = {}
    for name, img in made.items():
        path = tmp_path / f"{name}.png"
        img.save(path)
        paths[name] = path
    big = tmp_path / "many_idat.png"  # 512x512 16-bit in several IDAT chunks
    Image.fromarray(rng.integers(0, 65535, (512, 512), dtype=np.uint16)).save(big)
    paths["many_idat"] = big
    turned = tmp_path / "exif.png"  # an orientation tag: kept with the picture
    exif = Image.Exif()
    exif[0x0112] = 6
    made["grey8"].save(turned, exif=exif)
    paths["exif"] = turned
    return paths


def _eXIf_after_data(path, out):
    """``path`` with an eXIf chunk (orientation 3) moved after its image data."""
    data = path.read_bytes()
    exif = Image.Exif()
    exif[0x0112] = 3
    body = exif.tobytes()
    crc = zlib.crc32(body, zlib.crc32(b"eXIf"))
    chunk = struct.pack(">I", len(body)) + b"eXIf" + body + struct.pack(">I", crc)
    out.write_bytes(data[:-12] + chunk + data[-12:])
    return out


def test_every_kind_of_png_decodes_to_the_files_pixels(tmp_path):
    paths = _pictures(tmp_path)
    paths["exif_after"] = _eXIf_after_data(paths["grey8"], tmp_path / "exif_after.png")
    for name, path in paths.items():
        found = png_inflated(path)
        assert found is not None, name
        png, held, declared = found
        with Image.open(path) as original, Image.open(io.BytesIO(png)) as copy:
            assert (held, declared) == (original.height, original.height), name
            assert copy.mode == original.mode and copy.size == original.size, name
            assert np.array_equal(np.asarray(copy), np.asarray(original)), name
            assert copy.getexif().get(0x0112) == original.getexif().get(0x0112), name
        assert png_padded(path) is None, name  # complete: nothing to pad


@pytest.mark.parametrize("name", ["grey16", "grey8", "rgb", "palette", "exif", "many_idat"])
def test_the_render_is_the_render_of_the_file_as_pillow_reads_it(tmp_path, monkeypatch, name):
    path = _pictures(tmp_path)[name]
    new = render_file(path)
    from medrcube_desktop.imaging import loading

    monkeypatch.setattr(loading, "png_stream", lambda p: None)  # the file itself
    monkeypatch.setattr(loading, "png_image_rows", lambda p: None)
    old = render_file(path)
    assert np.array_equal(new.rgba, old.rgba)
    assert new.notes == old.notes and new.window == old.window


def test_a_stream_of_too_few_rows_is_still_padded_and_said(tmp_path):
    rows = np.random.default_rng(1).integers(0, 256, (20, 16), dtype=np.uint8)
    path = tmp_path / "short.png"
    Image.fromarray(rows).save(path)
    data = path.read_bytes()
    raw = b"".join(b"\x00" + rows[r].tobytes() for r in range(12))  # 12 of 20 rows
    idat = zlib.compress(raw)
    at = data.index(b"IDAT") - 4
    end = at + 12 + struct.unpack(">I", data[at : at + 4])[0]
    crc = zlib.crc32(idat, zlib.crc32(b"IDAT"))
    chunk = struct.pack(">I", len(idat)) + b"IDAT" + idat + struct.pack(">I", crc)
    path.write_bytes(data[:at] + chunk + data[end:])
    png, held, declared = png_inflated(path)
    assert (held, declared) == (12, 20)
    assert png_padded(path) == (png, 12, 20)
    shown = np.asarray(Image.open(io.BytesIO(png)))
    assert np.array_equal(shown[:12], rows[:12]) and not shown[12:].any()
    assert any("ends after row 12 of 20" in note for note in render_file(path).notes)
