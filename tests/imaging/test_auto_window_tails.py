"""The tails' order statistics (auto_window._order_statistics_from_tails) place their
thresholds in a sample partitioned at two places, not sorted (issue 25 item 3): for
ranks near one end, the other or both, the values are those of the whole sorted array,
and the 16-bit picture of the render benchmark is still answered from its tails."""

import numpy as np
import pydicom
import pytest
from pydicom.data import get_testdata_file

from medrcube_desktop.imaging.auto_window import _order_statistics_from_tails


def _cases():
    rng = np.random.default_rng(12)
    stored = pydicom.dcmread(get_testdata_file("MR_small.dcm")).pixel_array
    return {
        "png16": np.kron(np.clip(stored, 0, None), np.ones((8, 8), stored.dtype)).astype(np.uint16),
        "ct": rng.integers(-1024, 3000, 300_000).astype(np.int16),
        "wide": rng.integers(0, 65536, 2**15).astype(np.uint16),
    }


@pytest.mark.parametrize("name", ["png16", "ct", "wide"])
@pytest.mark.parametrize("ends", ["low", "high", "both"])
def test_the_tails_give_the_sorted_arrays_values(name, ends):
    flat = _cases()[name].ravel()
    n = flat.size
    low = [int(0.005 * (n - 1)), int(0.005 * (n - 1)) + 1]
    high = [int(0.995 * (n - 1)), int(0.995 * (n - 1)) + 1]
    ranks = {"low": low, "high": high, "both": low + high}[ends]
    found = _order_statistics_from_tails(flat, ranks)
    assert found is not None  # none of these has a flat background: the tails answer
    ordered = np.sort(flat)
    assert found == {r: int(ordered[r]) for r in ranks}
