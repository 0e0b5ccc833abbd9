"""What the reviewer's display choices mean from one item to the next (no Qt here).

A window (center, width) is a pair of numbers in the image's own units. Only CT has
units that mean the same thing in every file (Hounsfield units after Rescale
Slope/Intercept); an MR, X-ray or picture file's values are arbitrary, so a window
set on one of them (or a CT preset on it) can blank the next. A window therefore
carries only from CT to CT; every other new item opens with its own window. The
overlay (mask and box) is shown again on every new item: a question may ask about
"the tissue shaded red".
"""

from __future__ import annotations

from dataclasses import dataclass

from medrcube_desktop.core.items import Item


def window_scale(item: Item) -> str | None:
    """The units a window on ``item`` is in, when they are the same in every file:
    ``"CT (HU)"`` for a CT item, else ``None`` (arbitrary units: never carried)."""
    return "CT (HU)" if item.modality.strip().upper() == "CT" else None


@dataclass
class DisplayChoice:
    """The window the reviewer set and what it means.

    Attributes
    ----------
    window : (center, width) or None
        Set by the reviewer (a preset, a drag, a file window); None: each file's own.
    scale : str or None
        :func:`window_scale` of the item it was set on.
    origin : str
        How it was set, as shown on the image: ``"set by you"``, ``"file window 2 of 3"``.
    """

    window: tuple[float, float] | None = None
    scale: str | None = None
    origin: str = "set by you"

    def carried_to(self, item: Item) -> DisplayChoice:
        """The choice in force on ``item`` when the reviewer moves to it: the same window
        where it means the same (CT to CT), else the file's own."""
        if self.window is not None and self.scale is not None and window_scale(item) == self.scale:
            return DisplayChoice(self.window, self.scale, "set by you")
        return DisplayChoice()


def window_number(value: float) -> str:
    """A window center or width as people read it: whole above 10 (a drag gives
    603.43: shown 603), three significant digits below (0.25 stays 0.25)."""
    return f"{value:.0f}" if abs(value) >= 10 else f"{value:.3g}"


def window_note(window: tuple[float, float], origin: str) -> str:
    """``"W 400  C 40 (set by you)"``: a window that is not the file's own, as the
    image's corner shows it."""
    center, width = window
    return f"W {window_number(width)}  C {window_number(center)} ({origin})"
