"""How long a chat request and a call may take, and the HTTP client that holds them to it.

``timeout_s`` bounds each HTTP request: connecting within ``min(timeout_s, 10)``
seconds, and every read and write within ``timeout_s`` (an httpx ``Timeout`` given to the
SDK), and the whole request, its reply read to the end, within
:func:`request_deadline_s` (connect + ``timeout_s``) of wall-clock time: a server that
trickles a byte a second defeats the read timeout, not this one. One call (a request
with the SDK's retries and their waits) is also cut at :func:`call_deadline_s`. A
request that runs out of time is "timed out", one that cannot connect "unreachable".
"""

from __future__ import annotations

import asyncio
from typing import Any

CONNECT_TIMEOUT_S = 10.0
"""Longest wait for a TCP/TLS connection, seconds (less when ``timeout_s`` is less)."""

SDK_MAX_RETRY_AFTER_S = 120.0
"""The longest Retry-After the SDK waits for, seconds (``MAX_RETRY_AFTER_DELAY``)."""


def request_timeout(timeout_s: float) -> Any:
    """The SDK's per-request timeout: connect within ``min(timeout_s, 10)`` s, every read,
    write and wait for a pooled connection within ``timeout_s`` s."""
    import openai

    return openai.Timeout(timeout_s, connect=min(timeout_s, CONNECT_TIMEOUT_S))


def request_deadline_s(timeout_s: float) -> float:
    """Wall-clock bound on one HTTP request, seconds: connecting (at most
    ``min(timeout_s, 10)``) plus ``timeout_s`` for sending and the whole reply. httpx's
    timeouts bound each read, not the reply: a server that trickles a byte a second
    would hold a request for ever without this bound."""
    return timeout_s + min(timeout_s, CONNECT_TIMEOUT_S)


def deadline_http_client(timeout_s: float, **kwargs: Any) -> Any:
    """The SDK's default async HTTP client (``openai.DefaultAsyncHttpxClient``, proxies
    from the environment included) whose every request, its whole reply read, ends
    within :func:`request_deadline_s`; past it the request fails with the HTTP client's
    ``ReadTimeout``, which the SDK treats as any timeout (retried, then
    ``APITimeoutError``)."""
    import importlib

    import openai

    base = openai.DefaultAsyncHttpxClient
    httpx = importlib.import_module(
        next(c for c in base.__mro__ if c.__module__.startswith("httpx")).__module__.split(".")[0]
    )  # httpx2 in openai 3.x, httpx before
    seconds = request_deadline_s(timeout_s)

    class DeadlineClient(base):  # type: ignore[misc, valid-type]
        async def send(self, request: Any, **kw: Any) -> Any:
            try:
                return await asyncio.wait_for(super().send(request, **kw), seconds)
            except TimeoutError:
                raise httpx.ReadTimeout(
                    f"no complete reply within {seconds:g} s", request=request
                ) from None

    return DeadlineClient(timeout=request_timeout(timeout_s), **kwargs)


def call_deadline_s(timeout_s: float, max_attempts: int) -> float:
    """Wall-clock bound on one call, seconds: ``max_attempts`` requests of at most
    connect + ``timeout_s`` each, and the SDK's longest wait (120 s) between them."""
    per_request = request_deadline_s(timeout_s)
    return max_attempts * per_request + (max_attempts - 1) * SDK_MAX_RETRY_AFTER_S
