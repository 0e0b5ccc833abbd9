"""NIfTI volumes through nibabel: slice choice, one window per volume, display orientation.

nibabel reports voxel axis directions in RAS (``aff2axcodes``); the slice is shown in
radiological convention (see :mod:`.geometry`). No Qt here.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.auto_window import foreground_window
from medrcube_desktop.imaging.geometry import voxel_display_transform
from medrcube_desktop.imaging.masks import mask_labels
from medrcube_desktop.imaging.slice_data import (
    WARNINGS_LOCK,
    SliceData,
    check_pixel_count,
    choose_slice,
    mask_slice_note,
    plausible_aspect,
    require_file,
)


@dataclass(frozen=True)
class _Volume:
    data: np.ndarray  # (I, J, K) voxel order: integers of at most 16 bits as read, else
    # float32 (float64 beyond its range)
    codes: tuple[str, str, str]  # nibabel.aff2axcodes: direction each voxel axis runs
    calibrated_window: tuple[float, float] | None  # from cal_min/cal_max, when set
    notes: tuple[str, ...]
    zooms: tuple[float, ...] = (1.0, 1.0, 1.0)  # voxel size along each voxel axis, mm
    affine: np.ndarray = field(default_factory=lambda: np.eye(4))  # (4, 4) voxel to RAS mm
    calibrated: bool = False  # window from the header's cal_min/cal_max
    volumes: int = 1  # volumes in the file (a 4-D file's fourth axis); data holds the first
    all_finite: bool = False  # read as integers: no NaN or infinity among the voxels

    @functools.cached_property
    def window(self) -> tuple[float, float] | None:
        """One window for every slice of the volume: the header's cal_min/cal_max, else
        the foreground's robust range over the whole volume; computed when first asked
        (never for a mask, nor for CT without cal_min/cal_max: issue 25, first paint,
        two copies of the volume and a partition of it saved)."""
        if self.calibrated:
            return self.calibrated_window
        # integers as read: their foreground taken as float32, the volume's values before
        # (exact below 2**24), so the percentiles and the window are the same numbers
        as_float32 = np.float32 if self.data.dtype.kind in "iu" else None
        try:  # it keeps the finite voxels itself: not copied twice
            return foreground_window(self.data, all_finite=self.all_finite, as_dtype=as_float32)
        except ValueError:  # no finite voxel
            return None


@functools.lru_cache(maxsize=4)
def _nifti_volume(path: str) -> _Volume:
    """Whole 3-D volume, its axis codes, display window and notes (cached per file).

    The window is the header's cal_min/cal_max display range when set (NIfTI-1 header
    fields), else the 0.5th-99.5th percentiles of the finite voxels of the whole volume,
    so that scrolling does not change the contrast. Voxels stored as integers of at most
    16 bits are kept as read (issue 25, first paint: the float32 copy of the demo's
    volume, four times its size, cost more than its gunzip; each slice is made float64
    from them, the same numbers).
    """
    return _read_volume(path)


@functools.lru_cache(maxsize=4)
def _nifti_mask_volume(path: str) -> _Volume:
    """A mask's volume, read as :func:`_nifti_volume` reads an image (integer voxels of
    at most 16 bits kept as read: float32 would hold each exactly, so its labels,
    :func:`.masks.mask_labels`, are the same, found without the float copies: issue 25,
    first paint), in a cache of its own: the masks of the items read ahead do not push
    their images out of the image cache."""
    return _read_volume(path)


def _read_volume(path: str) -> _Volume:
    import nibabel as nib

    require_file(Path(path), "NIfTI file")
    # mmap=False: the voxels read into memory, never a mapping of the file, which the
    # cache holds while the file may be rewritten or cut (a mapped page past the file's
    # new end kills the process, SIGBUS); integers kept as read would be that mapping
    img: Any = nib.load(path, mmap=False)  # Nifti1Image/Nifti2Image (typed loosely)
    notes = []
    shape = img.shape
    if not 2 <= len(shape) <= 4:
        raise ImageLoadError(
            f"{path}: expected a 2-D, 3-D or 4-D NIfTI image, found {len(shape)}-D"
        )
    if 0 in shape:
        raise ImageLoadError(f"{path}: the NIfTI image holds no voxels (shape {tuple(shape)})")
    stored = img.get_data_dtype()
    if stored.fields is not None or stored.kind not in "iufcb":
        raise ImageLoadError(
            f"{path}: NIfTI voxels of type {_dtype_name(stored)} (colour or records): "
            "only greyscale volumes (one number per voxel) can be shown"
        )
    check_pixel_count(Path(path), int(np.prod(shape[:3])), factor=50)  # the volume read
    _check_file_holds(Path(path), img, shape, stored)  # before nibabel allocates for it
    with _runtime_warnings_ignored():  # nibabel's scaling overflow: judged below, not printed
        if len(shape) == 4:  # read only the first volume, not the whole series
            notes.append(f"4-D file with {shape[3]} volumes: showing the first")
            data = np.asanyarray(img.dataobj[..., 0])
        elif len(shape) == 2:  # a single slice stored as NIfTI
            data = np.asanyarray(img.dataobj)[:, :, None]
        else:
            data = np.asanyarray(img.dataobj)
    if data.dtype.kind == "c":
        notes.append("complex voxels: showing their magnitude")
        data = np.abs(data)
    all_finite = data.dtype.kind in "iub"  # before the float32 copy: integers only
    if not (data.dtype.kind in "iu" and data.dtype.itemsize <= 2):
        data = _as_float32(data)
    header = img.header
    cal_min, cal_max = (float(header.get(k, 0) or 0) for k in ("cal_min", "cal_max"))
    calibrated = bool(np.isfinite(cal_min) and np.isfinite(cal_max) and cal_max > cal_min)
    window = ((cal_min + cal_max) / 2.0, cal_max - cal_min) if calibrated else None
    zooms = tuple(float(z) for z in img.header.get_zooms()[:3])  # voxel size, mm
    codes = tuple(nib.aff2axcodes(img.affine))
    volumes = int(shape[3]) if len(shape) == 4 else 1
    affine = np.asarray(img.affine)
    return _Volume(
        data, codes, window, tuple(notes), zooms, affine, calibrated, volumes, all_finite
    )


_IGNORED_LOCK = WARNINGS_LOCK  # with a DICOM decode's catch_warnings on another thread
_ignored: list = []  # [the catch_warnings entered] while any read is inside, else []
_ignoring = 0  # reads inside :func:`_runtime_warnings_ignored`


@contextlib.contextmanager
def _runtime_warnings_ignored():
    """RuntimeWarning ignored while any volume is read, on any thread: the image's and
    the mask's reads (two threads, :func:`_read_image_and_mask`) share one
    ``warnings.catch_warnings``, entered by the first and left by the last.

    ``catch_warnings`` saves the process-wide filters at its entry and puts them back at
    its exit: two of them left in the order they were entered by two threads (the
    mask's read ending first) put back the filters the second one saw, the first one's
    "ignore RuntimeWarning" among them, so that every RuntimeWarning of the process was
    ignored from then on (one load in five of an image with its mask). Its entry and
    exit take :data:`~.slice_data.WARNINGS_LOCK`, which a DICOM decode holds for its
    whole ``catch_warnings(record=True)``: one of those begun inside this one ends
    before it, and this one is not begun inside one of those.
    """
    global _ignoring
    with _IGNORED_LOCK:
        if _ignoring == 0:
            caught = warnings.catch_warnings()
            caught.__enter__()
            warnings.simplefilter("ignore", RuntimeWarning)
            _ignored.append(caught)
        _ignoring += 1
    try:
        yield
    finally:
        with _IGNORED_LOCK:
            _ignoring -= 1
            if _ignoring == 0:
                _ignored.pop().__exit__(None, None, None)


def _check_file_holds(path: Path, img: Any, shape: tuple[int, ...], stored: np.dtype) -> None:
    """Refuse a NIfTI file that cannot hold the first volume its header declares
    (voxels x bytes per voxel after ``vox_offset``; a ``.gz`` at most
    :data:`~.declared.MAX_DEFLATE_RATIO` times its size), before any voxel is read."""
    from medrcube_desktop.imaging.declared import check_declared_bytes

    volume = int(np.prod(shape[:3])) * int(stored.itemsize)
    holder = getattr(img.file_map.get("image"), "filename", None)  # .img of a .hdr pair
    data_file = Path(holder) if holder else path
    compressed = data_file.name.lower().endswith(".gz")
    offset = 0 if compressed else int(float(img.header.get("vox_offset", 0) or 0))
    check_declared_bytes(data_file, volume, data_file.stat().st_size - offset, compressed)


def _dtype_name(dtype: np.dtype) -> str:
    """``uint8`` or, for a record type, its fields: ``(R: uint8, G: uint8, B: uint8)``."""
    if dtype.fields is None:
        return str(dtype)
    return "(" + ", ".join(f"{name}: {dtype.fields[name][0]}" for name in dtype.names or ()) + ")"


def _as_float32(data: np.ndarray) -> np.ndarray:
    """``data`` as float32, or as float64 when a finite value lies beyond float32's range
    (a huge scl_slope: casting would make it infinite)."""
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = data.astype(np.float32, copy=False)
    if narrow is data or data.dtype.kind != "f" or data.dtype.itemsize <= 4:
        return narrow
    if np.isfinite(narrow).all() or np.isfinite(narrow).sum() == np.isfinite(data).sum():
        return narrow
    return data.astype(np.float64, copy=False)


def _read_image_and_mask(
    path: Path, mask_path: Path | None, windowed: bool
) -> tuple[_Volume, _Volume | None, np.ndarray | None]:
    """The image's volume (its window computed when ``windowed``), the mask's volume and
    its labels (:func:`.masks.mask_labels`, on the mask's own grid), the mask's side on a
    second thread (issue 25, first paint: gunzip and numpy release the GIL, so the two
    files are decoded at once on two cores). The errors are those of reading them one
    after the other: the image's first, then the mask's.

    Raises
    ------
    ImageLoadError
        Either file cannot be read (named with the image's path, as before), the mask is
        4-D, or it holds no labels (:func:`.masks.mask_labels`).
    """
    outcome: dict[str, Any] = {}
    helper = None
    if mask_path is not None:
        helper = threading.Thread(
            target=_read_mask_side, args=(mask_path, outcome), name="nifti-mask", daemon=True
        )
        helper.start()
    try:
        try:
            volume = _nifti_volume(str(path))
        except ImageLoadError:
            raise
        except Exception as exc:
            raise ImageLoadError(f"{path}: cannot read NIfTI: {exc}") from exc
        if windowed:
            _ = volume.window  # computed here, beside the mask's labels
    finally:
        if helper is not None:
            helper.join()
    if "read" in outcome:  # the mask's file could not be read
        failure = outcome["read"]
        if isinstance(failure, ImageLoadError):
            raise failure
        raise ImageLoadError(f"{path}: cannot read NIfTI: {failure}") from failure
    if "labels" in outcome and not isinstance(outcome["labels"], np.ndarray):
        raise outcome["labels"]  # the mask's own refusal (4-D, not a label mask)
    return volume, outcome.get("mask"), outcome.get("labels")


def _read_mask_side(mask_path: Path, outcome: dict[str, Any]) -> None:
    """Read ``mask_path``'s volume and labels into ``outcome`` (``mask``, ``labels``),
    or the exception that stopped it (``read``: the file; ``labels``: its content)."""
    try:
        mask = outcome["mask"] = _nifti_mask_volume(str(mask_path))
    except Exception as exc:  # raised by the caller, on its thread
        outcome["read"] = exc
        return
    try:
        if mask.volumes > 1:
            raise ImageLoadError(
                f"{mask_path}: the mask is a 4-D file of {mask.volumes} volumes; a mask is "
                "one volume of label numbers (0 = none) on the image's grid"
            )
        outcome["labels"] = mask_labels(mask.data, mask_path)
    except Exception as exc:
        outcome["labels"] = exc


def load_nifti_slice(
    path: Path, slice_index: int | None, mask_path: Path | None, modality: str | None = None
) -> SliceData:
    """One slice of a NIfTI-1/2 volume (nibabel), with its mask, in radiological convention.

    The slice axis is the third voxel axis (the acquisition axis is kept). ``slice_index``
    ``None`` picks the slice with the largest mask area, else the central slice (paper
    Appendix E.1). A 4-D file shows its first volume, with a note.

    Raises
    ------
    ImageLoadError
        The file cannot be read, is not 3-D/4-D, or the mask is on another grid.
    """
    windowed = modality != "CT"  # CT's window is asked only when calibrated (below)
    volume, mask, labels = _read_image_and_mask(path, mask_path, windowed)
    data, codes = volume.data, volume.codes
    mask_volume = None
    notes = list(volume.notes)
    if mask is not None and mask_path is not None and labels is not None:
        if mask.data.shape != data.shape or not np.allclose(mask.affine, volume.affine, atol=1e-3):
            labels = _resample_mask(labels, mask, volume, mask_path)
            notes.append("mask resampled to the image grid (nearest neighbour)")
        mask_volume = labels
    count = data.shape[2]  # the third voxel axis is the acquisition (slice) axis
    area = None if mask_volume is None else (mask_volume != 0).sum(axis=(0, 1))
    slice_index = choose_slice(slice_index, count, area)
    if (note := mask_slice_note(area, slice_index)) is not None:
        notes.append(note)
    result = SliceData(
        data[:, :, slice_index].astype(np.float64),
        False,
        "MONOCHROME2",
        modality,  # NIfTI records no modality: the item's, if given
        window=None if modality == "CT" and not volume.calibrated else volume.window,
        voi_lut_function="LINEAR_EXACT",
        slice_index=slice_index,
        slice_count=count,
        mask=None if mask_volume is None else mask_volume[:, :, slice_index],
        notes=notes,
        # nibabel applies scl_slope/scl_inter to dataobj: values as the header scales them
        value_unit="HU" if modality == "CT" else "value (scl_slope/scl_inter applied)",
    )
    z0, z1 = volume.zooms[0], volume.zooms[1]
    valid = z0 > 0 and z1 > 0 and plausible_aspect(z0 / z1) == z0 / z1
    result.pixel_aspect = z0 / z1 if valid else 1.0  # stored rows are voxel axis 0
    result.pixel_spacing = (z0, z1) if valid else None
    result.spacing_source = "NIfTI zooms (pixdim)" if valid else None
    result.axis_codes = (codes[0], codes[1])  # voxel axes 0 and 1 are the stored rows, columns
    result.voxel_axes = (0, 1, 2)  # stored row i, column j, slice k: nibabel's data[i, j, k]
    result.slice_axis = 2  # the slice is numpy.take(data, k, axis=2)
    result.display(voxel_display_transform(*codes))  # radiological convention
    return result


def _world_bounds(shape: tuple[int, ...], affine: np.ndarray) -> np.ndarray:
    """(2, 3) min and max world coordinates (mm) of the grid's outer voxel faces."""
    half = 0.5
    corners = np.array(
        [
            [i, j, k]
            for i in (-half, shape[0] - half)
            for j in (-half, shape[1] - half)
            for k in (-half, shape[2] - half)
        ]
    )
    world = corners @ affine[:3, :3].T + affine[:3, 3]
    return np.stack([world.min(axis=0), world.max(axis=0)])


def _resample_mask(
    labels: np.ndarray, mask: _Volume, image: _Volume, mask_path: Path
) -> np.ndarray:
    """Labels of a mask on another voxel grid, moved onto the image grid (nearest neighbour).

    Allowed only when both grids cover the same physical box within one (larger) voxel;
    otherwise the mask describes another region and is refused.

    Raises
    ------
    ImageLoadError
        The two grids do not cover the same region.
    """
    from scipy import ndimage

    tolerance = max(max(mask.zooms), max(image.zooms))
    mask_box = _world_bounds(labels.shape, mask.affine)
    image_box = _world_bounds(image.data.shape, image.affine)
    if not np.allclose(mask_box, image_box, atol=tolerance):
        raise ImageLoadError(
            f"{mask_path}: mask affine differs from the image's and covers another region "
            f"({np.round(mask_box, 1).tolist()} vs {np.round(image_box, 1).tolist()} mm); "
            "resample it onto the image grid"
        )
    # image voxel -> world -> mask voxel, then nearest-neighbour sampling (order 0)
    to_mask = np.linalg.inv(mask.affine) @ image.affine
    return ndimage.affine_transform(
        labels,
        to_mask[:3, :3],
        offset=to_mask[:3, 3],
        output_shape=image.data.shape,
        order=0,
        mode="constant",
        cval=0,
    ).astype(np.int32)
