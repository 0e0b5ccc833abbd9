"""DICOM frames through pydicom: decoding, modality LUT, padding, overlay planes, colour.

Intensity steps follow DICOM PS3.3 C.11 (modality LUT / Rescale, then VOI); values from
Enhanced multi-frame functional groups (C.7.6.16) are used when the top level has none.
What the header says about display (orientation, spacing, windows, units) is read by
:mod:`.dicom_header`. No Qt here.
"""

from __future__ import annotations

import logging
import math
import warnings
from pathlib import Path

import numpy as np

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.declared import (
    check_deflated,
    check_encapsulated,
    check_native_frames,
)
from medrcube_desktop.imaging.dicom_header import (
    dicom_windows,
    element_value,
    functional_group_item,
    orient,
    value_unit,
)
from medrcube_desktop.imaging.slice_data import (
    WARNINGS_LOCK,
    SliceData,
    check_pixel_count,
    require_file,
)

_WARNINGS_LOCK = WARNINGS_LOCK  # the decode's catch_warnings, beside NIfTI reads'

_OVERLAY_DATA = tuple((group << 16) | 0x3000 for group in range(0x6000, 0x6020, 2))
"""Overlay Data (60xx,3000) of the 16 overlay groups, as integer tags."""


def load_dicom_slice(
    path: Path, slice_index: int | None, display_side: int | None = None
) -> SliceData:
    """Decode one frame of a DICOM file (pydicom) into a :class:`SliceData`.

    ``slice_index`` picks the frame (``None``: the central one). pydicom's warnings about
    non-conformant files become notes shown with the image. ``display_side`` (device
    pixels, the view's longer side; display only) lets a single-frame JPEG 2000 image
    at least twice as large be decoded at a reduced resolution (:mod:`.j2k`); ``None``
    (export, batch, evaluation) always decodes in full. Raises ImageLoadError for a file
    that is not DICOM (PS3.10 7.1); otherwise what pydicom raises, which
    :func:`~medrcube_desktop.imaging.loading.load_slice` turns into ImageLoadError.
    """
    import pydicom
    from pydicom.errors import InvalidDicomError

    require_file(path)
    check_deflated(path)  # pydicom inflates a deflated dataset whole, before any check
    logger = logging.getLogger("pydicom")
    # warning filters and logger levels are process-wide: one decode at a time changes them
    with _WARNINGS_LOCK:
        level = logger.level
        quiet = logger.getEffectiveLevel() >= logging.ERROR
        if not quiet:  # setLevel clears every logger's cache: only when it changes anything
            logger.setLevel(logging.ERROR)  # pydicom's warnings become notes on the image
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                # one read: elements up to DEFER_BYTES (a single frame's pixels) now, larger
                # ones (a multi-frame Pixel Data) left on disk for pixel_array to read a frame
                try:
                    ds = pydicom.dcmread(path, defer_size=DEFER_BYTES)
                except InvalidDicomError as exc:
                    if "DICM" not in str(exc):  # a VR mismatch under RAISE validation
                        raise ImageLoadError(f"{path}: not readable as DICOM: {exc}") from exc
                    # pydicom's text ends "Use force=True to force reading.": advice to
                    # a programmer, not to a reader of the file
                    raise ImageLoadError(
                        f"{path}: not a DICOM file: no 'DICM' prefix after the 128-byte "
                        "preamble (DICOM PS3.10 7.1)"
                    ) from exc
                data = _decode_dicom(ds, path, slice_index, display_side)
        finally:
            if not quiet:
                logger.setLevel(level)
    messages = list(dict.fromkeys(str(w.message).split(". Please see")[0] for w in caught))
    data.notes.extend(f"pydicom: {m}" for m in messages[:3])
    return data


DEFER_BYTES = 64 * 1024 * 1024
"""Elements larger than this are read from disk only when used (a multi-frame Pixel
Data); a single frame's pixels are read with the header, in the same pass."""

NATIVE_LITTLE_ENDIAN = ("1.2.840.10008.1.2", "1.2.840.10008.1.2.1")
"""Implicit and Explicit VR Little Endian (PS3.5 A.1, A.2): Pixel Data stored as is."""


