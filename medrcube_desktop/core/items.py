"""The benchmark item model: one multiple-choice question about one image."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from medrcube_desktop.core.taxonomy import Task

OPTION_LETTERS: tuple[str, ...] = ("A", "B", "C", "D", "E", "F")


@dataclass(frozen=True)
class Item:
    """One benchmark item, validated.

    Attributes
    ----------
    id : str
        Benchmark id, unique across the whole benchmark (exports identify items by it).
    question : str
        Question text.
    options : dict[str, str]
        Option letter (``"A"``..) to option text, in letter order; 2 to 6 options.
    answer : str
        Letter of the correct option; its text equals the item's ``gt_answer``.
    task : Task
        Canonical task (the raw spelling is kept in ``raw_task``).
    modality, region, dataset : str
        ``modality``, ``parts`` and ``dataset`` fields as written in the file.
    image_path : Path
        Absolute path of the image (resolved inside the benchmark root).
    source_file : Path
        The ``test.json`` that holds the item.
    mask_path : Path or None
        MedRCube Desktop extension: a label mask on the image grid (PNG for 2-D,
        NIfTI for volumes); non-zero voxels are drawn as overlay.
    bbox : tuple of 4 float or None
        MedRCube Desktop extension: ``(x0, y0, x1, y1)`` in pixels of the source image
        (column, row; origin top-left of the stored array), drawn as a red outline.
    extra : dict
        Every other field of the record, kept for display and export.
    """

    id: str
    question: str
    options: dict[str, str]
    answer: str
    task: Task
    raw_task: str
    modality: str
    region: str
    dataset: str
    image_path: Path
    source_file: Path
    mask_path: Path | None = None
    bbox: tuple[float, float, float, float] | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def answer_text(self) -> str:
        """Text of the correct option."""
        return self.options[self.answer]
