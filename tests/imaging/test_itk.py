"""NRRD/MHA through SimpleITK must show exactly what the NIfTI path (nibabel) shows."""

from pathlib import Path

import numpy as np
import pytest
import SimpleITK as sitk

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.render import render_file


def mni_t1() -> Path:
    import nilearn

    return (
        Path(nilearn.__file__).parent
        / "datasets"
        / "data"
        / "mni_icbm152_t1_tal_nlin_sym_09a_converted.nii.gz"
    )


@pytest.mark.parametrize("suffix", [".mha", ".nrrd"])
def test_itk_formats_render_like_the_same_volume_read_by_nibabel(tmp_path, suffix):
    converted = tmp_path / f"t1{suffix}"
    sitk.WriteImage(sitk.ReadImage(str(mni_t1())), str(converted))  # SimpleITK: RAS -> LPS
    by_nibabel = render_file(mni_t1())
    by_itk = render_file(converted)
    assert (by_itk.slice_index, by_itk.slice_count) == (
        by_nibabel.slice_index,
        by_nibabel.slice_count,
    )
    assert (
        by_itk.edge_labels
        == by_nibabel.edge_labels
        == {"top": "A", "bottom": "P", "left": "R", "right": "L"}
    )
    assert by_itk.window == pytest.approx(by_nibabel.window)
    np.testing.assert_array_equal(by_itk.rgba, by_nibabel.rgba)


def test_itk_mask_picks_the_slice_and_a_foreign_grid_is_refused(tmp_path):
    data = np.zeros((5, 6, 7), np.float32)  # numpy (z, y, x)
    mask = np.zeros((5, 6, 7), np.uint8)
    mask[1, 1:3, 1:3] = 1
    mask[3, 0:5, 0:5] = 1  # z = 3 has the largest mask area
    image, labels = sitk.GetImageFromArray(data), sitk.GetImageFromArray(mask)
    sitk.WriteImage(image, str(tmp_path / "v.nrrd"))
    sitk.WriteImage(labels, str(tmp_path / "m.nrrd"))
    assert render_file(tmp_path / "v.nrrd", mask_path=tmp_path / "m.nrrd").slice_index == 3
    labels.SetOrigin((10.0, 0.0, 0.0))
    sitk.WriteImage(labels, str(tmp_path / "moved.nrrd"))
    with pytest.raises(ImageLoadError, match="mask grid differs"):
        render_file(tmp_path / "v.nrrd", mask_path=tmp_path / "moved.nrrd")
    (tmp_path / "broken.mha").write_text("not a metaimage")
    with pytest.raises(ImageLoadError, match="broken.mha"):
        render_file(tmp_path / "broken.mha")
