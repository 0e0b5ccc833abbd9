"""Loading one displayable 2-D slice (and its mask) from DICOM, NIfTI, NRRD/MHA, a
DICOM series folder or a picture file.

This module holds the dispatcher and the picture loader; the slice model and the helpers
the readers share are in :mod:`.slice_data`, the readers in :mod:`.dicom`, :mod:`.nifti`,
:mod:`.itk` and :mod:`.series` (imported when a file of theirs is opened). No Qt here.

Arrays follow numpy order: ``(rows, columns)``, row 0 at the top of the screen.
"""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import numpy as np

from medrcube_desktop.core.files import open_regular, same_file
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.declared import (
    PngStream,
    check_png_declared,
    png_damaged_chunk,
    png_image_rows,
    png_rows_present,
    png_stream,
)
from medrcube_desktop.imaging.geometry import EXIF_TRANSFORMS, DisplayTransform
from medrcube_desktop.imaging.masks import mask_labels, picture_mask_values
from medrcube_desktop.imaging.slice_data import (
    SliceData,
    check_pixel_count,
    require_file,
)

DICOM_SUFFIXES = {".dcm", ".dicom", ".ima"}
NIFTI_SUFFIXES = (".nii", ".nii.gz")
ITK_SUFFIXES = (".nrrd", ".nhdr", ".mha", ".mhd")
PICTURE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"}


def image_kind(path: Path) -> str:
    """Return ``"dicom"``, ``"nifti"``, ``"itk"`` (NRRD/MHA) or ``"picture"`` from the name.

    Files without a known suffix are sniffed for the DICOM preamble (PS3.10 7.1: 128
    bytes then ``DICM``). Raises :class:`ImageLoadError` for anything else.
    """
    name = path.name.lower()
    if path.is_dir():
        return "series"
    if name.endswith(NIFTI_SUFFIXES):
        return "nifti"
    if name.endswith(ITK_SUFFIXES):
        return "itk"
    if path.suffix.lower() in DICOM_SUFFIXES:
        return "dicom"
    if path.suffix.lower() in PICTURE_SUFFIXES:
        return "picture"
    require_file(path)
    try:
        with open_regular(path) as fh:
            head = fh.read(132)
    except OSError as exc:
        raise ImageLoadError(f"{path}: cannot read: {exc}") from exc
    if head[128:132] == b"DICM":
        return "dicom"
    raise ImageLoadError(
        f"{path}: unknown image format (expected DICOM, NIfTI, NRRD/MHA, PNG, JPEG or TIFF)"
    )


def load_slice(
    path: Path,
    slice_index: int | None = None,
    mask_path: Path | None = None,
    modality: str | None = None,
    display_side: int | None = None,
) -> SliceData:
    """Load the slice to display from ``path``, with its mask if one is given.

    Parameters
    ----------
    path : Path
        DICOM (single- or multi-frame), NIfTI-1/2 (3-D or 4-D) or PNG/JPEG/TIFF file.
    slice_index : int or None
        Frame (DICOM) or slice along the third voxel axis (NIfTI). ``None``: for NIfTI
        the slice with the largest mask area, else the central slice (paper Appendix
        E.1); for multi-frame DICOM the central frame (masks are 2-D pictures there).
    mask_path : Path or None
        Label mask on the image grid: NIfTI for a NIfTI volume, a picture for a 2-D image.
    modality : str or None
        The item's modality ("CT", "MRI"...), a hint for files that record none (NIfTI,
        pictures): a CT NIfTI in Hounsfield units then gets the CT window.
    display_side : int or None
        The view's longer side in device pixels, for display only: a single-frame JPEG
        2000 DICOM at least twice as large may be decoded at a reduced resolution
        (``SliceData.reduction``); not with a mask (drawn on the file's grid). None: full.

    Raises
    ------
    ImageLoadError
        The file (or mask) cannot be read or decoded, the mask is on another grid, is
        the image itself, or is no label mask (see :func:`.masks.mask_labels`).
    """
    modality = "CT" if modality and modality.strip().upper() == "CT" else None
    require_file(path)  # before any reader opens it: a named pipe blocks forever
    if mask_path is not None:
        require_file(mask_path, "mask")
        if same_file(mask_path, path):  # the image drawn over itself as 200 labels
            raise ImageLoadError(
                f"{mask_path}: mask_path names the image itself; a mask is a separate file "
                "of label numbers (0 = none) on the image's grid"
            )
    kind = image_kind(path)
    try:
        if kind == "nifti":
            from medrcube_desktop.imaging.nifti import load_nifti_slice

            return load_nifti_slice(path, slice_index, mask_path, modality)
        if kind == "series":
            from medrcube_desktop.imaging.series import load_series_slice

            return load_series_slice(path, slice_index, mask_path, modality)
        if kind == "itk":
            from medrcube_desktop.imaging.itk import load_itk_slice

            return load_itk_slice(path, slice_index, mask_path, modality)
        if kind == "dicom":
            from medrcube_desktop.imaging.dicom import load_dicom_slice

            data = load_dicom_slice(path, slice_index, None if mask_path else display_side)
        else:
            data = _load_picture(path)
    except ImageLoadError:
        raise
    except Exception as exc:  # decoders raise many types; name the file and keep the cause
        raise ImageLoadError(f"{path}: cannot decode image: {exc}") from exc
    if mask_path is not None:  # the mask is on the stored grid: give it the same transform
        mask = _load_picture_mask(mask_path, data.stored_shape or data.pixels.shape[:2])
        data.mask = data.transform.apply(mask)
    return data


