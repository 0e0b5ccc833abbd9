"""How a judge run is configured: its defaults, written once (the CLI and the LLM review
dialog read them from here). Kept apart from :mod:`.judge` so that the command line can
show these defaults without loading the SDK and pydantic at the window's start."""

from __future__ import annotations

from dataclasses import dataclass

PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-5.1": (1.25, 10.0),
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4o": (2.5, 10.0),
}
"""USD per million (input, output) tokens of the standard API, from OpenAI's public price
list as of 2025-11 (the Batch API costs half). Prices change: pass your own with
``JudgeConfig.price_per_mtok``; unknown models get no cost estimate."""


@dataclass
class JudgeConfig:
    """How to run a judgment.

    Attributes
    ----------
    model : str
        Model name as the endpoint knows it (``gpt-5.1``).
    base_url : str or None
        OpenAI-compatible endpoint (``None``: OpenAI). Azure: ``https://NAME.openai.azure.com/openai/v1``;
        vLLM: ``http://localhost:8000/v1``.
    concurrency : int
        Requests in flight at once (at least 1).
    timeout_s : float
        Per HTTP request, seconds; one call with its retries is cut at
        :func:`~medrcube_desktop.llm.client.call_deadline_s`.
    max_attempts : int
        HTTP requests per call (the SDK retries connection errors, timeouts, 408, 409,
        429 and 5xx ``max_attempts - 1`` times), and answers asked per item when they are
        unusable, before the item is stored as failed.
    temperature : float or None
        Sent when not None (reasoning models such as GPT-5.1 accept only the default).
    structured : str
        ``"auto"``: ask for the JSON schema, and fall back to plain text for the rest of
        the run when the endpoint refuses ``response_format``; ``"on"`` or ``"off"``.
    price_per_mtok : (float, float) or None
        USD per million input and output tokens; ``None``: :data:`PRICES_PER_MTOK`.
    """

    model: str
    base_url: str | None = None
    concurrency: int = 8
    timeout_s: float = 60.0
    max_attempts: int = 3
    temperature: float | None = None
    structured: str = "auto"
    price_per_mtok: tuple[float, float] | None = None

    def prices(self) -> tuple[float, float] | None:
        """USD per million (input, output) tokens, or None when unknown."""
        return self.price_per_mtok or PRICES_PER_MTOK.get(self.model)
