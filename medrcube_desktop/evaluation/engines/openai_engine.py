"""The ``openai`` engine: any OpenAI-compatible endpoint, bounded concurrency, retries.

Several base URLs spread the items over servers (data parallel): each request goes to
the next server in turn. A server that cannot be reached is set aside for a while
(1 s, doubling to 30 s) and its requests go to the others without using up an item's
attempts, so one dead server among several costs no answers (issue 11); only when
every server is unreachable and none has ever answered does the run stop. 429 waits for
Retry-After; timeouts and 5xx back off with full jitter; a refused key or unknown model
stops the run. The SDK's own retries are off so these rules hold (as in
:mod:`medrcube_desktop.llm.judge`).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import (
    EvalRequest,
    EvalResponse,
    OnResponse,
    SamplingConfig,
)
from medrcube_desktop.llm.judge import retry_after_seconds
from medrcube_desktop.llm.keys import KeyRedactor, safe_base_url, url_secrets


def chat_messages(request: EvalRequest) -> list[dict]:
    """One user message: the image first (a data URL), then the Table 9 text."""
    content: list[dict] = []
    url = request.image_data_url()
    if url is not None:
        content.append({"type": "image_url", "image_url": {"url": url}})
    content.append({"type": "text", "text": request.prompt})
    return [{"role": "user", "content": content}]


@dataclass
class _Endpoint:
    """One server: its client, how it has fared, and until when it is set aside."""

    url: str
    client: Any
    answers: int = 0
    failures: int = 0
    failures_in_a_row: int = 0
    down_until: float = 0.0


class OpenAIEngine:
    """Chat completions over HTTP.

    Parameters
    ----------
    model : str
    base_urls : list of str
        One or more endpoints (``http://host:8000/v1``); items are spread over them.
    api_key : str
        Sent as the bearer token; never stored or shown.
    sampling : SamplingConfig
    concurrency : int
        Requests in flight at once, over all URLs.
    timeout_s : float
        Per request, seconds.
    max_attempts : int
        Attempts per item for timeouts, connection errors and 5xx.
    owner_failure : callable or None
        For a server this run started: returns why it died (its root cause), or None;
        asked on every server fault, so a dead server stops the run at once.
    """

    name = "openai"

    def __init__(
        self,
        model: str,
        base_urls: list[str],
        api_key: str,
        sampling: SamplingConfig | None = None,
        concurrency: int = 16,
        timeout_s: float = 600.0,
        max_attempts: int = 3,
        backoff_base_s: float = 1.0,
        owner_failure: Callable[[], str | None] | None = None,
    ) -> None:
        if not base_urls:
            raise EngineError("the openai engine needs at least one --base-url")
        self.model = model
        self.base_urls = list(base_urls)
        self.api_key = api_key
        self.sampling = sampling or SamplingConfig()
        self.concurrency = max(1, concurrency)
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.backoff_base_s = backoff_base_s
        self.owner_failure = owner_failure  # the server process's death, when we run it
        self._endpoints: list[_Endpoint] = []
        self._turn = 0

    def describe(self) -> dict[str, object]:
        """Parameters for the run record (the key is not among them)."""
        return {
            "base_urls": [safe_base_url(u) for u in self.base_urls],
            "concurrency": self.concurrency,
            "timeout_s": self.timeout_s,
            "max_attempts": self.max_attempts,
            "temperature": self.sampling.temperature,
            "top_p": self.sampling.top_p,
            "max_tokens": self.sampling.max_tokens,
            "seed": self.sampling.seed,
            **({"extra": self.sampling.extra} if self.sampling.extra else {}),
        }

    def library_versions(self) -> dict[str, str]:
        import openai

        return {"openai": openai.__version__}

    def gpu(self) -> str:
        return ""

    def close(self) -> None:
        return None

    def run(
        self, requests: Iterable[EvalRequest], on_response: OnResponse, cancel: threading.Event
    ) -> None:
        """Answer every request (see :class:`~medrcube_desktop.evaluation.engines.base.Engine`)."""
        secrets = [s for url in self.base_urls for s in url_secrets(url)]
        with KeyRedactor(self.api_key, secrets) as redactor:
            asyncio.run(self._run(iter(requests), on_response, cancel, redactor))

    async def _run(self, requests: Iterator[EvalRequest], on_response, cancel, redactor) -> None:
        from openai import AsyncOpenAI

        self._endpoints = [
            _Endpoint(
                url,
                AsyncOpenAI(
                    api_key=self.api_key, base_url=url, max_retries=0, timeout=self.timeout_s
                ),
            )  # fmt: skip
            for url in self.base_urls
        ]
        lock = asyncio.Lock()
        loop = asyncio.get_running_loop()
        fatal: list[str] = []

        async def next_request() -> EvalRequest | None:
            async with lock:  # the iterator prepares images: one call at a time, off the loop
                return await loop.run_in_executor(None, next, requests, None)

        async def worker(index: int) -> None:
            while not cancel.is_set() and not fatal:
                request = await next_request()
                if request is None:
                    return
                try:
                    response = await self._ask(request, redactor)
                except EngineError as exc:
                    fatal.append(str(exc))
                    cancel.set()
                    return
                except Exception as exc:  # noqa: BLE001 - e.g. a 200 answer that is not JSON
                    response = EvalResponse(
                        request.item_id,
                        error=redactor.scrub(f"unreadable answer: {type(exc).__name__}: {exc}"),
                    )
                try:
                    on_response(response)
                except Exception:
                    cancel.set()  # the answer could not be stored: stop every worker
                    raise

        try:
            tasks = [asyncio.create_task(worker(k)) for k in range(self.concurrency)]
            while not all(t.done() for t in tasks):
                if cancel.is_set():
                    for task in tasks:
                        task.cancel()
                await asyncio.wait(tasks, timeout=0.1)
            outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for endpoint in self._endpoints:
                await endpoint.client.close()
        if fatal:
            raise EngineError(fatal[0])
        for outcome in outcomes:  # a worker that died (a database write failed): say so
            if isinstance(outcome, Exception):
                raise outcome

    def _pick(self) -> _Endpoint:
        """The next server in turn among those not set aside (else the one back first)."""
        now = time.monotonic()
        up = [e for e in self._endpoints if e.down_until <= now]
        pool = up or [min(self._endpoints, key=lambda e: e.down_until)]
        self._turn += 1
        return pool[self._turn % len(pool)]

    def _server_fault(self, endpoint: _Endpoint, error: str) -> bool:
        """Set ``endpoint`` aside after a failure that is the server's (1 s, doubling to
        30 s); return whether another server can take the request.

        Raises
        ------
        EngineError
            The server process this run started has died (its root cause), no server
            has ever answered, or every server has failed many times in a row.
        """
        endpoint.failures += 1
        endpoint.failures_in_a_row += 1
        endpoint.down_until = time.monotonic() + min(
            30.0, self.backoff_base_s * 2 ** (endpoint.failures_in_a_row - 1)
        )
        if self.owner_failure is not None:
            died = self.owner_failure()
            if died:
                raise EngineError(died)
        share = max(3.0, 3 * self.concurrency / len(self._endpoints))
        urls = ", ".join(safe_base_url(e.url) for e in self._endpoints)
        if not any(e.answers for e in self._endpoints) and all(
            e.failures >= share for e in self._endpoints
        ):
            raise EngineError(f"nothing answers at {urls}: {error}")
        if all(e.failures_in_a_row >= share for e in self._endpoints):
            raise EngineError(f"every server stopped answering ({urls}): {error}")
        return self._others_up(endpoint)

    def _others_up(self, endpoint: _Endpoint) -> bool:
        now = time.monotonic()
        return any(e is not endpoint and e.down_until <= now for e in self._endpoints)

    async def _ask(self, request: EvalRequest, redactor: KeyRedactor) -> EvalResponse:
        import openai

        s = self.sampling
        kwargs = {
            "model": self.model,
            "messages": chat_messages(request),
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
            "seed": s.seed,
            **({"extra_body": s.extra} if s.extra else {}),
        }
        attempt, waits, moves, error = 0, 0, 0, ""
        while attempt < self.max_attempts:
            endpoint = self._pick()
            client = endpoint.client
            where = safe_base_url(endpoint.url)
            started = time.monotonic()
            try:
                # the SDK's timeout bounds each read; this bounds the whole request
                completion = await asyncio.wait_for(
                    client.chat.completions.create(**kwargs), self.timeout_s
                )
                if not hasattr(completion, "choices"):  # an HTML page, a proxy's text
                    raise TypeError(f"not a chat completion: {str(completion)[:80]!r}")
            except TimeoutError:
                error = f"no complete answer from {where} within {self.timeout_s:g} s"
                if self._server_fault(endpoint, error) and moves < 4 * len(self._endpoints):
                    moves += 1
                    continue
                attempt += 1
                continue
            except openai.RateLimitError as exc:
                waits += 1
                error = redactor.scrub(f"rate limited (429): {exc}")
                if waits > 20:
                    break
                asked = retry_after_seconds(exc.response)
                await asyncio.sleep(
                    min(asked, 300.0) if asked is not None else self._backoff(waits)
                )
                continue
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise EngineError(
                    redactor.scrub(f"the endpoint refused the API key: {exc}")
                ) from None
            except openai.NotFoundError as exc:
                raise EngineError(
                    redactor.scrub(f"model {self.model} or endpoint not found (404): {exc}")
                ) from None
            except (openai.APITimeoutError, openai.APIConnectionError) as exc:
                cause = f" ({exc.__cause__})" if exc.__cause__ else ""
                error = redactor.scrub(f"{type(exc).__name__} at {where}: {exc}{cause}")
                if self._server_fault(endpoint, error) and moves < 4 * len(self._endpoints):
                    moves += 1  # another server takes it: the item keeps its attempts
                    continue
                attempt += 1
                if attempt < self.max_attempts:
                    await asyncio.sleep(self._backoff(attempt))
                continue
            except openai.APIStatusError as exc:
                attempt += 1
                error = redactor.scrub(f"HTTP {exc.status_code} from {where}: {exc}")
                if exc.status_code >= 500:
                    await asyncio.sleep(self._backoff(attempt))
                    continue
                break  # another 4xx: asking again gives the same answer
            except (openai.OpenAIError, ValueError, TypeError, AttributeError) as exc:
                # a 200 answer that is no chat completion (HTML, cut-off JSON): the server's
                # fault, so it is set aside like one that cannot be reached
                error = redactor.scrub(
                    f"{where} sent no chat completion: {type(exc).__name__}: {exc}"
                )
                if self._server_fault(endpoint, error) and moves < 4 * len(self._endpoints):
                    moves += 1
                    continue
                attempt += 1
                continue
            endpoint.answers += 1
            endpoint.failures_in_a_row = 0
            message = completion.choices[0].message if completion.choices else None
            usage = completion.usage
            if message is None or (message.content is None and not message.refusal):
                attempt += 1  # a reply without an answer is the server's fault, not the model's
                error = "the reply holds no answer (no choices or null content)"
                continue
            return EvalResponse(
                item_id=request.item_id,
                text=message.content or message.refusal or "",
                latency_s=round(time.monotonic() - started, 4),
                prompt_tokens=usage.prompt_tokens if usage else None,
                completion_tokens=usage.completion_tokens if usage else None,
            )
        return EvalResponse(item_id=request.item_id, error=error[:500] or "no answer")

    def _backoff(self, attempt: int) -> float:
        return random.uniform(0, min(60.0, self.backoff_base_s * 2**attempt))
