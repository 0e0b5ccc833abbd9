"""The benchmark item model: one multiple-choice question about one image."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

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
        Absolute, normalised path of the image, inside the benchmark root as written;
        symbolic links are not followed here (``core.file_checks.require_item_files``
        checks the real path before the file is read). Items built by the loader's
        column path (``core.quick_chunk``) hold it as text and make the ``Path`` when it
        is first read: 100,000 items open without building 100,000 paths.
    source_file : Path
        The ``test.json`` that holds the item.
    mask_path : Path or None
        MedRCube Desktop extension: a label mask on the image grid (PNG for 2-D,
        NIfTI for volumes); non-zero voxels are drawn as overlay.
    bbox : tuple of 4 float or None
        MedRCube Desktop extension: ``(x0, y0, x1, y1)`` in pixels of the source image
        (column, row; origin top-left of the stored array), drawn as a red outline.
    original_task : str or None
        The release's ``original_task`` (the source dataset's own task name), if given.
    restricted : bool
        The release's ``restricted``: the image may not be redistributed, so the release
        ships without it (obtain it from the source dataset).
    root : Path or None
        The benchmark root the item was loaded from (``None`` for items built by hand);
        file checks confine the image's real path to it.
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
    original_task: str | None = None
    restricted: bool = False
    root: Path | None = None

    if not TYPE_CHECKING:  # mypy would take every attribute for one

        def __getattr__(self, name: str) -> object:
            """``image_path`` from its text, once (only for attributes not set)."""
            fields = self.__dict__
            if name == "image_path" and "_image_text" in fields:
                path = fields["image_path"] = Path(fields["_image_text"])
                return path
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def answer_text(self) -> str:
        """Text of the correct option."""
        return self.options[self.answer]


_new_object = object.__new__
_set_attribute = object.__setattr__


def item_from_fields(fields: dict[str, object]) -> Item:
    """The :class:`Item` whose attributes are ``fields``, built without ``__init__``.

    For the loader's fast path: a frozen dataclass's ``__init__`` sets each of its 17
    fields through ``object.__setattr__`` (1.6 µs an item); this sets the attribute
    dictionary at once (0.5 µs). ``fields`` must name every field, no more (checked by
    the tests, not here), and becomes the item's own: do not keep or change it.
    """
    item = _new_object(Item)
    _set_attribute(item, "__dict__", fields)
    return item


_DRAWN_OVERLAY = re.compile(
    r"\b(?:masks?|masked|red|green|yellow|blue|box(?:es)?|bounding|outlined?|contour(?:ed)?|"
    r"arrows?|highlighted|marked)\b",
    re.IGNORECASE,
)


def overlay_drawn_in(item: Item) -> bool:
    """Whether the item's picture probably carries its overlay burned in.

    A heuristic (issue 15): the public release's PNGs draw the region a question asks
    about into the picture ("the red mask area"), and give no ``mask_path`` or ``bbox``.
    True when the item has neither and its question names a mask, a box, an outline, a
    contour, an arrow, a highlighted or marked region, or a colour (red, green, yellow,
    blue). The overlay controls (M, O, [ ]) draw only ``mask_path`` and ``bbox``, so they
    cannot change such a picture; the item pane says so.
    """
    if item.mask_path is not None or item.bbox is not None:
        return False
    return _DRAWN_OVERLAY.search(item.question) is not None
