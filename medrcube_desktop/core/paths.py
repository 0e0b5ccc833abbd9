"""The image paths of benchmark records: confined to the benchmark root, checked in two steps.

1. :func:`lexical_path`, at load, without the file system: the path is relative, usable
   (no NUL byte) and, once normalised (``os.path.normpath``), stays inside the root (no
   ``..`` escaping it). A string operation: 100,000 items cost milliseconds.
2. :func:`check_path`, later (per item when it is shown, in the background for all
   items, eagerly for ``validate``): the path names an existing file (or a DICOM series
   folder) whose *real* path (every symbolic link followed) is still inside the root.

Step 2 is exact and cheap: :class:`RealDirs` resolves each *folder* once
(``os.path.realpath``) and then only ``os.lstat``-s the file in it; a file that is not a
symbolic link has the real path ``realpath(folder)/name``, and one that is a link is
resolved in full. Images of one folder share one ``realpath``.

Both steps tell a :data:`~medrcube_desktop.core.fields.Report` callback what is wrong;
the messages are shown to users as they are.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from medrcube_desktop.core.fields import Report
from medrcube_desktop.core.files import not_a_file

__all__ = ["RealDirs", "check_path", "inside", "lexical_path"]


def inside(path: str, root: str) -> bool:
    """True when the absolute, normalised ``path`` is ``root`` or lies below it."""
    return path == root or path.startswith(root if root.endswith(os.sep) else root + os.sep)


def lexical_path(root: Path, folder: Path, value: str, field: str, report: Report) -> Path | None:
    """``value`` joined to ``folder`` and normalised, if it stays inside ``root`` as written.

    No file system access: symbolic links are followed later, by :func:`check_path`.

    Parameters
    ----------
    root : Path
        Absolute, resolved benchmark root.
    folder : Path
        The folder holding the ``test.json`` (below ``root``, not resolved again).
    value : str
        The path as written in the record.
    field : str
        The field reported on (``"image_path"``, ``"mask_path"``).
    report : Report
        Told when the path is absolute, holds a NUL byte or leaves ``root``.

    Returns
    -------
    Path or None
        The absolute, normalised path (symbolic links not followed), or ``None``.
    """
    if os.path.isabs(value):
        report(field, f"{value!r} is absolute; paths must be relative to the folder of test.json")
        return None
    if "\0" in value:
        report(field, f"{value!r} cannot be used as a path: embedded null byte")
        return None
    joined = os.path.normpath(os.path.join(folder, value))
    if not inside(joined, str(root)):
        report(field, f"{value!r} leaves the benchmark root")
        return None
    return Path(joined)


class RealDirs:
    """Real paths of folders, each resolved once (``os.path.realpath``).

    Keep one for one pass over the items (a folder swapped for a link later is seen by
    the next pass, which starts a new one).
    """

    def __init__(self) -> None:
        self._real: dict[str, str] = {}

    def real_path(self, path: str) -> tuple[str, os.stat_result | None]:
        """The real path of ``path`` and its ``lstat`` (``None`` when nothing is there).

        Raises
        ------
        OSError
            The path cannot be looked at (a name too long, a loop of links...).
        """
        parent, name = os.path.split(path)
        real_parent = self._real.get(parent)
        if real_parent is None:
            real_parent = self._real[parent] = os.path.realpath(parent)
        candidate = os.path.join(real_parent, name)
        try:
            found = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            return candidate, None
        if not stat.S_ISLNK(found.st_mode):
            return candidate, found
        try:
            real = os.path.realpath(candidate, strict=True)  # OSError for a loop
        except FileNotFoundError:  # a broken link: where it points, and nothing there
            return os.path.realpath(candidate), None
        return real, os.stat(real)


def check_path(
    root: Path,
    path: Path,
    value: str,
    field: str,
    report: Report,
    dirs: RealDirs,
    allow_folder: bool = False,
    must_exist: bool = True,
) -> bool:
    """Whether ``path`` (from :func:`lexical_path`) names a file whose real path is inside
    ``root``.

    With ``allow_folder`` a folder holding at least one file is accepted too (an image
    given as a DICOM series). With ``must_exist=False`` nothing at all there is accepted
    (work on the items' text only); a path that leaves ``root`` through a link still is not.

    Parameters
    ----------
    root : Path
        Absolute, resolved benchmark root.
    path : Path
        The absolute, normalised path (inside ``root`` as written).
    value : str
        The path as written in the record (for messages).
    field : str
        The field reported on.
    report : Report
        Told when the path leaves ``root`` through a link, cannot be used, or is not a
        file.
    dirs : RealDirs
        The folders resolved so far in this pass.

    Returns
    -------
    bool
        True when the path is usable.
    """
    try:
        real, found = dirs.real_path(str(path))
    except (OSError, ValueError) as exc:
        report(field, f"{value!r} cannot be used as a path: {getattr(exc, 'strerror', 0) or exc}")
        return False
    root_text = str(root)
    if not inside(real, root_text):
        report(field, f"{value!r} leaves the benchmark root")
        return False
    if found is not None and stat.S_ISREG(found.st_mode):
        return True
    if found is None and not must_exist:
        return True
    shown = Path(real).relative_to(root_text).as_posix()
    is_dir = found is not None and stat.S_ISDIR(found.st_mode)
    if is_dir:
        try:
            # a series' slices are read only when they are regular files of the folder
            # itself, never through a link (imaging/series.py): a folder of links to
            # files elsewhere holds no slice
            if allow_folder and any(
                entry.is_file(follow_symlinks=False) for entry in os.scandir(real)
            ):
                return True
        except OSError as exc:
            report(field, f"cannot list the folder {shown}: {exc.strerror}")
            return False
        report(field, f"a folder, not a file: {shown}")
        return False
    why = "file not found" if found is None else (not_a_file(Path(real)) or "not a regular file")
    report(field, f"{why}: {shown}")
    return False
