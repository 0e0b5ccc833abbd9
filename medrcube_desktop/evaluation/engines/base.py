"""The engine contract: requests in, responses out, each as soon as it exists.

An engine never runs a model in the GUI process: the vLLM engines run it in a child
process (offline engine) or a server; the OpenAI engine talks HTTP. A CUDA crash or an
out-of-memory error therefore ends the engine, not the app (DESIGN.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol


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


@dataclass
class SamplingConfig:
    """Decoding, set explicitly (paper Appendix D: greedy, long answers allowed).

    vLLM would otherwise take defaults from the checkpoint's generation config.
    """

    temperature: float = 0.0
    top_p: float = 0.0001
    max_tokens: int = 8192
    seed: int = 0
    extra: dict = field(default_factory=dict)


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
