"""Text helpers of the Qt layer: durations, and escaping for Qt rich text.

Every value that comes from a benchmark, a database, a model or an error is put into a
rich-text label through :func:`esc`, so an item whose question reads ``<b>x</b>`` shows
those characters instead of bold text (and no markup of any kind is interpreted).
"""

from __future__ import annotations

import html
import math


def esc(value: object) -> str:
    """``value`` as text that Qt rich text shows literally (``<``, ``>``, ``&``, quotes)."""
    return html.escape(str(value))


def esc_lines(value: object) -> str:
    """:func:`esc`, with each line break kept as ``<br>``."""
    return esc(value).replace("\n", "<br>")


def format_duration(seconds: float) -> str:
    """``about 3 h 05 min``, ``about 12 min`` (rounded up) or ``under 1 min``."""
    if seconds < 60:
        return "under 1 min"
    minutes = math.ceil(seconds / 60)
    hours, minutes = divmod(minutes, 60)
    return f"about {hours} h {minutes:02d} min" if hours else f"about {minutes} min"
