"""One OpenAI-compatible chat client, used by the judge and the evaluation engines.

Who retries what
----------------
*Transport: the openai SDK.* Each server gets an ``AsyncOpenAI(max_retries=max_attempts - 1)``.
As read in ``openai/_base_client.py`` (openai 3.57, ``AsyncAPIClient.request``,
``_should_retry``, ``_calculate_retry_timeout``), it retries connection errors, timeouts,
and the statuses 408, 409, 429 and 5xx, unless the server answers ``x-should-retry:
false`` (``true`` forces a retry). Between tries it waits what ``retry-after-ms`` or
``Retry-After`` (seconds or an HTTP date) asks when that is more than 0 and at most
120 s (``MAX_RETRY_AFTER_DELAY``); a longer Retry-After is not waited for at all, the
error is raised at once. Otherwise it backs off 0.5 s · 2^k, at most 8 s, less 0-25 %
jitter. Any other 4xx is raised at once. All tries of one request reuse one
idempotency key.

Checked against ``tests/llm/fake_openai.py`` (``tests/llm/test_client_retry_after.py``): a
Retry-After of 1e9 or an HTTP date years ahead is not waited for (one request, the item
fails at once, and the message says what the server asked and why it was not waited
for); a negative, zero or unreadable one ("garbage") gets the backoff above, so every
wait is bounded and none is skipped.

*This module's loop* (:meth:`ChatClient.ask`), only for what the SDK cannot know:

- unusable answers: the model answered, but the caller's ``accept`` raises
  :class:`Unusable` (not JSON, a refusal, no content): the item is asked again, up to
  ``max_attempts`` answers;
- dead endpoints: a server still unreachable or timed out after the SDK's tries, one
  that sends something that is no chat completion, one that still answers an HTTP
  status the SDK retries (408, 409, 429, 5xx) after its tries, one caught in a redirect
  loop, or one whose reply holds no answer (:class:`EmptyReply`: no choices, null
  content) is set aside (``set_aside_s`` doubling to 30 s) and the request goes to
  another base URL without using up the item's attempts. While another server is up, a
  request gets one try (the SDK's retries would hold the item on a failing server); the
  only server up gets the SDK's. With one base URL the item uses its attempts, and an
  HTTP error or a redirect loop fails the item, not the run. Every server set aside is
  logged when it first is (saying whether another server is left) and summed up by
  :meth:`ChatClient.server_notes` for the run's output. The run stops
  (:class:`ChatFatal`, one message naming each server, its faults and its last error)
  when a server this run started has died (``owner_failure``), when no server has ever
  answered and each has failed :data:`NEVER_ANSWERED_FAULTS` items, or when every
  server has failed many items in a row;
- the structured-output fallback: with ``structured="auto"``, a 400 that is about
  ``response_format`` switches the client to plain requests for the rest of the run.

Deadlines are :mod:`medrcube_desktop.llm.deadlines`'s; what each failure says is
:mod:`medrcube_desktop.llm.failures`'s; which server takes a call is
:mod:`medrcube_desktop.llm.routing`'s.

Fatal errors
------------
404 (model or endpoint unknown) raises :class:`ChatFatal` at once: no item can succeed.
401 and 403 (the key refused) do with one server; among several, that server is set
aside for the rest of the run (named in :meth:`ChatClient.server_notes`: "refused the
API key") and the run stops only when every server has refused it. Every message and
log line goes through the :class:`~medrcube_desktop.llm.keys.KeyRedactor`: the key
never appears.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from medrcube_desktop.llm.config import MAX_CONCURRENCY  # noqa: F401 (its former home)
from medrcube_desktop.llm.deadlines import (  # noqa: F401 (re-exported: their former home)
    CONNECT_TIMEOUT_S,
    SDK_MAX_RETRY_AFTER_S,
    call_deadline_s,
    deadline_http_client,
    request_deadline_s,
    request_timeout,
)
from medrcube_desktop.llm.failures import (  # noqa: F401 (re-exported: their former home)
    MESSAGE_CHARS,
    SERVER_STATUSES,
    STOP_ERROR_CHARS,
    AnswerFailed,
    ChatFatal,
    EmptyReply,
    NotACompletion,
    Unusable,
    about_format,
    fatal_message,
    not_a_completion,
    redirect_loop,
    retry_after_s,
    status_message,
    unreadable,
)
from medrcube_desktop.llm.keys import KeyRedactor, safe_base_url
from medrcube_desktop.llm.routing import (  # noqa: F401 (re-exported: their former home)
    LOAD_BOUND,
    Endpoint,
    affinity_rank,
    route_by_affinity,
)

log = logging.getLogger(__name__)

T = TypeVar("T")


SET_ASIDE_MAX_S = 30.0
"""Longest time a failing server is set aside, seconds."""

NEVER_ANSWERED_FAULTS = 3
"""Failed items (each after the SDK's tries) per server after which a run in which no
server has ever answered stops: so a run against dead servers ends in seconds with one message,
not after trying every item."""


class ChatClient:
    """Chat completions over one or more OpenAI-compatible base URLs.

    Use as ``async with ChatClient(...) as chat:`` inside the run's event loop.

    Parameters
    ----------
    base_urls : sequence of (str or None)
        One or more endpoints (``http://host:8000/v1``; None: OpenAI's); requests take
        them in turn.
    api_key : str
        The bearer token; never stored, logged or put in a message.
    model : str
        Named in the messages of fatal errors.
    redactor : KeyRedactor
        Scrubs the key (and URL secrets) from every error text.
    timeout_s : float
        Per HTTP request, seconds (see the module's Deadlines).
    max_attempts : int
        HTTP requests per call (the SDK retries ``max_attempts - 1`` times), and answers
        asked per item when they are unusable.
    concurrency : int
        Requests in flight at once over all URLs; sizes the stop rules.
    structured : str
        ``"auto"``, ``"on"`` or ``"off"``: whether a ``response_format`` given to
        :meth:`ask` is sent (``auto``: until the endpoint refuses it once).
    set_aside_s : float
        First set-aside of a failing server, seconds (doubles, at most 30 s).
    owner_failure : callable or None
        For a server this run started: why it died, or None; asked on every fault.
    """

    def __init__(
        self,
        base_urls: Sequence[str | None],
        api_key: str,
        *,
        model: str,
        redactor: KeyRedactor,
        timeout_s: float = 600.0,
        max_attempts: int = 3,
        concurrency: int = 1,
        structured: str = "off",
        set_aside_s: float = 1.0,
        owner_failure: Callable[[], str | None] | None = None,
    ) -> None:
        if not base_urls:
            raise ValueError("a chat client needs at least one base URL")
        self.base_urls = list(base_urls)
        self.api_key = api_key
        self.model = model
        self.redactor = redactor
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.concurrency = max(1, concurrency)
        self.structured = structured
        self.set_aside_s = set_aside_s
        self.owner_failure = owner_failure
        self.deadline_s = call_deadline_s(timeout_s, self.max_attempts)
        self.requests = 0
        """HTTP requests sent, the SDK's retries included."""
        self.endpoints: list[Endpoint] = []
        self._turn = 0

    async def __aenter__(self) -> ChatClient:
        self.endpoints = []
        for url in self.base_urls:
            client = self._sdk_client(url)
            self.endpoints.append(Endpoint(url, client, client.with_options(max_retries=0)))
        return self

    async def __aexit__(self, *exc: object) -> None:
        for endpoint in self.endpoints:
            await endpoint.client.close()

    def _sdk_client(self, url: str | None) -> Any:
        import openai

        async def count(request: Any) -> None:
            self.requests += 1

        return openai.AsyncOpenAI(
            api_key=self.api_key,
            base_url=url,
            max_retries=self.max_attempts - 1,
            timeout=request_timeout(self.timeout_s),
            http_client=deadline_http_client(self.timeout_s, event_hooks={"request": [count]}),
        )

    async def ask(
        self,
        kwargs: dict[str, Any],
        accept: Callable[[Any, float], T],
        response_format: dict[str, Any] | None = None,
        affinity: bytes | None = None,
    ) -> T:
        """One item's chat completion, asked until ``accept`` takes an answer.

        Parameters
        ----------
        kwargs : dict
            Arguments of ``chat.completions.create`` (``model``, ``messages``...).
        accept : callable
            ``accept(completion, latency_s)`` returns what the caller keeps, or raises
            :class:`Unusable` to ask again; ``latency_s`` is seconds from sending the
            call that answered (the SDK's retries included).
        response_format : dict, optional
            Sent while :attr:`structured` allows it.
        affinity : bytes, optional
            What routes the call (the image's digest): every call of one affinity goes to
            the same server while it is up (:meth:`_pick`), so its prompts' shared
            prefix (the image's tokens) is in that server's prefix cache; None: the
            servers in turn.

        Raises
        ------
        AnswerFailed
            The attempts are used up, the SDK gave up, or the request was refused (a
            4xx other than below): the item fails, the run goes on.
        ChatFatal
            401, 403, 404, or a dead endpoint that stops the run (see the module).
        """
        import openai

        attempt, moves, error = 0, 0, ""
        charged: set[int] = set()  # servers that failed this item (counted once)
        while attempt < self.max_attempts:
            endpoint, alone = self._pick(affinity)
            # with another server up, one try here: a failure moves to it at once, instead
            # of the SDK's retries (and their waits) on a server that is failing
            client = endpoint.client if alone else endpoint.single_try
            where = safe_base_url(endpoint.url)
            send = dict(kwargs)
            if response_format is not None and self.structured != "off":
                send["response_format"] = response_format
            started = time.monotonic()
            endpoint.in_flight += 1
            try:
                try:
                    completion = await asyncio.wait_for(
                        client.chat.completions.create(**send), self.deadline_s
                    )
                finally:
                    endpoint.in_flight -= 1
                if not hasattr(completion, "choices"):  # an HTML page, a proxy's text
                    raise not_a_completion(completion, where)
            except (TimeoutError, openai.APIConnectionError) as exc:
                looped = redirect_loop(exc)
                if looped is not None:  # the server answered, with redirects: per request
                    kind, error = "redirect loop", self._say(f"redirect loop at {where}: {looped}")
                elif isinstance(exc, TimeoutError | openai.APITimeoutError):
                    kind, error = "timed out", self._timed_out(exc, where)
                else:
                    kind, error = "unreachable", self._unreachable(exc, where)
                if self._server_fault(endpoint, kind, error, moves, charged):
                    moves += 1  # another server takes it: the item keeps its attempts
                    continue
                if alone:
                    break  # the SDK has tried max_attempts times already
                attempt += 1
                continue
            except openai.APIStatusError as exc:
                if self._refuses_format(exc, send):
                    continue
                fatal = fatal_message(exc, self.model, where)
                if fatal is not None:
                    if isinstance(exc, openai.NotFoundError):
                        raise ChatFatal(self._say(fatal)) from None
                    self._refused(endpoint, self._say(fatal))  # ChatFatal when none is left
                    moves += 1
                    continue
                error = self._say(status_message(exc, where))
                code = exc.status_code
                if code >= 500 or code in SERVER_STATUSES:
                    if self._server_fault(endpoint, f"HTTP {code}", error, moves, charged):
                        moves += 1  # another server takes it
                        continue
                    if not alone:
                        attempt += 1  # one try only: the next one may go to any server
                        continue
                break  # retried by the SDK where retrying helps
            except (openai.OpenAIError, ValueError, TypeError, AttributeError) as exc:
                error = self._say(unreadable(exc, where))
                if self._server_fault(endpoint, "unreadable reply", error, moves, charged):
                    moves += 1
                    continue
                attempt += 1
                continue
            attempt += 1
            try:
                kept = accept(completion, round(time.monotonic() - started, 4))
            except EmptyReply as exc:
                error = self._say(str(exc))
                if self._server_fault(endpoint, "reply without an answer", error, moves, charged):
                    attempt, moves = attempt - 1, moves + 1  # the item keeps its attempt
                continue
            except Unusable as exc:  # the model's fault: the server did its part
                error = self._say(str(exc))
                self._answered(endpoint)
                continue
            self._answered(endpoint)
            return kept
        raise AnswerFailed(error or "no answer")

    def _answered(self, endpoint: Endpoint) -> None:
        endpoint.answers += 1
        endpoint.failures_in_a_row = endpoint.strikes = 0

    def _server_fault(
        self, endpoint: Endpoint, kind: str, error: str, moves: int, charged: set[int]
    ) -> bool:
        """Count a fault of a server (unreachable, timed out, an HTTP error after the
        SDK's tries, a redirect loop, a reply without an answer or unreadable), set it
        aside, and return whether the request may move to another server that is up.
        ``charged`` holds the servers that already failed this item: the stop rules
        count a server's failed items, not its retries of one item.

        Raises
        ------
        ChatFatal
            The run must stop (:meth:`_check_stop`).
        """
        endpoint.faults[kind] = endpoint.faults.get(kind, 0) + 1
        if id(endpoint) not in charged:  # the stop rules count items, not retries
            charged.add(id(endpoint))
            endpoint.failures += 1
            endpoint.failures_in_a_row += 1
        endpoint.last_error = error
        others_up = self._set_aside(endpoint, error)
        self._check_stop()
        return others_up and moves < 4 * len(self.endpoints)

    def _refused(self, endpoint: Endpoint, error: str) -> None:
        """A server refused the API key (401, 403): set aside for the rest of the run,
        its requests go to the others.

        Raises
        ------
        ChatFatal
            No other server is left (with one server: at once, with its message).
        """
        kind = "refused the API key"
        endpoint.faults[kind] = endpoint.faults.get(kind, 0) + 1
        endpoint.last_error = endpoint.refused = error
        endpoint.down_until = math.inf
        live = [e for e in self.endpoints if not e.refused]
        if len(self.endpoints) == 1:
            raise ChatFatal(error)
        if not live:
            raise ChatFatal(self._stopped("every server refused the API key"))
        if endpoint.faults[kind] == 1:
            log.warning(
                "server %s set aside for the rest of the run (%s); its requests go to "
                "the other servers", safe_base_url(endpoint.url), error,
            )  # fmt: skip
        self._check_stop()

    def _check_stop(self) -> None:
        """Stop the run when no request can succeed.

        Raises
        ------
        ChatFatal
            The server process this run started has died (its root cause); no server has
            ever answered and each one left has failed :data:`NEVER_ANSWERED_FAULTS`
            items; or every server left has failed many items in a row (3 times its
            share of the concurrency, at least 3). Servers that refused the key are
            not among those left. The message names each server and its last error.
        """
        if self.owner_failure is not None:
            died = self.owner_failure()
            if died:
                raise ChatFatal(self._say(died))
        live = [e for e in self.endpoints if not e.refused]
        urls = ", ".join(safe_base_url(e.url) for e in self.endpoints)
        if not any(e.answers for e in self.endpoints) and all(
            e.failures >= NEVER_ANSWERED_FAULTS for e in live
        ):
            raise ChatFatal(self._stopped(f"nothing answers at {urls}"))
        share = max(3.0, 3 * self.concurrency / len(self.endpoints))
        if all(e.failures_in_a_row >= share for e in live):
            raise ChatFatal(self._stopped(f"every server stopped answering ({urls})"))

    def _stopped(self, reason: str) -> str:
        """The one message that stops a run: ``reason``, then each server, how it failed
        and its last error."""
        parts = []
        for e in self.endpoints:
            kinds = ", ".join(f"{kind} ×{n}" for kind, n in sorted(e.faults.items()))
            parts.append(
                f"server {safe_base_url(e.url)} ({kinds or 'no fault'}; answered "
                f"{e.answers}): {(e.last_error or 'no error')[:STOP_ERROR_CHARS]}"
            )
        return self.redactor.scrub(f"{reason}; the run stops. " + " | ".join(parts))

    def server_notes(self) -> list[str]:
        """One line per server that failed during the run, for its output: how often it
        was set aside, for what, whether its requests went to other servers (only when
        another one answered), and how many requests it answered (empty when none
        failed)."""
        notes = []
        for e in self.endpoints:
            if not e.faults:
                continue
            kinds = ", ".join(f"{kind} ×{n}" for kind, n in sorted(e.faults.items()))
            others = any(o.answers for o in self.endpoints if o is not e)
            moved = "; its requests went to the other servers" if others else ""
            aside = (
                "set aside for the rest of the run"
                if e.refused
                else f"set aside {e.set_asides} time{'' if e.set_asides == 1 else 's'}"
            )
            notes.append(
                f"server {safe_base_url(e.url)}: {kinds}; {aside}{moved}; answered "
                f"{e.answers} request{'' if e.answers == 1 else 's'}"
            )
        return notes

    def _pick(self, affinity: bytes | None = None) -> tuple[Endpoint, bool]:
        """The server for a call among those not set aside (else the one back first;
        never one that refused the key), and whether it is the only one up.

        Without ``affinity``: the next in turn. With it: the server ranked first for it
        by rendezvous (highest random weight) hashing, :func:`affinity_rank`: the same
        server for every call of one affinity while it is up; when it is set aside, its
        affinities (only they) go to their next-ranked server, and come back once it is
        up again (Thaler and Ravishankar, "Using name-based mappings to increase hit
        rates", IEEE/ACM ToN 1998). Loads are bounded (Mirrokni, Thorup and Zadimoghaddam,
        "Consistent hashing with bounded loads", SODA 2018): a server holding
        :data:`LOAD_BOUND` times the servers' average of requests in flight (at least
        one) passes the call to the next ranked, so one image asked many times at once
        (a benchmark of few pictures) still uses every server."""
        now = time.monotonic()
        live = [e for e in self.endpoints if not e.refused]
        up = [e for e in live if e.down_until <= now]
        pool = up or [min(live, key=lambda e: e.down_until)]
        if affinity is not None and len(pool) > 1:
            endpoint = route_by_affinity(pool, self.endpoints, affinity)
        else:
            self._turn += 1
            endpoint = pool[self._turn % len(pool)]
        return endpoint, not any(e is not endpoint for e in up)

    def _set_aside(self, endpoint: Endpoint, error: str = "") -> bool:
        """Set ``endpoint`` aside (``set_aside_s`` doubling per strike, at most 30 s);
        return whether another server is up to take the request. The first time a
        server is set aside while others are there, a warning is logged naming it."""
        others = [e for e in self.endpoints if e is not endpoint and not e.refused]
        if endpoint.set_asides == 0 and len(self.endpoints) > 1:
            log.warning(
                "server %s set aside (%s); %s", safe_base_url(endpoint.url),
                error or "it failed",
                "its requests go to the other servers" if others else "no other server is left",
            )  # fmt: skip
        endpoint.set_asides += 1
        endpoint.strikes += 1
        wait = min(SET_ASIDE_MAX_S, self.set_aside_s * 2 ** (endpoint.strikes - 1))
        endpoint.down_until = time.monotonic() + wait
        now = time.monotonic()
        return any(e.down_until <= now for e in others)

    def _refuses_format(self, exc: Exception, send: dict[str, Any]) -> bool:
        """Whether this 400 refuses ``response_format`` under ``structured="auto"``; if
        so, the rest of the run asks for plain JSON."""
        import openai

        if (
            isinstance(exc, openai.BadRequestError)
            and "response_format" in send
            and self.structured == "auto"
            and about_format(exc)
        ):
            log.info("%s refuses response_format; asking for plain JSON", self.model)
            self.structured = "off"
            return True
        return False

    def _timed_out(self, exc: Exception, where: str) -> str:
        if isinstance(exc, TimeoutError):  # the call's bound, the SDK's retries included
            return f"timed out: no complete answer from {where} within {self.deadline_s:g} s"
        return self._say(
            f"timed out: no complete answer from {where} within "
            f"{request_deadline_s(self.timeout_s):g} s (--timeout {self.timeout_s:g})"
        )

    def _unreachable(self, exc: Exception, where: str) -> str:
        cause = f" ({exc.__cause__})" if exc.__cause__ else ""
        return self._say(f"{type(exc).__name__} at {where}: {exc}{cause}")

    def _say(self, text: str) -> str:
        """An error text safe to store and show: the key scrubbed, kept short."""
        return self.redactor.scrub(text)[:MESSAGE_CHARS]
