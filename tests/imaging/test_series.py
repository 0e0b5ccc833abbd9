"""A DICOM series in a folder: ordered along the normal, spacing from positions."""

import numpy as np
import pydicom
from pydicom.uid import generate_uid

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging.render import render_file
from tests.conftest import dicom_file, item, write_benchmark


def write_series(folder, z_positions, localizer=False):
    """Copies of CT_small.dcm at the given z (mm); slice k's pixels are raised by 100 * k."""
    folder.mkdir(parents=True)
    source = pydicom.dcmread(dicom_file("CT_small.dcm"))
    series_uid = generate_uid()
    order = list(range(len(z_positions)))[::-1]  # file names in reverse slice order
    for k, z in enumerate(z_positions):
        ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
        ds.PixelData = (source.pixel_array + 100 * k).astype(source.pixel_array.dtype).tobytes()
        ds.ImagePositionPatient = [0.0, 0.0, float(z)]
        ds.SliceThickness = 3.0  # deliberately not the spacing
        ds.SeriesInstanceUID, ds.SOPInstanceUID = series_uid, generate_uid()
        ds.save_as(folder / f"im{order[k]:03d}.dcm")
    if localizer:
        ds = pydicom.dcmread(dicom_file("CT_small.dcm"))
        ds.ImageOrientationPatient = [1, 0, 0, 0, 0, -1]  # coronal scout
        ds.save_as(folder / "scout.dcm")
    return source


def test_series_is_ordered_by_position_with_spacing_from_positions(tmp_path):
    source = write_series(tmp_path / "s", [0, 5, 10, 15, 20], localizer=True)
    central = render_file(tmp_path / "s")
    assert (central.slice_index, central.slice_count) == (2, 5)
    hu = (source.pixel_array + 200) * float(source.RescaleSlope) + float(source.RescaleIntercept)
    expected = np.rint(np.clip((hu + 160) / 400, 0, 1) * 255)  # slice k = 2, CT window by hand
    np.testing.assert_array_equal(central.rgba[..., 0], expected)
    assert "slice spacing 5 mm from positions" in central.notes
    assert any("another orientation (localizer?) left out: scout.dcm" in n for n in central.notes)
    first = render_file(tmp_path / "s", slice_index=0)
    hu0 = source.pixel_array * float(source.RescaleSlope) + float(source.RescaleIntercept)
    np.testing.assert_array_equal(
        first.rgba[..., 0], np.rint(np.clip((hu0 + 160) / 400, 0, 1) * 255)
    )


def test_uneven_gaps_are_reported(tmp_path):
    write_series(tmp_path / "s", [0, 5, 10, 20, 25])
    assert any(
        "uneven slice spacing: gaps from 5 to 10 mm" in n for n in render_file(tmp_path / "s").notes
    )


def test_a_series_folder_is_a_valid_image_path(tmp_path):
    root = write_benchmark(tmp_path / "b", {"ds1": [item("series", image="series")]})
    write_series(root / "ds1" / "series", [0, 5, 10])
    bench = load_benchmark(root)
    assert bench.problems == [] and bench.items[0].image_path.is_dir()
