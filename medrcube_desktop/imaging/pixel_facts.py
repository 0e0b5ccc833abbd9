"""What a radiologist asks of a pixel: its value in modality units, and distances in mm.

A :class:`PixelFacts` rides beside a rendered image (:class:`~.render.RenderedImage`):
the modality-unit slice on the displayed grid (before any display reduction), its unit
and the pixel spacing with its source. The view maps the cursor to the rendered image's
pixel coordinates (column ``x``, row ``y``, floats, 0 at the top-left corner of the
first pixel); these functions do the rest, and the readout names the file's own pixel
(row, column; a volume's voxel index), the display's turns and flips undone. No Qt here.

Sources: Rescale Slope/Intercept, DICOM PS3.3 C.11.1 (HU for CT); Pixel Spacing
(0028,0030), PS3.3 C.7.6.2.1.1 (in the patient), Imager Pixel Spacing (0018,1164),
C.8.11.7 (at the detector); NIfTI ``pixdim`` through nibabel's ``header.get_zooms()``
and ``scl_slope``/``scl_inter`` applied by nibabel's ``dataobj``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from medrcube_desktop.imaging.geometry import DisplayTransform


@dataclass(frozen=True)
class PixelFacts:
    """The numbers behind a rendered greyscale slice.

    Attributes
    ----------
    values : (H, W) ndarray, or (H, W, 3) uint8 for colour
        Modality units (HU for CT, ``unit``), row 0 at the top, the grid the image was
        rendered from (orientation and convention applied); integer or float64, NaN for
        padding. Colour pictures: their RGB. Shared and read-only.
    unit : str
        ``"HU"``, ``"signal (a.u.)"``, ``"grey level"``...
    spacing : (row, column) float or None
        Millimetres between pixel centres on ``values``' grid; None: no physical size.
    spacing_source : str or None
        Where ``spacing`` comes from ("Pixel Spacing (0028,0030)"...).
    factor : int
        Pixels of ``values`` per pixel of the shown image along each side (a display
        reduction by an integer factor; 1 when none).
    reduction : int
        File pixels per pixel of ``values`` along each side (2**n for a JPEG 2000 image
        decoded n levels down for the view; ``spacing`` is already that of ``values``'
        grid). The readout gives file pixel coordinates and says "reduced 1/2**n".
    transform : DisplayTransform
        How ``values`` were turned and flipped from the file's stored array for display
        (radiological or neurological convention, EXIF orientation, radiograph flips);
        the readout undoes it, so it names the file's own pixel.
    slice_index : int
        The slice of a volume that ``values`` is (0-based, along the stored slice axis).
    voxel_axes : (int, int, int) or None
        For a volume: where the stored row, the stored column and the slice go in the
        file's voxel index ``(i, j, k)``: ``(0, 1, 2)`` for NIfTI (nibabel's
        ``data[i, j, k]``, slices along k), ``(1, 0, 2)`` for NRRD/MHA (ITK's index
        ``(x, y, z)``, SimpleITK's array ``[z, y, x]``). None for a 2-D file, whose
        readout names the column x and row y.
    """

    values: np.ndarray
    unit: str
    spacing: tuple[float, float] | None = None
    spacing_source: str | None = None
    factor: int = 1
    reduction: int = 1
    transform: DisplayTransform = field(default_factory=DisplayTransform)
    slice_index: int = 0
    voxel_axes: tuple[int, int, int] | None = None

    @property
    def nbytes(self) -> int:
        """Memory held by ``values``, in bytes."""
        return int(self.values.nbytes)

    def pixel_at(self, x: float, y: float) -> tuple[int, int] | None:
        """``(row, column)`` of ``values`` under the shown image's point ``(x, y)``, or None
        outside the image. ``x``, ``y``: shown-image pixels (column, row), floats."""
        row, col = math.floor(y * self.factor), math.floor(x * self.factor)
        height, width = self.values.shape[:2]
        if 0 <= row < height and 0 <= col < width:
            return row, col
        return None

    def file_pixel(self, x: float, y: float) -> tuple[int, int] | None:
        """``(row, column)`` in the file's stored pixel grid of the pixel under the shown
        image's point ``(x, y)``, or None outside the image: the display transform undone
        and a reduced decode's pixel scaled back (its top-left file pixel)."""
        where = self.pixel_at(x, y)
        if where is None:
            return None
        row, col = self.transform.stored_pixel(where[0], where[1], self.values.shape)
        return row * self.reduction, col * self.reduction

    def value_at(self, x: float, y: float) -> float | None:
        """The modality-unit value under ``(x, y)`` (see :meth:`pixel_at`); None outside
        the image, on padding (NaN) or on a colour picture."""
        where = self.pixel_at(x, y)
        if where is None or self.values.ndim != 2:
            return None
        value = float(self.values[where])
        return value if math.isfinite(value) else None

    def voxel_at(self, x: float, y: float) -> tuple[int, int, int] | None:
        """The file's voxel index ``(i, j, k)`` under ``(x, y)`` (see ``voxel_axes``);
        None outside the image or for a 2-D file."""
        where = self.file_pixel(x, y)
        if where is None or self.voxel_axes is None:
            return None
        index = [0, 0, 0]
        for axis, value in zip(self.voxel_axes, (*where, self.slice_index), strict=True):
            index[axis] = value
        return index[0], index[1], index[2]

    def describe(self, x: float, y: float) -> str:
        """The readout line, e.g. ``"x 12  y 40   -1002 HU"``; ``""`` outside the image.

        ``x`` and ``y`` in the line are the column and row of the file's pixel
        (:meth:`file_pixel`), whatever the display turned or flipped; a volume's line
        names the voxel instead, ``"voxel [131, 174, 55]   ..."`` (:meth:`voxel_at`).
        The value is the one at that pixel; on a reduced decode it is not (a JPEG 2000
        low-pass value, a weighted average of the file pixels around it), so it is
        written ``≈`` and a second line says so."""
        where = self.pixel_at(x, y)
        if where is None:
            return ""
        row, col = self.transform.stored_pixel(where[0], where[1], self.values.shape)
        voxel = self.voxel_at(x, y)
        if voxel is not None:
            place = f"voxel [{voxel[0]}, {voxel[1]}, {voxel[2]}]"
        else:
            place = f"x {col * self.reduction}  y {row * self.reduction}"
        value = self.values[where]
        if self.values.ndim == 3:  # a colour picture: its red, green and blue
            return f"{place}   RGB {', '.join(str(int(v)) for v in value)}"
        if not math.isfinite(float(value)):
            shown = "padding (no value)"
        else:
            shown = f"{format_value(float(value))} {self.unit}"
        if self.reduction > 1:
            shown = (  # a second line: the first stays short beside the top letter
                f"\u2248{shown}\n(reduced 1/{self.reduction}: nearby file pixels "
                "averaged; zoom in for its own)"
            )
        return f"{place}   {shown}"

    def distance(self, start: tuple[float, float], end: tuple[float, float]) -> tuple[float, str]:
        """Length of the segment from ``start`` to ``end`` (shown-image ``(x, y)``).

        Returns
        -------
        (length, unit) : ``unit`` is ``"mm"`` from ``spacing`` (hypot(dy * row_mm,
        dx * col_mm)), else ``"pixels"`` of ``values``' grid.
        """
        dx = (end[0] - start[0]) * self.factor
        dy = (end[1] - start[1]) * self.factor
        if self.spacing is None:  # in file pixels
            return math.hypot(dx, dy) * self.reduction, "pixels"
        row_mm, col_mm = self.spacing
        return math.hypot(dy * row_mm, dx * col_mm), "mm"

    def describe_distance(self, start: tuple[float, float], end: tuple[float, float]) -> str:
        """``"23.4 mm"`` or ``"35.0 pixels (no pixel spacing in the file)"``."""
        length, unit = self.distance(start, end)
        if unit == "mm":
            return f"{length:.1f} mm"
        return f"{length:.1f} pixels (no pixel spacing in the file)"


def format_value(value: float) -> str:
    """A value as read off a viewer: whole numbers as such, else 4 significant digits."""
    if float(value).is_integer() and abs(value) < 1e9:
        return f"{int(value)}"
    return f"{value:.4g}"
