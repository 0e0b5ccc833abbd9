"""Loading and validating a benchmark in the public MedRCube layout.

Layout (DESIGN.md): a root folder whose sub-folders each hold a ``test.json``, a JSON
list of items. ``image_path`` is relative to the sub-folder that holds the
``test.json``; ``gt_answer`` is the TEXT of the correct option, not its letter.

Bad items are reported as :class:`Problem` records and left out; the good items of
the same file still load. Only an unusable root raises :class:`DatasetError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from medrcube_desktop.core.items import OPTION_LETTERS, Item
from medrcube_desktop.core.taxonomy import canonical_task
from medrcube_desktop.errors import DatasetError

REQUIRED_FIELDS: tuple[str, ...] = (
    "id",
    "question",
    "option_A",
    "option_B",
    "gt_answer",
    "image_path",
    "task",
    "modality",
    "parts",
    "dataset",
)
ITEMS_FILE = "test.json"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a benchmark, precise enough to fix by hand.

    Attributes
    ----------
    file : str
        The ``test.json`` concerned, relative to the benchmark root (POSIX separators).
    item : str or None
        The item's ``id`` (``"#N"``, the 0-based position in the list, when the item
        has no usable id); ``None`` for a problem with the whole file.
    field : str or None
        The field concerned (``"gt_answer"``, ``"image_path"``...), ``None`` for a
        problem with the whole file or record.
    message : str
        What is wrong, in one sentence.
    """

    file: str
    item: str | None
    field: str | None
    message: str

    def to_dict(self) -> dict[str, str | None]:
        """The JSON shape used by ``medrcube-desktop validate --json``."""
        return asdict(self)

    def __str__(self) -> str:
        where = self.file
        if self.item is not None:
            where += f" item {self.item}"
        if self.field is not None:
            where += f" field {self.field}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Benchmark:
    """A loaded benchmark: the good items and every problem found.

    Attributes
    ----------
    root : Path
        Absolute, resolved benchmark root.
    items : list[Item]
        Loadable items in file order (sub-folders sorted by name).
    problems : list[Problem]
        Every problem found, each listed once.
    """

    root: Path
    items: list[Item]
    problems: list[Problem]

    @property
    def name(self) -> str:
        """The root folder's name."""
        return self.root.name


def load_benchmark(root: str | Path) -> Benchmark:
    """Load every ``*/test.json`` under ``root`` and validate each item.

    Parameters
    ----------
    root : str or Path
        Benchmark root folder.

    Returns
    -------
    Benchmark

    Raises
    ------
    DatasetError
        ``root`` does not exist, is not a folder, or no sub-folder holds a ``test.json``.
    """
    root_path = Path(root).expanduser()
    if not root_path.exists():
        raise DatasetError(f"{root_path}: benchmark folder does not exist")
    if not root_path.is_dir():
        raise DatasetError(f"{root_path}: not a folder")
    root_path = root_path.resolve()
    files = sorted(root_path.glob(f"*/{ITEMS_FILE}"))
    if not files:
        raise DatasetError(f"{root_path}: no sub-folder holds a {ITEMS_FILE}")
    items: list[Item] = []
    problems: list[Problem] = []
    seen_ids: dict[str, str] = {}
    for path in files:
        for item_or_problem in _load_file(root_path, path, seen_ids):
            if isinstance(item_or_problem, Problem):
                problems.append(item_or_problem)
            else:
                items.append(item_or_problem)
    return Benchmark(root=root_path, items=items, problems=problems)


def _load_file(root: Path, path: Path, seen_ids: dict[str, str]) -> Iterator[Item | Problem]:
    rel = path.relative_to(root).as_posix()
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        yield Problem(
            rel, None, None, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        )
        return
    except (OSError, UnicodeDecodeError) as exc:
        yield Problem(rel, None, None, f"cannot read file: {exc}")
        return
    if not isinstance(records, list):
        yield Problem(
            rel, None, None, f"expected a JSON list of items, found {type(records).__name__}"
        )
        return
    for index, record in enumerate(records):
        problems: list[Problem] = []
        item = _parse_record(root, path, rel, index, record, problems)
        if item is not None:
            if item.id in seen_ids:
                problems.append(
                    Problem(rel, item.id, "id", f"duplicate id (first seen in {seen_ids[item.id]})")
                )
            else:
                seen_ids[item.id] = rel
        yield from problems
        if item is not None and not problems:
            yield item


