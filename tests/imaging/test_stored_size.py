"""The stored size of an image from its header: what ``proposals propose`` checks a box
and a mask's labels against."""

import pytest

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.stored_size import (
    stored_image_size,
    stored_shape,
    stored_slice_shape,
)
from tests.conftest import dicom_file, nibabel_example, png16_file


def test_a_picture_and_a_dicom_give_width_and_height(tmp_path):
    from PIL import Image

    wide = tmp_path / "wide.png"
    Image.new("L", (30, 20)).save(wide)  # 30 columns, 20 rows
    assert stored_shape(wide) == (20, 30) and stored_image_size(wide) == (30, 20)
    assert stored_slice_shape(wide, None, None) == (20, 30)
    assert stored_image_size(png16_file(tmp_path / "mr.png")) == (64, 64)  # MR_small
    assert stored_image_size(dicom_file("CT_small.dcm")) == (128, 128)


def test_a_volume_gives_the_slice_along_an_axis():
    volume = nibabel_example()  # 128 x 96 x 24 (x 2 volumes: the first is shown)
    assert stored_shape(volume) == (128, 96, 24) and stored_image_size(volume) is None
    assert stored_slice_shape(volume, 23, 2) == (128, 96)
    assert stored_slice_shape(volume, 0, 0) == (96, 24)
    with pytest.raises(
        ImageLoadError, match=r"slice 24 along axis 2 is not in the volume \[128, 96, 24\]"
    ):
        stored_slice_shape(volume, 24, 2)
    with pytest.raises(ImageLoadError, match="a volume .*: give slice_index and axis"):
        stored_slice_shape(volume, None, None)


def test_an_unreadable_header_is_named(tmp_path):
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    with pytest.raises(ImageLoadError, match=f"{bad}: cannot read the image's size"):
        stored_shape(bad)
    assert stored_shape(tmp_path / "x.mha") is None
