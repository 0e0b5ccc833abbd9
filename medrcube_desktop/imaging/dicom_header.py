"""What a DICOM header says about showing its pixels: orientation, pixel spacing, the
windows it offers, the unit of its values, and the Enhanced multi-frame functional
groups (PS3.3 C.7.6.16) that hold them when the top level does not. No pixels here
(:mod:`.dicom` decodes them) and no Qt.

Elements are looked up by integer tag (``0x00280030 in ds.keys()``, ``ds[tag].value``):
a keyword (``ds.PixelSpacing``) costs pydicom a dictionary translation and a ``Tag()``
on every access, which added up to a tenth of a small file's render. Values are still
converted by pydicom, with its validation.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from collections.abc import Callable
from typing import Any

from medrcube_desktop.imaging.geometry import (
    cross_section_display_transform,
    lps_direction_code,
    projection_display_transform,
)
from medrcube_desktop.imaging.slice_data import SliceData, plausible_aspect

FUNCTIONAL_GROUPS = (0x52009229, 0x52009230)
"""Shared and Per-frame Functional Groups Sequence (5200,9229), (5200,9230)."""

PIXEL_SPACING = 0x00280030
IMAGER_PIXEL_SPACING = 0x00181164
PIXEL_ASPECT_RATIO = 0x00280034
IMAGE_ORIENTATION = 0x00200037
PATIENT_ORIENTATION = 0x00200020
WINDOW_CENTER, WINDOW_WIDTH = 0x00281050, 0x00281051
RESCALE_TYPE = 0x00281054

PROJECTION_MODALITIES = {"CR", "DX", "RF", "XA", "IO", "PX", "RG", "DF"}
"""Projection radiography (DICOM Modality codes, PS3.3 C.7.3.1.1.1), shown as if facing
the patient. Mammography (MG) has its own hanging conventions and is left as stored."""

CROSS_SECTION_MODALITIES = {"CT", "MR", "PT", "NM"}
"""Modalities shown in radiological convention from Image Orientation (Patient)."""

SPACING_SOURCES = {
    PIXEL_SPACING: "Pixel Spacing (0028,0030)",
    IMAGER_PIXEL_SPACING: "Imager Pixel Spacing (0018,1164), at the detector",
}
"""How the caliper names where its mm come from. Imager Pixel Spacing is measured at the
detector, not in the patient: a projection radiograph magnifies (PS3.3 C.8.11.7)."""


def element_value(ds, tag: int, default: Any = None) -> Any:
    """The value of the element with integer ``tag`` in ``ds`` (a Dataset or a sequence
    item), or ``default`` when it is absent; as ``ds.get(keyword, default)``.

    An element not yet converted whose value is plain (:func:`plain_value`: a US, IS,
    DS or CS value that pydicom would read without a word) is read from its bytes
    here, into ``int``, ``float`` or ``str`` (a list of them for several values), and
    ``ds`` is left as it was; any other goes through pydicom (``ds[tag].value``).
    """
    raw = ds.get_item(tag)  # the element as read (None: absent), not converted
    if raw is None:
        return default
    plain = plain_value(raw)
    return ds[tag].value if plain is NOT_PLAIN else plain


NOT_PLAIN = object()
"""What :func:`plain_value` returns for an element pydicom should convert itself."""

_PLAIN_TEXT: dict[str, tuple[re.Pattern[bytes], int, Callable[[bytes], Any]]] = {
    "DS": (re.compile(rb" *[+\-]?(\d+|\d+\.\d*|\.\d+)([eE][+\-]?\d+)? *"), 16, float),
    "IS": (re.compile(rb" *[+\-]?\d+ *"), 12, int),
    "CS": (re.compile(rb"[A-Z0-9 _]+"), 16, bytes.decode),
}
"""Per text VR: what a value must match whole (pydicom's own ``VR_REGEXES``, without a
trailing newline, which its ``$`` would let through and its check then refuses), its
longest value (``MAX_VALUE_LEN``) and the type it is read as."""


@functools.cache
def _pydicom() -> tuple:
    """pydicom's ``RawDataElement``, ``config``, ``DicomDictionary`` and
    ``dictionary_VR``, imported once (not at every element)."""
    from pydicom import config
    from pydicom.datadict import DicomDictionary, dictionary_VR
    from pydicom.dataelem import RawDataElement

    return RawDataElement, config, DicomDictionary, dictionary_VR


def plain_value(raw) -> Any:
    """The value of a pydicom ``RawDataElement`` (read, not yet converted) when it is
    plain, else :data:`NOT_PLAIN`.

    Plain: VR US (one or more 2-byte values; not an element whose VR the dictionary
    leaves open, "US or SS", which pydicom settles) or DS, IS, CS text whose every value
    matches pydicom's own check of that VR (pattern and length: pydicom converts it
    without a warning, in any validation mode), pydicom's options at their defaults
    (no ``data_element_callback``, DS as float, IS and DS not numpy). Read as pydicom
    reads it (``struct`` in the element's byte order; the text's trailing spaces and
    NULs removed, split at backslashes): the same numbers and strings, as ``int``,
    ``float`` and ``str`` (a list for several values) in place of pydicom's
    ``IS``/``DSfloat``/``MultiValue``. Spares pydicom's conversion machinery (hooks,
    value objects, validation): about 15 us an element, which for the twenty a
    render reads was a quarter of a small file's render (issue 25 item 3).
    """
    raw_type, config, dictionary, dictionary_vr = _pydicom()
    if type(raw) is not raw_type or type(raw.value) is not bytes:
        return NOT_PLAIN
    if (
        config.data_element_callback is not None
        or config.use_DS_decimal
        or config.use_DS_numpy
        or config.use_IS_numpy
    ):
        return NOT_PLAIN
    known = dictionary.get(raw.tag)
    if known is not None and " or " in known[0]:  # "US or SS": pydicom decides by the file
        return NOT_PLAIN
    vr, value = raw.VR, raw.value
    if vr is None:  # implicit VR: the dictionary's, as pydicom takes it
        try:
            vr = known[0] if known is not None else dictionary_vr(raw.tag)
        except KeyError:
            return NOT_PLAIN
    if vr == "US":
        if len(value) == 2:
            return int.from_bytes(value, "little" if raw.is_little_endian else "big")
        if not value or len(value) % 2:
            return NOT_PLAIN
        order = "<" if raw.is_little_endian else ">"
        return list(struct.unpack(f"{order}{len(value) // 2}H", value))
    text = _PLAIN_TEXT.get(vr)
    if text is None:
        return NOT_PLAIN
    pattern, longest, kind = text
    items = value.rstrip(b" \x00").split(b"\\")
    for item in items:
        if len(item) > longest or pattern.fullmatch(item) is None:
            return NOT_PLAIN
    found = [kind(item) for item in items]
    return found[0] if len(found) == 1 else found


def functional_group_item(ds, frame: int, sequence: str):
    """Return the item of a functional-group macro for ``frame`` (per-frame, else shared).

    Enhanced multi-frame objects (PS3.3 C.7.6.16) keep Rescale and window values in
    functional groups instead of the top-level dataset. Without either sequence (every
    classic file) nothing is looked up.
    """
    keys = ds.keys()
    if FUNCTIONAL_GROUPS[0] not in keys and FUNCTIONAL_GROUPS[1] not in keys:
        return None
    for groups in ("PerFrameFunctionalGroupsSequence", "SharedFunctionalGroupsSequence"):
        seq = ds.get(groups)
        if not seq:
            continue
        item = seq[frame] if groups.startswith("PerFrame") and frame < len(seq) else seq[0]
        if sequence in item and item[sequence].value:
            return item[sequence].value[0]
    return None


def orient(data: SliceData, ds) -> SliceData:
    """Radiological display: radiographs by Patient Orientation, CT/MR by Image Orientation.

    Enhanced multi-frame objects keep orientation and spacing in the Plane Orientation and
    Pixel Measures functional groups (PS3.3 C.7.6.16.2.4 and .1); they are used when the
    top level has none.
    """
    frame = data.slice_index
    keys = ds.keys()
    top_spacing = PIXEL_SPACING in keys
    measures = None if top_spacing else functional_group_item(ds, frame, "PixelMeasuresSequence")
    source = ds if measures is None else measures
    data.pixel_aspect = pixel_aspect(source)
    data.pixel_spacing, data.spacing_source = pixel_spacing(source)
    if data.reduction > 1 and data.pixel_spacing is not None:  # a reduced decode's pixels
        row_mm, column_mm = data.pixel_spacing
        data.pixel_spacing = (row_mm * data.reduction, column_mm * data.reduction)
    plane = (
        ds
        if IMAGE_ORIENTATION in keys
        else functional_group_item(ds, frame, "PlaneOrientationSequence")
    )
    iop_values = None if plane is None else element_value(plane, IMAGE_ORIENTATION)
    if data.modality in CROSS_SECTION_MODALITIES and iop_values is not None:
        iop = [float(v) for v in iop_values]
        dot = sum(a * b for a, b in zip(iop[:3], iop[3:], strict=False))
        degenerate = len(iop) != 6 or abs(dot) > 0.1
        if not degenerate:  # rows run along the column cosines, columns along the row cosines
            data.axis_codes = (lps_direction_code(iop[3:]), lps_direction_code(iop[:3]))
        transform = cross_section_display_transform(iop)
        data.display(
            transform, "turned to radiological convention from Image Orientation (Patient)"
        )
        return data
    return _orient_projection(data, ds)


def _two_numbers(ds, tag: int) -> tuple[float, float] | None:
    """The two numbers of a VM 2 element (spacing, aspect ratio), or None when it is
    absent or malformed."""
    try:
        first, second = (float(v) for v in element_value(ds, tag))
    except (TypeError, ValueError):
        return None
    return first, second


def pixel_aspect(ds) -> float:
    """Height / width of a pixel: Pixel Spacing, else Imager Pixel Spacing (row, column
    spacing in mm), else Pixel Aspect Ratio (vertical, horizontal), PS3.3 C.7.6.3.1."""
    for tag in (PIXEL_SPACING, IMAGER_PIXEL_SPACING, PIXEL_ASPECT_RATIO):
        pair = _two_numbers(ds, tag)
        if pair is None:
            continue
        first, second = pair
        if first > 0 and second > 0 and math.isfinite(first / second):
            return plausible_aspect(first / second)
    return 1.0


def pixel_spacing(ds) -> tuple[tuple[float, float] | None, str | None]:
    """(row, column) spacing in mm from Pixel Spacing, else Imager Pixel Spacing, and
    which of the two (PS3.3 C.7.6.2.1.1, C.8.11.7); (None, None) when neither is valid."""
    for tag in (PIXEL_SPACING, IMAGER_PIXEL_SPACING):
        pair = _two_numbers(ds, tag)
        if pair is None:
            continue
        row, column = pair
        valid = row > 0 and column > 0 and math.isfinite(row) and math.isfinite(column)
        if valid and plausible_aspect(row / column) == row / column:
            return (row, column), SPACING_SOURCES[tag]
    return None, None


def _orient_projection(data: SliceData, ds) -> SliceData:
    """Show a radiograph with the patient's right on the viewer's left, head up.

    Uses Patient Orientation (0020,0020), PS3.3 C.7.6.1.1.1; other modalities unchanged.
    """
    if data.modality not in PROJECTION_MODALITIES:
        return data
    orientation = [str(v) for v in (element_value(ds, PATIENT_ORIENTATION) or [])]
    if len(orientation) == 2:  # (0020,0020): column direction first, then row direction
        data.axis_codes = (orientation[1], orientation[0])
    transform = projection_display_transform(orientation)
    flips = " and ".join(
        name
        for name, on in (("left-right", transform.flip_cols), ("top-bottom", transform.flip_rows))
        if on
    )
    data.display(
        transform,
        f"flipped {flips} to show patient right on screen left, head up "
        f"(Patient Orientation {chr(92).join(orientation)})",
    )
    return data


def value_unit(ds, modality: str | None) -> str:
    """What a modality-unit value of ``ds`` is, for the cursor readout.

    Rescale Type (0028,1054) when the file gives one other than "US" (unspecified),
    else "HU" for CT (Rescale to Hounsfield units, PS3.3 C.8.2.1), "signal (a.u.)" for
    MR (arbitrary units), "stored value" otherwise.
    """
    rescale_type = str(element_value(ds, RESCALE_TYPE) or "").strip()
    if rescale_type and rescale_type.upper() != "US":
        return rescale_type
    if modality == "CT":
        return "HU"
    if modality == "MR":
        return "signal (a.u.)"
    return "stored value"


def dicom_windows(ds, frame: int) -> list[tuple[float, float]]:
    """Every valid (center, width) pair the file offers, in file order.

    Window Center/Width (0028,1050/1051) may hold several values (PS3.3 C.11.2.1.2),
    paired by position; top level first, else the Frame VOI LUT functional group.
    """
    keys = ds.keys()
    source = ds if WINDOW_CENTER in keys and WINDOW_WIDTH in keys else None
    if source is None:
        source = functional_group_item(ds, frame, "FrameVOILUTSequence")
    if source is None:
        return []
    found = source.keys()
    if WINDOW_CENTER not in found or WINDOW_WIDTH not in found:
        return []
    centers = _values(element_value(source, WINDOW_CENTER))
    widths = _values(element_value(source, WINDOW_WIDTH))
    pairs: list[tuple[float, float]] = []
    for center, width in zip(centers, widths, strict=False):
        if (
            math.isfinite(center)
            and math.isfinite(width)
            and width > 0
            and (center, width) not in pairs
        ):
            pairs.append((center, width))
    return pairs


def _values(element_value) -> list[float]:
    """All numbers of a DS/IS value with VM >= 1; malformed or empty values are skipped."""
    multiple = (
        isinstance(element_value, list | tuple) or type(element_value).__name__ == "MultiValue"
    )
    numbers = []
    for value in element_value if multiple else [element_value]:
        try:
            numbers.append(float(value))
        except (TypeError, ValueError):
            continue
    return numbers