def native_frame(ds) -> np.ndarray | None:
    """The one greyscale frame of an uncompressed little-endian ``ds``, read straight
    from its Pixel Data, or None when pydicom should decode it.

    pydicom's ``pixel_array`` spends about 0.17 ms of Python per call on any image
    (options, validation, its decoder machinery), as much as the whole header read of a
    small file; for the common plain case the pixels are the Pixel Data bytes as they
    stand. Only that case is read here: a single frame, one sample per pixel
    (MONOCHROME1/2), 8 or 16 bits allocated, the exact length (an odd one with its pad
    byte). Unused high bits (Bits Stored < Bits Allocated) are cleared or sign-extended
    by the shifts pydicom makes, so the result equals ``ds.pixel_array`` (a test checks
    every pydicom test file); when the stored values already lie in their range the
    shifts change nothing and are skipped.

    Returns
    -------
    (Rows, Columns) ndarray of uint8, int8, ``<u2`` or ``<i2``, read-only (a view of the
    Pixel Data), or None.
    """
    keys = ds.keys()
    meta = getattr(ds, "file_meta", None)
    syntax = None if meta is None else element_value(meta, 0x00020010)  # Transfer Syntax UID
    if str(syntax) not in NATIVE_LITTLE_ENDIAN or 0x7FE00010 not in keys:
        return None
    try:
        samples = int(element_value(ds, 0x00280002, 1))  # Samples per Pixel
        photometric = str(element_value(ds, 0x00280004, "")).strip()
        rows, columns = int(element_value(ds, 0x00280010)), int(element_value(ds, 0x00280011))
        allocated = int(element_value(ds, 0x00280100))  # Bits Allocated
        stored = int(element_value(ds, 0x00280101, allocated))  # Bits Stored
        signed = int(element_value(ds, 0x00280103))  # Pixel Representation
    except (KeyError, TypeError, ValueError):
        return None
    data = ds[0x7FE00010].value
    expected = rows * columns * allocated // 8
    plain = (
        samples == 1
        and photometric in ("MONOCHROME1", "MONOCHROME2")
        and allocated in (8, 16)
        and 0 < stored <= allocated
        and signed in (0, 1)
        and rows > 0
        and columns > 0
        and isinstance(data, bytes)
        and len(data) in (expected, expected + expected % 2)
    )
    if not plain:
        return None
    dtype = np.dtype(f"<{'i' if signed else 'u'}{allocated // 8}")
    arr = np.frombuffer(data, dtype=dtype, count=rows * columns).reshape(rows, columns)
    if stored < allocated:
        low, high = (
            (-(1 << (stored - 1)), (1 << (stored - 1)) - 1) if signed else (0, (1 << stored) - 1)
        )
        if arr.size and (int(arr.min()) < low or int(arr.max()) > high):
            shift = allocated - stored  # as pydicom: the unused bits shifted out and back
            arr = np.right_shift(np.left_shift(arr, shift), shift)
            arr.flags.writeable = False
    return arr


def _one_number(path: Path, name: str, value) -> int:
    """``value`` (an element's, as :func:`element_value` gives it) as an int, the one
    whole number a VM 1 element of the image's size holds (PS3.3 C.7.6.3, C.7.6.6).

    Raises
    ------
    ImageLoadError
        Several values (``64\\64``) or a value that is not a number, named with the
        element and its values (each whole number as a number: ``+4`` as ``4``; not
        Python's word for the container, pydicom's ``MultiValue`` or the plain read's
        ``list``, which the same file gave either way).
    """
    several = isinstance(value, list | tuple) or type(value).__name__ == "MultiValue"
    try:
        if several:
            raise TypeError
        return int(value)
    except (TypeError, ValueError):
        shown = "\\".join(_as_read(v) for v in value) if several else _as_read(value)
        raise ImageLoadError(
            f"{path}: {name} is '{shown}', not one whole number: the image's size is unknown"
        ) from None


def _as_read(value) -> str:
    """One value of an element for a message: a whole number as ``int`` writes it
    (pydicom's ``IS("+4")`` and the plain read's ``4`` alike), else its text."""
    try:
        return str(int(value))
    except (TypeError, ValueError):
        return str(value)


