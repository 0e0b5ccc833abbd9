"""Demo recipes for the DICOM files that pydicom and pydicom-data ship.

Ground truths come from the header of each file: Modality (0008,0060), ViewPosition
(0018,5101), ImageType (0008,0008), ImageOrientationPatient (0020,0037),
StudyDescription (0008,1030), SeriesDescription (0008,103E), BodyPartExamined
(0018,0015) and the overlay plane in group 0x6000. Files are copied with identifying
attributes and private tags removed, keeping the transfer syntax (compressed pixel
data stays compressed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from medrcube_desktop.demo.sources import (
    BONE_LESIONS,
    IMAGE_FLAVOURS,
    LIVER_FINDINGS,
    MODALITIES,
    MODALITY_NAMES,
    MODALITY_QUESTION,
    ORGAN_TERMS,
    ORGANS,
    PLANE_QUESTION,
    PLANES,
    PROJECTIONS,
    PROTOCOLS,
    VIEW_POSITIONS,
    DraftItem,
    FileRecord,
    Question,
    RecipeResult,
    package_dir,
    plane_of_normal,
    tokens,
)
from medrcube_desktop.errors import DatasetError

if TYPE_CHECKING:
    from pydicom import Dataset

IDENTIFYING_KEYWORDS: tuple[str, ...] = (
    "PatientName", "PatientID", "PatientBirthDate", "PatientSex", "PatientAge",
    "OtherPatientIDs", "OtherPatientNames", "PatientAddress", "PatientSize", "PatientWeight",
    "InstitutionName", "InstitutionAddress", "StationName", "DeviceSerialNumber",
    "ReferringPhysicianName", "OperatorsName", "PerformingPhysicianName", "PhysiciansOfRecord",
    "NameOfPhysiciansReadingStudy", "AccessionNumber", "StudyID",
    "StudyDate", "StudyTime", "SeriesDate", "SeriesTime", "AcquisitionDate", "AcquisitionTime",
    "AcquisitionDateTime", "ContentDate", "ContentTime", "InstanceCreationDate",
    "InstanceCreationTime", "PerformedProcedureStepStartDate", "PerformedProcedureStepStartTime",
    "PatientBirthTime", "PatientComments", "IssuerOfPatientID", "PatientMotherBirthName",
    "PatientTelephoneNumbers", "EthnicGroup", "MilitaryRank", "MedicalRecordLocator",
    "InstitutionalDepartmentName", "RequestingPhysician", "ScheduledPerformingPhysicianName",
    "AdditionalPatientHistory", "Occupation", "PatientInsurancePlanCodeSequence",
)  # fmt: skip
"""Person- and site-identifying attributes removed from copied files, a subset of the
DICOM PS3.15 Annex E Basic Application Level Confidentiality Profile (Table E.1-1)."""

DERIVED_COPY = "copied, identifying attributes and private tags removed"
DERIVED_PNG16 = "stored pixel values as a 16-bit grayscale PNG (value * slope + intercept)"
DERIVED_MASK = "region enclosed by the lesion outline of overlay plane 0x6000, uint8 0/255 PNG"

QuestionFn = Callable[["Dataset"], Question]


@dataclass(frozen=True)
class DicomRecipe:
    """Which DICOM file, which questions, and where its region is established.

    Attributes
    ----------
    source_file : str
        Name passed to ``pydicom.data.get_testdata_file``.
    questions : tuple of callables
        Each reads the header and returns a :class:`Question`.
    region_evidence : tuple of 3 str or None
        ``(keyword, text, region)``: the item region is ``region`` because attribute
        ``keyword`` contains ``text`` (case-insensitive). ``None``: ``"Unspecified"``.
    as_png16 : bool
        Store the stored pixel values as a 16-bit grayscale PNG instead of the DICOM.
    overlay_mask : bool
        Also write the region outlined by overlay plane 0x6000 as a PNG mask.
    """

    source_file: str
    questions: tuple[QuestionFn, ...]
    region_evidence: tuple[str, str, str] | None
    as_png16: bool = False
    overlay_mask: bool = False

    def __call__(self, root: Path) -> RecipeResult:
        """Run the recipe, writing under ``root``; see :func:`run_dicom_recipe`."""
        return run_dicom_recipe(self, root)


def locate_dicom(name: str) -> tuple[Path, str, str]:
    """Find a pydicom test file without downloading.

    Returns
    -------
    path : Path
        The file.
    package : str
        ``"pydicom"`` or ``"pydicom-data"`` (the distribution that ships it).
    dataset : str
        Demo dataset folder: ``"pydicom_testdata"`` or ``"pydicom_data"``.
    """
    from pydicom.data import get_testdata_file

    found = get_testdata_file(name, download=False)
    if found is None:
        raise DatasetError(
            f"{name}: not shipped by pydicom or pydicom-data (is pydicom-data installed?)"
        )
    path = Path(str(found)).resolve()
    if path.is_relative_to(package_dir("pydicom").resolve()):
        return path, "pydicom", "pydicom_testdata"
    if path.is_relative_to(package_dir("data_store").resolve()):
        return path, "pydicom-data", "pydicom_data"
    raise DatasetError(f"{name}: found at {path}, outside pydicom and pydicom-data")


def read_dicom(path: Path) -> Dataset:
    """Read a DICOM file (build_demo keeps pydicom's warnings about the test files quiet)."""
    import pydicom

    return pydicom.dcmread(path)


def header_text(ds: Dataset, keyword: str) -> str:
    """An attribute as text (multi-valued attributes joined with backslashes)."""
    value = ds.get(keyword)
    if value is None:
        return ""
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        return str(value).strip()
    return "\\".join(str(v).strip() for v in value)


def image_type(ds: Dataset) -> list[str]:
    """Values of ImageType (0008,0008), stripped and upper-case."""
    return [v.upper() for v in header_text(ds, "ImageType").split("\\")]


def modality_name(ds: Dataset) -> str:
    """Map Modality (0008,0060) to a benchmark modality, or raise DatasetError."""
    code = header_text(ds, "Modality").upper()
    if code not in MODALITY_NAMES:
        raise DatasetError(f"DICOM Modality {code!r} is not one of {sorted(MODALITY_NAMES)}")
    return MODALITY_NAMES[code]


def ask_modality(ds: Dataset) -> Question:
    """Modality Recognition from Modality (0008,0060)."""
    fact = f"DICOM (0008,0060) Modality = {header_text(ds, 'Modality')}"
    return Question("Modality Recognition", MODALITY_QUESTION, modality_name(ds), MODALITIES, fact)


def ask_projection(ds: Dataset) -> Question:
    """View Recognition of a radiograph from ViewPosition (0018,5101)."""
    code = header_text(ds, "ViewPosition").upper()
    if code not in VIEW_POSITIONS:
        raise DatasetError(f"ViewPosition {code!r} is not one of {sorted(VIEW_POSITIONS)}")
    fact = f"DICOM (0018,5101) View Position = {code}"
    text = "In which projection was this radiograph taken?"
    return Question("View Recognition", text, VIEW_POSITIONS[code], PROJECTIONS, fact)


def _axial_plane(ds: Dataset, task: str) -> Question:
    if "AXIAL" not in image_type(ds):
        raise DatasetError(f"ImageType {image_type(ds)} does not contain AXIAL")
    fact = "DICOM (0008,0008) Image Type contains AXIAL"
    if "ImageOrientationPatient" in ds:
        row, col = np.asarray(ds.ImageOrientationPatient, dtype=float).reshape(2, 3)
        if plane_of_normal(tuple(np.cross(row, col))) != "Axial":
            raise DatasetError("ImageType says AXIAL but ImageOrientationPatient disagrees")
        fact += " and the (0020,0037) Image Orientation (Patient) normal is the patient z axis"
    return Question(task, PLANE_QUESTION, "Axial", PLANES, fact)


def ask_plane(ds: Dataset) -> Question:
    """View Recognition of a cross-section from ImageType (and the orientation)."""
    return _axial_plane(ds, "View Recognition")


def ask_plane_alias(ds: Dataset) -> Question:
    """As :func:`ask_plane`, spelled "View Identification" as the public release does."""
    return _axial_plane(ds, "View Identification")


def ask_protocol(ds: Dataset) -> Question:
    """Imaging Protocols Recognition from the MR Image Flavor (ImageType value 3)."""
    flavours = [IMAGE_FLAVOURS[v] for v in image_type(ds)[2:3] if v in IMAGE_FLAVOURS]
    if not flavours:
        raise DatasetError(f"ImageType {image_type(ds)} names no known MR weighting")
    fact = f"DICOM (0008,0008) Image Type value 3 (Image Flavor) = {image_type(ds)[2]}"
    text = "Which MRI sequence weighting does this image show?"
    return Question("Imaging Protocols Recognition", text, flavours[0], PROTOCOLS, fact)


def described_organ(ds: Dataset) -> tuple[str, str]:
    """The one organ named by StudyDescription / SeriesDescription, and the fact."""
    found: dict[str, str] = {}
    for keyword, tag in (("StudyDescription", "(0008,1030)"), ("SeriesDescription", "(0008,103E)")):
        text = header_text(ds, keyword)
        for word in tokens(text):
            if word in ORGAN_TERMS:
                found.setdefault(ORGAN_TERMS[word], f"DICOM {tag} {keyword} = {text!r}")
    if len(found) != 1:
        raise DatasetError(f"descriptions name {len(found)} organs, expected exactly one")
    return next(iter(found.items()))


def ask_organ(ds: Dataset) -> Question:
    """Organ Recognition of the imaged organ from the descriptions."""
    organ, fact = described_organ(ds)
    return Question("Organ Recognition", "Which organ is imaged?", organ, ORGANS, fact)


def ask_marked_organ(ds: Dataset) -> Question:
    """Organ Recognition of the overlay-marked region from the descriptions."""
    organ, fact = described_organ(ds)
    text = "In which organ is the region marked in red?"
    return Question("Organ Recognition", text, organ, ORGANS, fact, marked=True)


def ask_marked_lesion(ds: Dataset) -> Question:
    """Abnormality Diagnosis of the marked region: SeriesDescription says "lesion"."""
    organ, organ_fact = described_organ(ds)
    series = header_text(ds, "SeriesDescription")
    if organ != "Liver" or "lesion" not in tokens(series):
        raise DatasetError(f"descriptions do not establish a liver lesion ({organ}, {series!r})")
    fact = f"DICOM (0008,103E) Series Description = {series!r}; {organ_fact}"
    text = "What does the region marked in red represent?"
    return Question(
        "Abnormity Diagnosis", text, "Focal liver lesion", LIVER_FINDINGS, fact, marked=True
    )


def ask_bone_lesion(ds: Dataset) -> Question:
    """Disease Diagnosis of a radiograph from the diagnosis in StudyDescription."""
    study = header_text(ds, "StudyDescription")
    found = [d for d in BONE_LESIONS if d.lower() in study.lower()]
    if len(found) != 1:
        raise DatasetError(f"StudyDescription {study!r} names {len(found)} known bone lesions")
    fact = f"DICOM (0008,1030) Study Description = {study!r}"
    text = "Which bone lesion does this radiograph show?"
    return Question("Disease Diagnosis", text, found[0], BONE_LESIONS, fact)


def established_region(ds: Dataset, evidence: tuple[str, str, str] | None) -> str:
    """Item region (``parts``), checked against the header; see :class:`DicomRecipe`."""
    if evidence is None:
        return "Unspecified"
    keyword, text, region = evidence
    if text.upper() not in header_text(ds, keyword).upper():
        raise DatasetError(f"{keyword} {header_text(ds, keyword)!r} does not contain {text!r}")
    return region


def deidentify(ds: Dataset) -> None:
    """Delete identifying attributes (at every nesting level) and private tags, in place."""

    def drop(dataset: Dataset, element: object) -> None:
        if getattr(element, "keyword", "") in IDENTIFYING_KEYWORDS:
            del dataset[element.tag]  # type: ignore[attr-defined]

    ds.walk(drop)
    ds.remove_private_tags()


def marked_region(overlay: np.ndarray) -> np.ndarray:
    """The region enclosed by the largest non-rectangular closed outline of an overlay.

    Siemens MedCom overlays hold the lesion outline together with annotation
    graphics: text ("Tra") and a square marker box. Each 8-connected outline is
    filled; outlines that enclose nothing and fills that cover 95 % or more of their
    bounding box (axis-aligned rectangles) are dropped; the largest fill left wins.

    Parameters
    ----------
    overlay : (H, W) array
        Overlay plane, non-zero = drawn pixel; rows top to bottom, columns left to right.

    Returns
    -------
    (H, W) bool
        The filled region, outline included.
    """
    from scipy import ndimage

    labels, _ = ndimage.label(overlay > 0, structure=np.ones((3, 3)))
    best = np.zeros(overlay.shape, dtype=bool)
    for index, box in enumerate(ndimage.find_objects(labels), start=1):
        outline = labels[box] == index
        filled = ndimage.binary_fill_holes(outline)
        if filled.sum() <= outline.sum() or filled.mean() >= 0.95:
            continue
        if filled.sum() > best.sum():
            best = np.zeros(overlay.shape, dtype=bool)
            best[box] = filled
    if not best.any():
        raise DatasetError("the overlay holds no closed, non-rectangular outline")
    return best


def write_overlay_mask(ds: Dataset, path: Path) -> None:
    """Write the region marked by overlay plane 0x6000 as an (H, W) uint8 0/255 PNG."""
    from PIL import Image

    overlay = ds.overlay_array(0x6000)
    origin = tuple(ds[0x6000, 0x0050].value) if (0x6000, 0x0050) in ds else (1, 1)
    if overlay.shape != (ds.Rows, ds.Columns) or origin != (1, 1):
        raise DatasetError("overlay 0x6000 does not cover the image exactly")
    Image.fromarray(marked_region(overlay).astype(np.uint8) * 255).save(path)


def write_png16(ds: Dataset, path: Path) -> dict[str, object]:
    """Write the stored pixel values as a 16-bit grayscale PNG.

    Returns
    -------
    dict
        ``rescale_slope`` and ``rescale_intercept``: the value in Hounsfield units
        (for CT) is ``png_value * rescale_slope + rescale_intercept``.
    """
    from PIL import Image

    pixels = ds.pixel_array
    if pixels.ndim != 2 or pixels.min() < 0 or pixels.max() > 65535:
        raise DatasetError("stored pixel values do not fit one 16-bit grayscale image")
    Image.fromarray(pixels.astype(np.uint16)).save(path)
    return {
        "rescale_slope": float(ds.get("RescaleSlope", 1.0)),
        "rescale_intercept": float(ds.get("RescaleIntercept", 0.0)),
    }


def write_copy(ds: Dataset, path: Path) -> None:
    """De-identify ``ds`` in place and save it to ``path`` in its own transfer syntax."""
    deidentify(ds)
    ds.save_as(path, enforce_file_format=True)


def run_dicom_recipe(recipe: DicomRecipe, root: Path) -> RecipeResult:
    """Copy (or convert) one DICOM file under ``root`` and return its items and files."""
    source, package, dataset = locate_dicom(recipe.source_file)
    ds = read_dicom(source)
    questions = [ask(ds) for ask in recipe.questions]
    modality = modality_name(ds)
    region = established_region(ds, recipe.region_evidence)
    (root / dataset / "images").mkdir(parents=True, exist_ok=True)
    stem = "images/" + source.stem.lower().replace("-", "_")
    result = RecipeResult()

    def record(rel: str, derived: str, extra: dict[str, object] | None = None) -> None:
        result.files.append(
            FileRecord(f"{dataset}/{rel}", package, source.name, derived, extra or {})
        )

    if recipe.as_png16:
        image_rel = f"{stem}.png"
        extra = write_png16(ds, root / dataset / image_rel)
        record(image_rel, DERIVED_PNG16, extra)
    else:
        image_rel = f"{stem}.dcm"
        write_copy(ds, root / dataset / image_rel)  # keeps the overlay group 0x6000
        record(image_rel, DERIVED_COPY)
    mask_rel = f"{stem}_mask.png" if recipe.overlay_mask else None
    if mask_rel is not None:
        write_overlay_mask(ds, root / dataset / mask_rel)
        record(mask_rel, DERIVED_MASK)
    for q in questions:
        mask = mask_rel if q.marked else None
        result.items.append(DraftItem(q, dataset, image_rel, modality, region, mask_path=mask))
    return result


DICOM_RECIPES: tuple[DicomRecipe, ...] = (
    DicomRecipe(
        "RG1_J2KR.dcm", (ask_modality, ask_projection), ("BodyPartExamined", "CHEST", "Chest")
    ),
    DicomRecipe(
        "RG3_J2KR.dcm",
        (ask_modality, ask_projection, ask_bone_lesion),
        ("StudyDescription", "tibia", "Lower limb"),
    ),
    # J2K_pixelrep_mismatch (pydicom) rather than 693_UNCI: the latter holds deliberately
    # inconsistent pixel data (pydicom issue 693) and shows as grey mush in any window.
    DicomRecipe(
        "J2K_pixelrep_mismatch.dcm", (ask_modality, ask_plane), ("BodyPartExamined", "HEAD", "Head")
    ),
    # BodyPartExamined says NECK but the slice shows a thoracic vertebra with ribs: the
    # header contradicts the image, so no region is claimed.
    DicomRecipe("bad_sequence.dcm", (ask_modality, ask_plane_alias), None),
    DicomRecipe("explicit_VR-UN.dcm", (ask_modality,), ("BodyPartExamined", "PANCREAS", "Abdomen")),
    DicomRecipe("CT_small.dcm", (ask_modality, ask_plane), None, as_png16=True),
    DicomRecipe("MR_small.dcm", (ask_modality,), None),
    DicomRecipe(
        "MR-SIEMENS-DICOM-WithOverlays.dcm",
        (ask_modality, ask_marked_organ, ask_marked_lesion),
        ("BodyPartExamined", "ABDOMEN", "Abdomen"),
        overlay_mask=True,
    ),
    DicomRecipe(
        "emri_small.dcm", (ask_modality, ask_protocol), ("BodyPartExamined", "HEAD", "Head")
    ),
    DicomRecipe(
        "color-pl.dcm", (ask_modality, ask_organ), ("SeriesDescription", "echocardiogram", "Heart")
    ),
    DicomRecipe(
        "JPGLosslessP14SV1_1s_1f_8b.dcm", (ask_modality,), ("ImageType", "CARDIOLOGY", "Heart")
    ),
)
