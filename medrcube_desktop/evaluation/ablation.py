"""The picture an ablation run sends instead of the item's own (issue 24): blank,
swapped or noise (:mod:`~medrcube_desktop.evaluation.image_modes`).

Cost: an ablation run prepares one picture per image group, as the image run does
(:class:`~medrcube_desktop.evaluation.prepare.ImagePipeline`), and decodes no more:

- ``blank`` and ``noise`` need only the size of the picture the image run sends
  (:func:`own_picture_info`): the image cache's record of it first (after the image run
  nothing is decoded at all), else the file when it is sent as stored (what the image
  run reads), else the item rendered as the image run renders it, its size then worked
  out as :func:`~.images.rendered_image` resizes and pads (:func:`sent_geometry`) with
  no resizing or encoding. Then a uniform 128 grey or seeded noise of that size is
  encoded.
- ``swapped`` prepares the donor's picture instead of the item's own (again the cache
  first); the item's own file is only hashed (read, never decoded) to make sure the
  donor is another image.

Seeds: the choice of donor and the noise depend on the run's seed and on the item's
image (its path below the benchmark root), never on the order items are asked in: a
resumed run, or the same seed again, sends the same pictures.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from medrcube_desktop.core.items import Item
from medrcube_desktop.evaluation.image_modes import BLANK, NOISE, SWAPPED
from medrcube_desktop.evaluation.images import PreparedImage, _files_of, encode_png

GREY = 128
"""The value of every pixel of a blank picture (mid-grey of 8-bit)."""

MAX_DONORS = 8
"""Donors tried per item, in the seeded order, until one is another image (a file of
other bytes); past them the item fails (a group of copies of one picture)."""


@dataclass(frozen=True)
class Ablation:
    """What a worker needs to make one group's ablated picture: the ``mode``, the run's
    ``seed`` and, for ``swapped``, the ``donors`` to try in order (the seeded choice)."""

    mode: str
    seed: int
    donors: tuple[Item, ...] = ()


def image_key(item: Item) -> str:
    """The item's image as a seeding key: its path below the benchmark root (``/``
    separated; the full path for an item without a root) and the dataset."""
    path = Path(item.image_path)
    if item.root is not None and path.is_relative_to(item.root):
        path = path.relative_to(item.root)
    return f"{item.dataset}\0{path.as_posix()}"


def _rng(seed: int, key: str, purpose: str) -> np.random.Generator:
    digest = hashlib.sha256(f"{purpose}\0{key}".encode()).digest()
    return np.random.default_rng([int(seed), int.from_bytes(digest[:8], "little")])


def swap_donors(item: Item, pool: Sequence[Item], seed: int) -> tuple[Item, ...]:
    """The items whose picture a swapped run may send for ``item``, in the order tried:
    items of ``pool`` of the same modality and region (``parts``) on another image file,
    one per image, shuffled with ``seed`` and :func:`image_key` of ``item``; at most
    :data:`MAX_DONORS`. Empty when the group has no other image (the item then fails:
    :func:`ablated_image` says so)."""
    return swap_donors_indexed(item, donor_index(pool), seed)


def donor_index(pool: Sequence[Item]) -> dict[tuple[str, str], list[tuple[str, Item]]]:
    """``(modality, region)`` → ``(image_key, item)``, one item per distinct image,
    sorted by :func:`image_key` (what :func:`swap_donors_indexed` draws from; each key
    worked out once per run)."""
    groups: dict[tuple[str, str], dict[str, Item]] = {}
    for item in pool:
        per_image = groups.setdefault((item.modality, item.region), {})
        per_image.setdefault(image_key(item), item)
    return {key: sorted(found.items()) for key, found in groups.items()}


def swap_donors_indexed(
    item: Item, index: dict[tuple[str, str], list[tuple[str, Item]]], seed: int
) -> tuple[Item, ...]:
    """:func:`swap_donors` over a :func:`donor_index` (built once per run)."""
    own = image_key(item)
    candidates = [c for key, c in index.get((item.modality, item.region), []) if key != own]
    if not candidates:
        return ()
    order = _rng(seed, own, "swap").permutation(len(candidates))[:MAX_DONORS]
    return tuple(candidates[int(i)] for i in order)


def files_digest(item: Item) -> str:
    """BLAKE2b (16 bytes, hex) of the bytes of the item's image file (every file of a
    series folder, in name order): read, not decoded.

    Raises
    ------
    OSError
        A file cannot be read.
    """
    digest = hashlib.blake2b(digest_size=16)
    for path in _files_of(item.image_path):
        with open(path, "rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def flat_picture(height: int, width: int, mode: str, mode_name: str, seed: int, key: str):
    """``(H, W)`` (mode "L") or ``(H, W, 3)`` ("RGB") uint8 pixels: all :data:`GREY`
    for ``blank``; for ``noise`` uniform integers 0–255 from ``seed`` and ``key``."""
    shape = (height, width) if mode == "L" else (height, width, 3)
    if mode_name == BLANK:
        return np.full(shape, GREY, dtype=np.uint8)
    return _rng(seed, key, "noise").integers(0, 256, size=shape, dtype=np.uint8)


def _hashed(data: bytes, mime: str, info: dict) -> PreparedImage:
    info = {**info, "bytes": len(data),
            "blake2b": hashlib.blake2b(data, digest_size=16).hexdigest(),
            "sha256": hashlib.sha256(data).hexdigest()}  # fmt: skip
    return PreparedImage(data, mime, info)


def sent_geometry(
    height: int, width: int, pixel_aspect: float, min_side: int, max_pixels: int
) -> dict[str, object]:
    """The ``rendered``, ``sent`` ([H, W], pixels), ``scaled`` and ``padded`` of the
    picture :func:`~.images.rendered_image` makes of a rendering of ``height`` ×
    ``width`` pixels (rows of ``pixel_aspect`` times their width): square pixels, shrunk
    to ``max_pixels`` (``int`` of each side times the factor), padded to ``min_side``."""
    height = max(1, round(height * pixel_aspect))
    before = [height, width]
    scale = 1.0
    if width * height > max_pixels:
        scale = math.sqrt(max_pixels / (width * height))
        width, height = max(1, int(width * scale)), max(1, int(height * scale))
    padded = width < min_side or height < min_side
    sent = [max(height, min_side), max(width, min_side)] if padded else [height, width]
    return {"rendered": before, "sent": sent, "scaled": round(scale, 6), "padded": padded}


def own_picture_info(
    item: Item, min_side: int, max_pixels: int, cache_folder: str | None
) -> tuple[dict[str, object], str]:
    """What the image run sends for ``item`` (its ``info``: ``sent``, ``mode``…, with
    ``blake2b`` where known) and where it was found (``original``, ``cached``,
    ``rendered``), decoding no more than the image run does (the module docstring).

    Raises
    ------
    ImageLoadError, OSError
        The image cannot be read (as for the image run).
    """
    from medrcube_desktop.core.file_checks import require_item_files
    from medrcube_desktop.evaluation.images import ImageCache, original_image, preparation_key

    require_item_files(item)
    original = original_image(item, min_side, max_pixels)
    if original is not None:
        return original.info, "original"
    if cache_folder is not None:
        cached = ImageCache(Path(cache_folder)).get(preparation_key(item, min_side, max_pixels))
        if cached is not None:
            return cached.info, "cached"
    from medrcube_desktop.imaging.render import render_item

    rendered = render_item(item)
    height, width = rendered.rgba.shape[:2]
    info: dict[str, object] = {
        "encoding": "png", "mode": "L" if rendered.gray else "RGB",
        **sent_geometry(height, width, rendered.pixel_aspect, min_side, max_pixels),
        "slice_index": rendered.slice_index,
        "window": list(rendered.window) if rendered.window else None,
    }  # fmt: skip
    return info, "rendered"


def ablated_image(
    item: Item, own: dict[str, object] | None, ablation: Ablation, prepare
) -> PreparedImage:
    """The picture sent for ``item`` in ``ablation.mode``, its ``info`` the prepared
    image's (size, encoding) with ``ablation`` (the mode), ``seed``, ``sha256`` and
    ``blake2b`` of the bytes sent, and ``of`` (the BLAKE2b of the item's own picture,
    blank and noise) or ``swapped_from`` (the donor's item id, swapped).

    ``own`` is the ``info`` of the item's own picture (:func:`own_picture_info`; blank,
    noise); ``prepare(item)`` prepares a donor's (swapped).

    Raises
    ------
    ValueError
        Swapped, and no donor is another image: the message names the modality and
        region, and the copies of its own file skipped when there are some (the item is
        then not asked; it is listed among the run's failures).
    """
    if ablation.mode in (BLANK, NOISE):
        assert own is not None
        height, width = (int(v) for v in own["sent"])  # type: ignore[attr-defined]  # [H, W]
        mode = str(own.get("mode") or "L")
        pixels = flat_picture(height, width, mode, ablation.mode, ablation.seed, image_key(item))
        info = {**own, "encoding": "png", "mime": "image/png", "mode": mode,
                "ablation": ablation.mode, "seed": ablation.seed}  # fmt: skip
        info.pop("blake2b", None)
        if own.get("blake2b"):
            info["of"] = own["blake2b"]
        return _hashed(encode_png(pixels), "image/png", info)
    if ablation.mode != SWAPPED:
        raise ValueError(f"no ablated picture for image mode {ablation.mode!r}")
    mine = files_digest(item)
    copies = 0
    for donor in ablation.donors:
        if files_digest(donor) == mine:
            copies += 1
            continue  # a copy of the same picture under another name: not a swap
        picture = prepare(donor)
        info = {**picture.info, "ablation": SWAPPED, "seed": ablation.seed,
                "swapped_from": donor.id}  # fmt: skip
        return _hashed(picture.data, picture.mime, info)
    same = (
        f" (only {copies} {'copy' if copies == 1 else 'copies'} of its own file's bytes, "
        f"e.g. {ablation.donors[0].image_path.name}, which would be no swap)"
        if copies
        else ""
    )
    raise ValueError(
        f"swapped: no other image of modality {item.modality!r} and region {item.region!r} "
        f"among the run's items{same}, so none can be sent in its place (not asked)"
    )
