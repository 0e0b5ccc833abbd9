"""In-plane display geometry: how a stored 2-D array is turned and flipped for the screen.

Every reorientation the app makes (EXIF orientation of pictures, radiological convention
for NIfTI slices, patient right on screen left for radiographs) is one of the eight
symmetries of a rectangle: an optional transpose followed by optional flips. Applying the
same :class:`DisplayTransform` to the pixels, the mask and the box keeps them together.

Coordinates: arrays are ``(rows, columns)``; a box is ``(x0, y0, x1, y1)`` with x the
column and y the row of the *stored* array, each naming the pixel that contains it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

_OPPOSITE = {"R": "L", "L": "R", "A": "P", "P": "A", "S": "I", "I": "S"}


@dataclass(frozen=True)
class DisplayTransform:
    """Transpose (first), then flip rows and/or columns.

    Attributes
    ----------
    transpose : bool
        Swap rows and columns of the stored array.
    flip_rows : bool
        Reverse the row order (top-bottom) after the transpose.
    flip_cols : bool
        Reverse the column order (left-right) after the transpose.
    """

    transpose: bool = False
    flip_rows: bool = False
    flip_cols: bool = False

    @property
    def is_identity(self) -> bool:
        """True when the transform leaves the array as stored."""
        return not (self.transpose or self.flip_rows or self.flip_cols)

    def apply(self, array: np.ndarray) -> np.ndarray:
        """Transform ``(H, W)`` or ``(H, W, C)``; returns a contiguous copy when changed."""
        if self.is_identity:
            return array
        if self.transpose:
            array = np.swapaxes(array, 0, 1)
        array = array[:: -1 if self.flip_rows else 1, :: -1 if self.flip_cols else 1]
        return np.ascontiguousarray(array)

    def stored_pixel(self, row: int, col: int, shown_shape: tuple[int, ...]) -> tuple[int, int]:
        """``(row, column)`` of the stored array that shows at ``(row, col)`` of the
        transformed one (the inverse of :meth:`apply` for one pixel).

        Parameters
        ----------
        row, col : int
            Pixel of the transformed (displayed) array, 0-based, row 0 at the top.
        shown_shape : (H, W, ...)
            Shape of the transformed array.
        """
        height, width = shown_shape[0], shown_shape[1]
        if self.flip_rows:
            row = height - 1 - row
        if self.flip_cols:
            col = width - 1 - col
        return (col, row) if self.transpose else (row, col)

    def box(
        self, bbox: tuple[float, float, float, float], stored_shape: tuple[int, int]
    ) -> tuple[int, int, int, int] | None:
        """Move a box from stored to displayed pixels; ``None`` if it misses the image.

        Parameters
        ----------
        bbox : (x0, y0, x1, y1)
            Columns and rows of the stored array (fractions name the pixel containing them).
        stored_shape : (H, W)
            Shape of the stored array, before the transform.

        Returns
        -------
        (x0, y0, x1, y1) of int, clipped to the displayed image, or None.
        """
        h, w = stored_shape
        if not all(np.isfinite(v) for v in bbox):
            return None
        x0, y0, x1, y1 = (int(np.floor(v)) for v in bbox)
        if x0 >= w or y0 >= h or x1 < 0 or y1 < 0:
            return None
        x0, x1 = max(x0, 0), min(x1, w - 1)
        y0, y1 = max(y0, 0), min(y1, h - 1)
        if self.transpose:
            x0, y0, x1, y1, h, w = y0, x0, y1, x1, w, h
        if self.flip_cols:
            x0, x1 = (w - 1) - x1, (w - 1) - x0
        if self.flip_rows:
            y0, y1 = (h - 1) - y1, (h - 1) - y0
        return x0, y0, x1, y1


EXIF_TRANSFORMS: dict[int, DisplayTransform] = {
    1: DisplayTransform(),
    2: DisplayTransform(flip_cols=True),
    3: DisplayTransform(flip_rows=True, flip_cols=True),
    4: DisplayTransform(flip_rows=True),
    5: DisplayTransform(transpose=True),
    6: DisplayTransform(transpose=True, flip_cols=True),
    7: DisplayTransform(transpose=True, flip_rows=True, flip_cols=True),
    8: DisplayTransform(transpose=True, flip_rows=True),
}
"""EXIF Orientation tag (0x0112) value → transform that shows the picture upright, the
same as ``PIL.ImageOps.exif_transpose`` (checked against it in the tests)."""


def display_directions(slice_code: str) -> tuple[str, str]:
    """Patient direction that row and column indices should increase toward on screen.

    Radiological convention: axial and coronal with patient right on screen left and
    anterior/superior at the top; sagittal with anterior on the left, superior at the top.

    Parameters
    ----------
    slice_code : str
        Patient direction (``R L A P S I``) of the slice axis.

    Returns
    -------
    (row_toward, column_toward) : tuple of str
    """
    if slice_code in "SI":
        return "P", "L"
    if slice_code in "AP":
        return "I", "L"
    return "I", "P"


def voxel_display_transform(code0: str, code1: str, slice_code: str) -> DisplayTransform:
    """Transform that shows a voxel slice ``volume[:, :, k]`` in radiological convention.

    Parameters
    ----------
    code0, code1 : str
        Patient direction the first and second voxel axes increase toward
        (``nibabel.aff2axcodes``, RAS labels).
    slice_code : str
        Patient direction of the slice (third) axis.
    """
    row_to, col_to = display_directions(slice_code)
    transpose = code0 not in (row_to, _OPPOSITE[row_to])  # voxel axis 0 runs across
    if transpose:
        code0, code1 = code1, code0
    return DisplayTransform(transpose, code0 != row_to, code1 != col_to)


def projection_display_transform(patient_orientation: list[str]) -> DisplayTransform:
    """Flips that show a radiograph with the patient's right on screen left, head up.

    Parameters
    ----------
    patient_orientation : list of str
        DICOM Patient Orientation (0020,0020): the patient direction of increasing column
        index (first value) and of increasing row index (second), PS3.3 C.7.6.1.1.1.
    """
    if len(patient_orientation) != 2:
        return DisplayTransform()
    row_direction, column_direction = (v.strip().upper() for v in patient_orientation)
    return DisplayTransform(
        flip_rows=column_direction.startswith("H"), flip_cols=row_direction.startswith("R")
    )


_LPS_CODES = (("L", "R"), ("P", "A"), ("S", "I"))  # +x, +y, +z of DICOM patient space


def lps_direction_code(vector: tuple[float, ...] | list[float]) -> str:
    """Patient direction (``R L A P S I``) a DICOM LPS direction vector points toward most.

    DICOM patient coordinates (PS3.3 C.7.6.2.1.1): +x toward the patient's left, +y
    posterior, +z head (superior). Oblique vectors get their dominant axis (the first
    of equal ones).
    """
    # plain floats, not numpy: three numbers per call, on every DICOM render
    try:
        v = [float(x) for x in vector]
    except (TypeError, ValueError):
        return ""
    if len(v) != 3 or not all(math.isfinite(x) for x in v) or math.hypot(*v) < 1e-6:
        return ""  # no direction: callers show the image as stored, without letters
    axis = max(range(3), key=lambda i: abs(v[i]))
    positive, negative = _LPS_CODES[axis]
    return positive if v[axis] > 0 else negative


def cross_section_display_transform(image_orientation: list[float]) -> DisplayTransform:
    """Transform that shows a CT/MR slice in radiological convention.

    Parameters
    ----------
    image_orientation : list of 6 float
        Image Orientation (Patient) (0020,0037): direction cosines of the first row (the
        direction of increasing column index) then of the first column (increasing row
        index), in LPS.
    """
    if len(image_orientation) != 6:
        return DisplayTransform()
    return _cross_section_transform(tuple(float(v) for v in image_orientation))


@functools.lru_cache(maxsize=256)
def _cross_section_transform(r: tuple[float, ...]) -> DisplayTransform:
    """:func:`cross_section_display_transform` of a 6-tuple, remembered: the slices of a
    study share a few orientations, and the transform is frozen (shared safely)."""
    row_cosines, column_cosines = (r[0], r[1], r[2]), (r[3], r[4], r[5])
    n = np.cross(row_cosines, column_cosines)
    normal = (float(n[0]), float(n[1]), float(n[2]))
    codes = (
        lps_direction_code(column_cosines),
        lps_direction_code(row_cosines),
        lps_direction_code(normal),
    )
    if "" in codes or abs(float(np.dot(row_cosines, column_cosines))) > 0.1:
        return DisplayTransform()  # degenerate orientation: show as stored
    # stored axis 0 (rows) runs along the column cosines, axis 1 along the row cosines
    return voxel_display_transform(
        lps_direction_code(column_cosines),
        lps_direction_code(row_cosines),
        lps_direction_code(normal),
    )


_PATIENT_LETTER = {"H": "S", "F": "I"}  # Patient Orientation's head/foot as S/I


def opposite_direction(code: str) -> str:
    """The opposite patient direction of a (possibly oblique, multi-letter) code: "RA" → "LP"."""
    return "".join(_OPPOSITE[c] for c in code)


def normalise_direction(code: str) -> str:
    """Patient Orientation letters (A P R L H F) in the R L A P S I alphabet; "" if unknown."""
    letters = "".join(_PATIENT_LETTER.get(c, c) for c in code.strip().upper())
    return letters if letters and all(c in _OPPOSITE for c in letters) else ""


def edge_labels(row_code: str, col_code: str, transform: DisplayTransform) -> dict[str, str] | None:
    """Orientation letters for the edges of the displayed image.

    Parameters
    ----------
    row_code, col_code : str
        Patient direction toward which the stored array's row index and column index
        increase (e.g. "P" and "L" for a standard axial CT), R L A P S I letters.
    transform : DisplayTransform
        How the stored array is shown.

    Returns
    -------
    dict with keys "top", "bottom", "left", "right", or None when a direction is unknown.
    """
    row_code, col_code = normalise_direction(row_code), normalise_direction(col_code)
    if not row_code or not col_code:
        return None
    if transform.transpose:
        row_code, col_code = col_code, row_code
    if transform.flip_rows:
        row_code = opposite_direction(row_code)
    if transform.flip_cols:
        col_code = opposite_direction(col_code)
    return {
        "top": opposite_direction(row_code),
        "bottom": row_code,
        "left": opposite_direction(col_code),
        "right": col_code,
    }
