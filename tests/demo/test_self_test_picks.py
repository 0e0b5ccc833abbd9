"""Which demo items the self-test renders and the PNG bit depth that picks the 16-bit one
(issue 26, ``python -m tests.mutation.run --modules demo.self_test``), on files written
here byte by byte: a PNG's bit depth is byte 24 (8 signature bytes, the IHDR chunk's
length and type, width and height, then the bit depth: PNG specification, section 11.2.2)."""

import struct
from pathlib import Path
from types import SimpleNamespace

import pytest

from medrcube_desktop.demo import self_test
from medrcube_desktop.errors import DatasetError

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_head(bits: int) -> bytes:
    # signature, IHDR length 13, "IHDR", width 3, height 2, bit depth, colour type 0 (grey)
    return SIGNATURE + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBB", 3, 2, bits, 0)


@pytest.mark.parametrize("bits", [1, 8, 16])
def test_the_bit_depth_of_a_png_is_its_ihdr_byte(tmp_path, bits):
    path = tmp_path / "x.png"
    path.write_bytes(_png_head(bits) + b"\x00\x00\x00" + b"rest of the file")
    assert path.read_bytes()[24] == bits  # the layout written above
    assert self_test.png_bit_depth(path) == bits


def test_a_file_that_is_no_png_or_too_short_or_missing_has_no_bit_depth(tmp_path):
    jpeg = tmp_path / "x.png"
    jpeg.write_bytes(b"\xff\xd8\xff\xe0" + b"\x10" * 40)  # byte 24 is 16, no PNG signature
    assert self_test.png_bit_depth(jpeg) == 0
    short = tmp_path / "short.png"
    short.write_bytes(_png_head(16)[:24])  # cut just before the bit depth
    assert self_test.png_bit_depth(short) == 0
    assert self_test.png_bit_depth(tmp_path / "missing.png") == 0  # OSError: not found
    assert self_test.png_bit_depth(tmp_path) == 0  # a folder: refused, not read


def _item(path, mask=None):
    return SimpleNamespace(image_path=Path(path), mask_path=None if mask is None else Path(mask))


def test_the_first_item_of_each_kind_is_picked(tmp_path):
    png16 = tmp_path / "a16.png"
    png16.write_bytes(_png_head(16))
    png8 = tmp_path / "b8.png"
    png8.write_bytes(_png_head(8))
    second16 = tmp_path / "c16.png"
    second16.write_bytes(_png_head(16))
    items = [
        _item(tmp_path / "plain.nii.gz"),  # a volume without a mask: not the volume check
        _item(png8),  # 8 bits: not the 16-bit check
        _item(tmp_path / "brain.nii.gz", tmp_path / "brain_mask.nii.gz"),
        _item(png16),
        _item(tmp_path / "RG1_J2KR.DCM"),  # "j2k" read case-blind
        _item(tmp_path / "head.NII", tmp_path / "m.nii"),
        _item(second16),
        _item(tmp_path / "other_j2k.dcm"),
    ]
    picks = self_test.pick_items(items)
    assert {check: item.image_path.name for check, item in picks.items()} == {
        "nifti_volume_with_mask": "brain.nii.gz",
        "png16": "a16.png",
        "jpeg2000_demo_item": "RG1_J2KR.DCM",
    }


def test_an_uncompressed_nifti_with_a_mask_is_a_volume_whatever_its_case(tmp_path):
    png16 = tmp_path / "a16.png"
    png16.write_bytes(_png_head(16))
    rest = [_item(png16), _item(tmp_path / "x_j2k.dcm")]
    for name in ("head.nii", "HEAD.NII"):
        picks = self_test.pick_items([_item(tmp_path / name, tmp_path / "m.nii"), *rest])
        assert picks["nifti_volume_with_mask"].image_path.name == name


def test_a_demo_without_some_kinds_names_them_in_order(tmp_path):
    png16 = tmp_path / "a.png"
    png16.write_bytes(_png_head(16))
    with pytest.raises(
        DatasetError,
        match=r"^the demo has no item for the self-test's nifti_volume_with_mask, "
        r"jpeg2000_demo_item$",
    ):
        self_test.pick_items([_item(png16)])
    with pytest.raises(DatasetError, match=r"self-test's nifti_volume_with_mask, png16, "):
        self_test.pick_items([])
