"""Judging items with an LLM through the openai SDK: bounded concurrency, retries, resume.

Each item gets one chat completion with the Table 10 system prompt and the item as text
(paper E.5). The answer must be the seven 0/1 scores; an unusable answer is asked again a
bounded number of times and then stored as a failure with its raw text, never guessed.
Every outcome is written to the study database the moment it arrives, so a killed run
resumes where it stopped: items already judged by the same model with the same prompt
hash are skipped and get no request.

Requests go through :class:`~medrcube_desktop.llm.client.ChatClient`, as the evaluation
engines' do: the openai SDK retries the transport (connection errors, timeouts, 408, 409,
429 with its Retry-After, 5xx); this module only asks again when the answer is unusable,
and the client falls back to plain JSON when the endpoint refuses ``response_format``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.progress import Progress, ProgressFn, report
from medrcube_desktop.errors import JudgeError
from medrcube_desktop.llm.client import AnswerFailed, ChatClient, ChatFatal, Unusable
from medrcube_desktop.llm.config import JudgeConfig
from medrcube_desktop.llm.keys import (
    KeyRedactor,
    safe_base_url,
    url_secrets,
    warn_short_secrets,
)
from medrcube_desktop.llm.parse import UnusableAnswer, parse_judgment
from medrcube_desktop.llm.prompt import ReviewPrompt, load_prompt, response_format
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.judgments import STATUS_FAILED, Judgment
from medrcube_desktop.store.locks import process_lock

log = logging.getLogger(__name__)

MAX_RAW_CHARS = 100_000
"""Raw answer text kept with a judgment (characters); a runaway answer is cut."""


@dataclass
class JudgeSummary:
    """What a run did. ``failed`` lists ``{"item", "error"}``; tokens over all requests."""

    judged: int = 0
    skipped: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    cost_usd: float | None = None
    cancelled: bool = False
    total: int = 0

    def update_cost(self, prices: tuple[float, float] | None) -> None:
        """Set ``cost_usd`` from the tokens so far and USD per million (input, output)."""
        if prices is not None:
            self.cost_usd = (
                self.prompt_tokens * prices[0] + self.completion_tokens * prices[1]
            ) / 1e6

    def progress(self, done: int) -> Progress:
        """The progress record after ``done`` items, with a copy of this summary."""
        snapshot = dataclasses.replace(self, failed=list(self.failed))
        return Progress(
            done, self.total, "item", "",
            {"failed": len(self.failed), "tokens": self.prompt_tokens + self.completion_tokens},
            snapshot,
        )  # fmt: skip

    def to_dict(self) -> dict[str, object]:
        """JSON-ready summary (the ``judge --json`` output)."""
        return {
            "judged": self.judged,
            "skipped": self.skipped,
            "failed": self.failed,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
            "requests": self.requests,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 4),
            "cancelled": self.cancelled,
        }


def items_to_judge(
    items: Sequence[Item], store: StudyStore, model: str, prompt: ReviewPrompt | None = None
) -> tuple[list[Item], int]:
    """Items without a successful judgment by ``model`` under the current prompt, and
    how many were skipped because they have one (raises StoreError)."""
    prompt = prompt or load_prompt()
    done = store.judged_item_ids(model, prompt.sha256)
    todo = [item for item in items if item.id not in done]
    return todo, len(items) - len(todo)


def run_judge(
    items: Sequence[Item],
    store: StudyStore,
    config: JudgeConfig,
    api_key: str,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> JudgeSummary:
    """Judge every item not judged yet; store each outcome at once.

    Parameters
    ----------
    items : sequence of Item
    store : StudyStore
        Opened in the calling thread (the run's event loop runs in this thread).
    config : JudgeConfig
    api_key : str
        Used for the requests only; never stored, logged or put in a message.
    progress : callable, optional
        Gets a :class:`~medrcube_desktop.core.progress.Progress` after every item, its
        ``detail`` a copy of the :class:`JudgeSummary` so far (from the run's thread).
    cancel : threading.Event, optional
        Set it to stop: requests in flight are abandoned (their items stay unjudged).

    Raises
    ------
    JudgeError
        The endpoint refused the key or the model (401, 403, 404), nothing answers at
        it, or it stopped answering: no item can succeed. Or the model's name holds a
        character that is not shown as itself (:func:`~medrcube_desktop.core.names.check_name`).
    StoreError
        A judgment could not be written; ``LockHeld`` when another process is judging
        with the same model on this database.
    """
    from medrcube_desktop.core.names import check_name

    try:  # where a judge model's name enters (the CLI and the Judge dialog alike)
        check_name(config.model, "model name")
    except ValueError as exc:
        raise JudgeError(str(exc)) from None
    prompt = load_prompt()
    todo, skipped = items_to_judge(items, store, config.model, prompt)
    summary = JudgeSummary(skipped=skipped, total=len(todo))
    summary.update_cost(config.prices())
    if not todo:
        return summary
    lock = process_lock(store, f"judge.running:{config.model}", f"a judge run of {config.model}")
    warn_short_secrets([config.base_url] if config.base_url else [])
    with lock, KeyRedactor(api_key, url_secrets(config.base_url)) as redactor:
        runner = _Runner(store, config, api_key, prompt, summary, progress, cancel, redactor)
        asyncio.run(runner.run(todo))
    summary.update_cost(config.prices())
    return summary


class _Runner:
    """One run's state inside its event loop."""

    def __init__(
        self,
        store: StudyStore,
        config: JudgeConfig,
        api_key: str,
        prompt: ReviewPrompt,
        summary: JudgeSummary,
        progress: ProgressFn | None,
        cancel: threading.Event | None,
        redactor: KeyRedactor,
    ) -> None:
        self.store = store
        self.config = config
        self.api_key = api_key
        self.prompt = prompt
        self.summary = summary
        self.progress = progress
        self.cancel = cancel or threading.Event()
        self.redactor = redactor
        self.done = 0
        self.fatal: str | None = None
        self.chat: ChatClient | None = None

    async def run(self, todo: list[Item]) -> None:
        queue: asyncio.Queue[Item] = asyncio.Queue()
        for item in todo:
            queue.put_nowait(item)
        concurrency = max(1, min(self.config.concurrency, len(todo)))
        self.chat = ChatClient(
            [self.config.base_url],
            self.api_key,
            model=self.config.model,
            redactor=self.redactor,
            timeout_s=self.config.timeout_s,
            max_attempts=self.config.max_attempts,
            concurrency=self.config.concurrency,
            structured=self.config.structured,
        )
        async with self.chat:
            workers = [asyncio.create_task(self._worker(queue)) for _ in range(concurrency)]
            watcher = asyncio.create_task(self._watch_cancel(workers))
            try:
                outcomes = await asyncio.gather(*workers, return_exceptions=True)
            finally:
                watcher.cancel()
                self.summary.requests = self.chat.requests
        if self.fatal is not None:
            raise JudgeError(self.fatal)
        for outcome in outcomes:  # a worker that died (a database write failed): say so
            if isinstance(outcome, Exception):
                raise outcome

    async def _watch_cancel(self, workers: list[asyncio.Task]) -> None:
        while not self.cancel.is_set():
            await asyncio.sleep(0.05)
        self.summary.cancelled = True
        for worker in workers:
            worker.cancel()

    async def _worker(self, queue: asyncio.Queue[Item]) -> None:
        while not queue.empty() and self.fatal is None and not self.cancel.is_set():
            item = queue.get_nowait()
            try:
                judgment = await self._judge(item)
            except ChatFatal as exc:
                self.fatal = str(exc)
                self.cancel.set()
                return
            except Exception as exc:  # noqa: BLE001 - stored as a failure, the run goes on
                log.warning("item %s: %s", item.id, self._say(f"{type(exc).__name__}: {exc}"))
                error = self._say(f"unreadable answer: {type(exc).__name__}: {exc}")
                judgment = self._judgment(item, None, "", error, [0, 0])
            try:
                self.store.save_judgment(judgment)
            except Exception:
                self.cancel.set()  # stop the other workers: nothing more can be stored
                raise
            if judgment.status == STATUS_FAILED:
                self.summary.failed.append({"item": item.id, "error": judgment.error})
            else:
                self.summary.judged += 1
            self.done += 1
            assert self.chat is not None
            self.summary.requests = self.chat.requests
            self.summary.update_cost(self.config.prices())
            report(self.progress, self.summary.progress(self.done))

    async def _judge(self, item: Item) -> Judgment:
        """Ask until a usable judgment comes or the attempts are used up (raises
        ChatFatal when no item can succeed)."""
        assert self.chat is not None
        kwargs: dict[str, object] = {
            "model": self.config.model,
            "messages": self.prompt.messages(item),
        }
        if self.config.temperature is not None:
            kwargs["temperature"] = self.config.temperature
        usage, raw = [0, 0], [""]

        def accept(response, latency_s: float) -> dict[str, int]:
            if response.usage is not None:
                tokens = (response.usage.prompt_tokens or 0, response.usage.completion_tokens or 0)
                usage[0], usage[1] = usage[0] + tokens[0], usage[1] + tokens[1]
                self.summary.prompt_tokens += tokens[0]
                self.summary.completion_tokens += tokens[1]
            message = response.choices[0].message if response.choices else None
            refusal = getattr(message, "refusal", None) if message is not None else None
            raw[0] = (message.content if message is not None else None) or refusal or ""
            if refusal:
                raise Unusable(f"the model refused: {refusal}")
            try:
                return parse_judgment(message.content if message is not None else None)
            except UnusableAnswer as exc:
                raise Unusable(f"unusable answer: {exc}") from None

        try:
            scores = await self.chat.ask(kwargs, accept, response_format())
        except AnswerFailed as exc:
            return self._judgment(item, None, raw[0], str(exc), usage)
        return self._judgment(item, scores, raw[0], "", usage)

    def _judgment(self, item, scores, raw, error, usage) -> Judgment:
        return Judgment(
            item_id=item.id,
            model=self.config.model,
            scores=scores,
            status="ok" if scores is not None else STATUS_FAILED,
            created_at=utc_now(),
            base_url=safe_base_url(self.config.base_url),
            prompt_sha256=self.prompt.sha256,
            temperature=self.config.temperature,
            raw_text=self.redactor.scrub(raw[:MAX_RAW_CHARS]),
            error=self.redactor.scrub(error),
            prompt_tokens=usage[0],
            completion_tokens=usage[1],
            source="api",
        )

    def _say(self, text: str) -> str:
        """An error text safe to store and show: the key scrubbed, kept short."""
        return self.redactor.scrub(text)[:500]
