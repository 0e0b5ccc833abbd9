"""Several ``--base-url``s where one fails (issue 21): a server that answers HTTP 500,
replies without an answer or loops on redirects is set aside, its items go to the
others, and the run says so; with one server such a fault fails the item, not the run,
once the server has answered (test_server_stops.py: a run where no server answers stops)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.evaluation.engines.base import EvalRequest
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.store import StudyStore
from tests.llm.fake_openai import FakeOpenAI, Reply, status


class RedirectLoop:
    """A server that answers every POST with a redirect to itself."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(307)
                self.send_header("Location", self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> RedirectLoop:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _failing(kind: str):
    if kind == "loop":
        return RedirectLoop()
    reply = status(500, "upstream down") if kind == "500" else Reply(content=None)
    return FakeOpenAI({"": [reply]})  # "" is in every message: every reply is this one


@pytest.mark.parametrize(
    ("kind", "said"),
    [("500", "HTTP 500"), ("empty", "reply without an answer"), ("loop", "redirect loop")],
)
def test_a_failing_server_among_several_is_set_aside_and_named(bench, tmp_path, capsys,
                                                               kind, said):  # fmt: skip
    db = tmp_path / "s.db"
    with FakeOpenAI() as good, _failing(kind) as bad:
        args = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "openai"]
        args += ["--model", "m", "--base-url", good.base_url, "--base-url", bad.base_url]
        args += ["--run", "r", "--max-attempts", "1", "--concurrency", "2", "--json"]
        args += ["--image-workers", "0"]
        assert main(args) == 0  # every item answered: the failing server's went elsewhere
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["n"] == 12 and result["failed"] == []
    (note,) = result["servers"]
    assert note.startswith(f"server {bad.base_url}: {said} ×") and "answered 0" in note
    assert f"warning: server {bad.base_url}" in captured.err
    store = StudyStore(db)
    try:
        assert len(store.responses("r")) == 12
    finally:
        store.close()


@pytest.mark.parametrize("kind", ["500", "loop"])
def test_with_one_server_that_never_answers_the_run_stops_after_three_items(kind):
    from medrcube_desktop.errors import EngineError

    requests = [EvalRequest(f"i{n}", f"question {n}") for n in range(6)]
    answers = []
    with _failing(kind) as bad:
        engine = OpenAIEngine("m", [bad.base_url], "not-needed", concurrency=1, max_attempts=1)
        with pytest.raises(EngineError, match="nothing answers at .*the run stops") as stopped:
            engine.run(requests, answers.append, threading.Event())
    expected = "HTTP 500" if kind == "500" else "redirect loop"
    assert len(answers) == 2 and all(a.error.startswith(expected) for a in answers)
    assert f"server {bad.base_url} ({expected} ×" in str(stopped.value)
    assert len(engine.server_notes) == 1
