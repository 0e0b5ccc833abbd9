"""A local OpenAI-compatible chat-completions server for tests and benchmarks.

It answers ``POST /v1/chat/completions`` the way the OpenAI API does (same JSON shapes,
status codes and Retry-After headers) from a script: for each request, the first
``script`` key found in the user message picks the list of replies for that key, one per
attempt (the last one repeats). Everything else gets a valid judgment. Every request is
recorded, with its Authorization header, so tests can count requests per item.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ALL_PASS = {"1.1": 1, "1.2": 1, "1.3": 1, "1.4": 1, "2.1": 1, "2.2": 1, "2.3": 1}


@dataclass
class Reply:
    """One scripted reply: an HTTP status with a JSON body, after ``delay_s`` seconds."""

    status: int = 200
    content: str | None = None
    refusal: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    error: str = ""
    body: bytes | None = None  # sent as is (e.g. an HTML page with status 200)


def ok(scores: dict[str, int] | None = None, delay_s: float = 0.0) -> Reply:
    return Reply(content=json.dumps(scores or ALL_PASS, separators=(",", ":")), delay_s=delay_s)


def text(content: str) -> Reply:
    return Reply(content=content)


def refusal(message: str = "I'm sorry, I can't help with that.") -> Reply:
    return Reply(refusal=message)


def status(code: int, message: str = "error", headers: dict[str, str] | None = None) -> Reply:
    return Reply(status=code, headers=headers or {}, error=message)


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 drops simultaneous connects beyond it; a dropped
    # SYN is retried only after 1 s, which would swamp any latency measurement.
    request_queue_size = 256


class FakeOpenAI:
    """Start with ``with FakeOpenAI(script) as server:``; ``server.base_url`` ends in /v1.

    ``refuse_response_format``: answer 400 to requests asking for structured output,
    like an endpoint without it. ``latency_s``: added to every reply.
    """

    def __init__(
        self,
        script: dict[str, list[Reply]] | None = None,
        latency_s: float = 0.0,
        refuse_response_format: bool = False,
        version: str = "",
    ) -> None:
        self.version = version  # answered at /version when set, as vLLM's server does
        self.script = script or {}
        self.latency_s = latency_s
        self.refuse_response_format = refuse_response_format
        self.requests: list[dict] = []
        self.per_key: dict[str, int] = defaultdict(int)
        self.lock = threading.Lock()
        self.server = _Server(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def user_messages(self) -> list[str]:
        """The user message of every request received, in order."""
        return [r["user"] for r in self.requests]

    def _reply_for(self, body: dict) -> tuple[Reply, str]:
        user = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        if isinstance(user, list):  # content parts (image, text): match on the text
            user = "\n".join(part.get("text", "") for part in user if isinstance(part, dict))
        with self.lock:
            self.requests.append(
                {"user": user, "body": body, "structured": "response_format" in body}
            )
            for key, replies in self.script.items():
                if key in user:
                    attempt = self.per_key[key]
                    self.per_key[key] += 1
                    return replies[min(attempt, len(replies) - 1)], user
        return ok(), user

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def setup(self) -> None:
                super().setup()
                # Headers and body go out in two writes: without TCP_NODELAY, Nagle's
                # algorithm and delayed ACKs would add ~40 ms to every reply.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_GET(self) -> None:  # noqa: N802 (http.server API): vLLM's /health, /version
                path = self.path.rstrip("/")
                body = b""
                if path.endswith("/version") and fake.version:
                    body = json.dumps({"version": fake.version}).encode()
                status = 200 if path.endswith("/health") or body else 404
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests_auth = self.headers.get("Authorization", "")
                if fake.refuse_response_format and "response_format" in body:
                    with fake.lock:
                        fake.requests.append({"user": "", "body": body, "structured": True})
                    reply = status(400, "Unrecognized request argument: response_format")
                else:
                    reply, _ = fake._reply_for(body)
                time.sleep(fake.latency_s + reply.delay_s)
                if reply.status != 200:
                    payload = {
                        "error": {"message": reply.error, "type": "error", "code": reply.status}
                    }
                else:
                    payload = {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "message": {
                                    "role": "assistant",
                                    "content": reply.content,
                                    "refusal": reply.refusal,
                                },
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": 1000,
                            "completion_tokens": 20,
                            "total_tokens": 1020,
                        },
                    }
                data = reply.body if reply.body is not None else json.dumps(payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and went away

        return Handler
