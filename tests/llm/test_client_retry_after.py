"""Retry-After values a server may send, against the local server: every wait is bounded,
none is skipped, and the message says what the server asked. A 200 that is an HTML page
is named as such."""

import time

import pytest

from medrcube_desktop.llm.client import AnswerFailed, retry_after_s, status_message
from tests.llm.fake_openai import FakeOpenAI, Reply, status, text
from tests.llm.test_client import ask


def limited(value):
    return {"[rl]": [status(429, "slow down", {"Retry-After": value})] * 2 + [text("B")]}


@pytest.mark.parametrize(
    ("value", "asked"),
    [
        ("1e9", "11,574 days (retry-after: 1e9)"),
        ("Wed, 21 Oct 2099 07:28:00 GMT", "days"),
        ("1e999", "forever (retry-after: 1e999)"),  # too big for a float: the SDK refuses
    ],
)
def test_a_wait_beyond_two_minutes_is_not_waited_for_and_the_message_says_so(value, asked):
    with FakeOpenAI(limited(value)) as server:
        started = time.monotonic()
        answer, _ = ask(server, "[rl]")
        elapsed = time.monotonic() - started
        assert isinstance(answer, AnswerFailed) and len(server.requests) == 1
    message = str(answer)
    assert message.startswith(f"rate limited (429) from {server.base_url}; the server asks to wait")
    assert (
        asked in message and "more than the 120 s a request waits, so it was not retried" in message
    )
    assert elapsed < 5


@pytest.mark.parametrize("value", ["-5", "0", "garbage", "inf", "nan"])
def test_a_negative_zero_or_unreadable_wait_gets_the_sdk_backoff(value):
    with FakeOpenAI(limited(value)) as server:
        started = time.monotonic()
        answer, _ = ask(server, "[rl]")
        elapsed = time.monotonic() - started
        assert answer == "B" and len(server.requests) == 3
    # 0.5 s then 1 s, less at most 25 % jitter: backed off, and briefly
    assert 0.375 + 0.75 <= elapsed < 10


def test_retry_after_is_read_as_the_sdk_reads_it():
    assert retry_after_s({"retry-after-ms": "300"}) == (0.3, "retry-after-ms: 300")
    assert retry_after_s({"retry-after": "-5"}) == (-5.0, "retry-after: -5")
    assert retry_after_s({"retry-after": "garbage"}) is None
    assert retry_after_s({"retry-after": "inf"}) is None  # the SDK backs off
    assert retry_after_s({"retry-after": "NaN"}) is None
    assert retry_after_s({"retry-after": "1e999"}) == (float("inf"), "retry-after: 1e999")
    assert retry_after_s({}) is None and retry_after_s(None) is None
    seconds, _ = retry_after_s({"retry-after": "Wed, 21 Oct 2099 07:28:00 GMT"})
    assert seconds > 70 * 365 * 86_400


def test_a_short_retry_after_adds_nothing_to_the_message():
    class Fake(Exception):
        status_code = 503

        class response:  # noqa: N801 - the SDK's attribute
            headers = {"retry-after": "2"}

    assert (
        status_message(Fake("overloaded"), "http://h/v1") == "HTTP 503 from http://h/v1: overloaded"
    )


def test_an_html_page_with_status_200_is_named_as_such():
    page = Reply(body=b"<!DOCTYPE html><html><body>Please sign in</body></html>")
    with FakeOpenAI({"[h]": [page]}) as server:
        answer, _ = ask(server, "[h]")
        assert isinstance(answer, AnswerFailed) and len(server.requests) == 3
    assert str(answer).startswith(
        f"unreadable answer: {server.base_url} answered with an HTML page, not a chat completion"
    )


def test_a_page_read_as_text_is_named_too():
    from medrcube_desktop.llm.client import not_a_completion

    page = "\n  <html><head><title>Sign in</title></head></html>"
    assert str(not_a_completion(page, "http://h/v1")).startswith(
        "unreadable answer: http://h/v1 answered with an HTML page, not a chat completion (a login or error page"
    )
    assert "something that is not a chat completion: 'proxy says no'" in str(
        not_a_completion("proxy says no", "http://h/v1")
    )
