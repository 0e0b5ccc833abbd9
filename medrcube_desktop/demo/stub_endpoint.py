"""A local OpenAI-compatible endpoint with fixed answers, for ``self-test``: no model.

``POST /v1/chat/completions`` answers :data:`JUDGE_MODEL` with a judgment passing all
seven rules (the Table 10 JSON) and any other model with :data:`ANSWER`;
``GET /v1/models`` lists both. Every request is counted, with whether it carried an image
(an ``image_url`` content part, OpenAI's chat format), so the self-test can tell that
prepared images reached the endpoint. Standard library only (``http.server``), on
127.0.0.1 and a free port.

A :data:`Responder` given to the endpoint answers instead (``demo build --with-examples``
scripts each model's answers with it, :mod:`medrcube_desktop.demo.examples`); where it
returns ``None`` the fixed answers above apply.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EVAL_MODEL = "self-test-model"
JUDGE_MODEL = "self-test-judge"
ANSWER = "Answer: A"
"""What the stub answers every evaluation question (parsed as option A)."""
ALL_PASS = {"1.1": 1, "1.2": 1, "1.3": 1, "1.4": 1, "2.1": 1, "2.2": 1, "2.3": 1}
MAX_BODY = 64 * 1024 * 1024
"""A request body larger than this (bytes) is refused with 413."""

Responder = Callable[[str, str, bool], "str | None"]
"""``(model, text, with_image) -> answer``: ``text`` is the text of the request's last
user message (its text parts joined with a line feed), ``with_image`` whether the request
carried an image; ``None`` leaves the request to the fixed answers."""

Sees = Callable[[str, list[str]], bool]
"""``(text, image_urls) -> with_image``: whether a request with this text and these image
URLs (the ``image_url`` parts' URLs, data URLs as the evaluation sends them) shows the
model the item's own picture (``demo serve``: an ablated picture does not)."""


@dataclass
class Counts:
    """Requests answered: ``chat`` in all, ``with_image`` those carrying an image part,
    ``judge`` those for :data:`JUDGE_MODEL`."""

    chat: int = 0
    with_image: int = 0
    judge: int = 0


def request_text(body: dict) -> str:
    """The text of the last user message of a chat request: a plain string content, or
    its ``text`` parts joined with a line feed ("" when there is none)."""
    users = [m for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
    content = users[-1].get("content") if users else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    return ""


def image_urls(body: dict) -> list[str]:
    """The URLs of every ``image_url`` part of a chat request's messages, in order."""
    urls = []
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                image = part.get("image_url")
                url = image.get("url") if isinstance(image, dict) else image
                urls.append(str(url or ""))
    return urls


def _has_image(body: dict) -> bool:
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list) and any(
            isinstance(part, dict) and part.get("type") == "image_url" for part in content
        ):
            return True
    return False


class StubEndpoint:
    """Use as ``with StubEndpoint() as stub:``; ``stub.base_url`` ends in ``/v1`` and
    ``stub.counts`` says what it answered. ``responder`` (optional): see
    :data:`Responder`; ``port`` (0: a free one) on 127.0.0.1; ``models``: what
    ``GET /v1/models`` lists; ``sees`` (optional, see :data:`Sees`) decides the
    responder's ``with_image`` (default: whether the request carried an image).

    Raises
    ------
    OSError
        ``port`` is taken or not allowed."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        port: int = 0,
        models: tuple[str, ...] = (EVAL_MODEL, JUDGE_MODEL),
        sees: Sees | None = None,
    ) -> None:
        self.responder = responder
        self.models = tuple(models)
        self.sees = sees
        self.counts = Counts()
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(
            target=self.server.serve_forever, daemon=True, name="stub-endpoint"
        )

    def __enter__(self) -> StubEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _answer(self, body: dict) -> str:
        judge = body.get("model") == JUDGE_MODEL
        with_image = _has_image(body)
        with self._lock:
            self.counts.chat += 1
            self.counts.with_image += with_image
            self.counts.judge += judge
        if self.responder is not None:
            text = request_text(body)
            if self.sees is not None:
                with_image = self.sees(text, image_urls(body))
            scripted = self.responder(str(body.get("model", "")), text, with_image)
            if scripted is not None:
                return scripted
        return json.dumps(ALL_PASS) if judge else ANSWER

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:  # quiet
                pass

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 (http.server API)
                if self.path.rstrip("/").endswith("/models"):
                    models = [{"id": m, "object": "model"} for m in stub.models]
                    self._send(200, {"object": "list", "data": models})
                else:
                    self._send(404, {"error": {"message": f"no {self.path}", "code": 404}})

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length") or 0)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no {self.path}", "code": 404}})
                    return
                if length > MAX_BODY:
                    self._send(413, {"error": {"message": "request too large", "code": 413}})
                    return
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    self._send(400, {"error": {"message": "not JSON", "code": 400}})
                    return
                content = stub._answer(body)
                self._send(200, {
                    "id": "chatcmpl-self-test", "object": "chat.completion",
                    "created": int(time.time()), "model": body.get("model", ""),
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                })  # fmt: skip

        return Handler
