"""The engine contract: requests in, responses out, each as soon as it exists.

An engine never runs a model in the GUI process: the vLLM engines run it in a child
process (offline engine) or a server; the OpenAI engine talks HTTP. A CUDA crash or an
out-of-memory error therefore ends the engine, not the app (DESIGN.md).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Protocol

from medrcube_desktop.errors import EngineError


@dataclass(frozen=True)
class EvalRequest:
    """One item to answer: the Table 9 text and the image (encoded bytes of type
    ``image_mime``, or ``None`` in text-only mode)."""

    item_id: str
    prompt: str
    image: bytes | None = None
    image_mime: str = "image/png"

    def image_data_url(self) -> str | None:
        """The image as a ``data:`` URL (RFC 2397), as chat APIs take it, or None."""
        if self.image is None:
            return None
        import base64

        return f"data:{self.image_mime};base64,{base64.b64encode(self.image).decode('ascii')}"


@dataclass(frozen=True)
class EvalResponse:
    """The model's answer to one request, or why there is none (``error``).

    ``latency_s`` is seconds from sending to the answer (``None`` when the engine answers
    in batches); token counts as the engine reports them.
    """

    item_id: str
    text: str = ""
    error: str = ""
    latency_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


SAMPLING_RANGES: dict[str, tuple[float, float, bool, str]] = {
    "temperature": (0.0, 2.0, True, "from 0 to 2"),
    "top_p": (0.0, 1.0, False, "greater than 0 and at most 1"),
    "max_tokens": (1, 1_048_576, True, "a whole number from 1 to 1,048,576"),
    "seed": (0, 2**32 - 1, True, f"a whole number from 0 to {2**32 - 1}"),
}
"""Each decoding parameter's range, declared once: ``(low, high, low_included, words)``
(the high end is always included). The OpenAI API takes a temperature from 0 to 2 and a
top_p in (0, 1] (a nucleus of mass 0 keeps no token; above 1 is no probability); vLLM's
``SamplingParams`` refuses a top_p outside (0, 1] and max_tokens below 1; 1,048,576
(2**20) tokens is above every released model's context window, so a larger max_tokens
is a typo, never a setting. The CLI's
flags (``cli.argtypes.sampling``), the Evaluate pane's fields (their bounds) and
:class:`SamplingConfig` check against it."""

WHOLE_SAMPLING = ("max_tokens", "seed")
"""The decoding parameters that are whole numbers."""


def check_sampling(name: str, value: float) -> float:
    """``value`` if it lies in ``name``'s :data:`SAMPLING_RANGES` (finite, and whole for
    ``max_tokens`` and ``seed``); a negative zero comes back as ``0.0`` (``-0`` is 0,
    and is stored and compared as 0).

    Raises
    ------
    ValueError
        Out of range, not finite, or not whole where it must be; the message names
        ``name``, the value and the range.
    """
    low, high, low_included, words = SAMPLING_RANGES[name]
    whole = name in WHOLE_SAMPLING
    ok = (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and (value >= low if low_included else value > low)
        and value <= high
        and (not whole or float(value).is_integer())
    )
    if not ok:
        raise ValueError(f"{name} must be {words}, got {value!r}")
    return value + 0 if isinstance(value, float) else value  # -0.0 + 0 is 0.0


@dataclass
class SamplingConfig:
    """Decoding, set explicitly (paper Appendix D: greedy, long answers allowed).

    vLLM would otherwise take defaults from the checkpoint's generation config. Every
    value is checked against :data:`SAMPLING_RANGES` when the config is made.

    Raises
    ------
    EngineError
        A value out of its range (``top_p`` 2 is never sent to a server).
    """

    temperature: float = 0.0
    top_p: float = 0.0001
    max_tokens: int = 8192
    seed: int = 0
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name in SAMPLING_RANGES:
                try:  # the checked value: -0.0 is stored as 0.0
                    setattr(self, f.name, check_sampling(f.name, getattr(self, f.name)))
                except ValueError as exc:
                    raise EngineError(str(exc)) from None


CONCURRENCY = 16
"""Requests in flight at once (openai, vllm-server) unless the run says otherwise."""
TIMEOUT_S = 600.0
"""Per-request timeout, seconds (a long answer at 8192 tokens on a busy server)."""
MAX_ATTEMPTS = 3
"""Requests per item before it is stored as failed (llm/client.py: SDK retries and
unusable answers both count)."""
CHUNK_SIZE = 32
"""Requests per ``LLM.chat`` call of the vllm engine (answers are saved after each)."""

OnResponse = Callable[[EvalResponse], None]


class Engine(Protocol):
    """What every engine provides."""

    name: str

    def describe(self) -> dict[str, object]:
        """Every parameter of the engine, for the run record (no secrets)."""
        ...

    def library_versions(self) -> dict[str, str]:
        """Versions of the libraries doing the work (vllm, openai, torch…)."""
        ...

    def gpu(self) -> str:
        """GPU name when the engine knows it, else ''."""
        ...

    def run(
        self, requests: Iterable[EvalRequest], on_response: OnResponse, cancel: threading.Event
    ) -> None:
        """Answer every request, calling ``on_response`` (from the caller's thread) as
        each answer arrives; return early when ``cancel`` is set.

        Raises
        ------
        EngineError
            The engine cannot start or died (its log tail in the message).
        """
        ...

    def close(self) -> None:
        """Stop child processes; safe to call twice."""
        ...