def _decode_dicom(
    ds, path: Path, slice_index: int | None, display_side: int | None = None
) -> SliceData:
    from pydicom.pixels import pixel_array

    rows, columns = element_value(ds, 0x00280010), element_value(ds, 0x00280011)
    if rows is None or columns is None:  # a header read without pixels
        raise ImageLoadError(f"{path}: DICOM file holds no image (no Rows/Columns)")
    rows = _one_number(path, "Rows (0028,0010)", rows)
    columns = _one_number(path, "Columns (0028,0011)", columns)
    check_pixel_count(path, rows * columns)
    check_encapsulated(ds, path)  # what each codestream declares, before any decoder runs
    frames = element_value(ds, 0x00280008, 1)  # Number of Frames
    count = _one_number(path, "Number of Frames (0028,0008)", frames) if frames else 1
    index = count // 2 if slice_index is None else max(0, min(int(slice_index), count - 1))
    keys = ds.keys()  # integer tags: `in ds` would make a Tag() of each
    if count > 1 or 0x7FE00010 not in keys:  # Pixel Data
        # Decode only the frame we show (pydicom >= 3 decodes a single frame on request).
        check_native_frames(ds, path, count)  # pydicom reads a frame past the element's end
        try:
            arr = pixel_array(path, index=index if count > 1 else None)
        except ValueError as exc:  # pydicom's check of a group 0028 value: with the file
            raise ImageLoadError(f"{path}: cannot decode image: {exc}") from exc
    else:  # the header and pixels are read already: decode them, without a second read
        reduced = _reduced_decode(ds, display_side) if display_side else None
        if reduced is None:
            native = native_frame(ds)
            reduced = (ds.pixel_array if native is None else native), 0
        arr, levels = reduced
        if levels:
            return orient(_reduced(_decode_frame(arr, ds, index, count), ds, levels), ds)
    return orient(_decode_frame(arr, ds, index, count), ds)


def _reduced_decode(ds, display_side: int) -> tuple[np.ndarray, int] | None:
    """The frame of a JPEG 2000 ``ds`` at reduced resolution for the view (see
    :func:`.j2k.reduced_frame`), or None. Files with overlay planes (on the full grid) and
    colour other than RGB or the JPEG 2000 YBR_ICT/YBR_RCT are decoded in full."""
    keys = ds.keys()
    if any(tag in keys for tag in _OVERLAY_DATA):
        return None
    if int(ds.get("SamplesPerPixel", 1) or 1) != 1:
        photometric = str(ds.get("PhotometricInterpretation", "")).strip()
        if photometric not in ("RGB", "YBR_ICT", "YBR_RCT"):
            return None
    from medrcube_desktop.imaging.j2k import reduced_frame

    return reduced_frame(ds, display_side)


def _reduced(data: SliceData, ds, levels: int) -> SliceData:
    """Mark ``data`` as decoded ``levels`` resolution levels down: pixel spacing (in
    :func:`_orient`) and boxes scale by 2**levels, and a note says so."""
    data.reduction = 2**levels
    height, width = data.pixels.shape[:2]
    data.notes.append(
        f"reduced 1/{data.reduction}: decoded at {width}x{height} of the file's "
        f"{int(ds.Columns)}x{int(ds.Rows)} pixels for this view (zoom in for full resolution)"
    )
    return data


