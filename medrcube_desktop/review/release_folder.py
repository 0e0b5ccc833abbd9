"""The release folder: its checks before anything is written, the source's files hard-linked
(else copied) into a hidden stage, and the stage renamed into place when whole (issue 23,
item 3; :mod:`.release` writes the rest). Only ever reads the source. No Qt, no store.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from pathlib import Path

from medrcube_desktop.core.write_guard import (
    ProtectedFileError,
    refuse_inside,
    refuse_output_folder,
)
from medrcube_desktop.review.release_records import ReleaseError

__all__ = [
    "Linker", "check_out_folder", "check_source", "check_version", "inside", "mirror",
    "move_into_place", "stage_folder", "sweep_stale_stages",
]  # fmt: skip

MAX_VERSION_LENGTH = 64
"""Characters a release's version may have at most (it names files)."""
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
_NO_LINK = frozenset({errno.EXDEV, errno.EPERM, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS})
"""Why ``os.link`` refuses on this file system (another device, no hard links): copy from then on."""


def check_version(version: str) -> None:
    """Refuse a version that cannot name files (``<stem>.r<version>.png``): letters,
    digits and ``. _ + -``, starting with a letter or digit, at most 64 characters."""
    if isinstance(version, str) and len(version) > MAX_VERSION_LENGTH:
        raise ReleaseError(
            f"--version {version[:20]!r}…: too long ({len(version)} characters, at most "
            f"{MAX_VERSION_LENGTH})"
        )
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise ReleaseError(
            f"--version {version!r}: use letters, digits and . _ + - (such as 1.1 or "
            "2026-12), starting with a letter or digit"
        )


def check_source(source_root: str | Path) -> Path:
    """The source benchmark folder, resolved.

    Raises
    ------
    ReleaseError
        It does not exist or is not a folder.
    """
    given = Path(source_root).expanduser()
    if not given.is_dir():
        raise ReleaseError(
            f"{given}: the source benchmark folder does not exist or is not a folder"
        )
    return given.resolve()


def inside(path: str, folder: str) -> bool:
    """Whether the path ``path`` is ``folder`` or under it (as text: give real paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_out_folder(source_root: Path, out: Path) -> None:
    """Refuse an output folder that exists and is not empty, or that is the source,
    inside it or holds it (real paths, symbolic links followed), or lies inside any
    benchmark dataset folder.

    Raises
    ------
    ReleaseError
        Naming ``out`` and why.
    """
    try:
        refuse_inside(out, source_root, "the source benchmark", "write the release elsewhere")
    except ProtectedFileError as exc:
        raise ReleaseError(str(exc)) from exc
    if os.path.lexists(out):
        if os.path.islink(out):
            raise ReleaseError(
                f"{out}: is a symbolic link (to {os.readlink(out)}); a release goes into a new "
                "or empty folder, not through a link"
            )
        if not os.path.isdir(out):
            raise ReleaseError(
                f"{out}: exists and is not a folder; a release goes into a new or empty folder"
            )
        if any(os.scandir(out)):
            raise ReleaseError(f"{out}: is not empty; a release goes into a new or empty folder")
    try:
        refuse_output_folder(out)
    except Exception as exc:
        raise ReleaseError(str(exc)) from exc


def _alive(pid: int) -> bool:
    """Whether a process of id ``pid`` runs (``kill(pid, 0)``: no signal is sent)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    except OSError:
        return True  # cannot tell: leave its folder
    return True


def stage_folder(out: Path) -> Path:
    """A new hidden staging folder's path beside ``out``:
    ``.<out name>.release-<pid>-<8 hex>`` (the pid says whose it is)."""
    import uuid

    return out.parent / f".{out.name}.release-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def sweep_stale_stages(out: Path) -> list[Path]:
    """Remove the staging folders of earlier releases into ``out`` whose process is
    gone (killed before it could remove its own: SIGKILL, a power cut); a stage of a
    release still running (its pid alive) is left alone. Returns those removed."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.release-(\d+)-[0-9a-f]{{8}}")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return removed
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match and entry.is_dir(follow_symlinks=False) and not _alive(int(match.group(1))):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


class Linker:
    """Hard links where the file system allows, else copies (and copies from the first
    refusal on)."""

    def __init__(self, copy: bool) -> None:
        self.link = not copy
        self.linked = self.copied = 0

    def __call__(self, source: str, target: str) -> None:
        if self.link:
            try:
                os.link(source, target)  # follows a symbolic link: the file it names
                self.linked += 1
                return
            except OSError as exc:
                if exc.errno in _NO_LINK:
                    self.link = False
                elif not os.path.exists(source):
                    raise
        shutil.copy2(source, target)
        self.copied += 1


def mirror(source: Path, stage: Path, skip: set[str], linker: Linker) -> None:
    """Every file under ``source`` into ``stage`` at the same relative path (``skip``:
    real paths written apart); folders a symbolic link names are followed once."""
    seen: set[str] = set()
    for folder, dirs, names in os.walk(source, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        target = stage / os.path.relpath(folder, source)
        target.mkdir(exist_ok=True)
        for name in names:
            path = os.path.join(folder, name)
            if os.path.join(real, name) in skip:
                continue
            if not os.path.exists(path):  # a broken link: kept as a link
                os.symlink(os.readlink(path), target / name)
                continue
            linker(path, str(target / name))


def move_into_place(stage: Path, out: Path) -> None:
    """Rename the whole ``stage`` to ``out`` (an empty ``out`` is replaced)."""
    try:
        os.rename(stage, out)  # POSIX: replaces an empty folder in one step
    except OSError:
        if not os.path.isdir(out) or any(os.scandir(out)):
            raise
        os.rmdir(out)
        os.rename(stage, out)
