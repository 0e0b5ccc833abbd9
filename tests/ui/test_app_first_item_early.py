"""A new database holds no reviewer's position: the first item's picture is decoded
while it is made (issue 25, first paint), and once only; a database already there is
opened first (the reviewer's last item may be another), with only the reader imported."""

from __future__ import annotations

import threading

import nibabel as nib
import numpy as np

from medrcube_desktop.imaging import nifti, render
from medrcube_desktop.ui import app
from tests.conftest import item, write_benchmark
from tests.imaging.test_masks_pictures import NILEARN_T1, nilearn_file


def _benchmark(tmp_path):
    t1 = nib.load(nilearn_file(NILEARN_T1))
    mask = np.zeros(t1.shape, dtype=np.uint8)
    mask[80:120, 90:140, 70] = 1  # the largest area: slice 70
    mask[90:100, 100:110, 120] = 1
    mask_path = tmp_path / "mask.nii.gz"
    nib.save(nib.Nifti1Image(mask, t1.affine), mask_path)
    records = [
        item("brain", image="images/t1.nii.gz", modality="MRI", mask_path="images/mask.nii.gz"),
        item("ct"),
    ]
    files = {"ds1/images/t1.nii.gz": nilearn_file(NILEARN_T1), "ds1/images/mask.nii.gz": mask_path}
    return write_benchmark(tmp_path / "bench", {"ds1": records}, files)


def _opened(root, database, monkeypatch):
    """What had been decoded when the database was opened (slices in the cache once the
    threads started before it are done; the names of those still running), the slice
    the window's render then reads, and the slice cache's figures."""
    seen = {}
    real_open = app.open_store

    def open_store(path):
        started = [t for t in threading.enumerate() if t.name in ("decode-ahead", "import-reader")]
        for thread in started:
            thread.join(60)
        seen["names"] = sorted(t.name for t in started)
        seen["decoded"] = render._cached_slice.cache_info().currsize
        return real_open(path)

    monkeypatch.setattr(app, "open_store", open_store)
    render._cached_slice.cache_clear()
    nifti._nifti_volume.cache_clear()
    nifti._nifti_mask_volume.cache_clear()
    benchmark, store, _ = app._open_study(root, database, app.StartNotes())
    try:
        app._decode_first_item(benchmark, store, "dr-a")
        for thread in threading.enumerate():
            if thread.name == "decode-ahead":
                thread.join(60)
        first = benchmark.items[0]
        shown = render.load_slice_cached(first.image_path, None, first.mask_path, first.modality)
        return seen, shown, render._cached_slice.cache_info()
    finally:
        store.close()


def test_a_new_database_has_the_first_item_decoded_while_it_is_made(tmp_path, monkeypatch):
    database = tmp_path / "new.sqlite"
    seen, shown, info = _opened(_benchmark(tmp_path), database, monkeypatch)
    assert seen["decoded"] == 1 and "import-reader" not in seen["names"]
    assert shown.slice_index == 70 and int(shown.mask.sum()) == 40 * 50
    assert (info.misses, info.currsize) == (1, 1)  # decoded once, asked three times


def test_a_database_already_made_is_read_before_the_decode(tmp_path, monkeypatch):
    root = _benchmark(tmp_path)
    database = tmp_path / "study.sqlite"
    app.open_store(database).close()
    seen, shown, info = _opened(root, database, monkeypatch)
    assert seen["decoded"] == 0 and "decode-ahead" not in seen["names"]
    assert shown.slice_index == 70
    assert (info.misses, info.currsize) == (1, 1)
