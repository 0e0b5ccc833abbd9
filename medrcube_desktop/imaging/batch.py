"""Rendering one source slice to a PNG for building items (paper Appendix E.1), no Qt.

The output has square pixels (rows resampled by the pixel aspect) and the overlay burned
in; :func:`render_to_png` returns the facts the ``render --json`` command prints.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import numpy as np

from medrcube_desktop.core.file_checks import require_item_files
from medrcube_desktop.core.files import atomic_path
from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.errors import ImageLoadError, StoreError
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.render import CT_PRESETS, compose_rgba


class RenderFacts(TypedDict):
    """What :func:`render_to_png` rendered (the ``render --json`` output).

    ``slice_index``; ``axis``: slice axis of the stored volume, or None for 2-D;
    ``native_shape`` [rows, cols] as stored; ``shape`` [H, W] written;
    ``pixel_spacing_mm`` [row, col] of the written pixels (mm) or None; ``window``
    [center, width] in modality units or None; ``photometric`` (DICOM PS3.3 C.7.6.3.1.2);
    ``inverted`` (MONOCHROME1); ``overlay_pixels``: pixels the overlay changed;
    ``notes``: what the window would say beside the image (a file cut short, a mask
    that labels nothing on the slice…).
    """

    slice_index: int
    axis: int | None
    native_shape: list[int]
    shape: list[int]
    pixel_spacing_mm: list[float] | None
    window: list[float] | None
    photometric: str
    inverted: bool
    overlay_pixels: int
    notes: list[str]


def render_to_png(
    source: Path,
    out: Path | None = None,
    mask: Path | None = None,
    bbox: tuple[float, float, float, float] | None = None,
    slice_index: int | None = None,
    window: tuple[float, float] | None = None,
    preset: str | None = None,
    modality: str | None = None,
    within: Path | None = None,
) -> RenderFacts:
    """Render a slice of ``source`` (with mask and box) and optionally write it as PNG.

    Parameters
    ----------
    source : Path
        DICOM, NIfTI or picture file.
    out : Path or None
        PNG to write (RGB, 8 bits, square pixels); None renders without writing.
    mask, bbox
        Overlay: a mask on the source grid, a box ``(x0, y0, x1, y1)`` in pixels of the
        source slice (x = column, y = row, inclusive).
    slice_index : int or None
        Slice or frame; None picks the largest mask area, else the central slice.
    window : (center, width) or None
        Window in modality units (HU for CT); ``preset`` names one of ``CT_PRESETS``.
    within : Path or None
        A folder ``out`` must stay inside through links (the batch's output folder: a
        link left there to a file elsewhere is refused, never written through).
    modality : str or None
        The item's modality, a hint for NIfTI/NRRD files that record none ("CT").

    Returns
    -------
    RenderFacts

    Raises
    ------
    ImageLoadError
        The source or mask cannot be read.
    KeyError
        ``preset`` is not a known preset name.
    """
    from PIL import Image

    if preset is not None:
        window = CT_PRESETS[preset]
    data = load_slice(source, slice_index, mask, modality)
    native = data.stored_shape or (int(data.pixels.shape[0]), int(data.pixels.shape[1]))
    rendered = compose_rgba(data, bbox, window=window)
    plain = compose_rgba(data, None, mask_alpha=0.0, window=window).rgba
    overlay_pixels = int(np.any(rendered.rgba != plain, axis=2).sum())
    image = Image.fromarray(rendered.rgba[..., :3])
    height = max(1, round(image.height * rendered.pixel_aspect))
    if height != image.height:  # square pixels: stretch rows by their physical aspect
        image = image.resize((image.width, height), Image.Resampling.BILINEAR)
    spacing = None
    if data.pixel_spacing is not None:
        col_mm = data.pixel_spacing[1]
        spacing = [col_mm, col_mm] if height != data.pixels.shape[0] else list(data.pixel_spacing)
    if out is not None:  # whole or not at all: a killed batch leaves no half picture
        out.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(out, durable=False, within=within) as tmp:
            image.save(tmp, "PNG")
    return {
        "slice_index": rendered.slice_index,
        "axis": (data.slice_axis if data.slice_axis is not None else 0)  # frames: 0
        if rendered.slice_count > 1
        else None,
        "native_shape": [int(native[0]), int(native[1])],
        "shape": [image.height, image.width],
        "pixel_spacing_mm": spacing,
        "window": list(rendered.window) if rendered.window else None,
        "photometric": data.photometric,
        "inverted": data.photometric == "MONOCHROME1",
        "overlay_pixels": overlay_pixels,
        "notes": list(rendered.notes),
    }


@dataclass
class RenderSummary:
    """What :func:`render_benchmark` did: items rendered, ``failed`` as
    ``{"item", "file", "message"}`` records, whether it was cancelled."""

    rendered: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    cancelled: bool = False

    def to_dict(self) -> dict[str, object]:
        """JSON-ready (the ``render-batch --json`` output)."""
        return {"rendered": self.rendered, "failed": self.failed, "cancelled": self.cancelled}


def render_benchmark(
    items: list,
    out_dir: Path,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> RenderSummary:
    """Render every item's image (with its overlay) to ``out_dir/<dataset>/<id>.png``.

    Every output stays inside ``out_dir`` whatever the item's ``dataset`` and ``id`` say
    (:func:`output_png`), and no output is written over an image or mask of the items
    (hard links included): that item is listed as failed.

    A long job (``core.progress``): reports a :class:`Progress` before each item (its
    label the item id), stops between items once ``cancel`` is set, and keeps going past
    items whose image cannot be read (they are listed, with the reason, in ``failed``).

    Parameters
    ----------
    items : list of Item
        Validated benchmark items (``core.dataset.load_benchmark(...).items``).
    out_dir : Path
        Output root, created if needed.

    Raises
    ------
    OSError
        ``out_dir`` cannot be created (an item's own write failure is listed instead).
    """
    summary = RenderSummary()
    total = len(items)
    used: set[str] = set()
    sources = _file_ids(p for item in items for p in (item.image_path, item.mask_path))
    for done, item in enumerate(items):
        if cancel is not None and cancel.is_set():
            summary.cancelled = True
            return summary
        report(progress, Progress(done, total, "item", item.id, {"failed": len(summary.failed)}))
        try:
            target = output_png(out_dir, item.dataset, item.id, used)
            if _file_id(target) in sources:
                raise OSError(f"{target}: is a source image of the benchmark; not written over")
            image, mask = require_item_files(item)  # confined now, not at load
            render_to_png(image, target, mask, item.bbox, modality=item.modality, within=out_dir)
            summary.rendered += 1
        except (ImageLoadError, OSError, OutsideFolder, StoreError) as exc:  # StoreError: a
            # target never written (a database, a link out of the folder)
            summary.failed.append(
                {"item": item.id, "file": str(item.image_path), "message": str(exc)}
            )
    report(progress, Progress(total, total, "item", "done", {"failed": len(summary.failed)}))
    return summary


WINDOWS_RESERVED = frozenset(
    {"CON", "PRN", "AUX", "NUL", *(f"COM{n}" for n in range(10)), *(f"LPT{n}" for n in range(10))}
)
"""Names Windows keeps for devices (with any extension): never an output file's name."""

MAX_NAME_CHARS = 120
"""Longest file or folder name made from benchmark text (file systems allow 255 bytes)."""


def safe_component(text: str, fallback: str) -> str:
    """One file or folder name made from benchmark text, that stays where it is put.

    Every character but letters, digits, ``-``, ``_`` and ``.`` becomes ``_`` (so ``/``
    and ``\\`` separate nothing); a leading ``.`` becomes ``_`` (so ``.`` and ``..``
    climb nowhere and nothing is hidden); a Windows device name (``CON``, ``nul.txt``)
    gets a leading ``_``; a long name is cut to :data:`MAX_NAME_CHARS` with a digest of
    the whole, so two long ids stay apart. ``fallback`` names what is left empty.
    """
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
    if name.startswith("."):
        name = "_" + name[1:]
    if not name:
        name = fallback
    if name.split(".")[0].upper() in WINDOWS_RESERVED:
        name = "_" + name
    if len(name) > MAX_NAME_CHARS:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        name = f"{name[: MAX_NAME_CHARS - 13]}-{digest}"
    return name


class OutsideFolder(ValueError):
    """An output path that would land outside the output folder."""


def output_png(out_dir: Path, dataset: str, item_id: str, used: set[str]) -> Path:
    """``out_dir/<dataset>/<id>.png``, each part cleaned (:func:`safe_component`), so
    whatever the benchmark says (``../x``, ``/abs``, ``a\\..\\b``) the picture lands
    inside ``out_dir``; ``-2``, ``-3``… when two items would land on one name (``a/b``
    and ``a_b``; ``A`` and ``a``, one file where names ignore case), so no output is
    overwritten. ``used`` holds the names given so far (case-folded).

    Raises
    ------
    OutsideFolder
        The picture would land outside ``out_dir``: the names cannot leave it, but a
        symbolic link already inside it can point elsewhere (checked on real paths).
    """
    folder = out_dir / safe_component(dataset, "dataset")
    stem = safe_component(item_id, "item")
    target, n = folder / f"{stem}.png", 1
    while str(target).casefold() in used:
        n += 1
        target = folder / f"{stem}-{n}.png"
    used.add(str(target).casefold())
    inside = os.path.realpath(out_dir)
    if os.path.commonpath([inside, os.path.realpath(target)]) != inside:
        raise OutsideFolder(f"{target}: leads outside {out_dir} (a symbolic link?); not written")
    return target


def _file_id(path: Path | None) -> tuple[int, int] | None:
    """(device, inode) of an existing file, else None."""
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _file_ids(paths: Iterable[Path | None]) -> set[tuple[int, int]]:
    """The (device, inode) of every existing path (hard links and spellings are one)."""
    return {i for i in (_file_id(p) for p in paths) if i is not None}