def _decode_frame(arr: np.ndarray, ds, index: int, count: int) -> SliceData:
    """:class:`SliceData` of the decoded frame ``arr`` (stored values), before orientation."""
    from pydicom.pixels import apply_color_lut

    photometric = str(element_value(ds, 0x00280004, "MONOCHROME2")).strip()
    modality = str(element_value(ds, 0x00080060, "")).strip() or None
    if photometric == "PALETTE COLOR":
        rgb = apply_color_lut(arr, ds)
        bits = int(ds.RedPaletteColorLookupTableDescriptor[2])
        if bits > 8:  # scale 16-bit palette entries to 8 bits instead of truncating them
            rgb = np.rint(rgb.astype(np.float64) * 255.0 / (2**bits - 1))
        return SliceData(
            rgb.astype(np.uint8), True, photometric, modality, slice_index=index, slice_count=count
        )
    if arr.ndim == 3 and arr.shape[-1] == 3:  # RGB; pydicom already converted YBR to RGB
        if arr.dtype != np.uint8:
            bits = int(ds.get("BitsStored", 16))
            arr = np.rint(arr.astype(np.float64) * 255.0 / (2**bits - 1))
        return SliceData(
            arr.astype(np.uint8), True, "RGB", modality, slice_index=index, slice_count=count
        )
    # the stored range, read once: it bounds the rescale (int16 or wider) and rules
    # padding out without comparing every pixel
    span = (int(arr.min()), int(arr.max())) if arr.dtype.kind in "iu" and arr.size else None
    notes: list[str] = []
    pixels = _apply_modality(arr, ds, index, span, notes)
    padding = _padding_mask(arr, ds, span)
    supplemental = _supplemental_palette(arr, ds)
    windows = dicom_windows(ds, index)
    window = windows[0] if windows else None
    function = str(element_value(ds, 0x00281056, "LINEAR")).strip() or "LINEAR"
    if supplemental is not None:
        notes.append("Supplemental Palette Color LUT: mapped values shown in colour")
    if padding is not None and padding.any():
        pixels = np.where(padding, np.nan, pixels)  # NaN: left out of windows, shown black
        notes.append(f"{int(padding.sum())} padding pixels (Pixel Padding Value) shown black")
    if str(element_value(ds, 0x20500020, "")).strip().upper() == "INVERSE":
        # PS3.3 C.11.6: INVERSE shows the lowest value white. With MONOCHROME1 it is the
        # very mechanism of that inversion (C.8.11.6.1.2), so it is never applied twice.
        photometric = "MONOCHROME1"
        notes.append("Presentation LUT Shape INVERSE")
    keys = ds.keys()  # integer tags in the keys view: no Tag() conversion as `in ds` does
    if window is None and 0x00283010 in keys and ds.VOILUTSequence:  # VOI LUT Sequence
        pixels, window = _apply_voi_lut_sequence(pixels, ds)
        function = "LINEAR_EXACT"  # the LUT output range maps straight onto 0..255
        notes.append("VOI LUT Sequence of the file applied")
        unit = "VOI LUT output"
    else:
        unit = value_unit(ds, modality)
    return SliceData(
        pixels,
        False,
        photometric,
        modality,
        graphics=_overlay_planes(ds, pixels.shape, index, notes),
        supplemental=None if supplemental is None else supplemental[0],
        supplemental_rgb=None if supplemental is None else supplemental[1],
        window=window,
        voi_lut_function=function,
        slice_index=index,
        slice_count=count,
        notes=notes,
        file_windows=windows,
        value_unit=unit,
    )


def _apply_voi_lut_sequence(pixels: np.ndarray, ds) -> tuple[np.ndarray, tuple[float, float]]:
    """Apply the first item of the VOI LUT Sequence (PS3.3 C.11.2.1.1) with pydicom.

    Returns the LUT output as float and the window that maps its full output range
    (0 .. 2**bits - 1, bits from the LUT Descriptor) onto the display range.
    """
    from pydicom.pixels import apply_voi

    lut = ds.VOILUTSequence[0]
    output = np.asarray(apply_voi(pixels, ds, index=0), dtype=np.float64)
    bits = int(lut.LUTDescriptor[2])
    top = float(2**bits - 1)
    return output, (top / 2.0, top)


def _apply_modality(
    arr: np.ndarray,
    ds,
    frame: int,
    span: tuple[int, int] | None = None,
    notes: list[str] | None = None,
) -> np.ndarray:
    """Modality LUT or Rescale Slope/Intercept (PS3.3 C.11.1), incl. functional groups.

    ``span`` is ``(min, max)`` of the stored ``arr`` when the caller has it (integers).
    A rescale that cannot be used (a slope that is zero or not finite, an intercept that
    is not finite, or values beyond float64) is ignored, slope 1 and intercept 0: the
    stored values are shown, and a note in ``notes`` says so.

    Returns
    -------
    (H, W) ndarray in modality units: the stored integers themselves (or int16, else
    int32, when every value computed fits) when the slope and intercept are whole
    numbers (CT's 1 and -1024), so the renderer can map them through a lookup table; float64 otherwise (pydicom's ``apply_modality_lut``).
    """
    from pydicom.pixels import apply_modality_lut

    keys = ds.keys()
    if 0x00283000 in keys:  # Modality LUT Sequence
        return np.asarray(apply_modality_lut(arr, ds), dtype=np.float64)
    source = ds if 0x00281053 in keys or 0x00281052 in keys else None  # Rescale Slope, Intercept
    if source is None:
        source = functional_group_item(ds, frame, "PixelValueTransformationSequence")
    try:
        slope = float(element_value(source, 0x00281053, 1.0)) if source is not None else 1.0
        intercept = float(element_value(source, 0x00281052, 0.0)) if source is not None else 0.0
    except (TypeError, ValueError):  # a malformed value: pydicom's own reading decides
        return np.asarray(apply_modality_lut(arr, ds), dtype=np.float64)
    whole = arr.dtype.kind in "iu"
    if whole and slope == 1 and intercept == 0:
        return arr
    if span is None and whole:
        span = (int(arr.min(initial=0)), int(arr.max(initial=0)))
    unusable = _unusable_rescale(slope, intercept, span)
    if unusable:
        if notes is not None:
            notes.append(f"{unusable}: ignored, stored values shown (slope 1, intercept 0)")
        return arr if whole else arr.astype(np.float64)
    if whole and span is not None and slope.is_integer() and intercept.is_integer():
        low, high = min(span[0], 0), max(span[1], 0)
        ends = [low * slope + intercept, high * slope + intercept]
        steps = [low, high, low * slope, high * slope, *ends]  # every value computed
        narrow = np.int16 if all(-(2**15) <= v < 2**15 for v in steps) else np.int32
        if narrow is np.int16 or max(abs(v) for v in ends) < 2**31:
            # one pass into the narrow type (int16 for CT's range: half the memory
            # traffic); every value computed fits it, so no step can wrap around
            if slope == 1:
                return np.add(arr, int(intercept), dtype=narrow)
            out = np.multiply(arr, int(slope), dtype=narrow)
            np.add(out, int(intercept), out=out)
            return out
    return arr.astype(np.float64) * slope + intercept


