"""The stored size of an image read from its header, without decoding its pixels: what a
proposed box or mask is checked against (``proposals propose``; the window has the slice
it shows). Arrays in numpy order: ``(rows, columns)`` of the stored array, as a
proposal's box (column, row; origin top-left of the stored array) and labels use it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from medrcube_desktop.errors import ImageLoadError

_PICTURES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp")
_NIFTI = (".nii", ".nii.gz")
_ITK = (".nrrd", ".nhdr", ".mha", ".mhd")


def stored_shape(path: Path) -> tuple[int, ...] | None:
    """The stored array's shape: ``(rows, cols)`` of a picture or a single-frame DICOM,
    the voxel shape ``(I, J, K)`` of a NIfTI volume (nibabel's array order, RAS), the
    ``(z, y, x)`` shape of an NRRD/MetaImage volume (SimpleITK's array order; a 2-D file
    is one slice, ``(1, y, x)``, as the window shows it); ``None`` for another kind (a
    DICOM series folder, a multi-frame DICOM). The array order is the one a mask
    correction's ``axis`` counts in (:data:`~medrcube_desktop.core.corrections.MASK`).

    Raises
    ------
    ImageLoadError
        The file's header cannot be read (naming the file).
    """
    name = path.name.lower()
    try:
        if name.endswith(_PICTURES):
            from PIL import Image

            with Image.open(path) as img:
                width, height = img.size
            return (height, width)
        if name.endswith(_NIFTI):
            import nibabel as nib

            volume: Any = nib.load(path)  # header only (nibabel types load() loosely)
            shape = tuple(int(n) for n in volume.shape)
            return shape[:3] if len(shape) == 4 else shape
        if name.endswith(_ITK):
            import SimpleITK as sitk

            reader = sitk.ImageFileReader()
            reader.SetFileName(str(path))
            reader.ReadImageInformation()  # the header only
            size = tuple(int(n) for n in reader.GetSize())
            return tuple(reversed(size)) if len(size) == 3 else (1, size[1], size[0])
        if name.endswith((".dcm", ".dicom", ".ima")):
            import pydicom

            ds = pydicom.dcmread(path, stop_before_pixels=True)
            if int(getattr(ds, "NumberOfFrames", 1) or 1) != 1:
                return None
            return (int(ds.Rows), int(ds.Columns))
    except (OSError, ValueError, AttributeError, TypeError, RuntimeError) as exc:
        raise ImageLoadError(f"{path}: cannot read the image's size: {exc}") from exc
    return None


def slice_axis(path: Path) -> int | None:
    """The axis of :func:`stored_shape` the review window slices a volume along (its
    reader's :attr:`~.slice_data.SliceData.slice_axis`): 2 for NIfTI, 0 for
    NRRD/MetaImage; None for another kind."""
    name = path.name.lower()
    return 2 if name.endswith(_NIFTI) else 0 if name.endswith(_ITK) else None


def stored_image_size(path: Path) -> tuple[int, int] | None:
    """``(width, height)`` in pixels of the image's stored slice, the grid a box is in:
    a 2-D image's (:func:`stored_shape`), a volume's slice along :func:`slice_axis` (the
    window draws the box on each slice, in the stored slice's columns and rows); else
    ``None``."""
    shape = stored_shape(path)
    if shape is None:
        return None
    if len(shape) == 2:
        return (shape[1], shape[0])
    axis = slice_axis(path)
    if axis is None or len(shape) != 3:
        return None
    rows, cols = (n for i, n in enumerate(shape) if i != axis)
    return (cols, rows)


def stored_slice_shape(
    path: Path, slice_index: int | None, axis: int | None
) -> tuple[int, int] | None:
    """``(rows, cols)`` of the slice a mask change edits: the 2-D image's shape
    (``slice_index`` and ``axis`` None), or that of ``numpy.take(volume, slice_index,
    axis)`` for a volume; ``None`` when not known.

    Raises
    ------
    ImageLoadError
        The header cannot be read, or the slice is not in the image (a slice given for
        a 2-D image, none for a volume, an axis or index out of its range).
    """
    shape = stored_shape(path)
    if shape is None:
        return None
    if len(shape) == 2:
        if slice_index is not None:
            raise ImageLoadError(f"{path}: a 2-D image {list(shape)}: give no slice_index or axis")
        return (shape[0], shape[1])
    if slice_index is None or axis is None:
        raise ImageLoadError(f"{path}: a volume {list(shape)}: give slice_index and axis")
    if not 0 <= axis < len(shape) or not 0 <= slice_index < shape[axis]:
        raise ImageLoadError(
            f"{path}: slice {slice_index} along axis {axis} is not in the volume {list(shape)}"
        )
    rest = [n for i, n in enumerate(shape) if i != axis]
    return (rest[0], rest[1])


def stored_mask_slice(path: Path, slice_index: int | None, axis: int | None) -> Any:
    """The labels a mask file holds now on the slice a mask change edits, as the
    release reads and writes them (``core.corrections.MASK``'s convention): a NIfTI's
    ``dataobj`` or an NRRD/MetaImage's ``GetArrayFromImage``, ``numpy.take(array,
    slice_index, axis)`` for a volume, the whole array for a 2-D one; a picture's values
    (``imaging.masks.picture_mask_values``). ``None`` when it cannot be read or the
    slice is not in it (the change's own checks say why).

    Returns
    -------
    numpy.ndarray of (rows, cols) or None
    """
    import numpy as np

    name = path.name.lower()
    try:
        if name.endswith((".nii", ".nii.gz")):
            import nibabel as nib

            data = np.asanyarray(nib.load(str(path)).dataobj)  # type: ignore[attr-defined]
        elif name.endswith((".nrrd", ".nhdr", ".mha", ".mhd")):
            import SimpleITK as sitk

            data = sitk.GetArrayFromImage(sitk.ReadImage(str(path)))
        else:
            from PIL import Image

            from medrcube_desktop.imaging.masks import picture_mask_values

            with Image.open(path) as img:
                return np.asarray(picture_mask_values(img, path))
        if data.ndim == 2 and slice_index is None:
            return data
        if data.ndim == 3 and slice_index is not None and axis is not None:
            return np.take(data, slice_index, axis)
    except Exception:  # noqa: BLE001 (unreadable: no current slice to compare with)
        return None
    return None