def _load_picture(path: Path) -> SliceData:
    """PNG/JPEG/TIFF through Pillow: 8- and 16-bit grey kept as stored integers (uint8,
    uint16; the renderer maps them through a lookup table), float kept float, EXIF
    orientation.

    The pixels are read as stored and turned with the EXIF Orientation tag through a
    :class:`DisplayTransform`, so that a mask or box given on the stored grid follows.
    """

    require_file(path)
    check_png_declared(path)  # a PNG's IHDR against the limit and its file, before Pillow
    # a plain grey PNG: inflated and unfiltered in one pass, by Pillow's own decoder
    stream = png_stream(path)
    plain = _plain_grey_png(path, stream) if stream is not None else None
    if plain is not None:
        return plain
    # any other: inflated once (its rows counted, then decoded from memory without
    # inflating again); a PNG whose data ends early: its rows held, black below
    rows = png_image_rows(path)
    if rows is not None and rows.held == 0:
        raise ImageLoadError(
            f"{path}: the file ends before the first of its {rows.height} rows: cut short"
        )
    padded = rows.as_png() if rows is not None else None
    source = io.BytesIO(padded[0]) if padded is not None else open_regular(path)
    with source as handle, _open_picture(handle, path) as img:
        check_pixel_count(path, img.width * img.height)  # before decoding anything
        orientation = int(img.getexif().get(0x0112, 1) or 1)
        if img.mode in ("I;16", "I;16B", "I;16L", "I"):
            arr = np.asarray(img)
            bits = 16 if img.mode.startswith("I;16") or arr.max(initial=0) > 255 else 8
            if arr.dtype.byteorder not in ("=", "|"):
                arr = arr.astype(arr.dtype.newbyteorder("="))  # native order for the table
            data = SliceData(arr, False, "MONOCHROME2", source_bits=bits, value_unit="grey level")
        elif img.mode == "F":  # 32-bit float (TIFF): window from its own range
            data = SliceData(
                np.asarray(img, dtype=np.float64), False, "MONOCHROME2", value_unit="value"
            )
        elif img.mode in ("L", "1"):
            gray = np.asarray(img if img.mode == "L" else img.convert("L"), dtype=np.uint8)
            data = SliceData(gray, False, "MONOCHROME2", source_bits=8, value_unit="grey level")
        else:
            data = SliceData(
                np.asarray(img.convert("RGB"), dtype=np.uint8), True, "RGB", source_bits=8
            )
    short = padded[1:] if padded is not None and padded[1] < padded[2] else None
    if short is not None:  # the missing rows are drawn black: said
        data.notes.append(
            f"the file ends after row {short[0]} of {short[1]}: the rows below are "
            "missing, drawn black (the file is cut short)"
        )
    transform = EXIF_TRANSFORMS.get(orientation, DisplayTransform())
    data.display(transform, f"turned upright by its EXIF orientation ({orientation})")
    return data


PLAIN_PNG_CHUNKS = frozenset({b"IHDR", b"pHYs", b"gAMA", b"cHRM", b"sRGB", b"tIME", b"sBIT"})
"""Chunks (besides the image data) of a grey PNG whose pixels :func:`_plain_grey_png`
unfilters itself: none of them changes the pixels, mode or orientation Pillow gives
(no eXIf, no text chunk that could hold EXIF or XMP orientation, no tRNS)."""


