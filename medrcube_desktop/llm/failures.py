"""What went wrong with a chat request, in words a user can act on: the exceptions the
client raises and accepts, and the messages for HTTP statuses, Retry-After, replies that
are no chat completion and errors that stop a run (not yet scrubbed of the key: the
client scrubs every message with its :class:`~medrcube_desktop.llm.keys.KeyRedactor`)."""

from __future__ import annotations

import json
import math
import time
from typing import Any

from medrcube_desktop.llm.deadlines import SDK_MAX_RETRY_AFTER_S

MESSAGE_CHARS = 500
"""Error texts are cut to this many characters."""

STOP_ERROR_CHARS = 200
"""Each server's last error is cut to this many characters in the message that stops a
run (which names every server)."""


class ChatFatal(Exception):
    """No request can succeed (key or model refused, no server answers, the server this
    run started died). The message is safe to show: the key is scrubbed."""


class Unusable(Exception):
    """Raised by an ``accept`` callback: the reply came but cannot be used (ask again)."""


class EmptyReply(Unusable):
    """Raised by an ``accept`` callback: the reply holds no answer at all (no choices, null
    content): the server's fault, not the model's, so another server is asked."""


SERVER_STATUSES = frozenset({408, 409, 429})
"""HTTP statuses (besides 5xx) that the SDK retries because the server, not the request,
is at fault: after its tries another server is asked."""


def redirect_loop(exc: BaseException) -> str | None:
    """What a connection error caused by too many redirects says (the HTTP client's
    ``TooManyRedirects``, which the SDK reports as a connection error), else None. Told
    by the class's name: the SDK's HTTP client is ``httpx`` or, in openai 3.x, ``httpx2``."""
    cause = exc.__cause__ or exc.__context__
    if cause is not None and type(cause).__name__ == "TooManyRedirects":
        return str(cause)
    return None


class NotACompletion(ValueError):
    """The server answered 200 with something that is no chat completion (an HTML login
    or error page, a proxy's text); the message says what it was."""


def not_a_completion(reply: object, where: str) -> NotACompletion:
    """What a reply without ``choices`` is, in words, for :class:`NotACompletion`."""
    shown = " ".join(str(reply).split())[:80]
    if isinstance(reply, str) and reply.lstrip()[:1] == "<" and "html" in reply[:1000].lower():
        return NotACompletion(
            f"unreadable answer: {where} answered with an HTML page, not a chat completion "
            f"(a login or error page of a proxy? check the base URL): {shown!r}"
        )
    return NotACompletion(
        f"{where} answered with something that is not a chat completion: {shown!r}"
    )


def retry_after_s(headers: Any) -> tuple[float, str] | None:
    """The delay a response asks for (``retry-after-ms``, else ``Retry-After`` in seconds
    or as an HTTP date), seconds, with the header as sent; None without one, or when it
    cannot be read, as the SDK reads it (``_parse_retry_after_header`` and
    ``_calculate_retry_timeout`` of openai 3.57): ``inf`` and ``nan`` written out get the
    SDK's backoff (None here), a number too large for a float (``1e999``) is a wait too
    long to honour (infinite here)."""
    import email.utils

    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            delay = float(value)
        except ValueError:
            continue
        if not math.isfinite(delay):  # as the SDK: a number too big to hold is a refusal,
            literal = value.strip().lower().lstrip("+") in ("inf", "infinity")
            if literal or delay != delay:  # but "inf" and "nan" get its backoff
                return None
        return delay / divisor, f"{name}: {value}"
    value = headers.get("retry-after")
    try:
        when = email.utils.parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return when.timestamp() - time.time(), f"retry-after: {value}"


def status_message(exc: Any, where: str) -> str:
    """What an HTTP error the SDK gave up on says, with its Retry-After when the server
    asked for a wait too long to honour (not yet scrubbed)."""
    what = "rate limited (429)" if exc.status_code == 429 else f"HTTP {exc.status_code}"
    asked = retry_after_s(getattr(getattr(exc, "response", None), "headers", None))
    note = ""
    if asked is not None and asked[0] > SDK_MAX_RETRY_AFTER_S:
        seconds, header = asked
        note = (
            f"; the server asks to wait {duration(seconds)} ({header}), more than the "
            f"{SDK_MAX_RETRY_AFTER_S:g} s a request waits, so it was not retried"
        )
    return f"{what} from {where}{note}: {exc}"


def unreadable(exc: Exception, where: str) -> str:
    """The message of a reply that could not be read as a chat completion."""
    if isinstance(exc, NotACompletion):
        return str(exc)
    if isinstance(exc, json.JSONDecodeError) and exc.doc.lstrip()[:1] == "<":
        return str(not_a_completion(exc.doc, where))  # HTML sent as JSON (a proxy)
    return f"unreadable answer from {where}: {type(exc).__name__}: {exc}"


def duration(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):
        return "forever"
    for unit, size in (("days", 86_400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:,.0f} {unit}"
    return f"{seconds:,.0f} s"


class AnswerFailed(Exception):
    """An item's attempts are used up; the message (key scrubbed) says the last reason."""


def fatal_message(exc: Exception, model: str, where: str) -> str | None:
    """The message that stops a run for an SDK error no retry can fix, else None
    (not yet scrubbed)."""
    import openai

    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return f"the endpoint {where} refused the API key ({exc.status_code}): {exc}"
    if isinstance(exc, openai.NotFoundError):
        return f"model {model} or endpoint {where} not found (404): {exc}"
    return None


def about_format(exc: Exception) -> bool:
    """Whether a 400 complains about ``response_format`` / JSON schema support."""
    text = str(exc).lower()
    return any(word in text for word in ("response_format", "json_schema", "structured"))
