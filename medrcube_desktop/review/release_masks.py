"""Edited masks of a release, written as new files beside the old (issue 23, item 3).

A mask correction (:data:`~medrcube_desktop.review.corrections.MASK`) carries the new
labels of one slice of a volume mask, or of a whole 2-D mask, as ``.npy`` bytes. The
release never writes over a mask: it writes a new file (:func:`new_mask_name`) and
points the record's ``mask_path`` at it.

- NIfTI (``.nii``, ``.nii.gz``): the source mask's voxels with the one slice
  ``change["slice_index"]`` along array axis ``change["axis"]`` (the third, 2, when
  None: the acquisition axis :mod:`~medrcube_desktop.imaging.nifti` slices along)
  replaced, saved with the source's affine and header (nibabel, so RAS as the source's
  ``sform``/``qform`` say; the stored data type kept). An item of a NIfTI image without
  a mask gets a new mask of the image's grid: zeros, the image's affine and header, an
  unsigned 8-bit (16-bit beyond 255 labels' values) data type.
- NRRD, MetaImage (``.nrrd``, ``.nhdr``, ``.mha``, ``.mhd``): the source mask's voxels
  (SimpleITK's ``(z, y, x)`` array) with the slice ``change["slice_index"]`` along array
  axis ``change["axis"]`` (0, the window's, when None) replaced, saved with the source's
  origin, spacing, direction, meta-data and pixel type as one file (``.nrrd`` or
  ``.mha``: a detached header's data is not split in two again). An item of such an
  image without a mask gets a new mask on the image's grid (zeros, unsigned 8-bit, 16
  beyond 255).
- PNG for a 2-D image: the labels as the whole mask, in the source mask's mode (``L``,
  ``P`` with its palette, ``I;16``, ``I``, grey stored as ``RGB``/``RGBA``/``LA``) so
  that :func:`~medrcube_desktop.imaging.masks.picture_mask_values` reads back the same
  labels; a wider mode when a label does not fit the source's (a label above 255 in an
  8-bit mask: ``I;16``).

No Qt, no store.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from medrcube_desktop.review.release_records import ReleaseError

__all__ = ["MaskEdit", "new_mask_name", "write_mask"]

_NIFTI = (".nii.gz", ".nii")
_ITK = (".nrrd", ".nhdr", ".mha", ".mhd")
_ITK_WRITTEN = {".nrrd": ".nrrd", ".nhdr": ".nrrd", ".mha": ".mha", ".mhd": ".mha"}
_PICTURES = (".png", ".tif", ".tiff", ".bmp", ".jpg", ".jpeg", ".dcm", ".dicom", ".ima")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class MaskEdit:
    """The labels of one accepted mask correction.

    Attributes
    ----------
    labels : (rows, cols) ndarray, unsigned integers
        The slice's (or the 2-D mask's) labels, in stored array order (row = first
        index, as the proposal's ``change["shape"]``).
    slice_index : int or None
        The slice of a volume mask; None for a 2-D mask.
    axis : int or None
        The array axis ``slice_index`` counts along (None: the reader's slice axis, 2
        for NIfTI, 0 for NRRD/MHA); see :data:`~medrcube_desktop.core.corrections.MASK`.
    """

    labels: np.ndarray
    slice_index: int | None
    axis: int | None


def _suffix(name: str) -> str:
    lower = name.lower()
    for suffix in (*_NIFTI, *_ITK, *_PICTURES):
        if lower.endswith(suffix):
            return name[-len(suffix) :]
    return Path(name).suffix


def new_mask_name(
    written: str,
    version: str,
    taken: Callable[[str], bool],
    item_id: str,
    *,
    volume: bool,
    is_mask: bool,
) -> str:
    """The ``mask_path`` of an edited mask, relative like ``written`` (the record's
    ``mask_path``, or its ``image_path`` when it has no mask): ``<stem>.r<version>``
    beside it, ``.nii.gz``/``.nii`` for a NIfTI volume (the source's), ``.nrrd`` or
    ``.mha`` for an NRRD or MetaImage one, else ``.png``; with the
    item's id added when another file already has that name (``taken(path)``: whether a
    path relative to the ``test.json`` folder is a file of the release or assigned). ``is_mask`` False
    (``written`` is the image's path): the new mask is ``<image stem>.mask.r<version>``.
    """
    folder, _, name = written.replace("\\", "/").rpartition("/")
    suffix = _suffix(name)
    stem = name[: len(name) - len(suffix)] if suffix else name
    if not volume:
        new_suffix = ".png"
    elif suffix.lower() in _ITK:
        new_suffix = _ITK_WRITTEN[suffix.lower()]
    else:
        new_suffix = suffix if suffix.lower() in _NIFTI else ".nii.gz"
    base = f"{stem}{'' if is_mask else '.mask'}.r{version}"
    prefix = f"{folder}/" if folder else ""
    candidate = f"{prefix}{base}{new_suffix}"
    if taken(candidate):
        safe = _UNSAFE.sub("_", item_id).strip("._") or "item"
        candidate = f"{prefix}{base}.{safe}{new_suffix}"
        n = 2
        while taken(candidate):
            candidate, n = f"{prefix}{base}.{safe}-{n}{new_suffix}", n + 1
    return candidate


def is_volume(path: str) -> bool:
    """Whether a mask (or image) path names a volume: NIfTI, NRRD or MetaImage."""
    return path.lower().endswith((*_NIFTI, *_ITK))


def write_mask(
    target: Path, source_mask: Path | None, image: Path, edits: Sequence[MaskEdit], where: str
) -> None:
    """Write the edited mask to the new file ``target``.

    Parameters
    ----------
    target : Path
        The new file (must not exist: never written over).
    source_mask : Path or None
        The record's mask as it was; None to make a new one on ``image``'s grid.
    image : Path
        The item's image (its grid, for a new NIfTI mask).
    edits : sequence of MaskEdit
        Applied in order (the latest wins where two touch the same slice).
    where : str
        Names the item and field in messages.

    Raises
    ------
    ReleaseError
        A mask of a kind that cannot be edited (a DICOM series: only NIfTI, NRRD,
        MetaImage and pictures), a slice out of range, labels of another shape than the
        slice.
    """
    kind = source_mask if source_mask is not None else image
    if kind.name.lower().endswith(_ITK):
        _write_itk(target, source_mask, image, edits, where)
    elif is_volume(kind.name):
        _write_nifti(target, source_mask, image, edits, where)
    elif kind.name.lower().endswith(_PICTURES) and not kind.is_dir():
        _write_png(target, source_mask, edits, where)
    else:
        raise ReleaseError(
            f"{where}: {kind.name}: a mask can be edited only as NIfTI, NRRD or MetaImage "
            "(volume) or PNG (2-D picture)"
        )


def _exclusive_save(target: Path, save) -> None:
    """``save(temporary)`` then link it to ``target``, which must not exist (a link
    never replaces a file, so no existing file is ever written)."""
    if os.path.lexists(target):
        raise ReleaseError(f"{target}: already exists; an edited mask is a new file")
    temporary = target.with_name(f".{uuid.uuid4().hex}{_suffix(target.name)}")
    try:
        save(temporary)
        os.link(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def _write_nifti(
    target: Path, source_mask: Path | None, image: Path, edits: Sequence[MaskEdit], where: str
) -> None:
    import nibabel as nib

    read = source_mask if source_mask is not None else image
    try:
        grid: Any = nib.load(str(read))
    except Exception as exc:  # missing, not NIfTI (nibabel's ImageFileError), truncated
        raise ReleaseError(f"{where}: cannot read {read}: {exc}") from exc
    if len(grid.shape) not in (2, 3):
        raise ReleaseError(
            f"{where}: the mask is {len(grid.shape)}-D; only 2-D or 3-D masks are edited"
        )
    header = grid.header.copy()
    if source_mask is not None:
        slope, inter = header.get_slope_inter()
        plain = slope in (None, 1.0) and inter in (None, 0.0)
        data = np.array(grid.dataobj.get_unscaled() if plain else grid.dataobj)
    else:
        top = max(int(e.labels.max()) if e.labels.size else 0 for e in edits)
        dtype = np.uint8 if top <= 255 else np.uint16
        data = np.zeros(grid.shape, dtype)
        header.set_data_dtype(dtype)
        header.set_slope_inter(1.0, 0.0)
    for edit in edits:
        _put_slice(data, edit, where)
    out = type(grid)(data, grid.affine, header)
    _exclusive_save(target, lambda path: nib.save(out, str(path)))


def _write_itk(
    target: Path, source_mask: Path | None, image: Path, edits: Sequence[MaskEdit], where: str
) -> None:
    import SimpleITK as sitk

    read = source_mask if source_mask is not None else image
    try:
        grid = sitk.ReadImage(str(read))
    except RuntimeError as exc:  # SimpleITK reports read errors as RuntimeError
        raise ReleaseError(f"{where}: cannot read {read}: {str(exc).strip()}") from exc
    if grid.GetDimension() not in (2, 3) or grid.GetNumberOfComponentsPerPixel() != 1:
        raise ReleaseError(
            f"{where}: the mask is {grid.GetDimension()}-D of "
            f"{grid.GetNumberOfComponentsPerPixel()} components; only 2-D or 3-D scalar "
            "masks are edited"
        )
    flat = grid.GetDimension() == 2
    data = sitk.GetArrayFromImage(grid)  # (z, y, x); (y, x) for 2-D, shown as one slice
    data = data[np.newaxis] if flat else data
    if source_mask is None:
        top = max(int(e.labels.max()) if e.labels.size else 0 for e in edits)
        data = np.zeros(data.shape, np.uint8 if top <= 255 else np.uint16)
    for edit in edits:
        _put_slice(data, edit, where, default_axis=0)
    out = sitk.GetImageFromArray(data[0] if flat else data)
    out.CopyInformation(grid)
    if source_mask is not None:
        for key in grid.GetMetaDataKeys():
            out.SetMetaData(key, grid.GetMetaData(key))
    _exclusive_save(target, lambda path: sitk.WriteImage(out, str(path), True))


def _put_slice(data: np.ndarray, edit: MaskEdit, where: str, default_axis: int = 2) -> None:
    """Replace one slice of ``data`` (in place) by ``edit.labels`` (``edit.axis`` None:
    ``default_axis``, the reader's slice axis)."""
    axis = default_axis if edit.axis is None else int(edit.axis)
    if data.ndim == 2 and axis == 2 and edit.slice_index in (None, 0):
        index: tuple = (slice(None), slice(None))
    else:
        if not 0 <= axis < data.ndim:
            raise ReleaseError(f"{where}: axis {axis} of a {data.ndim}-D mask")
        k = edit.slice_index
        if k is None:
            if data.shape[axis] != 1:
                raise ReleaseError(f"{where}: the mask is a volume: the correction names no slice")
            k = 0
        if not 0 <= k < data.shape[axis]:
            raise ReleaseError(
                f"{where}: slice {k} along axis {axis}: the mask has {data.shape[axis]}"
            )
        index = tuple(k if n == axis else slice(None) for n in range(data.ndim))
    target = data[index]
    if target.shape != edit.labels.shape:
        raise ReleaseError(
            f"{where}: the labels are {edit.labels.shape[0]}x{edit.labels.shape[1]}, the "
            f"mask's slice is {target.shape[0]}x{target.shape[1]}"
        )
    if np.issubdtype(data.dtype, np.integer) and edit.labels.size:
        top = int(edit.labels.max())
        if top > np.iinfo(data.dtype).max:
            raise ReleaseError(
                f"{where}: label {top} does not fit the mask's data type {data.dtype}"
            )
    data[index] = edit.labels.astype(data.dtype)


def _write_png(
    target: Path, source_mask: Path | None, edits: Sequence[MaskEdit], where: str
) -> None:
    from PIL import Image

    if any(e.slice_index not in (None, 0) for e in edits):
        raise ReleaseError(f"{where}: a 2-D mask has no slice {edits[-1].slice_index}")
    labels = edits[-1].labels  # a 2-D mask's labels are the whole mask: the latest wins
    if labels.size and int(labels.max()) > 65535:
        raise ReleaseError(f"{where}: label {int(labels.max())} does not fit a PNG (16 bits)")
    mode, palette = "L", None
    if source_mask is not None:
        try:
            src = Image.open(source_mask)
        except (OSError, ValueError) as exc:
            raise ReleaseError(f"{where}: cannot read {source_mask}: {exc}") from exc
        with src:
            if (src.height, src.width) != labels.shape:
                raise ReleaseError(
                    f"{where}: the labels are {labels.shape[0]}x{labels.shape[1]}, the mask "
                    f"{source_mask.name} is {src.height}x{src.width}"
                )
            mode = src.mode
            palette = src.getpalette() if mode in ("P", "PA") else None
    picture = _picture(labels, mode, palette)
    _exclusive_save(target, lambda path: picture.save(path, format="PNG"))


def _picture(labels: np.ndarray, mode: str, palette: list[int] | None):
    """A PIL picture holding ``labels`` as the values ``picture_mask_values`` reads, in
    ``mode`` where they fit."""
    from PIL import Image

    top = int(labels.max()) if labels.size else 0
    height, width = labels.shape
    grey = labels.astype(np.uint8)
    if mode == "1" and bool(np.isin(labels, (0, 255)).all()):  # read back as 0 and 255
        return Image.frombytes("L", (width, height), grey.tobytes()).convert("1")
    if mode in ("P", "PA") and top <= 255:
        picture = Image.frombytes("P", (width, height), grey.tobytes())
        if palette:
            picture.putpalette(palette)
        return picture
    if mode in ("RGB", "RGBA", "LA") and top <= 255:
        channels = [grey] if mode == "LA" else [grey] * 3
        if mode in ("RGBA", "LA"):
            channels.append(np.full_like(grey, 255))
        return Image.fromarray(np.ascontiguousarray(np.dstack(channels)))
    if top <= 255 and mode not in ("I;16", "I;16B", "I;16L", "I", "F"):
        return Image.fromarray(grey)
    raw = labels.astype("<u2").tobytes()  # a PNG holds 16 bits at most (checked before)
    return Image.frombytes("I;16", (width, height), raw)
