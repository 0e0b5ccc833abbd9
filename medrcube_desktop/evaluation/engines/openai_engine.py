"""The ``openai`` engine: any OpenAI-compatible endpoint, bounded concurrency.

Requests go through :class:`~medrcube_desktop.llm.client.ChatClient`, as the judge's
do: the openai SDK retries the transport (connection errors, timeouts, 408, 409, 429 with
its Retry-After, 5xx, ``max_attempts`` requests in all); a reply without an answer is
asked again (up to ``max_attempts``). Several base URLs spread the items over servers
(data parallel), routed by image: every question of one image goes to the same server
while it is up (their prompts share the image's tokens, which that server's prefix cache
then holds), by rendezvous hashing of the image's digest (:func:`image_affinity`,
:meth:`~medrcube_desktop.llm.client.ChatClient._pick`); when a server is set aside only
its images move, and they come back with it; text-only requests take the servers in
turn. A server that cannot be
reached, does not answer in time (each request is cut at connect + ``timeout_s``, a
trickle of bytes included), sends no chat completion or a reply without an answer,
still answers an HTTP 5xx (or 408, 409, 429), or loops on redirects is set aside for a
while (1 s, doubling to 30 s) and its requests go to the others without using up an
item's attempts, so one dead server among several costs no answers (issues 11, 21); one
that refuses the key (401, 403) is set aside for the rest of the run. Each such server
is named in :attr:`OpenAIEngine.server_notes` after the run (what ``evaluate`` and the
Evaluate pane print). The run stops, with one message naming each server and its last
error, when no server has ever answered and each has failed 3 items, when every server
fails many items in a row, when every server refused the key (with one server: at
once), when a server this run started has died, or when the model is unknown (404).

The requests run on an event loop in a thread of their own; each answer is handed to
``on_response`` in the thread that called :meth:`OpenAIEngine.run` (the runner's, which
owns the database connection), so parsing and storing an answer never stall the
requests in flight, and a database that waits for a lock delays no request. The runner
cuts an answer longer than :data:`~medrcube_desktop.evaluation.parse.MAX_ANSWER_CHARS`
(every engine's), with a note saying so.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable, Iterable, Iterator

from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import (
    CONCURRENCY,
    MAX_ATTEMPTS,
    TIMEOUT_S,
    EvalRequest,
    EvalResponse,
    OnResponse,
    SamplingConfig,
)
from medrcube_desktop.llm.client import AnswerFailed, ChatClient, ChatFatal, EmptyReply
from medrcube_desktop.llm.keys import KeyRedactor, safe_base_url, url_secrets


def chat_messages(request: EvalRequest) -> list[dict]:
    """One user message: the image first (a data URL), then the Table 9 text."""
    content: list[dict] = []
    url = request.image_data_url()
    if url is not None:
        content.append({"type": "image_url", "image_url": {"url": url}})
    content.append({"type": "text", "text": request.prompt})
    return [{"role": "user", "content": content}]


def image_affinity(request: EvalRequest) -> bytes | None:
    """What routes a request among several servers: the BLAKE2b digest of the image it
    sends (every question of one image to one server, whose prefix cache then holds the
    image's tokens for the next), None in text-only mode (the servers in turn)."""
    if request.image is None:
        return None
    import hashlib

    return hashlib.blake2b(request.image, digest_size=16).digest()


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
        Per HTTP request, seconds; one call with its retries is cut at
        :func:`~medrcube_desktop.llm.client.call_deadline_s`.
    max_attempts : int
        HTTP requests per call (the SDK retries ``max_attempts - 1`` times), and replies
        asked per item when they hold no answer.
    backoff_base_s : float
        First set-aside of a failing server, seconds (doubling, at most 30 s).
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
        concurrency: int = CONCURRENCY,
        timeout_s: float = TIMEOUT_S,
        max_attempts: int = MAX_ATTEMPTS,
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
        self.server_notes: list[str] = []
        """After :meth:`run`: a line per server that failed (``ChatClient.server_notes``)."""

    def describe(self) -> dict[str, object]:
        """Parameters for the run record (the key is not among them)."""
        from medrcube_desktop.evaluation.engine_options import recorded

        return {
            "base_urls": [safe_base_url(u) for u in self.base_urls],
            **recorded(self),  # the options it records as given (engine_options.ENGINE)
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
        answers: queue.SimpleQueue[EvalResponse | None] = queue.SimpleQueue()
        failure: list[BaseException] = []

        def loop() -> None:
            try:
                asyncio.run(self._run(iter(requests), answers.put, cancel, redactor))
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                failure.append(exc)
            finally:
                answers.put(None)  # the end

        with KeyRedactor(self.api_key, secrets) as redactor:
            thread = threading.Thread(target=loop, name="openai-engine", daemon=True)
            thread.start()
            try:
                while (answer := answers.get()) is not None:
                    on_response(answer)  # here: parse and store off the event loop
            except BaseException:
                cancel.set()  # the answer could not be stored: stop every request
                raise
            finally:
                thread.join()
        if failure:
            raise failure[0]

    async def _run(self, requests: Iterator[EvalRequest], on_response, cancel, redactor) -> None:
        lock = asyncio.Lock()
        loop = asyncio.get_running_loop()
        fatal: list[str] = []
        chat = ChatClient(
            self.base_urls,
            self.api_key,
            model=self.model,
            redactor=redactor,
            timeout_s=self.timeout_s,
            max_attempts=self.max_attempts,
            concurrency=self.concurrency,
            set_aside_s=self.backoff_base_s,
            owner_failure=self.owner_failure,
        )

        async def next_request() -> EvalRequest | None:
            async with lock:  # the iterator prepares images: one call at a time, off the loop
                return await loop.run_in_executor(None, next, requests, None)

        async def worker() -> None:
            while not cancel.is_set() and not fatal:
                request = await next_request()
                if request is None:
                    return
                try:
                    response = await self._ask(chat, request)
                except ChatFatal as exc:
                    fatal.append(str(exc))
                    cancel.set()
                    return
                except Exception as exc:  # noqa: BLE001 - stored as a failure, the run goes on
                    response = EvalResponse(
                        request.item_id,
                        error=redactor.scrub(f"unreadable answer: {type(exc).__name__}: {exc}"),
                    )
                on_response(response)  # queued for the caller's thread

        async with chat:
            try:
                tasks = [asyncio.create_task(worker()) for _ in range(self.concurrency)]
                while not all(t.done() for t in tasks):
                    if cancel.is_set():
                        for task in tasks:
                            task.cancel()
                    await asyncio.wait(tasks, timeout=0.1)
                outcomes = await asyncio.gather(*tasks, return_exceptions=True)
            finally:
                self.server_notes = chat.server_notes()
        if fatal:
            raise EngineError(fatal[0])
        for outcome in outcomes:  # a worker that died (a database write failed): say so
            if isinstance(outcome, Exception):
                raise outcome

    async def _ask(self, chat: ChatClient, request: EvalRequest) -> EvalResponse:
        """One request's answer, or its failure as an :class:`EvalResponse` with
        ``error`` (raises ChatFatal when the run must stop)."""
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

        def accept(completion, latency_s: float) -> EvalResponse:
            message = completion.choices[0].message if completion.choices else None
            if message is None or (message.content is None and not message.refusal):
                # a reply without an answer is the server's fault, not the model's
                raise EmptyReply("the reply holds no answer (no choices or null content)")
            usage = completion.usage
            return EvalResponse(
                item_id=request.item_id,
                text=message.content or message.refusal or "",
                latency_s=latency_s,
                prompt_tokens=usage.prompt_tokens if usage else None,
                completion_tokens=usage.completion_tokens if usage else None,
            )

        try:
            return await chat.ask(kwargs, accept, affinity=image_affinity(request))
        except AnswerFailed as exc:
            return EvalResponse(item_id=request.item_id, error=str(exc))
