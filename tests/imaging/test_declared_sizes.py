"""Every decoder checks what a file declares against the limit and the file before it
allocates (issue 21, hostile trial: a 5 kB DICOM whose JPEG 2000 codestream declares a
huge image, a NIfTI declaring 1.6 GB with 32 bytes, a PNG cut after 10 rows)."""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging import declared
from medrcube_desktop.imaging.loading import load_slice

from ..conftest import dicom_file


def _never(*args, **kwargs):
    raise AssertionError("the decoder ran")


def _bomb_dicom(tmp_path: Path, width: int, height: int) -> Path:
    """pydicom's 64x64 JPEG 2000 MR with its codestream's SIZ declaring width x height."""
    import pydicom
    from pydicom.encaps import encapsulate, generate_frames

    ds = pydicom.dcmread(dicom_file("MR_small_jp2klossless.dcm"))
    frame = bytearray(next(generate_frames(ds.PixelData, number_of_frames=1)))
    siz = frame.find(b"\xff\x4f\xff\x51") + 2
    struct.pack_into(">4I", frame, siz + 6, width, height, 0, 0)  # Xsiz Ysiz XOsiz YOsiz
    ds.PixelData = encapsulate([bytes(frame)])
    path = tmp_path / "bomb.dcm"
    ds.save_as(path)
    return path


@pytest.fixture
def no_decoder(monkeypatch):
    import pydicom.dataset
    import pydicom.pixels

    monkeypatch.setattr(pydicom.dataset.Dataset, "pixel_array", property(_never))
    monkeypatch.setattr(pydicom.pixels, "pixel_array", _never)


def test_a_jpeg2000_codestream_declaring_a_huge_image_is_refused_before_decoding(
    tmp_path, no_decoder
):
    path = _bomb_dicom(tmp_path, 40_000, 40_000)
    assert path.stat().st_size < 10_000  # a few kilobytes that would decode to gigabytes
    with pytest.raises(ImageLoadError, match=r"JPEG 2000 codestream declares 40000x40000"):
        load_slice(path)


def test_a_codestream_larger_than_rows_by_columns_is_refused(tmp_path, no_decoder):
    path = _bomb_dicom(tmp_path, 64, 4096)  # under the limit, not the header's 64x64
    with pytest.raises(ImageLoadError, match=r"declares 64x4096 .* DICOM header 64x64"):
        load_slice(path)


def test_the_reduced_view_decode_is_refused_too(tmp_path, no_decoder):
    path = _bomb_dicom(tmp_path, 40_000, 40_000)
    with pytest.raises(ImageLoadError, match="declares"):
        load_slice(path, display_side=16)


def test_honest_compressed_dicoms_still_decode():
    for name in (
        "MR_small_jp2klossless.dcm",
        "SC_rgb_jpeg_dcmtk.dcm",
        "MR_small_jpeg_ls_lossless.dcm",
    ):
        data = load_slice(dicom_file(name))
        assert data.pixels.shape[:2] == (64, 64) or data.pixels.shape[:2] == (100, 100)


def _nifti_bomb(path: Path) -> Path:
    import nibabel as nib

    header = nib.Nifti1Header()
    header.set_data_shape((1024, 1024, 400))  # 1.6 GB of float32
    header.set_data_dtype(np.float32)
    header["vox_offset"] = 352
    header["magic"] = b"n+1"
    raw = header.binaryblock + b"\0" * 4 + b"\0" * 32  # 32 bytes of data
    path.write_bytes(gzip.compress(raw) if path.name.endswith(".gz") else raw)
    return path


@pytest.mark.parametrize("name", ["big.nii", "big.nii.gz"])
def test_a_nifti_declaring_more_than_its_file_holds_is_refused_before_reading(
    tmp_path, monkeypatch, name
):
    import nibabel.arrayproxy

    monkeypatch.setattr(nibabel.arrayproxy.ArrayProxy, "__array__", _never)
    monkeypatch.setattr(nibabel.arrayproxy.ArrayProxy, "__getitem__", _never)
    path = _nifti_bomb(tmp_path / name)
    with pytest.raises(ImageLoadError, match=r"declares 1,677,721,600 bytes of voxels"):
        load_slice(path)


