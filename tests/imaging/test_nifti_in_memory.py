"""A NIfTI volume the cache holds is in memory, not a mapping of its file: integers kept
as read (issue 25) were nibabel's memory map of an uncompressed ``.nii``, and a file
rewritten or cut while cached then killed the process (SIGBUS) at its next slice."""

from __future__ import annotations

import mmap
import subprocess
import sys
import textwrap

import nibabel as nib
import numpy as np
import pytest

from medrcube_desktop.imaging import nifti


def _mapped(array: np.ndarray) -> bool:
    """Whether ``array`` or any array it is a view of lies on a memory map."""
    seen = array
    while seen is not None:
        if isinstance(seen, np.memmap | mmap.mmap):
            return True
        seen = getattr(seen, "base", None)
    return False


@pytest.mark.parametrize("dtype", [np.int16, np.uint8, np.uint16, np.int8])
def test_an_uncompressed_integer_image_and_mask_are_read_into_memory(tmp_path, dtype):
    values = (np.arange(16 * 12 * 5) % 90).reshape(16, 12, 5).astype(dtype)
    image, mask = tmp_path / "image.nii", tmp_path / "mask.nii"
    nib.save(nib.Nifti1Image(values, np.eye(4), dtype=dtype), image)
    nib.save(nib.Nifti1Image((values > 40).astype(np.uint8), np.eye(4), dtype=np.uint8), mask)
    nifti._nifti_volume.cache_clear()
    nifti._nifti_mask_volume.cache_clear()
    data = nifti.load_nifti_slice(image, 2, mask)
    kept = nifti._nifti_volume(str(image)).data
    assert kept.dtype == dtype  # kept as read (issue 25) ...
    assert not _mapped(kept)  # ... but read, not mapped
    assert not _mapped(nifti._nifti_mask_volume(str(mask)).data)
    shown = np.sort(np.asarray(data.pixels, dtype=np.int64).ravel())
    assert np.array_equal(shown, np.sort(values[:, :, 2].astype(np.int64).ravel()))


def test_a_cached_volume_whose_file_is_cut_still_shows_its_slices(tmp_path):
    image = tmp_path / "image.nii"
    values = (np.arange(64 * 64 * 40) % 3000).reshape(64, 64, 40).astype(np.int16)
    nib.save(nib.Nifti1Image(values, np.eye(4)), image)
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from medrcube_desktop.imaging.loading import load_slice
        first = load_slice(Path({str(image)!r}), 5)
        os.truncate({str(image)!r}, 400)  # rewritten or cut while the cache holds it
        later = load_slice(Path({str(image)!r}), 30)  # from the cache: as read before
        print(later.pixels.shape, int(later.pixels.astype('int64').sum()))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])  # -7: SIGBUS
    assert done.stdout.split() == ["(64,", "64)", str(int(values[:, :, 30].astype(np.int64).sum()))]
