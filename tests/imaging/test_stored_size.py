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
    assert stored_shape(volume) == (128, 96, 24)
    assert stored_image_size(volume) == (96, 128)  # the window's slice: 128 rows, 96 columns
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
    with pytest.raises(ImageLoadError, match="x.mha: cannot read the image's size"):
        stored_shape(tmp_path / "x.mha")


def test_an_itk_volume_gives_simpleitks_array_order_and_its_slices_along_axis_0(tmp_path):
    """The window's slice of an NRRD/MHA is ``array[z]`` of SimpleITK's (z, y, x) array:
    ``axis`` 0, as a mask correction counts it (not ITK's index axis 2)."""
    import numpy as np

    sitk = pytest.importorskip("SimpleITK")
    volume = sitk.GetImageFromArray(np.zeros((7, 22, 18), np.uint8))  # z, y, x
    sitk.WriteImage(volume, str(tmp_path / "v.mha"))
    assert stored_shape(tmp_path / "v.mha") == (7, 22, 18)
    assert stored_image_size(tmp_path / "v.mha") == (18, 22)
    assert stored_slice_shape(tmp_path / "v.mha", 6, 0) == (22, 18)
    flat = sitk.GetImageFromArray(np.zeros((22, 18), np.uint8))
    sitk.WriteImage(flat, str(tmp_path / "f.nrrd"))
    assert stored_shape(tmp_path / "f.nrrd") == (1, 22, 18)  # one slice, as shown
    assert stored_slice_shape(tmp_path / "f.nrrd", 0, 0) == (22, 18)


def test_stored_mask_slice_reads_the_labels_the_release_writes(tmp_path):
    import nibabel as nib
    import numpy as np
    from PIL import Image

    from medrcube_desktop.imaging.stored_size import stored_mask_slice

    volume = np.zeros((6, 5, 4), np.uint8)
    volume[1:3, 2, 1] = 7
    nib.save(nib.Nifti1Image(volume, np.eye(4)), str(tmp_path / "m.nii.gz"))
    got = stored_mask_slice(tmp_path / "m.nii.gz", 1, 2)
    assert got.shape == (6, 5) and np.array_equal(got, volume[:, :, 1])
    assert int(got.sum()) == 14  # two voxels of label 7
    assert stored_mask_slice(tmp_path / "m.nii.gz", None, None) is None  # a volume: no slice
    picture = np.zeros((3, 4), np.uint8)
    picture[0, 1] = 2
    Image.fromarray(picture).save(tmp_path / "m.png")
    assert stored_mask_slice(tmp_path / "m.png", None, None).tolist() == picture.tolist()
    (tmp_path / "bad.png").write_bytes(b"not a png")
    assert stored_mask_slice(tmp_path / "bad.png", None, None) is None
