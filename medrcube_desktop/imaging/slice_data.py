"""The slice model every reader returns, and the helpers the readers share.

:class:`SliceData` is one displayable 2-D slice with what rendering needs to map it; the
readers (:mod:`.dicom`, :mod:`.nifti`, :mod:`.itk`, :mod:`.series`) and the dispatcher
(:mod:`.loading`) build it, :mod:`.render` turns it into RGBA (a window from the values
themselves, when none is given, by :mod:`.auto_window`). The readers import from
here, and only :mod:`.loading` imports the readers, so the imaging package has no
import cycle. No Qt here.

Arrays follow numpy order: ``(rows, columns)``, row 0 at the top of the screen.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from medrcube_desktop.core.files import not_a_file
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.geometry import DisplayTransform, edge_labels

WARNINGS_LOCK = threading.Lock()
"""Held while a decode changes the process-wide ``warnings`` state (``catch_warnings``
saves the filters and ``showwarning`` at its entry and puts them back at its exit): a
DICOM decode for its whole ``catch_warnings(record=True)``, a NIfTI read at the entry
and exit of its shared one (:mod:`.nifti`). Two such blocks on two threads left in the
order they were entered would leave the process with the other's state (its filters,
or its recorder as ``showwarning``: every later warning swallowed)."""


@dataclass
class SliceData:
    """One 2-D slice ready for intensity mapping, plus what is needed to map it.

    Attributes
    ----------
    pixels : ndarray
        Greyscale: ``(H, W)`` in modality units (Hounsfield units for CT after Rescale
        Slope/Intercept, DICOM PS3.3 C.11.1; arbitrary units otherwise): an integer dtype
        (uint8, uint16, int16, int32) when every value is a whole number (8/16-bit
        pictures, DICOM stored values with a whole-number rescale), which the renderer
        maps through a lookup table; float64 otherwise (NaN marks padding). Colour:
        ``(H, W, 3)`` uint8 RGB.
    is_color : bool
        True for RGB, YBR (converted to RGB) and PALETTE COLOR pictures.
    photometric : str
        DICOM Photometric Interpretation, or ``"MONOCHROME2"``/``"RGB"`` for other files.
    modality : str or None
        DICOM Modality (0008,0060) when known (``"CT"``, ``"MR"``...).
    window : tuple of (float, float) or None
        (center, width) from the file, in the same units as ``pixels``.
    voi_lut_function : str
        DICOM VOI LUT Function (0028,1056): ``LINEAR``, ``LINEAR_EXACT`` or ``SIGMOID``.
    source_bits : int or None
        Bit depth of a picture file (8 or 16), used to show 8-bit pictures unchanged.
    slice_index, slice_count : int
        Which slice (or frame) of the file this is, 0-based, and how many there are.
    mask : ndarray or None
        ``(H, W)`` int32 labels on the same grid as ``pixels`` (0 = no structure).
    notes : list[str]
        Things the user should know (4-D file shown as first volume...).
    graphics : ndarray or None
        ``(H, W)`` bool: the file's own overlay planes (DICOM 60xx), drawn in yellow.
    supplemental, supplemental_rgb : ndarray or None
        ``(H, W)`` bool and ``(H, W, 3)`` uint8: pixels shown in colour through a
        Supplemental Palette Color LUT (PS3.3 C.7.6.3.1.5), e.g. a perfusion map.
    transform : DisplayTransform
        How ``pixels`` (and ``mask``) were turned from the stored array for display; a box
        given in stored pixels must follow it.
    stored_shape : tuple of (int, int) or None
        ``(H, W)`` of the stored array before ``transform`` (``None``: same as ``pixels``).
    pixel_aspect : float
        Height / width of one displayed pixel (row spacing / column spacing), 1 for
        square pixels; the view draws the image at this aspect.
    pixel_spacing : tuple of (float, float) or None
        (row, column) spacing of the displayed pixels in mm; None when the file gives no
        physical size (pictures, ultrasound with only a Pixel Aspect Ratio).
    file_windows : list of (float, float)
        Every window the file offers (DICOM may store several); ``window`` is the first.
    axis_codes : tuple of (str, str) or None
        Patient directions (R L A P S I) toward which the *stored* row and column indices
        increase; None when the file does not say (pictures, ultrasound).
    value_unit : str
        What a greyscale value in ``pixels`` is, as the cursor readout names it: ``"HU"``
        (CT), ``"signal (a.u.)"`` (MR), ``"grey level"`` (pictures), a DICOM Rescale
        Type (0028,1054), or ``"value"`` when nothing more is known.
    spacing_source : str or None
        Where ``pixel_spacing`` comes from, e.g. ``"Pixel Spacing (0028,0030)"``,
        ``"Imager Pixel Spacing (0018,1164), at the detector"``, ``"NIfTI zooms
        (pixdim)"``; None when there is no spacing.
    reduction : int
        Stored (file) pixels per pixel of ``pixels`` along each side: 2**n for a JPEG 2000
        image decoded ``n`` resolution levels down for display (``pixel_spacing`` is
        already that of the coarser grid); 1 otherwise.
    voxel_axes : (int, int, int) or None
        For a slice of a volume: where the stored row, column and ``slice_index`` go in
        the file's voxel index (see :class:`~.pixel_facts.PixelFacts`); None for 2-D.
    slice_axis : int or None
        For a slice of a volume: the axis of the volume's array *as its reader returns
        it* along which the slice is taken, so that the stored slice (before
        ``transform``) is ``numpy.take(array, slice_index, slice_axis)``: 2 for NIfTI
        (nibabel's ``dataobj``, voxel order ``(i, j, k)``), 0 for NRRD/MetaImage
        (SimpleITK's ``GetArrayFromImage``, ``(z, y, x)``). The ``axis`` of a mask
        correction (:data:`medrcube_desktop.core.corrections.MASK`) and of
        ``render --json``. None for 2-D (and for files read otherwise).
    """

    pixels: np.ndarray
    is_color: bool
    photometric: str
    modality: str | None = None
    window: tuple[float, float] | None = None
    voi_lut_function: str = "LINEAR"
    source_bits: int | None = None
    slice_index: int = 0
    slice_count: int = 1
    mask: np.ndarray | None = None
    notes: list[str] = field(default_factory=list)
    graphics: np.ndarray | None = None
    supplemental: np.ndarray | None = None
    supplemental_rgb: np.ndarray | None = None
    transform: DisplayTransform = field(default_factory=DisplayTransform)
    stored_shape: tuple[int, int] | None = None
    pixel_aspect: float = 1.0
    pixel_spacing: tuple[float, float] | None = None
    axis_codes: tuple[str, str] | None = None
    file_windows: list[tuple[float, float]] = field(default_factory=list)
    value_unit: str = "value"
    spacing_source: str | None = None
    reduction: int = 1
    voxel_axes: tuple[int, int, int] | None = None
    slice_axis: int | None = None

    def edge_labels(self) -> dict[str, str] | None:
        """Orientation letters at the edges of the displayed slice (see geometry.edge_labels)."""
        if self.axis_codes is None:
            return None
        return edge_labels(self.axis_codes[0], self.axis_codes[1], self.transform)

    def display(self, transform: DisplayTransform, note: str | None = None) -> None:
        """Apply ``transform`` to pixels (and mask) for display, remembering the stored shape."""
        if transform.is_identity:
            return
        self.stored_shape = self.stored_shape or (
            int(self.pixels.shape[0]),
            int(self.pixels.shape[1]),
        )
        self.pixels = transform.apply(self.pixels)
        if self.mask is not None:
            self.mask = transform.apply(self.mask)
        if self.graphics is not None:
            self.graphics = transform.apply(self.graphics)
        if self.supplemental is not None and self.supplemental_rgb is not None:
            self.supplemental = transform.apply(self.supplemental)
            self.supplemental_rgb = transform.apply(self.supplemental_rgb)
        self.transform = transform
        if transform.transpose:
            self.pixel_aspect = 1.0 / self.pixel_aspect
            if self.pixel_spacing is not None:
                self.pixel_spacing = (self.pixel_spacing[1], self.pixel_spacing[0])
        if note:
            self.notes.append(note)


def require_file(path: Path, what: str = "image") -> None:
    """Refuse anything but a regular file before a reader opens it: a named pipe would
    block the reader (and the window, ``validate``, ``judge``, ``evaluate``) forever.

    Raises
    ------
    ImageLoadError
        ``"PATH: the image is a named pipe, not a file"`` (or a socket, a device).
    """
    special = not_a_file(path)
    if special is not None and not special.startswith("is a folder"):
        raise ImageLoadError(f"{path}: the {what} {special}")


def check_pixel_count(path: Path, pixels: int, factor: int = 1, what: str = "") -> None:
    """Refuse an image larger than the configured limit before decoding it.

    ``what`` says where the count comes from (``"frame 1's JPEG 2000 codestream
    declares 40000x40000 pixels"``), for the message.

    Raises
    ------
    ImageLoadError
        ``pixels`` exceeds ``factor`` times ``settings.max_image_pixels()``.
    """
    from medrcube_desktop.settings import max_image_pixels

    limit = max_image_pixels() * factor
    if pixels > limit:
        where = f"{what}: " if what else ""
        raise ImageLoadError(
            f"{path}: {where}{pixels:,} pixels exceed the limit of {limit:,} (set "
            "MEDRCUBE_MAX_PIXELS to open it; very large images can exhaust memory)"
        )


def to_neurological(data: SliceData) -> SliceData:
    """The same slice in neurological convention: patient right on screen right.

    Only slices whose horizontal axis runs right-left (axial, coronal) change; a copy is
    returned (pixels, mask and the transform for boxes all mirrored), the input is kept.
    """
    labels = data.edge_labels()
    if labels is None or {labels["left"], labels["right"]} != {"R", "L"}:
        return data
    t = data.transform
    return dataclasses.replace(
        data,
        pixels=np.ascontiguousarray(data.pixels[:, ::-1]),
        mask=None if data.mask is None else np.ascontiguousarray(data.mask[:, ::-1]),
        graphics=None if data.graphics is None else np.ascontiguousarray(data.graphics[:, ::-1]),
        supplemental=None
        if data.supplemental is None
        else np.ascontiguousarray(data.supplemental[:, ::-1]),
        supplemental_rgb=None
        if data.supplemental_rgb is None
        else np.ascontiguousarray(data.supplemental_rgb[:, ::-1]),
        transform=DisplayTransform(t.transpose, t.flip_rows, not t.flip_cols),
        stored_shape=data.stored_shape or (int(data.pixels.shape[0]), int(data.pixels.shape[1])),
        notes=[*data.notes, "neurological convention: patient right on screen right"],
    )


MAX_PIXEL_ASPECT = 20.0
"""Pixel height/width ratios beyond 1:20 or 20:1 are taken as header errors."""


def plausible_aspect(ratio: float) -> float:
    """``ratio`` (pixel height / width) if finite and within 1/20..20, else 1 (square)."""
    if math.isfinite(ratio) and 1.0 / MAX_PIXEL_ASPECT <= ratio <= MAX_PIXEL_ASPECT:
        return float(ratio)
    return 1.0


def choose_slice(slice_index: int | None, count: int, mask_area: np.ndarray | None) -> int:
    """The slice to show: the one asked for (clamped), else the largest mask area, else
    the central slice (paper Appendix E.1).

    Parameters
    ----------
    slice_index : int or None
        Requested 0-based slice.
    count : int
        Number of slices.
    mask_area : ndarray of shape (count,) or None
        Labelled pixels on each slice.
    """
    if slice_index is None:
        if mask_area is not None and mask_area.any():
            slice_index = int(np.argmax(mask_area))
        else:
            slice_index = count // 2
    return max(0, min(int(slice_index), count - 1))


def mask_slice_note(area: np.ndarray | None, slice_index: int) -> str | None:
    """What the viewer says when the shown slice of a volume has no labelled voxel:
    where the mask's labels are (slices numbered from 1, as the viewer numbers them), or
    that it labels none at all. None when the slice has labels, there is no mask, or the
    image has one slice (:func:`render.compose_rgba` says so for every 2-D image).

    ``area`` : ndarray of shape (slice_count,), labelled voxels per slice (int).
    """
    if area is None or area.size < 2 or area[slice_index] > 0:
        return None
    labelled = np.flatnonzero(area) + 1  # numbered from 1
    if labelled.size == 0:
        return "the mask labels no voxel in the whole volume: nothing to draw"
    breaks = np.flatnonzero(np.diff(labelled) > 1)
    starts = np.concatenate([labelled[:1], labelled[breaks + 1]])
    ends = np.concatenate([labelled[breaks], labelled[-1:]])
    runs = [str(a) if a == b else f"{a} to {b}" for a, b in zip(starts, ends, strict=True)]
    if labelled.size == 1:
        where = f"slice {labelled[0]}"
    elif len(runs) > 4:  # many gaps: the span and the count
        where = f"{labelled.size} slices between {labelled[0]} and {labelled[-1]}"
    else:
        where = "slices " + ", ".join(runs)
    return f"the mask labels nothing on this slice; it labels {where} of {area.size}"
