"""Sizes in bytes as people write them (``2G``, ``512MiB``), for the CLI and the panes.

Powers of 1024 (IEC 80000-13 binary prefixes; vLLM's ``--kv-cache-memory-bytes`` reads
the same suffixes).
"""

from __future__ import annotations

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
MAX_BYTE_SIZE = 1 << 60
"""Largest size accepted (1 EiB): a bigger one is a typing slip."""


def parse_byte_size(text: str) -> int:
    """A size in bytes: a whole number, or one with K, M, G or T (powers of 1024, with an
    optional ``iB``/``B``: ``2G``, ``512MiB``), from 1 to :data:`MAX_BYTE_SIZE`.

    Raises
    ------
    ValueError
        ``text`` is no such size (the message quotes it).
    """
    clean = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = clean[-1:] if clean[-1:] in _UNITS else ""
    number = clean[: len(clean) - len(unit)]
    try:
        value = int(float(number) * _UNITS[unit])
    except (ValueError, OverflowError):  # "abc", "inf"
        value = 0
    if not 1 <= value <= MAX_BYTE_SIZE:
        raise ValueError(f"expected a size in bytes such as 2G or 512M, got {text!r}")
    return value


def byte_size_text(size: int) -> str:
    """Bytes as :func:`parse_byte_size` reads them, in the largest whole unit:
    2147483648 -> "2G"."""
    for unit in ("T", "G", "M", "K"):
        if size % _UNITS[unit] == 0:
            return f"{size // _UNITS[unit]}{unit}"
    return str(size)
