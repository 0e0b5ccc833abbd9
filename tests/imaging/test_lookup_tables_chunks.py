"""The RGBA gather is chunked by what the allocator can reuse (issue 25 item 3): larger
chunks when glibc is tuned (core.malloc_tuning), 64 KiB index copies otherwise; the
picture is the same either way, and the float64 window of every pixel."""

import numpy as np
import pydicom
from pydicom.data import get_testdata_file

from medrcube_desktop.imaging import lookup_tables
from medrcube_desktop.imaging.lookup_tables import rgba_by_table, window_gray8


def _gathered(monkeypatch, tuned: bool, pixels: np.ndarray) -> tuple[np.ndarray, int]:
    calls = []
    take = np.take

    def counting(*args, **kwargs):
        calls.append(1)
        return take(*args, **kwargs)

    monkeypatch.setattr(lookup_tables, "malloc_tuned", lambda: tuned)
    monkeypatch.setattr(np, "take", counting)
    rgba = rgba_by_table(pixels, (600.0, 1200.0), "LINEAR", False)
    monkeypatch.setattr(np, "take", take)
    return rgba, len(calls)


def test_tuned_or_not_the_gather_gives_the_same_picture_in_fewer_calls(monkeypatch):
    ds = pydicom.dcmread(get_testdata_file("MR-SIEMENS-DICOM-WithOverlays.dcm"))
    pixels = ds.pixel_array  # 484 x 484 uint16
    assert pixels.size == 234256
    tuned, tuned_calls = _gathered(monkeypatch, True, pixels)
    plain, plain_calls = _gathered(monkeypatch, False, pixels)
    assert (tuned_calls, plain_calls) == (2, 29)  # 131,072 and 8,192 pixels a call
    assert np.array_equal(tuned, plain)
    level = window_gray8(pixels.astype(np.float64), (600.0, 1200.0), "LINEAR", False)
    assert np.array_equal(tuned[..., 0], level) and (tuned[..., 3] == 255).all()
    assert np.array_equal(tuned[..., 1], level) and np.array_equal(tuned[..., 2], level)
