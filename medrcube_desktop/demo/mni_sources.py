"""Demo recipes for nilearn's bundled MNI ICBM152 2009a templates.

nilearn ships, in ``nilearn/datasets/data/``, the 1 mm T1-weighted template and the
grey- and white-matter probability maps (uint8, 197 x 233 x 189 voxels, RAS+ voxel
axes). Ground truths: the tissue a probability map describes, the template's
weighting (file name and nilearn's description), the plane the builder slices, the
quadrant the builder puts a box in.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from medrcube_desktop.demo.sources import (
    PLANE_QUESTION,
    PLANES,
    PROTOCOLS,
    QUADRANTS,
    TISSUES,
    DraftItem,
    FileRecord,
    Question,
    RecipeResult,
    package_dir,
)
from medrcube_desktop.errors import DatasetError

if TYPE_CHECKING:
    import nibabel as nib

DATASET = "nilearn_mni152"
PACKAGE = "nilearn"
TEMPLATE = "mni_icbm152_{}_tal_nlin_sym_09a_converted.nii.gz"
DESCRIPTION = "icbm152_2009.rst"
BRAIN_FINDINGS: tuple[str, ...] = (
    "No abnormality",
    "Intracranial haemorrhage",
    "Brain tumour",
    "Hydrocephalus",
)
TISSUE_MAPS: dict[str, str] = {"gm": "Grey matter", "wm": "White matter"}
PROBABILITY_THRESHOLD = 0.5
WINDOW_PERCENTILES = (1.0, 99.5)
# Canonical (RAS+) voxel axis that each plane's slice is perpendicular to.
PLANE_AXES: dict[str, int] = {"Axial": 2, "Coronal": 1, "Sagittal": 0}
ROI_SEED = "medrcube-desktop demo roi quadrant"
T1_REL = "images/mni152_t1.nii.gz"
DERIVED_MASK = "uint8 0/1 mask: {} probability (value / max) > 0.5, on the T1 voxel grid"


def template_path(kind: str) -> Path:
    """Path of a bundled template file; ``kind`` is ``"t1"``, ``"gm"`` or ``"wm"``."""
    path = package_dir("nilearn") / "datasets" / "data" / TEMPLATE.format(kind)
    if not path.is_file():
        raise DatasetError(f"{path}: nilearn's bundled MNI152 template is missing")
    return path


def template_description() -> str:
    """Text of nilearn's dataset description of the ICBM152 2009 templates."""
    path = package_dir("nilearn") / "datasets" / "description" / DESCRIPTION
    if not path.is_file():
        raise DatasetError(f"{path}: nilearn's ICBM152 description is missing")
    return path.read_text(encoding="utf-8")


def probability_mask(path: Path, grid: nib.Nifti1Image) -> nib.Nifti1Image:
    """Threshold a tissue probability map at 0.5 onto the grid of ``grid``.

    The bundled maps store probability * 255 as uint8; as nilearn's
    ``load_mni152_gm_template`` does, the probability is ``value / value.max()``.

    Returns
    -------
    Nifti1Image
        (X, Y, Z) uint8 mask, 1 where the probability exceeds 0.5, else 0; same
        shape, affine (RAS+ mm) and header codes as ``grid``.
    """
    import nibabel as nib

    prob_img: Any = nib.load(path)  # a Nifti1Image (nibabel types load() loosely)
    if prob_img.shape != grid.shape or not np.allclose(prob_img.affine, grid.affine):
        raise DatasetError(f"{path.name} is not on the T1 template's voxel grid")
    values = prob_img.get_fdata(dtype=np.float32)
    mask = (values / values.max() > PROBABILITY_THRESHOLD).astype(np.uint8)
    header = grid.header.copy()
    header.set_data_dtype(np.uint8)
    return nib.Nifti1Image(mask, grid.affine, header)


def ask_tissue(kind: str) -> Question:
    """Organ Recognition of the tissue whose probability map made the mask."""
    tissue = TISSUE_MAPS[kind]
    fact = f"the mask is the {tissue.lower()} probability map {TEMPLATE.format(kind)!r} > 0.5"
    text = "Which tissue is shaded red?"
    return Question("Organ Recognition", text, tissue, TISSUES, fact, marked=True)


def ask_weighting() -> Question:
    """Imaging Protocols Recognition from the file name and nilearn's description."""
    line = re.search(r"^:'t1':\s*(.+)$", template_description(), re.MULTILINE)
    weighting = line and next((p for p in PROTOCOLS if line.group(1).startswith(p)), None)
    if not line or not weighting or "_t1_" not in TEMPLATE.format("t1"):
        raise DatasetError(f"{DESCRIPTION} gives no known weighting for the t1 template")
    fact = f"file name {TEMPLATE.format('t1')!r}; nilearn {DESCRIPTION}: {line.group(1)!r}"
    text = "Which MRI weighting does this brain image have?"
    return Question("Imaging Protocols Recognition", text, weighting, PROTOCOLS, fact)


def ask_finding() -> Question:
    """Abnormality Diagnosis: the template averages a normal population."""
    quote = "a truly normal, well characterized population"
    if quote not in " ".join(template_description().split()):
        raise DatasetError(f"{DESCRIPTION} no longer says the template population is normal")
    fact = f"nilearn {DESCRIPTION}: the ICBM152 templates are averages of MRI of {quote!r}"
    text = "Which finding does this brain MRI show?"
    return Question("Abnormality Diagnosis", text, "No abnormality", BRAIN_FINDINGS, fact)


