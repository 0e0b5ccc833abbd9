"""The image a model sees: rendered as the reviewer sees it, 8-bit RGB, bounded.

Paper Appendix E.1 and issue 7: the overlay (mask, box) burned in; 16-bit and float
images windowed, not saturated (the renderer's job); square pixels; a tiny image padded
to the model's minimum side; a huge one shrunk to the pixel budget. What was done is
returned so the run can record it per item.
"""

from __future__ import annotations

import io
import math

from medrcube_desktop.core.items import Item
from medrcube_desktop.imaging.render import render_item

DEFAULT_MIN_SIDE = 28
"""Smallest side (pixels) sent; Qwen2-VL-style processors refuse less than 28."""

DEFAULT_MAX_PIXELS = 1280 * 28 * 28
"""Pixel budget per image (Qwen2.5-VL's default ``max_pixels``, 1,003,520)."""


def model_image(
    item: Item, min_side: int = DEFAULT_MIN_SIDE, max_pixels: int = DEFAULT_MAX_PIXELS
) -> tuple[bytes, dict[str, object]]:
    """PNG bytes of the item's image for a model, and what was done to it.

    Returns
    -------
    png : bytes
        8-bit RGB PNG.
    info : dict
        ``rendered`` [H, W] before resizing, ``sent`` [H, W], ``padded`` (bool),
        ``scaled`` (factor ≤ 1), ``slice_index``, ``window`` [center, width] or None.

    Raises
    ------
    ImageLoadError
        The image or its mask cannot be read.
    """
    from PIL import Image

    rendered = render_item(item)
    image = Image.fromarray(rendered.rgba[..., :3])
    height = max(1, round(image.height * rendered.pixel_aspect))
    if height != image.height:  # square pixels, as in the batch renderer
        image = image.resize((image.width, height), Image.Resampling.BILINEAR)
    before = [image.height, image.width]
    scale = 1.0
    if image.width * image.height > max_pixels:
        scale = math.sqrt(max_pixels / (image.width * image.height))
        size = (max(1, int(image.width * scale)), max(1, int(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    padded = False
    if image.width < min_side or image.height < min_side:
        canvas = Image.new("RGB", (max(image.width, min_side), max(image.height, min_side)))
        canvas.paste(
            image, ((canvas.width - image.width) // 2, (canvas.height - image.height) // 2)
        )
        image, padded = canvas, True
    out = io.BytesIO()
    image.save(out, format="PNG")
    info: dict[str, object] = {
        "rendered": before,
        "sent": [image.height, image.width],
        "padded": padded,
        "scaled": round(scale, 6),
        "slice_index": rendered.slice_index,
        "window": list(rendered.window) if rendered.window else None,
    }
    return out.getvalue(), info
