"""Loading one displayable 2-D slice (and its mask) from DICOM, NIfTI or a picture file.

First version (issue 2); the clinical-grade loaders (series, NRRD/MHA, EXIF, several
windows) come with the rendering issue. No Qt here.

Arrays follow numpy order: ``(rows, columns)``, row 0 at the top of the screen.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from medrcube_desktop.errors import ImageLoadError

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
    if mask_path is not None:
        data.mask = _load_picture_mask(mask_path, data.pixels.shape[:2])
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


def _load_dicom(path: Path, slice_index: int | None) -> SliceData:
    import pydicom
    from pydicom.pixels import apply_color_lut, pixel_array

    ds = pydicom.dcmread(path, stop_before_pixels=True)
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
    return SliceData(
        pixels,
        False,
        photometric,
        modality,
        window=_dicom_window(ds, index),
        voi_lut_function=str(ds.get("VOILUTFunction", "LINEAR")).strip() or "LINEAR",
        slice_index=index,
        slice_count=count,
    )


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
    width = _first(source.WindowWidth)
    if width <= 0:
        return None
    return _first(source.WindowCenter), width


def _load_picture(path: Path) -> SliceData:
    from PIL import Image, ImageOps

    with Image.open(path) as img:
        img = ImageOps.exif_transpose(img)
        if img.mode in ("I;16", "I;16B", "I;16L", "I"):
            arr = np.asarray(img)
            bits = 16 if img.mode.startswith("I;16") or arr.max(initial=0) > 255 else 8
            return SliceData(arr.astype(np.float64), False, "MONOCHROME2", source_bits=bits)
        if img.mode in ("L", "1"):
            return SliceData(
                np.asarray(img.convert("L"), dtype=np.float64), False, "MONOCHROME2", source_bits=8
            )
        return SliceData(np.asarray(img.convert("RGB"), dtype=np.uint8), True, "RGB", source_bits=8)


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


@functools.lru_cache(maxsize=4)
def _nifti_volume(path: str) -> tuple[np.ndarray, tuple[str, str, str], list[str]]:
    """Whole 3-D volume as float32 ``(I, J, K)`` voxel order, its axis codes and notes."""
    import nibabel as nib

    img = nib.load(path)
    notes = []
    data = np.asanyarray(img.dataobj)
    if data.ndim == 4:
        notes.append(f"4-D file with {data.shape[3]} volumes: showing the first")
        data = data[..., 0]
    if data.ndim != 3:
        raise ImageLoadError(f"{path}: expected a 3-D or 4-D NIfTI image, found {data.ndim}-D")
    return data.astype(np.float32, copy=False), tuple(nib.aff2axcodes(img.affine)), notes


def _load_nifti(path: Path, slice_index: int | None, mask_path: Path | None) -> SliceData:
    try:
        volume, codes, notes = _nifti_volume(str(path))
        mask_volume = _nifti_volume(str(mask_path))[0] > 0 if mask_path is not None else None
    except ImageLoadError:
        raise
    except Exception as exc:
        raise ImageLoadError(f"{path}: cannot read NIfTI: {exc}") from exc
    if mask_volume is not None and mask_volume.shape != volume.shape:
        raise ImageLoadError(
            f"{mask_path}: mask grid {mask_volume.shape} differs from image grid {volume.shape}"
        )
    count = volume.shape[2]  # the third voxel axis is the acquisition (slice) axis
    if slice_index is None:
        if mask_volume is not None and mask_volume.any():
            slice_index = int(np.argmax(mask_volume.sum(axis=(0, 1))))
        else:
            slice_index = count // 2
    slice_index = max(0, min(int(slice_index), count - 1))
    pixels = orient_for_display(
        volume[:, :, slice_index].astype(np.float64), codes[0], codes[1], codes[2]
    )
    mask = None
    if mask_volume is not None:
        mask = orient_for_display(mask_volume[:, :, slice_index], codes[0], codes[1], codes[2])
    return SliceData(
        pixels,
        False,
        "MONOCHROME2",
        "MR",
        slice_index=slice_index,
        slice_count=count,
        mask=mask,
        notes=list(notes),
    )


_OPPOSITE = {"R": "L", "L": "R", "A": "P", "P": "A", "S": "I", "I": "S"}


def display_directions(slice_code: str) -> tuple[str, str]:
    """Direction that row and column indices should increase toward on screen.

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


def orient_for_display(slice2d: np.ndarray, code0: str, code1: str, slice_code: str) -> np.ndarray:
    """Transpose and flip a voxel slice so it shows in radiological convention.

    Parameters
    ----------
    slice2d : ndarray, shape (N0, N1)
        Slice in voxel order (first and second voxel axes).
    code0, code1 : str
        Patient direction each voxel axis increases toward (``nibabel.aff2axcodes``, RAS).
    slice_code : str
        Patient direction of the slice axis.

    Returns
    -------
    ndarray, shape (rows, columns)
    """
    row_to, col_to = display_directions(slice_code)
    if code0 not in (row_to, _OPPOSITE[row_to]):  # voxel axis 0 runs across the screen
        slice2d, code0, code1 = slice2d.T, code1, code0
    if code0 != row_to:
        slice2d = slice2d[::-1, :]
    if code1 != col_to:
        slice2d = slice2d[:, ::-1]
    return np.ascontiguousarray(slice2d)
