"""DICOM series (a folder of single-frame files): order, spacing, localizers; one slice shown.

Slices are ordered by their position along the slice normal (Image Position (Patient)
projected on the normal of Image Orientation (Patient), PS3.3 C.7.6.2.1.1), and the slice
spacing comes from those positions, never from Slice Thickness. Files whose orientation
differs from the series' (a localizer) are split off, and uneven gaps are reported in the
notes. Only the slice shown is decoded (pydicom, like a single file): reading the whole
volume with SimpleITK would cost a full decode per slice for no difference on screen; a
reformat to other planes, which would need it, is not offered. No Qt here.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from pathlib import Path

import numpy as np

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.declared import check_deflated
from medrcube_desktop.imaging.slice_data import SliceData


def series_geometry(folder: Path) -> tuple[list[Path], list[float], list[str]]:
    """Order the folder's slices and describe what was split off or looks wrong.

    Cached per folder and modification time, so scrolling does not re-read every header.

    Returns
    -------
    files : list of Path
        The slices of the main series, sorted by position along the normal (mm).
    positions : list of float
        Their positions along the normal, mm, ascending.
    notes : list of str
        Localizers or other-orientation files left out, uneven gaps.

    Raises
    ------
    ImageLoadError
        No file in the folder is a DICOM image with position and orientation.
    """
    from medrcube_desktop.core.files import file_stamp

    return _series_geometry(str(folder), file_stamp(folder))


@functools.lru_cache(maxsize=8)
def _series_geometry(
    folder_name: str, _stamp: tuple[int, ...]
) -> tuple[list[Path], list[float], list[str]]:
    import pydicom

    folder = Path(folder_name)
    headers = []
    # regular files of the folder itself: no pipe, no device, and no link (a link could
    # lead out of the benchmark root; confinement is checked on the folder only)
    entries = [e for e in os.scandir(folder) if e.is_file(follow_symlinks=False)]
    for path in sorted(Path(e.path) for e in entries):
        try:
            check_deflated(path)  # a deflated bomb is inflated whole by dcmread: left out
            ds = pydicom.dcmread(path, stop_before_pixels=True)
            iop = tuple(round(float(v), 4) for v in ds.ImageOrientationPatient)
            ipp = np.array([float(v) for v in ds.ImagePositionPatient])
        except Exception:  # not DICOM, or no geometry: not part of a series we can order
            continue
        headers.append((path, iop, ipp, str(ds.get("SeriesInstanceUID", ""))))
    if not headers:
        raise ImageLoadError(
            f"{folder}: no DICOM image with position and orientation in the folder"
        )
    main_iop, _ = Counter(h[1] for h in headers).most_common(1)[0]
    notes = []
    others = [h for h in headers if h[1] != main_iop]
    if others:
        notes.append(
            f"{len(others)} file(s) in another orientation (localizer?) left out: {others[0][0].name}"
        )
    kept = [h for h in headers if h[1] == main_iop]
    normal = np.cross(np.array(main_iop[:3]), np.array(main_iop[3:]))
    kept.sort(key=lambda h: float(np.dot(h[2], normal)))
    positions = [float(np.dot(h[2], normal)) for h in kept]
    gaps = np.diff(positions)
    if len(gaps) and (
        gaps.min() <= 0 or gaps.max() - gaps.min() > 0.01 * max(abs(float(np.median(gaps))), 1e-6)
    ):
        notes.append(f"uneven slice spacing: gaps from {gaps.min():.3g} to {gaps.max():.3g} mm")
    return [h[0] for h in kept], positions, notes


def load_series_slice(
    folder: Path, slice_index: int | None, mask_path: Path | None, modality: str | None = None
) -> SliceData:
    """One slice of a DICOM series folder, shown like any CT/MR slice.

    ``slice_index`` counts along the slice normal (``None``: the central slice). The slice
    is decoded, windowed and oriented exactly as a single DICOM file. A mask is not
    supported on a series yet.

    Raises
    ------
    ImageLoadError
        The folder holds no usable series, the slice cannot be decoded, or a mask is given.
    """
    from medrcube_desktop.imaging.dicom import load_dicom_slice

    if mask_path is not None:
        raise ImageLoadError(f"{mask_path}: masks on a DICOM series are not supported yet")
    files, positions, notes = series_geometry(folder)
    count = len(files)
    index = count // 2 if slice_index is None else max(0, min(int(slice_index), count - 1))
    data = load_dicom_slice(files[index], None)
    data.slice_index, data.slice_count = index, count
    if count > 1:
        data.notes.append(
            f"slice spacing {float(np.median(np.diff(positions))):.3g} mm from positions"
        )
    data.notes.extend(notes)
    return data
