"""How a judge run is configured: each setting declared once in :data:`JUDGE` (help,
default, type, range, flag), :class:`JudgeConfig`'s defaults taken from it; the CLI and
the LLM review dialog read them from here. Kept apart from :mod:`.judge` so that the command line can
show these defaults without loading the SDK and pydantic at the window's start."""

from __future__ import annotations

from dataclasses import dataclass

from medrcube_desktop.core.options import Option, markdown_table, options

MAX_CONCURRENCY = 1024
"""Most requests in flight that a run may ask for: beyond it a client only queues
requests in itself and runs out of sockets (a typo of 100000 once ran for minutes)."""

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


JUDGE_MODEL = "gpt-5.1"
"""The model the LLM review dialog offers when the study names none (the paper's judge,
GPT-5.1)."""

JUDGE: dict[str, Option] = options(
    Option("model", "--model", "Model", None, "the model's name as the endpoint knows it",
           str, kind="new_name", metavar="NAME", required=True),
    Option("base_url", "--base-url", "Endpoint", None, "endpoint (default: OpenAI)", str,
           kind="base_url", metavar="URL"),
    Option("concurrency", "--concurrency", "Concurrent requests", 8,
           "requests in flight (%(default)s)", int, 1, MAX_CONCURRENCY, kind="concurrency",
           metavar="N"),
    Option("timeout_s", "--timeout", "", 60.0, "per request (%(default)s s)", float,
           kind="seconds", metavar="S", range_words="more than 0"),
    Option("max_attempts", "--max-attempts", "", 3, "per item (%(default)s)", int, 1,
           kind="positive", metavar="N"),
    Option("temperature", "--temperature", "", None, "0 to 2 (default: not sent)", float,
           0, 2, kind="temperature", metavar="T"),
    Option("structured", "--structured", "", "auto",
           "ask for the JSON schema (auto: fall back when refused)", str,
           choices=("auto", "on", "off")),
    Option("price_per_mtok", "--price", "", None, "USD per 1M tokens", tuple, 0,
           kind="price", metavar="IN,OUT"),
)  # fmt: skip
"""Every setting of :class:`JudgeConfig`, by field name: the ``judge`` command's flags,
the LLM review dialog's fields and ``docs/judge-options.md`` are made from it."""


def judge_options_markdown() -> str:
    """The Markdown table of :data:`JUDGE`, as ``docs/judge-options.md`` holds it between
    its ``judge-options`` markers."""
    return markdown_table(JUDGE.values())


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
    base_url: str | None = JUDGE["base_url"].default  # type: ignore[assignment]
    concurrency: int = JUDGE["concurrency"].default  # type: ignore[assignment]
    timeout_s: float = JUDGE["timeout_s"].default  # type: ignore[assignment]
    max_attempts: int = JUDGE["max_attempts"].default  # type: ignore[assignment]
    temperature: float | None = JUDGE["temperature"].default  # type: ignore[assignment]
    structured: str = JUDGE["structured"].default  # type: ignore[assignment]
    price_per_mtok: tuple[float, float] | None = JUDGE["price_per_mtok"].default  # type: ignore[assignment]

    def prices(self) -> tuple[float, float] | None:
        """USD per million (input, output) tokens, or None when unknown."""
        return self.price_per_mtok or PRICES_PER_MTOK.get(self.model)
