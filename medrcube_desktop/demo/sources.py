"""Shared pieces of the demo recipes: draft items, manifest records, package facts.

A *recipe* turns one public source image into files under the benchmark root and a
list of :class:`DraftItem`. Every ground truth is read from the source at build time
(a DICOM attribute, the slicing plane the builder chose, the template a mask comes
from); a recipe hard-codes only which file and which question. When the source does
not establish the expected fact, the recipe raises :class:`DatasetError` rather than
write a wrong answer.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrcube_desktop.errors import DatasetError

MODALITIES: tuple[str, ...] = ("CT", "MRI", "X-ray", "Ultrasound")
PLANES: tuple[str, ...] = ("Axial", "Coronal", "Sagittal", "Oblique")
PROJECTIONS: tuple[str, ...] = ("PA", "AP", "Lateral", "Oblique")
PROTOCOLS: tuple[str, ...] = ("T1-weighted", "T2-weighted", "FLAIR", "Diffusion-weighted")
ORGANS: tuple[str, ...] = ("Liver", "Heart", "Spleen", "Kidney", "Pancreas", "Lung", "Stomach")
TISSUES: tuple[str, ...] = ("Grey matter", "White matter", "Cerebrospinal fluid", "Bone")
QUADRANTS: tuple[str, ...] = ("Upper left", "Upper right", "Lower left", "Lower right")

# DICOM codes and description words mapped into the categories above.
MODALITY_NAMES: dict[str, str] = {
    "CT": "CT",
    "MR": "MRI",
    "CR": "X-ray",
    "DX": "X-ray",
    "US": "Ultrasound",
}
VIEW_POSITIONS: dict[str, str] = {
    "PA": "PA",
    "AP": "AP",
    "LL": "Lateral",
    "RL": "Lateral",
    "LATERAL": "Lateral",
}
IMAGE_FLAVOURS: dict[str, str] = {
    "T1": "T1-weighted",
    "T2": "T2-weighted",
    "FLUID_ATTENUATED": "FLAIR",
    "DIFFUSION": "Diffusion-weighted",
}
ORGAN_TERMS: dict[str, str] = {
    "liver": "Liver",
    "hepatic": "Liver",
    "echocardiogram": "Heart",
    "heart": "Heart",
}
BONE_LESIONS: tuple[str, ...] = (
    "Non-ossifying fibroma",
    "Osteosarcoma",
    "Enchondroma",
    "Simple bone cyst",
    "Giant cell tumour",
    "Osteochondroma",
)
LIVER_FINDINGS: tuple[str, ...] = (
    "Focal liver lesion",
    "Normal hepatic parenchyma",
    "Hepatic vein",
    "Gallbladder",
)

PLANE_QUESTION = "In which plane is this image displayed?"
MODALITY_QUESTION = "Which imaging modality produced this image?"

_PACKAGE_LICENCE_NOTES: dict[str, str] = {
    "pydicom": (
        "{licence} (pydicom package licence); pydicom's data/test_files/README.txt says "
        "the test images come from public sources (e.g. NEMA WG04) and 'I believe there "
        "is no restriction on using any of these files in this manner.'"
    ),
    "pydicom-data": "{licence} (pydicom-data package licence)",
    "nilearn": (
        "MNI ICBM 2009 template licence (Copyright (C) 1993-2009 Louis Collins, McConnell "
        "Brain Imaging Centre; permissive, redistribution allowed with notice), shipped by "
        "nilearn ({licence}); nilearn's description icbm152_2009.rst lists the licence "
        "as 'unknown'"
    ),
}


@dataclass(frozen=True)
class Question:
    """A question with its answer, as read from one source.

    Attributes
    ----------
    task : str
        Task name exactly as written into ``test.json`` (an alias such as
        ``"Abnormity Diagnosis"`` is kept as given).
    text : str
        Question text.
    answer : str
        Text of the correct option; a member of ``choices``.
    choices : tuple of str
        The whole category the answer belongs to (4 or more); distractors are drawn
        from it.
    source_fact : str
        One sentence naming the fact of the source that establishes ``answer``.
    marked : bool
        True when the question refers to the item's mask or box ("marked in red").
    """

    task: str
    text: str
    answer: str
    choices: tuple[str, ...]
    source_fact: str
    marked: bool = False

    def __post_init__(self) -> None:
        if self.answer not in self.choices or len(set(self.choices)) < 4:
            raise DatasetError(f"{self.task}: {self.answer!r} is not one of 4+ choices")


@dataclass(frozen=True)
class DraftItem:
    """One item before it gets its id and shuffled options.

    Attributes
    ----------
    question : Question
        Question, answer and the fact behind it.
    dataset : str
        Dataset folder name; also written as the item's ``dataset`` field.
    image_path : str
        POSIX path relative to the dataset folder, e.g. ``"images/rg1_j2kr.dcm"``.
    modality, region : str
        ``modality`` and ``parts`` fields.
    mask_path : str or None
        Mask path relative to the dataset folder (PNG uint8 for 2-D, NIfTI for volumes).
    bbox : tuple of 4 int or None
        ``(x0, y0, x1, y1)`` in pixels of the stored image (column, row; origin top-left).
    """

    question: Question
    dataset: str
    image_path: str
    modality: str
    region: str
    mask_path: str | None = None
    bbox: tuple[int, int, int, int] | None = None


@dataclass(frozen=True)
class FileRecord:
    """One entry of ``MANIFEST.json``'s ``images`` list.

    Attributes
    ----------
    image_path : str
        POSIX path relative to the benchmark root, e.g. ``"pydicom_data/images/x.dcm"``.
    source_package : str
        Distribution name: ``"pydicom"``, ``"pydicom-data"`` or ``"nilearn"``.
    source_file : str
        File name inside the package.
    derived : str
        How the file was made from the source.
    extra : dict
        More keys for the entry (e.g. ``rescale_slope`` of a 16-bit PNG).
    """

    image_path: str
    source_package: str
    source_file: str
    derived: str
    extra: dict[str, object] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """The JSON entry, with the package version and licence looked up."""
        return {
            "image_path": self.image_path,
            "source_package": self.source_package,
            "source_package_version": importlib.metadata.version(self.source_package),
            "source_file": self.source_file,
            "licence": package_licence(self.source_package),
            "derived": self.derived,
            **self.extra,
        }


@dataclass
class RecipeResult:
    """What one recipe wrote: its items and its files (images and masks)."""

    items: list[DraftItem] = field(default_factory=list)
    files: list[FileRecord] = field(default_factory=list)


def package_licence(distribution: str) -> str:
    """Licence statement for files shipped by ``distribution``.

    The licence name comes from the installed package metadata (``License-Expression``,
    ``License`` or the ``License ::`` trove classifier).
    """
    meta: Any = importlib.metadata.metadata(distribution)  # an email.message.Message
    name = meta.get("License-Expression") or meta.get("License") or ""
    if not name or len(name) > 40:  # some packages paste the whole licence text
        classifiers = meta.get_all("Classifier") or []
        found = [c.rsplit("::", 1)[-1].strip() for c in classifiers if c.startswith("License ::")]
        name = found[0].removesuffix(" License") if found else "unknown"
    return _PACKAGE_LICENCE_NOTES[distribution].format(licence=name)


def package_dir(module: str) -> Path:
    """Folder of an installed top-level package, found without importing it (in the
    frozen bundle, the folder of its bundled files).

    Raises
    ------
    DatasetError
        The package is not installed.
    """
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        # The frozen bundle carries nilearn's template files but not its code (which
        # would pull in scikit-learn): the files sit where the package would.
        bundled = Path(getattr(sys, "_MEIPASS", "")) / module
        if getattr(sys, "frozen", False) and bundled.is_dir():
            return bundled
        raise DatasetError(f"the demo needs the {module!r} package, which is not installed")
    return Path(spec.origin).parent


def tokens(text: str) -> list[str]:
    """Lower-case words of a free-text attribute (splits on anything not a letter)."""
    return [t for t in re.split(r"[^a-z]+", text.lower()) if t]


def plane_of_normal(normal: tuple[float, float, float]) -> str:
    """Name the plane whose normal is ``normal``.

    Parameters
    ----------
    normal : (3,) float
        Slice normal in patient coordinates (LPS for DICOM, RAS for NIfTI; the
        plane name does not depend on the signs).

    Returns
    -------
    str
        ``"Sagittal"`` (normal along x), ``"Coronal"`` (y), ``"Axial"`` (z), or
        ``"Oblique"`` when no component exceeds 0.9 of the unit normal.
    """
    size = sum(c * c for c in normal) ** 0.5
    for axis, plane in enumerate(("Sagittal", "Coronal", "Axial")):
        if abs(normal[axis]) > 0.9 * size:
            return plane
    return "Oblique"
