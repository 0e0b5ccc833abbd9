"""Reading an image and its mask on two threads (issue 25) leaves the process's warning
filters as they were: each read ignored RuntimeWarning in a ``catch_warnings`` of its
own, and when the mask's read (entered first) ended first, the image's put back the
filters it had seen, with "ignore RuntimeWarning" in them, for the rest of the process."""

from __future__ import annotations

import threading
import warnings

import nibabel as nib
import numpy as np

from medrcube_desktop.imaging import nifti


class _Held:
    """A voxel array whose reading runs ``hook`` first (``np.asanyarray`` of it)."""

    def __init__(self, inner, hook) -> None:
        self._inner, self._hook = inner, hook

    def __array__(self, dtype=None, copy=None):
        self._hook()
        return np.asarray(self._inner, dtype=dtype)


class _Image:
    """A nibabel image whose ``dataobj`` is :class:`_Held`; the rest its own."""

    def __init__(self, real, hook) -> None:
        self._real, self.dataobj = real, _Held(real.dataobj, hook)

    def __getattr__(self, name):
        return getattr(self._real, name)


def test_the_mask_read_ending_first_leaves_the_filters_as_they_were(tmp_path, monkeypatch):
    values = (np.arange(12 * 10 * 6) % 50).reshape(12, 10, 6).astype(np.int16)
    image, mask = tmp_path / "image.nii.gz", tmp_path / "mask.nii.gz"
    nib.save(nib.Nifti1Image(values, np.eye(4)), image)
    nib.save(nib.Nifti1Image((values > 30).astype(np.uint8), np.eye(4)), mask)
    mask_in, image_in, mask_out = threading.Event(), threading.Event(), threading.Event()
    mask_done = threading.Event()  # the mask's whole read returned, its filters left

    def mask_read():  # inside the mask's read: wait until the image's has begun too
        mask_in.set()
        assert image_in.wait(10)
        mask_out.set()

    def image_read():  # begun after the mask's (see load); ends after it has ended
        image_in.set()
        assert mask_out.wait(10)
        assert mask_done.wait(10)  # the mask's thread has left its read

    real_mask_volume = nifti._nifti_mask_volume

    def mask_volume(path):
        try:
            return real_mask_volume(path)
        finally:
            mask_done.set()

    real_load = nib.load

    def load(path, *args, **kwargs):
        found = real_load(path, *args, **kwargs)
        if str(path) == str(mask):
            return _Image(found, mask_read)
        assert mask_in.wait(10)  # the image's read begins once the mask's is inside
        return _Image(found, image_read)

    monkeypatch.setattr(nib, "load", load)
    monkeypatch.setattr(nifti, "_nifti_mask_volume", mask_volume)
    nifti._nifti_volume.cache_clear()
    real_mask_volume.cache_clear()
    before = list(warnings.filters)
    try:
        data = nifti.load_nifti_slice(image, 2, mask)
        after = list(warnings.filters)
    finally:
        warnings.filters[:] = before  # whatever happened, not left to other tests
        warnings._filters_mutated()
        nifti._nifti_volume.cache_clear()
        real_mask_volume.cache_clear()
    assert mask_out.is_set() and mask_done.is_set()  # the two reads did overlap, in that order
    assert data.mask is not None and data.mask.any()
    assert after == before


def test_a_dicom_decode_on_another_thread_leaves_the_warning_state_as_it_was(tmp_path, monkeypatch):
    # a DICOM decode records pydicom's warnings in catch_warnings(record=True); a NIfTI
    # read begun inside it and ended after it put back the decode's recorder as the
    # process's showwarning (every later warning swallowed) and its "always" filter
    from pydicom.data import get_testdata_file

    from medrcube_desktop.imaging import dicom

    values = (np.arange(12 * 10 * 6) % 50).reshape(12, 10, 6).astype(np.int16)
    image = tmp_path / "image.nii.gz"
    nib.save(nib.Nifti1Image(values, np.eye(4)), image)
    dicom_in, nifti_in, dicom_out = threading.Event(), threading.Event(), threading.Event()
    dicom_done = threading.Event()  # load_dicom_slice returned: its catch_warnings left
    real_decode = dicom._decode_dicom

    def decode(*args, **kwargs):  # inside the decode's catch_warnings
        dicom_in.set()
        nifti_in.wait(1.0)  # the NIfTI read inside too (not, once it waits for the lock)
        try:
            return real_decode(*args, **kwargs)
        finally:
            dicom_out.set()

    def image_read():
        nifti_in.set()
        assert dicom_out.wait(10)
        assert dicom_done.wait(10)  # the decode has left its catch_warnings

    real_load = nib.load
    monkeypatch.setattr(dicom, "_decode_dicom", decode)
    monkeypatch.setattr(nib, "load", lambda *a, **k: _Image(real_load(*a, **k), image_read))
    nifti._nifti_volume.cache_clear()
    before, shown_by = list(warnings.filters), warnings.showwarning
    decoded = []

    def decode_on_worker():
        try:
            decoded.append(dicom.load_dicom_slice(get_testdata_file("MR_small.dcm"), None))
        finally:
            dicom_done.set()

    worker = threading.Thread(target=decode_on_worker)
    try:
        worker.start()
        assert dicom_in.wait(20)  # the decode is inside its catch_warnings
        nifti.load_nifti_slice(image, 2, None)
        worker.join(20)
        after, shown_after = list(warnings.filters), warnings.showwarning
    finally:
        worker.join(20)
        warnings.filters[:] = before
        warnings.showwarning = shown_by
        warnings._filters_mutated()
        nifti._nifti_volume.cache_clear()
    assert decoded and decoded[0].pixels.shape == (64, 64)
    assert shown_after is shown_by
    assert after == before
