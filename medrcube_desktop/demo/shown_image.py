"""Is the window showing the item's picture? The check the self-test makes of a grab.

A window can pass every other check while its image area is black or still says
"Rendering…" (issue 21), so the self-test compares the pixels the view shows with the
library's render of the same item (:func:`medrcube_desktop.imaging.render.render_item`).
The view scales the picture to fit and draws orientation letters at the middle of each
edge and notes in the corners, so only the inner part of both pictures is compared
(:data:`INNER`), in greyscale, after scaling the render to the grab's size: a Pearson
correlation of at least :data:`MIN_CORRELATION` and a mean absolute difference of at most
:data:`MAX_MEAN_DIFFERENCE` pass (scaling filters and a reduced JPEG 2000 decode differ
by a few grey levels; a black, stale or other picture by far more).
"""

from __future__ import annotations

import numpy as np

INNER = (0.2, 0.8)
"""The fraction of width and height compared (from, to): clear of the view's overlay text."""
MIN_CORRELATION = 0.9
MAX_MEAN_DIFFERENCE = 24.0
"""Grey levels (0..255)."""
MIN_SPREAD = 1.0
"""A picture whose grey levels have a smaller standard deviation is of one colour (blank)."""


def _inner_grey(rgb: np.ndarray) -> np.ndarray:
    h, w = rgb.shape[:2]
    top, bottom = int(h * INNER[0]), max(int(h * INNER[0]) + 1, int(h * INNER[1]))
    left, right = int(w * INNER[0]), max(int(w * INNER[0]) + 1, int(w * INNER[1]))
    return rgb[top:bottom, left:right, :3].astype(np.float64).mean(axis=2)


def compare_shown(shown: np.ndarray, expected: np.ndarray) -> tuple[dict[str, float], list[str]]:
    """Compare the image area of a grab with the library render of the same item.

    Parameters
    ----------
    shown : (h, w, 3 or 4) uint8
        The view's pixels where the picture lies (RGB or RGBA, rows top to bottom).
    expected : (H, W, 3 or 4) uint8
        The render of the same item (RGBA, as ``render_item`` returns it); scaled to
        ``shown``'s size here (bilinear), so the pixel aspect the view applied is undone.

    Returns
    -------
    (facts, problems) : (dict, list of str)
        ``facts``: ``correlation`` (NaN when either is blank), ``mean_difference``,
        ``shown_spread`` (grey levels); ``problems``: one line per failed check, empty
        when the window shows the item's picture.
    """
    from PIL import Image

    if shown.ndim != 3 or shown.shape[0] < 4 or shown.shape[1] < 4:
        return {}, [f"the image area is empty ({'x'.join(map(str, shown.shape[:2]))} pixels)"]
    scaled = Image.fromarray(np.ascontiguousarray(expected[..., :3])).resize(
        (shown.shape[1], shown.shape[0]), Image.Resampling.BILINEAR
    )
    seen, wanted = _inner_grey(shown), _inner_grey(np.asarray(scaled))
    spread = float(seen.std())
    difference = float(np.abs(seen - wanted).mean())
    correlation = (
        float(np.corrcoef(seen.ravel(), wanted.ravel())[0, 1])
        if spread >= MIN_SPREAD and float(wanted.std()) >= MIN_SPREAD
        else float("nan")
    )
    facts = {
        "correlation": round(correlation, 4),
        "mean_difference": round(difference, 2),
        "shown_spread": round(spread, 2),
    }
    problems = []
    if spread < MIN_SPREAD:
        problems.append(f"the image area is blank (one grey level, {seen.mean():.0f})")
    elif not correlation >= MIN_CORRELATION:  # NaN fails too
        problems.append(
            f"the image area is not the item's picture (correlation {correlation:.3f} with "
            f"its render, under {MIN_CORRELATION})"
        )
    if difference > MAX_MEAN_DIFFERENCE:
        problems.append(
            f"the image area differs from the item's render by {difference:.1f} grey levels "
            f"on average (at most {MAX_MEAN_DIFFERENCE:g})"
        )
    return facts, problems


def expected_slice_label(slice_index: int, slice_count: int) -> str:
    """The slice label the window shows for a render (``""`` for a single slice)."""
    return f"Slice {slice_index + 1} of {slice_count}" if slice_count > 1 else ""
