"""Confinement is checked when a file is opened, not only when the benchmark is loaded
(issue 21: render-batch rendered an image swapped for a link out of the benchmark)."""

from __future__ import annotations

import shutil

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.batch import render_benchmark
from medrcube_desktop.imaging.deep_check import check_pictures
from medrcube_desktop.imaging.render import render_item

from ..conftest import dicom_file, item, write_benchmark


@pytest.fixture
def swapped(tmp_path):
    """A benchmark loaded with its image inside, then the image swapped for a link to a
    file outside the benchmark (a real DICOM, so rendering it would succeed)."""
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    benchmark = load_benchmark(root)
    secret = tmp_path / "elsewhere" / "secret.dcm"
    secret.parent.mkdir()
    shutil.copy(dicom_file("CT_small.dcm"), secret)
    image = root / "ds1" / "images" / "ct.dcm"
    image.unlink()
    image.symlink_to(secret)
    return benchmark


def test_render_batch_refuses_an_image_swapped_for_a_link_out(swapped, tmp_path):
    summary = render_benchmark(swapped.items, tmp_path / "out")
    assert summary.rendered == 0
    assert [f["item"] for f in summary.failed] == ["ct-1"]
    assert "leaves the benchmark root" in summary.failed[0]["message"]
    assert not list((tmp_path / "out").rglob("*.png"))


def test_the_window_and_render_refuse_it(swapped):
    with pytest.raises(ImageLoadError, match="leaves the benchmark root"):
        render_item(swapped.items[0])


def test_validate_deep_refuses_it(swapped):
    problems = check_pictures(swapped.items, workers=1).problems
    assert any("leaves the benchmark root" in p.message for p in problems)


def test_render_batch_never_writes_through_a_link_out_of_its_folder(tmp_path):
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    benchmark = load_benchmark(root)
    precious = tmp_path / "precious.txt"
    precious.write_text("keep")
    out = tmp_path / "out"
    (out / "ds1").mkdir(parents=True)
    (out / "ds1" / "ct-1.png").symlink_to(precious)
    summary = render_benchmark(benchmark.items, out)
    assert summary.rendered == 0 and "outside" in summary.failed[0]["message"]
    assert precious.read_text() == "keep"
