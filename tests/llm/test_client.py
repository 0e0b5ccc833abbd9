"""The one OpenAI-compatible client against a local server: which failures the SDK
retries, which this app asks again, and which stop a run. Requests are counted on the
server (what it received), not by the client."""

import asyncio
import time

import pytest

from medrcube_desktop.llm.client import (
    AnswerFailed,
    ChatClient,
    ChatFatal,
    Unusable,
    call_deadline_s,
)
from medrcube_desktop.llm.keys import KeyRedactor
from tests.llm.fake_openai import FakeOpenAI, Reply, ok, status, text

KEY = "sk-test-LEAK-0123456789abcdef"


def content(completion, latency_s):
    """An ``accept`` that takes any non-empty answer and refuses the word 'unusable'."""
    answer = completion.choices[0].message.content
    if not answer or "unusable" in answer:
        raise Unusable(f"unusable answer: {answer!r}")
    return answer


def ask(server, marker, max_attempts=3, timeout_s=5.0, response_format=None, **options):
    """Ask once for ``marker``; returns (answer or the exception, requests the client sent)."""

    async def go():
        async with ChatClient(
            [server.base_url], KEY, model="m", redactor=KeyRedactor(KEY),
            timeout_s=timeout_s, max_attempts=max_attempts, **options,
        ) as chat:  # fmt: skip
            try:
                answer = await chat.ask(
                    {"model": "m", "messages": [{"role": "user", "content": marker}]},
                    content,
                    response_format,
                )
            except (AnswerFailed, ChatFatal) as exc:
                answer = exc
            return answer, chat.requests

    return asyncio.run(go())


def test_a_429_waits_for_its_retry_after_then_succeeds():
    script = {"[rl]": [status(429, "slow down", {"Retry-After": "1"}), text("B")]}
    with FakeOpenAI(script) as server:
        started = time.monotonic()
        answer, sent = ask(server, "[rl]")
        elapsed = time.monotonic() - started
        assert answer == "B" and len(server.requests) == 2 and sent == 2
    assert elapsed >= 1.0  # the SDK waited what the server asked


def test_retry_after_ms_is_honoured_too():
    script = {"[ms]": [status(429, "slow down", {"retry-after-ms": "300"}), text("B")]}
    with FakeOpenAI(script) as server:
        started = time.monotonic()
        answer, _ = ask(server, "[ms]")
        assert answer == "B" and len(server.requests) == 2
    assert time.monotonic() - started >= 0.3


def test_a_retry_after_beyond_two_minutes_is_not_waited_for_and_the_item_fails_at_once():
    script = {"[quota]": [status(429, "quota exceeded", {"Retry-After": "3600"}), text("B")]}
    with FakeOpenAI(script) as server:
        started = time.monotonic()
        answer, _ = ask(server, "[quota]")
        assert isinstance(answer, AnswerFailed) and len(server.requests) == 1
    assert "rate limited (429)" in str(answer) and time.monotonic() - started < 5


def test_a_409_is_retried():
    with FakeOpenAI({"[lock]": [status(409, "conflict"), text("C")]}) as server:
        answer, _ = ask(server, "[lock]")
        assert answer == "C" and len(server.requests) == 2


def test_5xx_are_retried_up_to_max_attempts_requests_in_all():
    with FakeOpenAI({"[down]": [status(503, "overloaded")]}) as server:
        answer, sent = ask(server, "[down]", max_attempts=4)
        assert isinstance(answer, AnswerFailed) and "HTTP 503" in str(answer)
        assert len(server.requests) == 4 and sent == 4


def test_a_400_is_not_retried():
    with FakeOpenAI({"[bad]": [status(400, "max_tokens is too large"), text("B")]}) as server:
        answer, _ = ask(server, "[bad]")
        assert isinstance(answer, AnswerFailed) and "HTTP 400" in str(answer)
        assert len(server.requests) == 1


def test_an_unusable_answer_is_asked_again_up_to_max_attempts():
    with FakeOpenAI({"[u]": [text("unusable")]}) as server:
        answer, _ = ask(server, "[u]", max_attempts=3)
        assert isinstance(answer, AnswerFailed) and "unusable answer" in str(answer)
        assert len(server.requests) == 3
    with FakeOpenAI({"[u]": [text("unusable"), text("unusable"), text("A")]}) as server:
        answer, _ = ask(server, "[u]", max_attempts=3)
        assert answer == "A" and len(server.requests) == 3


def test_a_read_timeout_is_retried_by_the_sdk():
    with FakeOpenAI({"[slow]": [ok(delay_s=1.5), text("B")]}) as server:
        answer, _ = ask(server, "[slow]", timeout_s=0.5)
        assert answer == "B" and len(server.requests) == 2


def test_structured_auto_falls_back_to_plain_json_and_on_does_not():
    fmt = {"type": "json_object"}
    with FakeOpenAI(refuse_response_format=True) as server:
        answer, _ = ask(server, "[x]", structured="auto", response_format=fmt)
        assert [r["structured"] for r in server.requests] == [True, False]
        assert answer  # the plain request was answered
    with FakeOpenAI(refuse_response_format=True) as server:
        answer, _ = ask(server, "[x]", structured="on", response_format=fmt)
        assert isinstance(answer, AnswerFailed) and len(server.requests) == 1


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (401, "refused the API key"),
        (403, "refused the API key"),
        (404, "model m or endpoint"),
    ],  # fmt: skip
)
def test_401_403_404_are_fatal_at_once_and_never_quote_the_key(code, words):
    with FakeOpenAI({"[x]": [status(code, f"no: {KEY}")]}) as server:
        answer, _ = ask(server, "[x]")
        assert isinstance(answer, ChatFatal) and len(server.requests) == 1
    assert words in str(answer) and f"({code})" in str(answer) and KEY not in str(answer)


def test_a_reply_that_is_no_chat_completion_is_asked_again():
    html = Reply(body=b"<html>Gateway</html>")
    with FakeOpenAI({"[h]": [html, text("B")]}) as server:
        answer, _ = ask(server, "[h]")
        assert answer == "B" and len(server.requests) == 2


def test_the_call_deadline_counts_every_request_and_the_sdks_longest_wait():
    assert call_deadline_s(60.0, 1) == 70.0  # connect 10 s + read 60 s
    assert call_deadline_s(60.0, 3) == 3 * 70.0 + 2 * 120.0
    assert call_deadline_s(2.0, 2) == 2 * 4.0 + 120.0  # connect within min(timeout, 10 s)


def _trickling_server():
    """A server that sends a 200 header, then one byte of its body every 0.1 s, so no
    read ever times out; returns (base URL, stop event)."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                conn.sendall(head + b"Content-Length: 100000\r\n\r\n")
                while not stop.wait(0.1):
                    try:
                        conn.sendall(b" ")
                    except OSError:
                        break
        listener.close()

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/v1", stop


def test_a_server_that_trickles_bytes_is_cut_at_the_call_deadline():
    url, stop = _trickling_server()

    async def go():
        async with ChatClient(
            [url], KEY, model="m", redactor=KeyRedactor(KEY), timeout_s=0.3, max_attempts=1
        ) as chat:
            return await chat.ask({"model": "m", "messages": []}, content)

    started = time.monotonic()
    try:
        with pytest.raises(AnswerFailed, match=r"no complete answer .* within 0.6 s"):
            asyncio.run(go())
    finally:
        stop.set()
    assert time.monotonic() - started < 3  # each read came within 0.3 s: only the deadline cut it