def _unusable_rescale(slope: float, intercept: float, span: tuple[int, int] | None) -> str:
    """Why Rescale Slope/Intercept cannot be applied ("" when they can): a zero or
    non-finite slope maps every value to one (or to NaN), a non-finite intercept too, and
    stored values (``span``: their min, max) rescaled beyond float64 become infinite."""
    if not math.isfinite(slope) or slope == 0:
        return f"Rescale Slope {slope:g} is not usable (zero or not finite)"
    if not math.isfinite(intercept):
        return f"Rescale Intercept {intercept:g} is not usable (not finite)"
    if span is not None and not all(math.isfinite(v * slope + intercept) for v in span):
        return f"Rescale Slope {slope:g} and Intercept {intercept:g} exceed float64"
    return ""


def _padding_mask(stored: np.ndarray, ds, span: tuple[int, int] | None = None) -> np.ndarray | None:
    """Stored pixels that are padding, not patient (PS3.3 C.7.5.1.1.2).

    Pixel Padding Value alone marks one value; with Pixel Padding Range Limit every value
    between the two (inclusive) is padding. Compared on stored values, before rescale.
    None when the file names no padding, or when its padding lies outside ``span``
    (``(min, max)`` of ``stored``: no pixel can be padding, nothing is compared).
    """
    keys = ds.keys()
    if 0x00280120 not in keys:  # Pixel Padding Value
        return None
    try:
        first = float(element_value(ds, 0x00280120))  # Pixel Padding Value
        last = float(element_value(ds, 0x00280121, first))  # Pixel Padding Range Limit
    except (TypeError, ValueError):
        return None
    low, high = min(first, last), max(first, last)
    if span is not None and (high < span[0] or low > span[1]):
        return None
    if first == last:  # one value (no range limit): one comparison, not two and an AND
        return stored == first
    return (stored >= low) & (stored <= high)


def _overlay_planes(ds, shape: tuple[int, ...], frame: int, notes: list[str]) -> np.ndarray | None:
    """The file's own graphics: every Overlay Plane (60xx groups, PS3.3 C.9.2) on this frame.

    Overlays mark regions or text the sender burned in logically (a measured lesion, "F"
    markers); viewers draw them. Planes on another grid or frame are left out. Returns an
    ``(H, W)`` bool array or None.
    """
    planes = None
    keys = ds.keys()
    for tag in _OVERLAY_DATA:  # integer tags against the dataset's keys: no Tag() each
        if tag not in keys:
            continue
        group = tag >> 16
        marked = _plain_overlay(ds, tag)
        if marked is not None:  # one frame, its exact length: unpacked straight to bool
            if marked.shape != tuple(shape[:2]):
                notes.append(f"overlay {group:04X} is on another grid: not drawn")
                continue
            planes = marked if planes is None else planes | marked
            continue
        try:
            plane = np.asarray(ds.overlay_array(group))
        except Exception as exc:  # a malformed plane must not hide the image
            notes.append(f"overlay {group:04X} unreadable: {exc}")
            continue
        if plane.ndim == 3:  # multi-frame overlay: the frame shown, when it has one
            plane = (
                plane[frame] if frame < plane.shape[0] else np.zeros(plane.shape[1:], plane.dtype)
            )
        if plane.shape != tuple(shape[:2]):
            notes.append(f"overlay {group:04X} is on another grid: not drawn")
            continue
        # pydicom unpacks the bits to uint8 0 and 1 (np.unpackbits): read as bool in
        # place, not copied into a second (H, W) array (one temporary fewer per render:
        # with the RGBA it pushed a render's frees past glibc's heap trim, issue 25)
        if plane.dtype == np.uint8 and plane.size and plane.max() <= 1:
            marked = plane.view(bool)
        else:
            marked = plane.astype(bool)
        planes = marked if planes is None else planes | marked
    return planes


