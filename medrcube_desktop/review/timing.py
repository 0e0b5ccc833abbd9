"""Active review time: the time between inputs, with idle pauses left out."""

from __future__ import annotations

import time
from collections.abc import Callable


class ActiveTimer:
    """Credits the time between consecutive activity events that are close together.

    Each :meth:`tick` returns the seconds since the previous tick when that gap is at
    most ``idle_after_s``; a longer gap is an idle period and credits nothing (it is
    excluded whole: a reviewer who left for lunch does not get the first minute of it).

    Parameters
    ----------
    idle_after_s : float
        Longest gap (seconds) still counted as active.
    clock : callable
        Monotonic clock in seconds (``time.monotonic``; tests pass a fake).
    """

    def __init__(
        self, idle_after_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.idle_after_s = float(idle_after_s)
        self.clock = clock
        self._last: float | None = None

    def tick(self) -> float:
        """Record an input now; return the active seconds it adds (0 after an idle gap)."""
        now = self.clock()
        last, self._last = self._last, now
        if last is None:
            return 0.0
        gap = now - last
        return gap if 0.0 <= gap <= self.idle_after_s else 0.0

    def pause(self) -> float:
        """Stop counting (the window lost focus, the item changed); return the credit
        up to now, as :meth:`tick` would."""
        credit = self.tick()
        self._last = None
        return credit
