"""The renders issue 25 made faster are the renders of before, byte for byte: the real
pydicom test files with overlay planes and a 16-bit PNG, against the SHA-256 of the RGBA
that main (cc46670, before the gather chunks and the plain PNG decode) rendered, and the
overlay planes drawn yellow where pydicom's own ``overlay_array`` marks them."""

import hashlib
from pathlib import Path

import numpy as np
import pydicom
import pytest
from PIL import Image
from pydicom.data import get_testdata_file

from medrcube_desktop.imaging.render import render_file

RENDERED_BEFORE = {
    "MR-SIEMENS-DICOM-WithOverlays.dcm": (
        "93fbc9336bcbe88d5d7ed7ea29c5e381b24189724dcd84ac728e3e2ee66a480b",
        (484, 484, 4),
        (450.0, 790.0),
    ),
    "examples_overlay.dcm": (
        "2a726b778f791dc4bf760c57687a7d6e20e12866c8cc7e0f61389e9f95edf9f2",
        (300, 484, 4),
        (450.0, 790.0),
    ),
}


def _testdata(name: str) -> Path:
    found = get_testdata_file(name, download=False)
    if found is None:
        pytest.skip(f"{name} is not installed (pydicom-data)")
    return Path(str(found))


@pytest.mark.parametrize("name", sorted(RENDERED_BEFORE))
def test_dicom_with_overlay_planes_renders_as_before(name):
    path = _testdata(name)
    digest, shape, window = RENDERED_BEFORE[name]
    rendered = render_file(path)
    assert rendered.rgba.shape == shape and rendered.window == window
    assert hashlib.sha256(rendered.rgba.tobytes()).hexdigest() == digest
    plane = pydicom.dcmread(path).overlay_array(0x6000).astype(bool)
    assert plane.any() and not plane.all()
    assert (rendered.rgba[plane] == [255, 255, 0, 255]).all()  # GRAPHICS_RGB, opaque
    grey = rendered.rgba[~plane]
    assert (grey[:, 0] == grey[:, 1]).all() and (grey[:, 1] == grey[:, 2]).all()


def _png16(path: Path, **save) -> Path:
    """The 512x512 16-bit PNG of tests/benchmarks/bench_render.py: MR_small, 8x8 blocks."""
    stored = pydicom.dcmread(get_testdata_file("MR_small.dcm")).pixel_array
    block = np.kron(np.clip(stored, 0, None), np.ones((8, 8), dtype=stored.dtype))
    Image.fromarray(block.astype(np.uint16)).save(path, **save)
    return path


@pytest.mark.parametrize("save", [{}, {"dpi": (72, 72)}])
def test_a_16_bit_png_renders_as_before(tmp_path, save):
    path = _png16(tmp_path / "png16.png", **save)
    rendered = render_file(path)
    assert rendered.rgba.shape == (512, 512, 4) and rendered.window == (996.0, 1696.0)
    assert rendered.gray
    digest = hashlib.sha256(rendered.rgba.tobytes()).hexdigest()
    assert digest == "d2e0bbcca909094ceb2cf453d0651a706163ac7c200483f8cebd1c055e19283b"
    # and independently: LINEAR_EXACT over the window, rounded, on every pixel
    values = np.asarray(Image.open(path)).astype(np.float64)
    center, width = rendered.window
    level = np.rint(np.clip((values - (center - width / 2)) / width, 0, 1) * 255)
    assert np.array_equal(rendered.rgba[..., 0], level.astype(np.uint8))
