"""What is wrong with a benchmark: :class:`Problem` (one thing, precise enough to fix by
hand) and :class:`UncheckedFiles` (a left-out record's files, checked later). Shared by
the loader (:mod:`.dataset`), the record validation (:mod:`.records`) and the checks
that run after loading (``imaging.deep_check``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a benchmark, precise enough to fix by hand.

    Attributes
    ----------
    file : str
        The ``test.json`` concerned, relative to the benchmark root (POSIX separators).
    item : str or None
        The item's ``id``; ``"#N (no id)"``, with N its 0-based position in the list,
        when the item has no usable id (an explicit id of that form is itself reported,
        so the two never collide); ``None`` for a problem with the whole file.
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
class UncheckedFiles:
    """The image and mask of a record left out for a record problem, with file checks
    deferred (``check_files=False``): :meth:`Benchmark.check_files` checks them as
    ``validate`` does at load, so the window lists the same problems.

    Attributes
    ----------
    file, item : str
        As in :class:`Problem`.
    folder : Path
        The folder of the ``test.json``.
    image, mask : tuple of (Path, str) or None
        Lexical path and the value as written (``None``: absent or already reported).
    must_exist : bool
        ``load_benchmark``'s ``images``.
    reported : frozenset
        The fields that have a problem already (each field has at most one).
    """

    file: str
    item: str
    folder: Path
    image: tuple[Path, str] | None
    mask: tuple[Path, str] | None
    must_exist: bool
    reported: frozenset[str | None]