def _png(width: int, height: int, rows: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\x00" + bytes([200]) * width for _ in range(rows))  # filter 0, grey 200
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def test_a_png_cut_after_10_rows_says_so(tmp_path):
    path = tmp_path / "cut.png"
    path.write_bytes(_png(100, 100, 10))
    data = load_slice(path)
    assert data.pixels.shape == (100, 100)
    assert int(data.pixels[0, 0]) == 200 and int(data.pixels[50, 0]) == 0  # Pillow's black
    assert any("ends after row 10 of 100" in note for note in data.notes)


def test_a_complete_png_has_no_note(tmp_path):
    path = tmp_path / "full.png"
    path.write_bytes(_png(100, 100, 100))
    assert declared.png_rows_present(path) is None
    assert not any("ends after" in note for note in load_slice(path).notes)


def test_a_mask_cut_short_is_refused(tmp_path):
    from PIL import Image

    image = tmp_path / "image.png"
    Image.fromarray(np.zeros((100, 100), np.uint8)).save(image)
    mask = tmp_path / "mask.png"
    mask.write_bytes(_png(100, 100, 10))
    with pytest.raises(ImageLoadError, match="mask ends after row 10 of 100"):
        load_slice(image, mask_path=mask)


def test_jpeg_frame_header_is_read():
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.zeros((30, 50), np.uint8)).save(buffer, "JPEG")
    assert declared.codestream_size(buffer.getvalue()) == (50, 30, 1, "JPEG codestream")


@pytest.mark.parametrize(
    ("suffix", "compressed"), [(".nrrd", False), (".nrrd", True), (".mha", False), (".mha", True)]
)
def test_an_itk_volume_declaring_more_than_its_file_holds_is_refused(tmp_path, suffix, compressed):
    import SimpleITK as sitk

    path = tmp_path / f"volume{suffix}"
    volume = np.arange(4 * 5 * 6, dtype=np.int16).reshape(4, 5, 6)
    sitk.WriteImage(sitk.GetImageFromArray(volume), str(path), compressed)
    assert load_slice(path).pixels.shape == (5, 6)  # an honest file reads
    text = path.read_bytes()
    old, new = (b"sizes: 6 5 4", b"sizes: 6000 5000 40") if suffix == ".nrrd" else (
        b"DimSize = 6 5 4", b"DimSize = 6000 5000 40")  # fmt: skip
    path.write_bytes(text.replace(old, new))
    with pytest.raises(ImageLoadError, match=r"declares 2,400,000,000 bytes of voxels"):
        load_slice(path)


def test_render_says_a_png_is_cut_short(tmp_path, capsys):
    from medrcube_desktop.cli import main

    path = tmp_path / "cut.png"
    path.write_bytes(_png(100, 100, 10))
    assert main(["render", str(path), "--out", str(tmp_path / "out.png")]) == 0
    assert "ends after row 10 of 100" in capsys.readouterr().err


def test_a_deflated_dicom_inflating_beyond_the_limit_is_refused_before_pydicom_reads_it(
    tmp_path, monkeypatch
):
    import pydicom
    from pydicom.uid import DeflatedExplicitVRLittleEndian

    ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
    ds.Rows = ds.Columns = 1024
    ds.PixelData = bytes(1024 * 1024 * 2)  # 2 MB of zeros deflate to a few kB
    ds.file_meta.TransferSyntaxUID = DeflatedExplicitVRLittleEndian
    path = tmp_path / "deflated.dcm"
    ds.save_as(path, enforce_file_format=True)
    assert path.stat().st_size < 20_000
    monkeypatch.setenv("MEDRCUBE_MAX_PIXELS", "10000")  # 160,000 bytes inflated at most
    monkeypatch.setattr(pydicom, "dcmread", _never)
    with pytest.raises(
        ImageLoadError, match="deflated DICOM dataset inflates to more than 160,000"
    ):
        load_slice(path)


