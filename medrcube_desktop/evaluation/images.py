"""The image a model sees: rendered as the reviewer sees it, 8-bit, lossless, bounded.

Paper Appendix E.1 and issue 7: the overlay (mask, box) burned in; 16-bit and float
images windowed, not saturated (the renderer's job); square pixels; a tiny image padded
to the model's minimum side; a huge one shrunk to the pixel budget.

Issue 11: this runs for every item of a run, so it is built for speed without loss:

- **original**: an 8-bit greyscale or RGB PNG/JPEG with no overlay, no EXIF turn and a
  size within the limits renders to exactly its own pixels (the renderer shows 8-bit
  pictures unchanged), so its file is sent as it is, with no decode or encode at all.
- **png**: everything else is rendered and written as PNG by imagecodecs (libpng) with
  zlib level 1, the RLE strategy and the Sub filter on every row, the settings
  imagecodecs documents for fast encoding: lossless, ~20x faster than Pillow's default
  (level 6, adaptive filters) and ~4x faster than Pillow at level 1, which cannot choose
  the filter, for files of about the same size; in greyscale (mode L) when the rendered
  picture has no colour, a third of the bytes.

What was done is returned so the run can record it per item (``encoding``,
``mime``, sizes, window).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from medrcube_desktop import __version__, settings
from medrcube_desktop.core.files import atomic_write, open_regular, read_file_bytes
from medrcube_desktop.core.items import Item

DEFAULT_MIN_SIDE = 28
"""Smallest side (pixels) sent; Qwen2-VL-style processors refuse less than 28."""

DEFAULT_MAX_PIXELS = 1280 * 28 * 28
"""Pixel budget per image (Qwen2.5-VL's recommended ``max_pixels``, 1,003,520)."""

PNG_COMPRESS_LEVEL = 1
"""zlib level of the PNGs sent: lossless at any level; 1 is the fastest that still
compresses (imagecodecs ``png_encode``: ``PNG.COMPRESSION.SPEED``)."""

PNG_STRATEGY_RLE = 3
"""zlib strategy Z_RLE (imagecodecs ``PNG.STRATEGY.RLE``): runs only, the fastest; with
the Sub filter it compresses medical pictures (flat backgrounds) about as well."""

RESAMPLING = "bicubic"
"""Pillow filter that shrinks an image over the pixel budget (antialiased when shrinking;
the filter Qwen2-VL's own processor resizes with)."""

ENCODING_VERSION = f"{__version__}/png{PNG_COMPRESS_LEVEL}-sub-rle/{RESAMPLING}"
"""Part of every cache key: a new app version may render differently."""

PASSTHROUGH_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg"}


@dataclass(frozen=True)
class PreparedImage:
    """An image ready to send: encoded ``data`` of type ``mime`` and what was done.

    ``info``: ``encoding`` ("original" or "png"), ``mode`` ("L" or "RGB"), ``mime``,
    ``bytes``, ``blake2b`` (hex digest of ``data``, 16 bytes), ``rendered`` [H, W] before resizing, ``sent`` [H, W], ``padded`` (bool),
    ``scaled`` (factor <= 1), ``slice_index``, ``window`` [center, width] or None.
    """

    data: bytes
    mime: str
    info: dict[str, object] = field(default_factory=dict)


def model_image(
    item: Item, min_side: int = DEFAULT_MIN_SIDE, max_pixels: int = DEFAULT_MAX_PIXELS
) -> PreparedImage:
    """The item's image for a model (see the module docstring for the two encodings).

    Raises
    ------
    ImageLoadError
        The image or its mask cannot be read, or it exceeds the pixel limit
        (``MEDRCUBE_MAX_PIXELS``), or its real path leaves the benchmark root.
    """
    from medrcube_desktop.core.file_checks import require_item_files

    require_item_files(item)  # exact confinement, also for a window's unchecked items
    original = original_image(item, min_side, max_pixels)
    if original is not None:
        return original
    return rendered_image(item, min_side, max_pixels)


def original_image(item: Item, min_side: int, max_pixels: int) -> PreparedImage | None:
    """The file itself when rendering it would give back exactly its pixels, else None.

    Only the header is read (Pillow opens lazily). The conditions mirror the renderer:
    8-bit L or RGB is shown unchanged (``render._to_gray8``), and nothing else is drawn
    or turned when there is no mask, no box and no EXIF orientation.
    """
    from PIL import Image, UnidentifiedImageError

    from medrcube_desktop.imaging.loading import PICTURE_SUFFIXES
    from medrcube_desktop.imaging.slice_data import check_pixel_count

    path = item.image_path
    if item.mask_path is not None or item.bbox is not None:
        return None
    if path.suffix.lower() not in PICTURE_SUFFIXES or not path.is_file():
        return None
    try:
        with Image.open(path) as img:
            mime = PASSTHROUGH_FORMATS.get(img.format or "")
            if mime is None or img.mode not in ("L", "RGB") or "transparency" in img.info:
                return None
            if int(img.getexif().get(0x0112, 1) or 1) != 1:
                return None
            width, height = img.size
            if width * height > max_pixels or min(width, height) < min_side:
                return None
            check_pixel_count(path, width * height)
            mode = img.mode
            img.load()  # a truncated or damaged file fails here, not at the endpoint
    except (OSError, UnidentifiedImageError, ValueError):
        return None  # the renderer reads it, or says precisely why it cannot
    data = read_file_bytes(path)
    info: dict[str, object] = {
        "encoding": "original",
        "mode": mode,
        "mime": mime,
        "bytes": len(data),
        "blake2b": _digest(data),
        "rendered": [height, width],
        "sent": [height, width],
        "padded": False,
        "scaled": 1.0,
        "slice_index": 0,
        "window": None,
    }
    return PreparedImage(data, mime, info)


def rendered_image(item: Item, min_side: int, max_pixels: int) -> PreparedImage:
    """The item rendered with its overlay, resized to the policy and written as PNG
    (greyscale when it has no colour).

    Raises
    ------
    ImageLoadError
        The image or its mask cannot be read.
    """
    from PIL import Image

    from medrcube_desktop.imaging.render import render_item

    rendered = render_item(item)
    rgb = rendered.rgba[..., :3]
    image = Image.fromarray(np.ascontiguousarray(rgb[..., 0]) if rendered.gray else rgb)
    height = max(1, round(image.height * rendered.pixel_aspect))
    if height != image.height:  # square pixels, as in the batch renderer
        image = image.resize((image.width, height), Image.Resampling.BILINEAR)
    before = [image.height, image.width]
    scale = 1.0
    if image.width * image.height > max_pixels:
        scale = math.sqrt(max_pixels / (image.width * image.height))
        size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
        image = image.resize(size, Image.Resampling[RESAMPLING.upper()])
    padded = False
    if image.width < min_side or image.height < min_side:
        canvas = Image.new(image.mode, (max(image.width, min_side), max(image.height, min_side)))
        canvas.paste(
            image, ((canvas.width - image.width) // 2, (canvas.height - image.height) // 2)
        )
        image, padded = canvas, True
    data = encode_png(np.asarray(image))
    info: dict[str, object] = {
        "encoding": "png",
        "mode": image.mode,
        "mime": "image/png",
        "bytes": len(data),
        "blake2b": _digest(data),
        "rendered": before,
        "sent": [image.height, image.width],
        "padded": padded,
        "scaled": round(scale, 6),
        "slice_index": rendered.slice_index,
        "window": list(rendered.window) if rendered.window else None,
    }
    return PreparedImage(data, "image/png", info)


def encode_png(pixels: np.ndarray) -> bytes:
    """``(H, W)`` or ``(H, W, 3)`` uint8 as PNG bytes (lossless), fast: zlib level 1, the
    RLE strategy and the Sub filter, imagecodecs' documented settings for fast encoding
    (``png_encode``; see the module docstring)."""
    import imagecodecs

    return bytes(
        imagecodecs.png_encode(
            np.ascontiguousarray(pixels),
            level=PNG_COMPRESS_LEVEL,
            strategy=PNG_STRATEGY_RLE,
            filter=imagecodecs.PNG.FILTER.SUB,
        )
    )


def preparation_key(item: Item, min_side: int, max_pixels: int) -> str:
    """What decides the prepared image, as a hex digest: the bytes of the image (every
    file of a series folder) and of the mask, the box, the modality (it picks a default
    window), the size policy and :data:`ENCODING_VERSION`.

    Items with the same key get the same image, so a group of items on one image is
    prepared once, and a second run (another model) on the same benchmark finds it in
    the :class:`ImageCache`. Keyed by content, not path or time: a file replaced under
    the same name is prepared again.

    Raises
    ------
    OSError
        A file cannot be read.
    """
    digest = hashlib.blake2b(digest_size=20)
    for path in _files_of(item.image_path) + _files_of(item.mask_path):
        digest.update(path.name.encode() + b"\0")
        with open_regular(path) as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    policy = repr((item.bbox, item.modality, min_side, max_pixels, ENCODING_VERSION))
    digest.update(policy.encode())
    return digest.hexdigest()


def _files_of(path: Path | None) -> list[Path]:
    if path is None:
        return []
    if path.is_dir():  # a DICOM series: every regular file (no link), in name order
        return sorted(p for p in path.iterdir() if p.is_file() and not p.is_symlink())
    if not path.is_file():
        raise OSError(f"{path}: not a regular file")
    return [path]


class ImageCache:
    """Prepared images on disk, one file per :func:`preparation_key`.

    Each entry is ``<key>.<ext>`` beside ``<key>.json`` (its info and seal); both are
    written to a temporary name and renamed, so a reader never sees half a file and two
    processes may prepare the same image at once. ``max_bytes`` bounds the folder:
    :meth:`prune` removes the least recently used entries above it.

    The seal (:func:`entry_seal`) ties an entry's bytes to its key, the digest of the
    source files: a keyed BLAKE2b of both under a secret of this user's kept outside
    the cache folder (:func:`cache_secret`). An entry whose bytes were rewritten, its
    size and checksum with them, or one copied under another key, fails it and is
    prepared again: only what this app prepared from those sources is sent.
    """

    def __init__(self, folder: Path, max_bytes: int = 2 << 30) -> None:
        self.folder = Path(folder)
        self.max_bytes = max_bytes

    def get(self, key: str) -> PreparedImage | None:
        """The cached image, or None (missing or unreadable: it is prepared again)."""
        import json

        meta = self.folder / f"{key}.json"
        try:
            info = json.loads(read_file_bytes(meta).decode("utf-8"))  # never a pipe's read
            data = read_file_bytes(self.folder / f"{key}.{_extension(info['mime'])}")
        except (OSError, ValueError, KeyError, TypeError):
            return None
        seal = info.pop("seal", None) if isinstance(info, dict) else None
        if len(data) != info.get("bytes") or _digest(data) != info.get("blake2b"):
            return None  # damaged or replaced: prepared again
        if seal != entry_seal(key, data):
            return None  # not prepared here from these sources (rewritten, moved, older)
        os.utime(meta)  # recently used (prune keeps it)
        return PreparedImage(data, str(info["mime"]), info)

    def put(self, key: str, image: PreparedImage) -> None:
        """Store ``image`` (errors are raised: the caller logs them and goes on)."""
        import json

        self.folder.mkdir(parents=True, exist_ok=True)
        # not flushed to disk: an entry torn by a crash fails its digest check in get()
        # within the folder: an entry that is a link to a file elsewhere is never written through
        image_file = self.folder / f"{key}.{_extension(image.mime)}"
        atomic_write(image_file, image.data, durable=False, within=self.folder)
        sealed = {**image.info, "seal": entry_seal(key, image.data)}
        meta = json.dumps(sealed).encode()
        atomic_write(self.folder / f"{key}.json", meta, durable=False, within=self.folder)

    def prune(self) -> int:
        """Remove least recently used entries until the folder is under ``max_bytes``;
        return how many were removed. Only the cache's own files are touched
        (``<40 hex digits>.json`` and its image): the folder may be one the user named
        (``MEDRCUBE_IMAGE_CACHE``) holding other files."""
        if not self.folder.is_dir():
            return 0
        entries = []
        for meta in self.folder.glob("*.json"):
            if not _ENTRY.fullmatch(meta.stem):
                continue
            files = [meta] + [self.folder / f"{meta.stem}.{e}" for e in ("png", "jpg")]
            try:
                size = sum(p.stat().st_size for p in files if p.exists())
                entries.append((meta.stat().st_mtime, size, files))
            except OSError:
                continue
        total = sum(size for _, size, _ in entries)
        removed = 0
        for _, size, files in sorted(entries, key=lambda e: e[0]):
            if total <= self.max_bytes:
                break
            for path in files:
                path.unlink(missing_ok=True)
            total -= size
            removed += 1
        return removed


_ENTRY = re.compile(r"[0-9a-f]{40}")
"""A cache entry's name: a :func:`preparation_key`."""


SECRET_NAME = "image-cache.key"
"""The file of :func:`cache_secret` in the configuration folder."""

_secrets: dict[Path, bytes] = {}
"""The secret of each configuration folder read so far (a process reads it once)."""


def cache_secret() -> bytes:
    """This user's secret that seals image-cache entries (:func:`entry_seal`): 32 random
    bytes in :data:`SECRET_NAME` in the configuration folder (``settings.config_dir``,
    not the cache folder, which may be shared or named by ``MEDRCUBE_IMAGE_CACHE``),
    created once, readable by the user only. Where that folder cannot be written, a
    secret for this process alone (its entries are then not reused by other processes:
    prepared again, never trusted)."""
    path = settings.config_dir() / SECRET_NAME
    if path not in _secrets:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                secret = path.read_bytes()
            else:
                with os.fdopen(fd, "wb") as out:
                    out.write(os.urandom(32))
                secret = path.read_bytes()
            if len(secret) < 16:  # empty or cut (a crash between create and write)
                raise OSError(f"{path}: too short to be a secret")
        except OSError as exc:
            import logging

            logging.getLogger(__name__).debug("image cache secret not kept (%s)", exc)
            secret = os.urandom(32)
        _secrets[path] = secret
    return _secrets[path]


def entry_seal(key: str, data: bytes) -> str:
    """The seal of a cache entry: BLAKE2b keyed with :func:`cache_secret` over ``key``
    (the :func:`preparation_key`, the digest of the source files and the preparation
    policy) and the entry's bytes, hex (32 digits)."""
    sealer = hashlib.blake2b(key=cache_secret()[:64], digest_size=16)
    sealer.update(key.encode("ascii", "replace") + b"\0")
    sealer.update(data)
    return sealer.hexdigest()


def default_cache_folder() -> Path:
    """The image cache's folder (:func:`medrcube_desktop.settings.image_cache_dir`)."""
    return settings.image_cache_dir()


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _extension(mime: str) -> str:
    return {"image/png": "png", "image/jpeg": "jpg"}[mime]
