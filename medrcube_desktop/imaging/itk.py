"""NRRD and MetaImage (MHA/MHD) volumes through SimpleITK, shown like NIfTI slices.

SimpleITK returns arrays in (z, y, x) order with a direction matrix in LPS whose columns
are the directions of x, y and z (SimpleITK "Fundamental Concepts"). The slice axis is z,
the acquisition axis; the slice is shown in radiological convention. No Qt here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.auto_window import foreground_window
from medrcube_desktop.imaging.geometry import lps_direction_code, voxel_display_transform
from medrcube_desktop.imaging.masks import mask_labels
from medrcube_desktop.imaging.slice_data import (
    SliceData,
    check_pixel_count,
    choose_slice,
    mask_slice_note,
    plausible_aspect,
    require_file,
)


def load_itk_slice(
    path: Path, slice_index: int | None, mask_path: Path | None, modality: str | None = None
) -> SliceData:
    """One slice of an NRRD/MHA volume with its mask (same grid), radiological convention.

    ``slice_index`` ``None`` picks the slice with the largest mask area, else the central
    one. A 2-D file is one slice. ``modality`` "CT" selects the CT window.

    Raises
    ------
    ImageLoadError
        The file cannot be read, has colour or vector pixels, or the mask grid differs.
    """
    image, volume = _read(path)
    mask_volume = None
    if mask_path is not None:
        mask_image, mask_data = _read(mask_path)
        if (
            mask_data.shape != volume.shape
            or not np.allclose(mask_image.GetDirection(), image.GetDirection(), atol=1e-3)
            or not np.allclose(mask_image.GetOrigin(), image.GetOrigin(), atol=1e-2)
        ):
            raise ImageLoadError(
                f"{mask_path}: mask grid differs from the image grid of {path.name}"
            )
        mask_volume = mask_labels(mask_data, mask_path)
    count = volume.shape[0]
    area = None if mask_volume is None else (mask_volume != 0).sum(axis=(1, 2))
    slice_index = choose_slice(slice_index, count, area)
    note = mask_slice_note(area, slice_index)
    direction = np.asarray(image.GetDirection(), dtype=float).reshape(3, 3)
    spacing = image.GetSpacing()  # (x, y, z) in mm
    row_code = lps_direction_code(tuple(direction[:, 1]))  # numpy rows run along y
    col_code = lps_direction_code(tuple(direction[:, 0]))  # numpy columns along x
    slice_code = lps_direction_code(tuple(direction[:, 2]))
    finite = volume[np.isfinite(volume)]
    ct = modality is not None and modality.strip().upper() == "CT"
    result = SliceData(
        volume[slice_index].astype(np.float64),
        False,
        "MONOCHROME2",
        "CT" if ct else None,
        window=None if ct or finite.size == 0 else foreground_window(finite),
        voi_lut_function="LINEAR_EXACT",
        slice_index=slice_index,
        slice_count=count,
        mask=None if mask_volume is None else mask_volume[slice_index],
        notes=[] if note is None else [note],
        pixel_aspect=plausible_aspect(spacing[1] / spacing[0]) if spacing[0] > 0 else 1.0,
        pixel_spacing=(spacing[1], spacing[0]),
        axis_codes=(row_code, col_code),
        value_unit="HU" if ct else "value",
        spacing_source="image spacing (NRRD/MetaImage header)",
        voxel_axes=(1, 0, 2),  # array [z, y, x]: row y, column x, slice z of index (x, y, z)
        slice_axis=0,  # the slice is numpy.take(array, z, axis=0) of the (z, y, x) array
    )
    result.display(voxel_display_transform(row_code, col_code, slice_code))
    return result


_SCALAR_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


def _voxel_bytes(reader) -> int:
    """Bytes per voxel of the image ``reader`` describes (from its pixel type's name,
    "16-bit signed integer", times its components)."""
    import SimpleITK as sitk

    name = sitk.GetPixelIDValueAsString(reader.GetPixelID())
    bits = name.split("-bit", 1)[0].split()[-1] if "-bit" in name else "8"
    return _SCALAR_BYTES.get(bits, 1) * max(1, reader.GetNumberOfComponents())


def _check_file_holds(path: Path, declared: int) -> None:
    """Refuse a single-file NRRD or MetaImage (``.nrrd``, ``.mha``) whose data cannot
    be as large as its header declares, before SimpleITK allocates the volume: raw data
    must be all there, compressed data holds at most
    :data:`~.declared.MAX_DEFLATE_RATIO` times its size. Detached headers (``.nhdr``,
    ``.mhd``) are read as they are."""
    from medrcube_desktop.core.files import open_regular
    from medrcube_desktop.imaging.declared import check_declared_bytes

    if not path.name.lower().endswith((".nrrd", ".mha")):
        return
    with open_regular(path) as handle:
        head = handle.read(1 << 16)
    if b"\n\n" in head and path.name.lower().endswith(".nrrd"):
        header = head[: head.index(b"\n\n") + 2]
    elif b"ElementDataFile = LOCAL" in head:
        header = head[: head.index(b"ElementDataFile = LOCAL")]
        header += head[len(header) :].split(b"\n", 1)[0] + b"\n"
    else:
        return  # the data is in another file
    raw = b"encoding: raw" in header or (
        b"CompressedData" in header and b"CompressedData = True" not in header
    )
    check_declared_bytes(path, declared, path.stat().st_size - len(header), not raw)


def _read(path: Path):
    """(SimpleITK image, float32 array (z, y, x)); 2-D images get z of length 1."""
    import SimpleITK as sitk

    require_file(path)
    try:
        reader = sitk.ImageFileReader()
        reader.SetFileName(str(path))
        reader.ReadImageInformation()
        size = reader.GetSize()
        check_pixel_count(path, int(np.prod(size)), factor=50)
        _check_file_holds(path, int(np.prod(size)) * _voxel_bytes(reader))
        if reader.GetNumberOfComponents() != 1:
            raise ImageLoadError(
                f"{path}: {reader.GetNumberOfComponents()} components per pixel; only scalar volumes are shown"
            )
        image = reader.Execute()
    except RuntimeError as exc:  # SimpleITK reports read errors as RuntimeError
        raise ImageLoadError(f"{path}: cannot read: {str(exc).strip().splitlines()[-1]}") from exc
    if image.GetDimension() == 2:
        image = sitk.JoinSeries(image)
    if image.GetDimension() != 3:
        raise ImageLoadError(f"{path}: expected a 2-D or 3-D image, found {image.GetDimension()}-D")
    return image, sitk.GetArrayFromImage(image).astype(np.float32)