def test_pixel_data_left_on_disk_is_checked_from_the_file(tmp_path, no_decoder, monkeypatch):
    from medrcube_desktop.imaging import dicom

    monkeypatch.setattr(dicom, "DEFER_BYTES", 64)  # the Pixel Data is not read with the header
    path = _bomb_dicom(tmp_path, 40_000, 40_000)
    with pytest.raises(ImageLoadError, match=r"JPEG 2000 codestream declares 40000x40000"):
        load_slice(path)


# A PNG's IHDR against what its file can hold; a cut inside the data and a stream that
# ends early are shown alike (the rows held, the rest black, said).


def _png_chunks(width: int, height: int, idat: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )


def test_a_png_declaring_more_than_its_file_can_inflate_to_is_refused_before_decoding(
    tmp_path, monkeypatch
):
    import PIL.Image

    monkeypatch.setenv("MEDRCUBE_MAX_PIXELS", str(9000 * 9000))  # the limit is not what refuses
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_chunks(9000, 9000, zlib.compress(b"\x00" * 9001 * 3)))
    size = path.stat().st_size
    assert size < 200
    declared_bytes = 9000 * (1 + 9000)  # rows x (filter byte + 9000 grey samples)
    assert declared_bytes > 1032 * size  # deflate's largest ratio cannot reach it
    monkeypatch.setattr(PIL.Image, "open", _never)
    with pytest.raises(ImageLoadError) as refused:
        load_slice(path)
    assert str(refused.value).startswith(
        f"{path}: declares {declared_bytes:,} bytes of image rows but holds {size:,} "
        "compressed bytes"
    )


def _rows(width: int, height: int) -> np.ndarray:
    return (
        np.arange(height * width, dtype=np.uint32).reshape(height, width) * 7919 % 251 + 1
    ).astype(np.uint8)  # no zero: a black pixel is a missing one


def test_a_png_cut_inside_its_data_shows_its_rows_held_like_one_whose_stream_ends_early(
    tmp_path,
):
    pixels = _rows(300, 300)
    raw = b"".join(b"\x00" + r.tobytes() for r in pixels)
    whole = _png_chunks(300, 300, zlib.compress(raw))
    cut = tmp_path / "cut.png"
    cut.write_bytes(whole[: len(whole) // 3])  # inside the IDAT chunk, no CRC, no IEND
    # the rows the cut data holds, independently: inflate what is left of the IDAT
    held = len(zlib.decompressobj().decompress(whole[41 : len(whole) // 3])) // 301
    assert 0 < held < 300
    data = load_slice(cut)
    assert data.pixels.shape == (300, 300)
    np.testing.assert_array_equal(data.pixels[:held], pixels[:held])
    assert not data.pixels[held + 1 :].any()  # black below
    assert any(f"ends after row {held} of 300" in note for note in data.notes)


def test_a_pillow_png_cut_at_a_third_renders_with_the_note(tmp_path):
    from PIL import Image

    full = tmp_path / "full.png"
    Image.fromarray(_rows(300, 300)).save(full)
    cut = tmp_path / "cut.png"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 3])
    data = load_slice(cut)
    assert data.pixels.shape == (300, 300)
    assert any("of 300: the rows below are missing, drawn black" in note for note in data.notes)


def test_a_png_cut_before_its_first_row_is_refused(tmp_path):
    path = tmp_path / "norow.png"
    raw = b"".join(b"\x00" + r.tobytes() for r in _rows(30, 30))
    whole = _png_chunks(30, 30, zlib.compress(raw, 0))  # stored: 31 bytes a row
    path.write_bytes(whole[:60])  # 19 bytes of the IDAT's data: no whole row
    with pytest.raises(ImageLoadError, match="ends before the first of its 30 rows"):
        load_slice(path)
