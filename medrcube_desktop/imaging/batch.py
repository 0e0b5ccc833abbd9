"""Rendering one source slice to a PNG for building items (paper Appendix E.1), no Qt.

The output has square pixels (rows resampled by the pixel aspect) and the overlay burned
in; :func:`render_to_png` returns the facts the ``render --json`` command prints.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import numpy as np

from medrcube_desktop.core.files import atomic_path
from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.imaging.loading import load_slice
from medrcube_desktop.imaging.render import CT_PRESETS, compose_rgba


class RenderFacts(TypedDict):
    """What :func:`render_to_png` rendered (the ``render --json`` output).

    ``slice_index``; ``axis``: slice axis of the stored volume, or None for 2-D;
    ``native_shape`` [rows, cols] as stored; ``shape`` [H, W] written;
    ``pixel_spacing_mm`` [row, col] of the written pixels (mm) or None; ``window``
    [center, width] in modality units or None; ``photometric`` (DICOM PS3.3 C.7.6.3.1.2);
    ``inverted`` (MONOCHROME1); ``overlay_pixels``: pixels the overlay changed.
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


def render_to_png(
    source: Path,
    out: Path | None = None,
    mask: Path | None = None,
    bbox: tuple[float, float, float, float] | None = None,
    slice_index: int | None = None,
    window: tuple[float, float] | None = None,
    preset: str | None = None,
    modality: str | None = None,
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
        with atomic_path(out, durable=False) as tmp:
            image.save(tmp, "PNG")
    return {
        "slice_index": rendered.slice_index,
        "axis": (2 if source.name.lower().endswith((".nii", ".nii.gz")) else 0)
        if rendered.slice_count > 1
        else None,
        "native_shape": [int(native[0]), int(native[1])],
        "shape": [image.height, image.width],
        "pixel_spacing_mm": spacing,
        "window": list(rendered.window) if rendered.window else None,
        "photometric": data.photometric,
        "inverted": data.photometric == "MONOCHROME1",
        "overlay_pixels": overlay_pixels,
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
    used: set[Path] = set()
    for done, item in enumerate(items):
        if cancel is not None and cancel.is_set():
            summary.cancelled = True
            return summary
        report(progress, Progress(done, total, "item", item.id, {"failed": len(summary.failed)}))
        target = _unique_png(out_dir / item.dataset, item.id, used)
        try:
            render_to_png(
                item.image_path, target, item.mask_path, item.bbox, modality=item.modality
            )
            summary.rendered += 1
        except (ImageLoadError, OSError) as exc:
            summary.failed.append(
                {"item": item.id, "file": str(item.image_path), "message": str(exc)}
            )
    report(progress, Progress(total, total, "item", "done", {"failed": len(summary.failed)}))
    return summary


def _unique_png(folder: Path, item_id: str, used: set[Path]) -> Path:
    """``folder/<id>.png`` with unsafe characters replaced; ``-2``, ``-3``… when two ids
    would clean to the same name (``a/b`` and ``a_b``), so no output is overwritten."""
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in item_id) or "item"
    target, n = folder / f"{stem}.png", 1
    while target in used:
        n += 1
        target = folder / f"{stem}-{n}.png"
    used.add(target)
    return target