def _parse_record(
    root: Path, path: Path, rel: str, index: int, record: object, problems: list[Problem]
) -> Item | None:
    """Validate one record; append every problem found; return the item if none."""
    if not isinstance(record, dict):
        problems.append(
            Problem(rel, f"#{index}", None, f"item is a {type(record).__name__}, not a JSON object")
        )
        return None
    raw_id = record.get("id")
    item_id = (
        str(raw_id).strip()
        if isinstance(raw_id, str | int) and str(raw_id).strip()
        else f"#{index}"
    )

    def report(field: str | None, message: str) -> None:
        problems.append(Problem(rel, item_id, field, message))

    for name in REQUIRED_FIELDS:
        value = record.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            report(name, "missing or empty")
        elif not isinstance(value, str | int) or isinstance(value, bool):
            report(name, f"expected text, found {type(value).__name__}")
    options = _parse_options(record, report)
    answer = _match_answer(record.get("gt_answer"), options, report)
    task = None
    if isinstance(record.get("task"), str) and record["task"].strip():
        task = canonical_task(record["task"])
        if task is None:
            report("task", f"unknown task name {record['task']!r}")
    image_path = _resolve_inside(root, path.parent, record.get("image_path"), "image_path", report)
    mask_path = None
    if record.get("mask_path") is not None:
        mask_path = _resolve_inside(root, path.parent, record["mask_path"], "mask_path", report)
    bbox = _parse_bbox(record.get("bbox"), report)
    if problems or task is None or answer is None or image_path is None:
        return None
    known = set(REQUIRED_FIELDS) | {f"option_{x}" for x in OPTION_LETTERS} | {"mask_path", "bbox"}
    return Item(
        id=item_id,
        question=str(record["question"]).strip(),
        options=options,
        answer=answer,
        task=task,
        raw_task=str(record["task"]),
        modality=str(record["modality"]).strip(),
        region=str(record["parts"]).strip(),
        dataset=str(record["dataset"]).strip(),
        image_path=image_path,
        source_file=path,
        mask_path=mask_path,
        bbox=bbox,
        extra={k: v for k, v in record.items() if k not in known},
    )


def _parse_options(record: dict, report) -> dict[str, str]:
    options: dict[str, str] = {}
    ended_at: str | None = None
    for letter in OPTION_LETTERS:
        value = record.get(f"option_{letter}")
        present = (
            isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip()
        )
        if not present:
            if value is not None and letter not in ("A", "B"):
                report(f"option_{letter}", "empty option")
            ended_at = ended_at or letter
            continue
        if ended_at is not None:
            report(
                f"option_{ended_at}",
                f"missing, but option_{letter} is present (options must be contiguous)",
            )
            continue
        options[letter] = str(value).strip()
    return options


def _match_answer(gt_answer: object, options: dict[str, str], report) -> str | None:
    if (
        not isinstance(gt_answer, str | int)
        or isinstance(gt_answer, bool)
        or not str(gt_answer).strip()
    ):
        return None  # already reported as missing or of the wrong type
    wanted = str(gt_answer).strip()
    matches = [letter for letter, text in options.items() if text == wanted]
    if not matches:
        report("gt_answer", f"{wanted!r} matches no option")
        return None
    if len(matches) > 1:
        report("gt_answer", f"{wanted!r} matches more than one option ({', '.join(matches)})")
        return None
    return matches[0]


def _resolve_inside(root: Path, folder: Path, value: object, field: str, report) -> Path | None:
    if not isinstance(value, str) or not value.strip():
        return None  # missing fields are reported with the required fields
    relative = Path(value.strip())
    if relative.is_absolute():
        report(field, f"{value!r} is absolute; paths must be relative to the folder of test.json")
        return None
    resolved = (folder / relative).resolve()
    if not resolved.is_relative_to(root):
        report(field, f"{value!r} leaves the benchmark root")
        return None
    if not resolved.is_file():
        report(field, f"file not found: {resolved.relative_to(root).as_posix()}")
        return None
    return resolved


def _parse_bbox(value: object, report) -> tuple[float, float, float, float] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list | tuple)
        or len(value) != 4
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    ):
        report("bbox", "expected [x0, y0, x1, y1] in pixels")
        return None
    x0, y0, x1, y1 = (float(v) for v in value)
    if x1 <= x0 or y1 <= y0 or min(x0, y0) < 0:
        report("bbox", f"{list(value)} is not a box with x0 < x1, y0 < y1 and no negative corner")
        return None
    return (x0, y0, x1, y1)
