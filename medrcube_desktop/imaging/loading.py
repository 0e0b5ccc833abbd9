"""Loading one displayable 2-D slice (and its mask) from DICOM, NIfTI or a picture file.

First version (issue 2); the clinical-grade loaders (series, NRRD/MHA, EXIF, several
windows) come with the rendering issue. No Qt here.

Arrays follow numpy order: ``(rows, columns)``, row 0 at the top of the screen.
"""

from __future__ import annotations

import functools
import logging
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.geometry import (
    EXIF_TRANSFORMS,
    DisplayTransform,
    projection_display_transform,
    voxel_display_transform,
)

DICOM_SUFFIXES = {".dcm", ".dicom", ".ima"}
NIFTI_SUFFIXES = (".nii", ".nii.gz")
PICTURE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"}


@dataclass
class SliceData:
    """One 2-D slice ready for intensity mapping, plus what is needed to map it.

    Attributes
    ----------
    pixels : ndarray
        Greyscale: ``(H, W)`` float64 in modality units (Hounsfield units for CT after
        Rescale Slope/Intercept, arbitrary units otherwise). Colour: ``(H, W, 3)`` uint8
        RGB.
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
        ``(H, W)`` bool on the same grid as ``pixels``.
    notes : list[str]
        Things the user should know (4-D file shown as first volume...).
    transform : DisplayTransform
        How ``pixels`` (and ``mask``) were turned from the stored array for display; a box
        given in stored pixels must follow it.
    stored_shape : tuple of (int, int) or None
        ``(H, W)`` of the stored array before ``transform`` (``None``: same as ``pixels``).
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
    transform: DisplayTransform = field(default_factory=DisplayTransform)
    stored_shape: tuple[int, int] | None = None

    def display(self, transform: DisplayTransform, note: str | None = None) -> None:
        """Apply ``transform`` to pixels (and mask) for display, remembering the stored shape."""
        if transform.is_identity:
            return
        self.stored_shape = self.stored_shape or tuple(self.pixels.shape[:2])
        self.pixels = transform.apply(self.pixels)
        if self.mask is not None:
            self.mask = transform.apply(self.mask)
        self.transform = transform
        if note:
            self.notes.append(note)


def image_kind(path: Path) -> str:
    """Return ``"dicom"``, ``"nifti"`` or ``"picture"`` from the file name.

    Files without a known suffix are sniffed for the DICOM preamble (PS3.10 7.1: 128
    bytes then ``DICM``). Raises :class:`ImageLoadError` for anything else.
    """
    name = path.name.lower()
    if name.endswith(NIFTI_SUFFIXES):
        return "nifti"
    if path.suffix.lower() in DICOM_SUFFIXES:
        return "dicom"
    if path.suffix.lower() in PICTURE_SUFFIXES:
        return "picture"
    try:
        with path.open("rb") as fh:
            head = fh.read(132)
    except OSError as exc:
        raise ImageLoadError(f"{path}: cannot read: {exc}") from exc
    if head[128:132] == b"DICM":
        return "dicom"
    raise ImageLoadError(f"{path}: unknown image format (expected DICOM, NIfTI, PNG, JPEG or TIFF)")


def load_slice(
    path: Path, slice_index: int | None = None, mask_path: Path | None = None
) -> SliceData:
    """Load the slice to display from ``path``, with its mask if one is given.

    Parameters
    ----------
    path : Path
        DICOM (single- or multi-frame), NIfTI-1/2 (3-D or 4-D) or PNG/JPEG/TIFF file.
    slice_index : int or None
        Frame (DICOM) or slice along the third voxel axis (NIfTI). ``None`` picks the
        slice with the largest mask area, else the central slice (paper Appendix E.1).
    mask_path : Path or None
        Label mask on the image grid: NIfTI for a NIfTI volume, a picture for a 2-D image.

    Raises
    ------
    ImageLoadError
        The file (or mask) cannot be read or decoded, or the mask is on another grid.
    """
    kind = image_kind(path)
    try:
        if kind == "nifti":
            return _load_nifti(path, slice_index, mask_path)
        data = _load_dicom(path, slice_index) if kind == "dicom" else _load_picture(path)
    except ImageLoadError:
        raise
    except Exception as exc:  # decoders raise many types; name the file and keep the cause
        raise ImageLoadError(f"{path}: cannot decode image: {exc}") from exc
    if mask_path is not None:  # the mask is on the stored grid: give it the same transform
        mask = _load_picture_mask(mask_path, data.stored_shape or data.pixels.shape[:2])
        data.mask = data.transform.apply(mask)
    return data


def _first(value: object) -> float:
    """First value of a possibly multi-valued DICOM number (DS/IS with VM > 1)."""
    if isinstance(value, list | tuple) or type(value).__name__ == "MultiValue":
        return float(value[0])  # type: ignore[index]
    return float(value)  # type: ignore[arg-type]


def _functional_group_item(ds, frame: int, sequence: str):
    """Return the item of a functional-group macro for ``frame`` (per-frame, else shared).

    Enhanced multi-frame objects (PS3.3 C.7.6.16) keep Rescale and window values in
    functional groups instead of the top-level dataset.
    """
    for groups in ("PerFrameFunctionalGroupsSequence", "SharedFunctionalGroupsSequence"):
        seq = ds.get(groups)
        if not seq:
            continue
        item = seq[frame] if groups.startswith("PerFrame") and frame < len(seq) else seq[0]
        if sequence in item and item[sequence].value:
            return item[sequence].value[0]
    return None


PROJECTION_MODALITIES = {"CR", "DX", "RF", "XA", "IO", "PX", "RG", "DF"}
"""Projection radiography (DICOM Modality codes, PS3.3 C.7.3.1.1.1), shown as if facing
the patient. Mammography (MG) has its own hanging conventions and is left as stored."""


def _load_dicom(path: Path, slice_index: int | None) -> SliceData:
    import pydicom

    logger = logging.getLogger("pydicom")
    level = logger.level
    logger.setLevel(logging.ERROR)  # pydicom's warnings become notes on the image instead
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = _decode_dicom(pydicom.dcmread(path, stop_before_pixels=True), path, slice_index)
    finally:
        logger.setLevel(level)
    messages = list(dict.fromkeys(str(w.message).split(". Please see")[0] for w in caught))
    data.notes.extend(f"pydicom: {m}" for m in messages[:3])
    return data


def _orient_projection(data: SliceData, ds) -> SliceData:
    """Show a radiograph with the patient's right on the viewer's left, head up.

    Uses Patient Orientation (0020,0020), PS3.3 C.7.6.1.1.1; other modalities unchanged.
    """
    orientation = [str(v) for v in (ds.get("PatientOrientation") or [])]
    if data.modality not in PROJECTION_MODALITIES:
        return data
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


def _decode_dicom(ds, path: Path, slice_index: int | None) -> SliceData:
    from pydicom.pixels import apply_color_lut, pixel_array

    if "PixelData" not in ds and "FloatPixelData" not in ds and ds.get("Rows") is None:
        raise ImageLoadError(f"{path}: DICOM file holds no image (no Pixel Data)")
    count = int(ds.get("NumberOfFrames", 1) or 1)
    index = count // 2 if slice_index is None else max(0, min(int(slice_index), count - 1))
    # Decode only the frame we show (pydicom >= 3 decodes a single frame on request).
    arr = pixel_array(path, index=index if count > 1 else None)
    photometric = str(ds.get("PhotometricInterpretation", "MONOCHROME2")).strip()
    modality = str(ds.get("Modality", "")).strip() or None
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
    pixels = _apply_modality(arr, ds, index)
    data = SliceData(
        pixels,
        False,
        photometric,
        modality,
        window=_dicom_window(ds, index),
        voi_lut_function=str(ds.get("VOILUTFunction", "LINEAR")).strip() or "LINEAR",
        slice_index=index,
        slice_count=count,
    )
    return _orient_projection(data, ds)


def _apply_modality(arr: np.ndarray, ds, frame: int) -> np.ndarray:
    """Modality LUT or Rescale Slope/Intercept (PS3.3 C.11.1), incl. functional groups."""
    from pydicom.pixels import apply_modality_lut

    if "RescaleSlope" in ds or "RescaleIntercept" in ds or "ModalityLUTSequence" in ds:
        return np.asarray(apply_modality_lut(arr, ds), dtype=np.float64)
    item = _functional_group_item(ds, frame, "PixelValueTransformationSequence")
    pixels = arr.astype(np.float64)
    if item is not None:
        pixels = pixels * float(item.get("RescaleSlope", 1.0)) + float(
            item.get("RescaleIntercept", 0.0)
        )
    return pixels


def _dicom_window(ds, frame: int) -> tuple[float, float] | None:
    """First (center, width) pair from the file, top level or Frame VOI LUT macro."""
    source = ds if "WindowCenter" in ds and "WindowWidth" in ds else None
    if source is None:
        source = _functional_group_item(ds, frame, "FrameVOILUTSequence")
    if source is None or "WindowCenter" not in source or "WindowWidth" not in source:
        return None
    try:
        center, width = _first(source.WindowCenter), _first(source.WindowWidth)
    except (TypeError, ValueError, IndexError):  # empty or malformed: use the default window
        return None
    if not (np.isfinite(center) and np.isfinite(width)) or width <= 0:
        return None
    return center, width


def _load_picture(path: Path) -> SliceData:
    """PNG/JPEG/TIFF through Pillow: 16-bit kept 16-bit, float kept float, EXIF orientation.

    The pixels are read as stored and turned with the EXIF Orientation tag through a
    :class:`DisplayTransform`, so that a mask or box given on the stored grid follows.
    """
    from PIL import Image

    with Image.open(path) as img:
        orientation = int(img.getexif().get(0x0112, 1) or 1)
        if img.mode in ("I;16", "I;16B", "I;16L", "I"):
            arr = np.asarray(img)
            bits = 16 if img.mode.startswith("I;16") or arr.max(initial=0) > 255 else 8
            data = SliceData(arr.astype(np.float64), False, "MONOCHROME2", source_bits=bits)
        elif img.mode == "F":  # 32-bit float (TIFF): window from its own range
            data = SliceData(np.asarray(img, dtype=np.float64), False, "MONOCHROME2")
        elif img.mode in ("L", "1"):
            data = SliceData(
                np.asarray(img.convert("L"), dtype=np.float64), False, "MONOCHROME2", source_bits=8
            )
        else:
            data = SliceData(
                np.asarray(img.convert("RGB"), dtype=np.uint8), True, "RGB", source_bits=8
            )
    transform = EXIF_TRANSFORMS.get(orientation, DisplayTransform())
    data.display(transform, f"turned upright by its EXIF orientation ({orientation})")
    return data


def _load_picture_mask(path: Path, shape: tuple[int, ...]) -> np.ndarray:
    from PIL import Image

    try:
        with Image.open(path) as img:
            mask = np.asarray(img.convert("L")) > 0
    except Exception as exc:
        raise ImageLoadError(f"{path}: cannot read mask: {exc}") from exc
    if mask.shape != tuple(shape):
        raise ImageLoadError(
            f"{path}: mask is {mask.shape[1]}x{mask.shape[0]} pixels, image is {shape[1]}x{shape[0]}"
        )
    return mask


@dataclass(frozen=True)
class _Volume:
    data: np.ndarray  # (I, J, K) float32, voxel order
    codes: tuple[str, str, str]  # nibabel.aff2axcodes: direction each voxel axis runs
    window: tuple[float, float] | None  # one window for every slice of the volume
    notes: tuple[str, ...]


@functools.lru_cache(maxsize=4)
def _nifti_volume(path: str) -> _Volume:
    """Whole 3-D volume, its axis codes, display window and notes (cached per file).

    The window is the header's cal_min/cal_max display range when set (NIfTI-1 header
    fields), else the 0.5th-99.5th percentiles of the finite voxels of the whole volume,
    so that scrolling does not change the contrast.
    """
    import nibabel as nib

    img = nib.load(path)
    notes = []
    data = np.asanyarray(img.dataobj)
    if data.ndim == 4:
        notes.append(f"4-D file with {data.shape[3]} volumes: showing the first")
        data = data[..., 0]
    if data.ndim != 3:
        raise ImageLoadError(f"{path}: expected a 3-D or 4-D NIfTI image, found {data.ndim}-D")
    data = data.astype(np.float32, copy=False)
    header = img.header
    cal_min, cal_max = (float(header.get(k, 0) or 0) for k in ("cal_min", "cal_max"))
    if np.isfinite(cal_min) and np.isfinite(cal_max) and cal_max > cal_min:
        window = ((cal_min + cal_max) / 2.0, cal_max - cal_min)
    else:
        finite = data[np.isfinite(data)]
        window = robust_window(finite) if finite.size else None
    return _Volume(data, tuple(nib.aff2axcodes(img.affine)), window, tuple(notes))


def robust_window(values: np.ndarray, low: float = 0.5, high: float = 99.5) -> tuple[float, float]:
    """(center, width) spanning the ``low``..``high`` percentiles of the finite ``values``.

    Falls back to the full range when the percentiles coincide; width is at least 1e-6.
    Raises ``ValueError`` when no value is finite.
    """
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        raise ValueError("no finite value to window")
    lo, hi = np.percentile(finite, [low, high])
    if hi <= lo:
        lo, hi = float(finite.min()), float(finite.max())
    width = max(float(hi - lo), 1e-6)
    return float(lo + width / 2.0), width


def _load_nifti(path: Path, slice_index: int | None, mask_path: Path | None) -> SliceData:
    try:
        volume = _nifti_volume(str(path))
        mask_volume = _nifti_volume(str(mask_path)).data > 0 if mask_path is not None else None
    except ImageLoadError:
        raise
    except Exception as exc:
        raise ImageLoadError(f"{path}: cannot read NIfTI: {exc}") from exc
    data, codes = volume.data, volume.codes
    if mask_volume is not None and mask_volume.shape != data.shape:
        raise ImageLoadError(
            f"{mask_path}: mask grid {mask_volume.shape} differs from image grid {data.shape}"
        )
    count = data.shape[2]  # the third voxel axis is the acquisition (slice) axis
    if slice_index is None:
        if mask_volume is not None and mask_volume.any():
            slice_index = int(np.argmax(mask_volume.sum(axis=(0, 1))))
        else:
            slice_index = count // 2
    slice_index = max(0, min(int(slice_index), count - 1))
    result = SliceData(
        data[:, :, slice_index].astype(np.float64),
        False,
        "MONOCHROME2",
        None,  # NIfTI does not record the modality
        window=volume.window,
        voi_lut_function="LINEAR_EXACT",
        slice_index=slice_index,
        slice_count=count,
        mask=None if mask_volume is None else mask_volume[:, :, slice_index],
        notes=list(volume.notes),
    )
    result.display(voxel_display_transform(*codes))  # radiological convention
    return result
