"""JPEG 2000 decoded at a reduced resolution for the view, against pydicom's full decode.

Tolerance of "reduced equals full downsampled": a level discarded keeps the LL band of the
reversible 5/3 wavelet (ISO/IEC 15444-1 F.3.8.2), whose low-pass filter (-1, 2, 6, 2,
-1)/8 is a 2x2 box mean plus a term in the local second difference. On a smooth
radiograph that term is small: measured on RG1 the mean absolute difference is 0.36 %
(one level) and 0.65 % (two) of the value range, correlation 0.9996 and 0.998; edges
differ most. The bounds below (1 %, 0.99) hold that with room; an ultrasound frame with
burned-in text (US1) has more edges, hence its looser bound.
"""

from __future__ import annotations

import logging

import numpy as np
import pydicom
import pytest
from pydicom.encaps import generate_frames

from medrcube_desktop.imaging import j2k
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.render import render_file, render_item
from tests.conftest import dicom_file
from tests.imaging.test_pixel_facts import make_item


def block_mean(full: np.ndarray, factor: int) -> np.ndarray:
    """Mean of each factor x factor block; the last partial blocks padded by their edge
    (sides rounded up, as OpenJPEG's reduced sides are)."""
    h, w = full.shape[:2]
    extra = [(0, -h % factor), (0, -w % factor)] + [(0, 0)] * (full.ndim - 2)
    padded = np.pad(full.astype(np.float64), extra, mode="edge")
    shape = (padded.shape[0] // factor, factor, padded.shape[1] // factor, factor)
    return padded.reshape(*shape, *full.shape[2:]).mean(axis=(1, 3))


def codestream(ds) -> bytes:
    return next(generate_frames(ds.PixelData, number_of_frames=1))


@pytest.mark.parametrize(
    ("name", "levels", "mean_bound", "correlation"),
    [
        ("RG1_J2KR.dcm", 1, 0.01, 0.999),
        ("RG1_J2KR.dcm", 2, 0.01, 0.99),
        ("US1_J2KR.dcm", 1, 0.04, 0.9),
    ],
)
def test_reduced_decode_is_the_full_decode_downsampled(name, levels, mean_bound, correlation):
    ds = pydicom.dcmread(dicom_file(name))
    full = ds.pixel_array
    stream = codestream(ds)
    header = j2k.read_header(stream)
    assert header.levels >= levels and (header.width, header.height) == (ds.Columns, ds.Rows)
    exact = j2k.decode_reduced(stream, 0, header, full.dtype)
    assert exact.dtype == full.dtype and np.array_equal(exact, full)  # the conversion is exact
    reduced = j2k.decode_reduced(stream, levels, header, full.dtype)
    expected = block_mean(full, 2**levels)
    assert reduced.shape == expected.shape and reduced.dtype == full.dtype
    value_range = float(full.max()) - float(full.min())
    assert np.abs(reduced - expected).mean() / value_range < mean_bound
    assert np.corrcoef(reduced.ravel().astype(float), expected.ravel())[0, 1] > correlation


def test_signed_stored_values_come_back_signed():
    ds = pydicom.dcmread(dicom_file("693_J2KR.dcm"))  # 14-bit signed CT
    stream = codestream(ds)
    header = j2k.read_header(stream)
    assert header.signed and header.precision == 14
    assert np.array_equal(j2k.decode_reduced(stream, 0, header, np.dtype("int16")), ds.pixel_array)


def test_reduce_level_keeps_the_view_covered():
    assert j2k.reduce_level(1955, 5, 1024) == 0  # less than twice the view: full
    assert j2k.reduce_level(1955, 5, 900) == 1  # 978 >= 900
    assert j2k.reduce_level(1955, 5, 480) == 2  # 489 >= 480, 245 < 480
    assert j2k.reduce_level(1955, 1, 100) == 1  # never past the codestream's levels


def test_spacing_scales_by_two_per_level_and_readout_says_reduced(tmp_path):
    ds = pydicom.dcmread(dicom_file("RG1_J2KR.dcm"))
    ds.PixelSpacing = [0.15, 0.125]  # the file's own spacing is 0\0 (invalid)
    path = tmp_path / "rg1.dcm"
    ds.save_as(path)
    full = load_slice(path)
    assert full.reduction == 1 and full.pixel_spacing == (0.15, 0.125)
    for side, levels in ((900, 1), (480, 2)):
        data = load_slice(path, display_side=side)
        factor = 2**levels
        assert data.reduction == factor
        assert data.pixels.shape == (-(-1955 // factor), -(-1841 // factor))
        assert data.pixel_spacing == pytest.approx((0.15 * factor, 0.125 * factor))
        assert any(f"reduced 1/{factor}" in note for note in data.notes)
    item = make_item("rg1", path, "X-ray")
    facts = render_item(item, display_side=480).facts
    assert facts.reduction == 4 and "\n(reduced 1/4: nearby file pixels averaged" in facts.describe(
        10.5, 20.5
    )
    assert facts.describe(10.5, 20.5).startswith("x 40  y 80")  # file pixel coordinates
    # the caliper: 100 reduced pixels along a row are 400 file pixels of 0.125 mm
    assert facts.distance((0, 0), (100, 0)) == (pytest.approx(50.0), "mm")


def test_export_batch_and_evaluation_paths_keep_full_resolution():
    path = dicom_file("RG1_J2KR.dcm")
    assert render_file(path).rgba.shape[:2] == (1955, 1841)  # no display side: full
    item = make_item("rg1", path, "X-ray")
    assert render_item(item).facts.reduction == 1


def test_corrupted_codestream_falls_back_and_logs(caplog):
    ds = pydicom.dcmread(dicom_file("RG1_J2KR.dcm"))
    broken = bytearray(codestream(ds))
    broken[200:4000] = bytes(3800)  # the first code-blocks zeroed
    from pydicom.encaps import encapsulate

    ds.PixelData = encapsulate([bytes(broken[: len(broken) // 3])])  # and truncated
    with caplog.at_level(logging.WARNING, logger="medrcube_desktop.imaging.j2k"):
        assert j2k.reduced_frame(ds, 480) is None
    assert "decoding in full" in caplog.text


def test_a_failing_reduced_decode_shows_the_full_image(monkeypatch, caplog):
    def fail(*args):
        raise OSError("broken data stream when reading image file")

    monkeypatch.setattr(j2k, "decode_reduced", fail)
    with caplog.at_level(logging.WARNING, logger="medrcube_desktop.imaging.j2k"):
        data = load_slice(dicom_file("RG1_J2KR.dcm"), display_side=480)
    assert data.reduction == 1 and data.pixels.shape == (1955, 1841)
    assert "broken data stream" in caplog.text
