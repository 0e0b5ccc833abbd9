"""The Qt-free half of ``medrcube-desktop self-test``: what the frozen bundle must prove.

A frozen app that cannot find a pixel decoder, a bundled image or a packaged resource
fails only when a user opens the item that needs it. The self-test renders one image of
every kind the app reads through a plugin or a bundled file (JPEG 2000, JPEG-LS and RLE
DICOM, a NIfTI volume with its mask, a 16-bit PNG), records a digest of each RGBA result,
and compares the digests with those of the unfrozen app (``--expect``). The window half
(open, commit a review, screenshot) lives in :mod:`medrcube_desktop.ui.self_test`.

:func:`bundled_sources` is also read by ``packaging/medrcube-desktop.spec``: the bundle
carries exactly the source files the demo and the self-test name, no other test data.
"""

from __future__ import annotations

import hashlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.demo.dicom_sources import DICOM_RECIPES, locate_dicom
from medrcube_desktop.demo.mni_sources import DESCRIPTION, PACKAGE, TEMPLATE, TISSUE_MAPS
from medrcube_desktop.demo.sources import package_dir
from medrcube_desktop.errors import DatasetError

DIRECT_DICOM: dict[str, str] = {
    "jpeg2000_dicom": "RG1_J2KR.dcm",  # JPEG 2000 lossless (pylibjpeg-openjpeg)
    "jpeg_ls_dicom": "MR_small_jpeg_ls_lossless.dcm",  # JPEG-LS lossless (pylibjpeg-libjpeg)
    "rle_dicom": "MR_small_RLE.dcm",  # RLE lossless (pylibjpeg-rle or pydicom's own)
}
"""Check name → pydicom test file rendered straight from the (bundled) source."""

DEMO_ITEM_CHECKS: tuple[str, ...] = ("nifti_volume_with_mask", "png16", "jpeg2000_demo_item")
"""Checks rendered through a demo item, as the window renders it (see :func:`pick_items`)."""


@dataclass(frozen=True)
class PixelDigest:
    """What one rendered image looked like.

    Attributes
    ----------
    source : str
        The file rendered (its name only: paths differ between installs).
    shape : tuple of int
        ``(H, W, 4)`` of the RGBA result.
    sha256 : str
        Digest of the RGBA bytes, C order.
    mean : float
        Mean of all RGBA channel values (0..255), for a readable difference.
    """

    source: str
    shape: tuple[int, ...]
    sha256: str
    mean: float

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "shape": list(self.shape),
            "sha256": self.sha256,
            "mean": round(self.mean, 4),
        }


def digest(source: str, rgba: np.ndarray) -> PixelDigest:
    """Digest of an ``(H, W, 4) uint8`` RGBA array rendered from ``source``."""
    data = np.ascontiguousarray(rgba)
    return PixelDigest(
        source, tuple(data.shape), hashlib.sha256(data.tobytes()).hexdigest(), float(data.mean())
    )


def pick_items(items: list[Item]) -> dict[str, Item]:
    """The demo items rendered by check name: a NIfTI volume with a mask, a 16-bit PNG
    (grayscale, CT values), a JPEG 2000 DICOM.

    Raises
    ------
    DatasetError
        The demo holds no item of one of the kinds (its recipes changed).
    """
    picks: dict[str, Item] = {}
    for item in items:
        name = item.image_path.name.lower()
        if name.endswith((".nii", ".nii.gz")) and item.mask_path is not None:
            picks.setdefault("nifti_volume_with_mask", item)
        elif name.endswith(".png") and png_bit_depth(item.image_path) == 16:
            picks.setdefault("png16", item)
        elif "j2k" in name:
            picks.setdefault("jpeg2000_demo_item", item)
    missing = [check for check in DEMO_ITEM_CHECKS if check not in picks]
    if missing:
        raise DatasetError(f"the demo has no item for the self-test's {', '.join(missing)}")
    return picks


def png_bit_depth(path: Path) -> int:
    """Bits per sample of a PNG, from its IHDR chunk (byte 24); 0 when not readable."""
    try:
        from medrcube_desktop.core.files import open_regular

        with open_regular(path) as f:
            head = f.read(25)
    except OSError:
        return 0
    return head[24] if len(head) == 25 and head.startswith(b"\x89PNG") else 0


def render_checks(items: list[Item]) -> dict[str, PixelDigest]:
    """Render every check: the :data:`DIRECT_DICOM` files and the :func:`pick_items` items.

    Raises
    ------
    ImageLoadError
        A decoder or file is missing: the failure the self-test exists to catch.
    """
    from medrcube_desktop.imaging.render import render_file, render_item

    found: dict[str, PixelDigest] = {}
    for check, name in DIRECT_DICOM.items():
        path, _, _ = locate_dicom(name)
        found[check] = digest(name, render_file(path).rgba)
    for check, item in pick_items(items).items():
        found[check] = digest(item.image_path.name, render_item(item).rgba)
    return found


def compare_digests(got: dict[str, dict], expected: dict[str, dict]) -> list[str]:
    """One line per check whose pixels differ from ``expected`` (or is missing on a side)."""
    problems = []
    for check in sorted(set(got) | set(expected)):
        mine, theirs = got.get(check), expected.get(check)
        if mine is None or theirs is None:
            problems.append(f"{check}: {'not rendered' if mine is None else 'not expected'}")
        elif (mine["shape"], mine["sha256"]) != (theirs["shape"], theirs["sha256"]):
            problems.append(
                f"{check} ({mine['source']}): shape {mine['shape']} mean {mine['mean']}, "
                f"expected shape {theirs['shape']} mean {theirs['mean']}"
            )
    return problems


def bundled_sources() -> list[tuple[Path, str]]:
    """Every source file the demo and the self-test read, for the frozen bundle.

    Returns
    -------
    list of (Path, str)
        ``(file, folder)``: ``folder`` is the file's folder relative to the folder that
        holds its package (``site-packages``), which is where the bundle must put it.
    """
    names = [recipe.source_file for recipe in DICOM_RECIPES] + list(DIRECT_DICOM.values())
    files = [locate_dicom(name)[0] for name in dict.fromkeys(names)]
    nilearn = package_dir(PACKAGE)
    files += [nilearn / "datasets" / "data" / TEMPLATE.format(k) for k in ("t1", *TISSUE_MAPS)]
    files.append(nilearn / "datasets" / "description" / DESCRIPTION)
    found = []
    for file in files:
        top = _package_root(file)
        found.append((file, str(file.parent.relative_to(top))))
    return found


def _package_root(file: Path) -> Path:
    """The folder that holds ``file``'s top-level package (``site-packages``)."""
    for module in ("pydicom", "data_store", PACKAGE):
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin is not None:
            folder = Path(spec.origin).resolve().parent
            if file.resolve().is_relative_to(folder):
                return folder.parent
    raise DatasetError(f"{file}: not inside pydicom, pydicom-data or nilearn")
