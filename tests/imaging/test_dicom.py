"""Our read of plain uncompressed Pixel Data equals pydicom's ``pixel_array``."""

from __future__ import annotations

import warnings

import numpy as np
import pydicom
from pydicom.data import get_testdata_file

from medrcube_desktop.imaging.dicom import native_frame
from tests.conftest import dicom_file


def test_native_read_equals_pydicom_on_every_pydicom_test_file():
    read = []
    # the files pydicom bundles and those of the pydicom-data package (no download)
    folders = {dicom_file(name).parent for name in ("CT_small.dcm", "mlut_18.dcm")}
    for path in sorted(p for folder in folders for p in folder.rglob("*.dcm")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ds = pydicom.dcmread(path)
            except Exception:  # files pydicom itself cannot read are not our concern here
                continue
            arr = native_frame(ds)
            if arr is None:
                continue
            expected = ds.pixel_array
        read.append(path.name)
        assert arr.dtype.kind == expected.dtype.kind, path
        assert arr.dtype.itemsize == expected.dtype.itemsize, path
        np.testing.assert_array_equal(arr, expected, err_msg=str(path))
        assert not arr.flags.writeable  # a view of the Pixel Data, shared: never written
    for name in ("CT_small.dcm", "MR_small.dcm", "MR-SIEMENS-DICOM-WithOverlays.dcm"):
        assert name in read
    assert "mlut_18.dcm" in read  # 12 of 16 bits, signed, with garbage above them


def test_unused_high_bits_are_shifted_out_as_pydicom_does(tmp_path):
    ds = pydicom.dcmread(get_testdata_file("MR_small.dcm"))
    stored = ds.pixel_array.astype(np.int16)
    ds.BitsStored, ds.HighBit = 12, 11
    noisy = stored.copy()
    noisy[::3] |= np.int16(0x5000)  # garbage above the 12 stored bits
    ds.PixelData = noisy.tobytes()
    ds.save_as(tmp_path / "noisy.dcm")
    ds = pydicom.dcmread(tmp_path / "noisy.dcm")
    np.testing.assert_array_equal(native_frame(ds), ds.pixel_array)


def test_compressed_colour_and_multi_frame_files_are_left_to_pydicom():
    for name in ("MR_small_jp2klossless.dcm", "SC_rgb.dcm", "emri_small.dcm"):
        ds = pydicom.dcmread(get_testdata_file(name))
        assert native_frame(ds) is None, name


def test_a_file_without_the_dicm_prefix_is_named_not_a_dicom_file(tmp_path):
    """pydicom's own text ends with "Use force=True to force reading.", advice to a
    programmer; the reader of the file gets what is wrong with it (PS3.10 7.1)."""
    import pytest

    from medrcube_desktop.errors import ImageLoadError
    from medrcube_desktop.imaging.loading import load_slice

    path = tmp_path / "scan.dcm"
    path.write_bytes(b"\0" * 128 + b"NOPE" + b"\0" * 64)
    with pytest.raises(ImageLoadError) as caught:
        load_slice(path)
    message = str(caught.value)
    assert message == (
        f"{path}: not a DICOM file: no 'DICM' prefix after the 128-byte preamble (DICOM PS3.10 7.1)"
    )
    assert "force" not in message


def test_a_vr_mismatch_pydicom_refuses_is_not_called_a_missing_prefix(monkeypatch):
    # pydicom raises InvalidDicomError for a VR mismatch too, when its reading validation
    # is RAISE (pydicom.config.settings.reading_validation_mode): its own words are given
    from pathlib import Path

    import pydicom
    import pytest
    from pydicom.data import get_testdata_file
    from pydicom.errors import InvalidDicomError

    from medrcube_desktop.errors import ImageLoadError
    from medrcube_desktop.imaging.loading import load_slice

    text = "Expected explicit VR, but found implicit VR"  # pydicom's filereader message

    def refuse(*args, **kwargs):
        raise InvalidDicomError(text)

    monkeypatch.setattr(pydicom, "dcmread", refuse)
    path = Path(get_testdata_file("MR_small.dcm"))
    with pytest.raises(ImageLoadError) as caught:
        load_slice(path)
    assert str(caught.value) == f"{path}: not readable as DICOM: {text}"
