"""Fixtures of the evaluation tests."""

import pytest

from tests.conftest import dicom_file, item, write_benchmark


@pytest.fixture
def bench(tmp_path):
    """Twelve items with distinct questions on pydicom's CT_small.dcm (a real CT)."""
    records = [
        item(f"q{n:02d}", question=f"What is the imaging modality of scan {n}?") for n in range(12)
    ]
    return write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
