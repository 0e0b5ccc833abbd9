"""Process-wide tuning of glibc's allocator for a viewer that renders one picture after
another: one function, :func:`tune_malloc`, called once from the app's entry point
(:func:`medrcube_desktop.cli.app.main`) and by the render benchmark. No Qt here.

Why: a render makes and frees a few arrays of 0.5 to 2 MB (a 512x512 slice's pixels,
its RGBA, the gather's indices). glibc serves such sizes from the heap once its dynamic
mmap threshold has risen to them, but when the memory freed at the top of the heap
passes its trim threshold (twice the mmap threshold, about 2 MB here) it hands the
pages back to the kernel, and the next render takes them again: about 480 minor page
faults a 512x512 render (each a kernel entry and a 4 KiB page zeroed), 1 to 1.5 ms,
as much as the whole decode, and only on some renders, so the time swung 1-2x from run
to run (issue 25 item 3). Fixing both thresholds (``mallopt``, glibc's ``malloc(3)``
and ``mallopt(3)``; the same as ``MALLOC_MMAP_THRESHOLD_`` and
``MALLOC_TRIM_THRESHOLD_`` in the environment) keeps those pages in the process.

The price: up to :data:`TRIM_THRESHOLD` bytes freed at the top of the heap stay in the
process instead of going back to the system, and blocks under :data:`MMAP_THRESHOLD`
come from the heap (where glibc puts them anyway once one of that size was freed).
Other C libraries (macOS, Windows, musl) are left as they are.
"""

from __future__ import annotations

import ctypes
import os
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""``mallopt`` parameter numbers (glibc ``<malloc.h>``)."""

MMAP_THRESHOLD = 32 * 1024 * 1024
"""Blocks of at least this many bytes get their own mapping (returned on free). 32 MiB
is the highest value glibc's dynamic threshold reaches on 64-bit systems
(``DEFAULT_MMAP_THRESHOLD_MAX``): an RGBA render up to about 2,900 x 2,900 pixels."""

TRIM_THRESHOLD = 64 * 1024 * 1024
"""Free memory at the top of the heap kept before glibc returns it to the system: what
a render of a large radiograph (its pixels, RGBA and temporaries) frees at once."""

ENVIRONMENT = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")
"""glibc's own environment tunables: when the user set either, theirs stand."""

_applied: bool | None = None


def tune_malloc() -> bool:
    """Fix glibc's mmap and trim thresholds for this process (see the module text).

    Idempotent and cheap; the first call decides. Nothing is changed on a C library
    other than glibc, or when the user set ``MALLOC_TRIM_THRESHOLD_`` or
    ``MALLOC_MMAP_THRESHOLD_`` (or the ``GLIBC_TUNABLES`` ``glibc.malloc`` ones).

    Returns
    -------
    bool
        True when both thresholds are set (by this call or an earlier one); False when
        nothing was changed (not glibc, the user's settings, or ``mallopt`` refused).
    """
    global _applied
    if _applied is not None:
        return _applied
    _applied = False
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if any(os.environ.get(name) for name in ENVIRONMENT) or "glibc.malloc." in tunables:
        return False
    if not sys.platform.startswith("linux") or not _is_glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mmap first: setting either one turns glibc's dynamic adjustment of both off
    _applied = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
    return _applied


def tuned() -> bool:
    """Whether :func:`tune_malloc` has set the thresholds in this process (so that a
    freed block of up to :data:`MMAP_THRESHOLD` bytes is reused, not faulted in again)."""
    return _applied is True


def _is_glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError, AttributeError):
        return False