def _plain_grey_png(path: Path, stream: PngStream) -> SliceData | None:
    """A complete 8- or 16-bit greyscale PNG's :class:`SliceData`, its IDAT data
    inflated and unfiltered by Pillow's own PNG decoder straight into the array, in one
    pass (no rows inflated beforehand, no second image, no copy out of Pillow: issue
    25's 16-bit PNG render); None for any other PNG (or any doubt: a chunk outside
    :data:`PLAIN_PNG_CHUNKS`, a CRC that does not match, data that ends before the last
    row, a decoder error), which :func:`_load_picture` reads the other way, as before.

    The pixels equal ``np.asarray(Image.open(path))``: the same decoder (``zip``, raw
    mode ``I;16B`` or ``L``, as PngImagePlugin sets it) on the same data, given chunk by
    chunk as Pillow gives it.
    """
    from PIL import Image

    if stream.colour != 0 or stream.depth not in (8, 16):
        return None
    for chunk in (*stream.kept, *stream.after):  # Pillow checks these CRCs: any doubt, its way
        if chunk[4:8] not in PLAIN_PNG_CHUNKS or zlib.crc32(chunk[4:-4]) != int.from_bytes(
            chunk[-4:], "big"
        ):
            return None
    width, height = stream.width, stream.height
    limit = Image.MAX_IMAGE_PIXELS
    if limit and width * height > limit:  # Pillow's own warning or refusal: its way
        return None
    check_pixel_count(path, width * height)
    mode, raw_mode, dtype = (
        ("I;16", "I;16B", np.uint16) if stream.depth == 16 else ("L", "L", np.uint8)
    )
    if not width or not height:
        return None
    pixels = np.empty((height, width), dtype=dtype)
    image = Image.frombuffer(mode, (width, height), pixels, "raw", mode, 0, 1)
    if not image.readonly:  # Pillow copied instead of mapping ``pixels``: not this way
        return None
    # the decoder ends without an error when the zlib stream ends before the last row,
    # which it writes only whole: a last row still holding this pattern was not
    # decoded, or holds the pattern itself (the other way then tells)
    unwritten = _last_row_pattern(width, dtype)
    pixels[-1] = unwritten
    decoder = Image._getdecoder(mode, "zip", (raw_mode,))
    try:
        decoder.setimage(image.im, (0, 0, width, height))
        done = _feed(decoder, stream.idat)
    finally:
        decoder.cleanup()
    if not done or np.array_equal(pixels[-1], unwritten):
        return None
    pixels.flags.writeable = False  # as np.asarray(image) gives it
    # no orientation chunk: the identity transform, which changes nothing
    return SliceData(
        pixels, False, "MONOCHROME2", source_bits=stream.depth, value_unit="grey level"
    )


def _last_row_pattern(width: int, dtype) -> np.ndarray:
    """``(width,)`` values of ``dtype`` (uint8 or uint16) from a multiplicative hash of
    the column (Knuth's 2654435761): no row a picture is likely to hold."""
    column = np.arange(width, dtype=np.uint64)
    return ((column * 2654435761 + 0x9E3779B9) >> 13).astype(dtype)


def _feed(decoder, parts: list) -> bool:
    """Give ``parts`` (a zlib stream, in pieces) to a Pillow ``zip`` decoder as
    ``ImageFile.load`` does; whether it decoded every row without an error (it stops at
    its last row: the stream's end and Adler-32 are not needed)."""
    for part in parts:
        while len(part):
            consumed, error = decoder.decode(part)
            if consumed < 0:
                return error >= 0
            if consumed == 0:
                return False
            part = part[consumed:]
    return False


def _open_picture(handle, path: Path, what: str = "image"):
    """``PIL.Image.open(handle)`` for the file ``path``; a file Pillow cannot identify
    is refused naming what is wrong with it, not with Pillow's "cannot identify image
    file" and the repr of ``handle`` (a memory address that changed from run to run).

    Raises
    ------
    ImageLoadError
        Pillow recognises no format in it: a PNG chunk whose CRC does not match (Pillow
        refuses a damaged chunk before the image data at open), else said as that.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        return Image.open(handle)
    except UnidentifiedImageError:
        damaged = png_damaged_chunk(path)
        why = (
            f"its {damaged} chunk's CRC does not match its data: the file is damaged "
            "(PNG 1.2 section 5.4)"
            if damaged is not None
            else "Pillow recognises no picture format in it (PNG, JPEG, TIFF...): damaged, "
            "or not a picture"
        )
        verb = "cannot decode image" if what == "image" else f"cannot read {what}"
        raise ImageLoadError(f"{path}: {verb}: {why}") from None


def _load_picture_mask(path: Path, shape: tuple[int, ...]) -> np.ndarray:

    require_file(path, "mask")
    check_png_declared(path)
    try:
        with open_regular(path) as handle, _open_picture(handle, path, "mask") as img:
            check_pixel_count(path, img.width * img.height)  # before decoding anything
            short = png_rows_present(path) if img.format == "PNG" else None
            if short is not None:  # its labels below would be lost without a word
                raise ImageLoadError(
                    f"{path}: the mask ends after row {short[0]} of {short[1]}: the file "
                    "is cut short"
                )
            img.load()
            values = picture_mask_values(img, path)
    except ImageLoadError:
        raise
    except Exception as exc:
        raise ImageLoadError(f"{path}: cannot read mask: {exc}") from exc
    mask = mask_labels(values, path)  # label values, 0 = none
    if mask.shape != tuple(shape):
        raise ImageLoadError(
            f"{path}: mask is {mask.shape[1]}x{mask.shape[0]} pixels, image is {shape[1]}x{shape[0]}"
        )
    return mask