def volume_recipe(root: Path) -> RecipeResult:
    """Copy the T1 template, write GM and WM masks, and ask about the volume."""
    import nibabel as nib

    (root / DATASET / "images").mkdir(parents=True, exist_ok=True)
    t1_path = template_path("t1")
    shutil.copyfile(t1_path, root / DATASET / T1_REL)
    result = RecipeResult()
    result.files.append(
        FileRecord(f"{DATASET}/{T1_REL}", PACKAGE, t1_path.name, "copied unchanged")
    )
    t1: Any = nib.load(t1_path)
    for kind, tissue in TISSUE_MAPS.items():
        mask_rel = f"images/mni152_{kind}_mask.nii.gz"
        nib.save(probability_mask(template_path(kind), t1), root / DATASET / mask_rel)
        derived = DERIVED_MASK.format(tissue.lower())
        result.files.append(
            FileRecord(f"{DATASET}/{mask_rel}", PACKAGE, TEMPLATE.format(kind), derived)
        )
        result.items.append(DraftItem(ask_tissue(kind), DATASET, T1_REL, "MRI", "Brain", mask_rel))
    for question in (ask_weighting(), ask_finding()):
        result.items.append(DraftItem(question, DATASET, T1_REL, "MRI", "Brain"))
    return result


def window_uint8(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """Map ``low``..``high`` linearly to 0..255 (rounded, clipped) as uint8."""
    scaled = (values.astype(np.float64) - low) / (high - low) * 255.0
    return np.clip(np.rint(scaled), 0, 255).astype(np.uint8)


def radiological_slice(canonical: np.ndarray, plane: str) -> tuple[np.ndarray, int]:
    """The central slice of a RAS+ volume, oriented as a radiology viewer shows it.

    Parameters
    ----------
    canonical : (X, Y, Z) array
        Volume whose voxel axes point to patient Right, Anterior, Superior (RAS+).
    plane : {"Axial", "Coronal", "Sagittal"}

    Returns
    -------
    image : (rows, columns) array
        Axial: rows anterior to posterior, columns patient right to left. Coronal:
        rows superior to inferior, columns right to left. Sagittal: rows superior to
        inferior, columns anterior to posterior.
    index : int
        Slice index along the plane's voxel axis: ``shape[axis] // 2``.
    """
    axis = PLANE_AXES[plane]
    index = canonical.shape[axis] // 2
    section = np.take(canonical, index, axis=axis)  # (first remaining axis, second)
    return section[::-1, ::-1].T, index


def roi_box(width: int, height: int) -> tuple[tuple[int, int, int, int], str]:
    """A box of 1/5 of the image size centred in a seeded-random quadrant.

    Returns
    -------
    bbox : tuple of 4 int
        ``(x0, y0, x1, y1)`` in pixels (column, row; origin top-left).
    quadrant : str
        The quadrant that holds the box centre, computed back from the box.
    """
    vertical, horizontal = random.Random(ROI_SEED).choice(QUADRANTS).lower().split()
    cx = width * (0.25 if horizontal == "left" else 0.75)
    cy = height * (0.25 if vertical == "upper" else 0.75)
    half_w, half_h = width / 10, height / 10
    x0, y0, x1, y1 = (round(v) for v in (cx - half_w, cy - half_h, cx + half_w, cy + half_h))
    upper = (y0 + y1) / 2 < height / 2
    left = (x0 + x1) / 2 < width / 2
    quadrant = f"{'Upper' if upper else 'Lower'} {'left' if left else 'right'}"
    return (x0, y0, x1, y1), quadrant


def slices_recipe(root: Path) -> RecipeResult:
    """Render the central axial, coronal and sagittal T1 slices as 8-bit PNGs."""
    import nibabel as nib
    from PIL import Image

    images = root / DATASET / "images"
    images.mkdir(parents=True, exist_ok=True)
    t1_path = template_path("t1")
    canonical = nib.as_closest_canonical(nib.load(t1_path))
    if nib.aff2axcodes(canonical.affine) != ("R", "A", "S"):
        raise DatasetError("the canonical T1 template is not RAS+")
    volume = canonical.get_fdata(dtype=np.float32)
    low, high = np.percentile(volume[volume > 0], WINDOW_PERCENTILES)
    result = RecipeResult()
    for plane in PLANE_AXES:
        section, index = radiological_slice(volume, plane)
        image_rel = f"images/mni152_t1_{plane.lower()}.png"
        Image.fromarray(window_uint8(section, low, high)).save(root / DATASET / image_rel)
        derived = (
            f"rendered {plane.lower()} slice {index} (RAS+ voxel axis {PLANE_AXES[plane]}) of the "
            f"canonical template, radiological orientation, linear window from the "
            f"{WINDOW_PERCENTILES[0]}th to {WINDOW_PERCENTILES[1]}th percentile of voxels > 0"
        )
        result.files.append(FileRecord(f"{DATASET}/{image_rel}", PACKAGE, t1_path.name, derived))
        fact = (
            f"the builder sliced the template perpendicular to RAS+ voxel axis {PLANE_AXES[plane]}"
        )
        question = Question("View Recognition", PLANE_QUESTION, plane, PLANES, fact)
        result.items.append(DraftItem(question, DATASET, image_rel, "MRI", "Brain"))
    result.items.append(roi_item(*radiological_slice(volume, "Axial")[0].shape))
    return result


def roi_item(height: int, width: int) -> DraftItem:
    """Region of Interest Grounding on the axial PNG of ``height`` x ``width`` pixels."""
    bbox, quadrant = roi_box(width, height)
    fact = f"the builder drew the box {list(bbox)} in the {quadrant.lower()} quadrant of the image"
    text = "In which part of the image is the red box?"
    question = Question("Region of Interest Grounding", text, quadrant, QUADRANTS, fact, True)
    return DraftItem(question, DATASET, "images/mni152_t1_axial.png", "MRI", "Brain", bbox=bbox)