def _plain_overlay(ds, data_tag: int) -> np.ndarray | None:
    """The Overlay Data at ``data_tag`` ((60xx,3000)) of a single-frame plane whose
    data has exactly its length (with the pad byte of an odd one), as ``(Overlay Rows,
    Overlay Columns)`` bool; None for any other plane (no Overlay Rows, Columns or
    Bits Allocated, a Number of Frames in Overlay other than 1, another length, a value
    not a number), which ``ds.overlay_array`` reads, with its warnings and errors.

    The same bits as ``ds.overlay_array`` (pydicom's ``get_overlay_array``: the bytes
    unpacked least significant bit first, PS3.5 8.1.1, cut to rows x columns), read
    once with the elements it reads looked up by integer tag, unpacked straight to
    the pixels' count and viewed as bool (0 and 1), not unpacked whole, cut and copied.
    """
    keys = ds.keys()
    base = data_tag & 0xFFFF0000
    if (base | 0x0010) not in keys or (base | 0x0011) not in keys or (base | 0x0100) not in keys:
        return None
    try:
        rows = element_value(ds, base | 0x0010)  # Overlay Rows
        columns = element_value(ds, base | 0x0011)  # Overlay Columns
        element_value(ds, base | 0x0100)  # Overlay Bits Allocated, read as pydicom reads it
        frames = element_value(ds, base | 0x0015, 1)  # Number of Frames in Overlay
        data = ds[data_tag].value
    except Exception:  # pydicom's own reading says what is wrong
        return None
    if not all(type(v) is int or type(v).__name__ == "IS" for v in (rows, columns, frames)):
        return None
    count = int(rows) * int(columns)
    if int(frames) != 1 or count <= 0 or not isinstance(data, bytes):
        return None
    length = count // 8 + (count % 8 > 0)
    if len(data) != length + length % 2:
        return None
    bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), count=count, bitorder="little")
    return bits.view(bool).reshape(int(rows), int(columns))


def _supplemental_palette(stored: np.ndarray, ds) -> tuple[np.ndarray, np.ndarray] | None:
    """Colour for the stored values a Supplemental Palette Color LUT maps (PS3.3 C.7.6.3.1.5).

    In a MONOCHROME2 image with palette descriptors, stored values from the descriptor's
    first mapped value upward are shown through the palette (values past the table take
    its last entry); the others stay greyscale. pydicom's ``apply_color_lut`` does not
    support this module, hence our own lookup. Segmented palettes are not handled.

    Returns
    -------
    (mask, rgb) : (H, W) bool and (H, W, 3) uint8, or None when the file has no such LUT.
    """
    keys = ds.keys()  # Red Palette Color Lookup Table Descriptor and Data
    if 0x00281101 not in keys or 0x00281201 not in keys:
        return None
    if str(ds.get("PixelPresentation", "COLOR")).strip().upper() not in ("COLOR", "MIXED"):
        return None
    try:
        entries, first, bits = (int(v) for v in ds.RedPaletteColorLookupTableDescriptor)
        entries = entries or 65536  # PS3.3 C.7.6.3.1.5: 0 means 2**16 entries
        little = ds.original_encoding[1] is not False  # (implicit VR, little endian)
        dtype = np.dtype("<u2" if bits > 8 else "u1").newbyteorder("<" if little else ">")
        tables = [
            np.frombuffer(ds[f"{colour}PaletteColorLookupTableData"].value, dtype=dtype)[:entries]
            for colour in ("Red", "Green", "Blue")
        ]
    except (KeyError, ValueError, TypeError):
        return None
    mask = stored >= first
    index = np.clip(stored.astype(np.int64) - first, 0, entries - 1)
    scale = 255.0 / (2**bits - 1)
    rgb = np.stack([np.rint(table[index] * scale) for table in tables], axis=-1).astype(np.uint8)
    return mask, rgb
