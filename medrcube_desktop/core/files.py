"""Small file helpers shared by every writer of exports."""

from __future__ import annotations

import os
import threading
from pathlib import Path

_UMASK_LOCK = threading.Lock()


def current_umask() -> int:
    """The process umask (read by setting and restoring it, under a lock)."""
    with _UMASK_LOCK:
        mask = os.umask(0)
        os.umask(mask)
    return mask


def as_new_file(path: str | Path) -> None:
    """Give a temporary file (``tempfile.mkstemp`` makes them 0600) the permissions a
    newly created file would have (0666 minus the umask), so an export on a shared drive
    is readable by colleagues as usual."""
    os.chmod(path, 0o666 & ~current_umask())
