"""When servers fail (issue 21, hostile trial): a run in which every server fails stops
at once with one message naming each server and its last error, and leaves no empty
run; a server that trickles bytes is cut at the request's deadline, named "timed out"
and set aside after its first timeout; a server that refuses the key among several is
set aside for the rest of the run."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.evaluation.engines.base import EvalRequest
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.store import StudyStore
from tests.evaluation.engines.test_openai_engine_server_faults import RedirectLoop
from tests.llm.fake_openai import FakeOpenAI, status


class Trickle:
    """A server that sends its headers at once, then one byte every 0.2 s, for ever."""

    def __init__(self) -> None:
        self.posts = 0
        self.stop = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.posts += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                try:
                    while not outer.stop.wait(0.2):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                except OSError:
                    pass  # the client gave up

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> Trickle:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def refused_url() -> str:
    """A base URL on a port where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def evaluate(bench, db, urls, *extra) -> list[str]:
    args = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "openai"]
    args += ["--model", "m", "--run", "r", "--image-workers", "0", "--timeout", "3"]
    for url in urls:
        args += ["--base-url", url]
    return args + list(extra)


@pytest.mark.parametrize("others", ["none", "refused", "loop"])
def test_when_every_server_fails_the_run_stops_with_one_message_and_no_run(
    bench, tmp_path, capsys, others
):
    db = tmp_path / "s.db"
    with FakeOpenAI({"": [status(500, "upstream down")]}) as bad, RedirectLoop() as loop:
        urls = [bad.base_url]
        if others == "refused":
            urls.append(refused_url())
        elif others == "loop":
            urls.append(loop.base_url)
        code = main(evaluate(bench, db, urls, "--max-attempts", "1", "--concurrency", "1"))
        posts = len(bad.requests)
    err = capsys.readouterr().err
    assert code == 1
    # one message names each server and its last error
    (stop,) = [line for line in err.splitlines() if "the run stops" in line]
    assert "nothing answers at" in stop
    assert f"server {bad.base_url} (HTTP 500 ×" in stop and "upstream down" in stop
    for url in urls[1:]:
        assert f"server {url} (" in stop
    # 3 failed items per server, not the benchmark's 12
    assert posts == 3
    assert "went to the other servers" not in err and "go to the other servers" not in err
    store = StudyStore(db)
    try:
        assert store.eval_run("r") is None  # nothing stored: no empty run left behind
    finally:
        store.close()


def test_one_server_that_answered_fails_an_item_on_a_500_and_the_run_goes_on():
    requests = [EvalRequest(f"i{n}", f"question {n}") for n in range(6)]
    answers = []
    with FakeOpenAI({"question 3": [status(500, "one bad item")]}) as server:
        engine = OpenAIEngine("m", [server.base_url], "k", concurrency=1, max_attempts=1)
        engine.run(requests, answers.append, threading.Event())  # no EngineError
    failed = {a.item_id: a.error for a in answers if a.error}
    assert len(answers) == 6 and list(failed) == ["i3"]
    assert failed["i3"].startswith("HTTP 500") and "one bad item" in failed["i3"]
    (note,) = engine.server_notes
    assert "HTTP 500 ×1" in note and "other servers" not in note  # there are none


def test_a_trickling_server_is_cut_at_the_deadline_named_timed_out_and_set_aside(
    bench, tmp_path, capsys
):
    db = tmp_path / "s.db"
    started = time.monotonic()
    with FakeOpenAI() as good, Trickle() as slow:
        args = evaluate(bench, db, [good.base_url, slow.base_url], "--timeout", "1")
        # text only: the servers in turn (an image's questions would all go to the one
        # server its routing ranks first, issue 25, and this bench has one image)
        code = main([*args, "--concurrency", "1", "--json", "--text-only"])
        posts = slow.posts
    took = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert result["n"] == 12 and result["failed"] == []
    # set aside after its first timeout: one request (the SDK's retries of it would be
    # 3, each held for ever by the trickle before the request deadline)
    assert posts == 1
    (note,) = result["servers"]
    assert note.startswith(f"server {slow.base_url}: timed out ×1;"), note
    assert "unreachable" not in note and "its requests went to the other servers" in note
    assert took < 60  # the old code held the item 3 × 2 s + 2 × 120 s (246 s)


def test_one_request_to_a_trickling_server_ends_at_its_deadline():
    from medrcube_desktop.llm.client import request_deadline_s

    answers = []
    with Trickle() as slow:
        engine = OpenAIEngine("m", [slow.base_url], "k", timeout_s=1, max_attempts=2)
        engine.run([EvalRequest("i0", "q")], answers.append, threading.Event())
        posts = slow.posts
    (answer,) = answers
    assert posts == 2  # the SDK's retry, each request cut at its deadline
    assert answer.error.startswith(f"timed out: no complete answer from {slow.base_url}")
    assert f"within {request_deadline_s(1):g} s" in answer.error and request_deadline_s(1) == 2


def test_a_server_refusing_the_key_among_several_is_set_aside_and_named(bench, tmp_path, capsys):
    db = tmp_path / "s.db"
    with FakeOpenAI() as good, FakeOpenAI({"": [status(401, "bad key")]}) as refusing:
        args = evaluate(bench, db, [good.base_url, refusing.base_url], "--json")
        code = main([*args, "--concurrency", "2"])
        posts = len(refusing.requests)
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    assert result["n"] == 12 and result["failed"] == []
    assert 1 <= posts <= 2  # each worker met it once at most, then it was out
    (note,) = result["servers"]
    assert note.startswith(f"server {refusing.base_url}: refused the API key ×")
    assert "set aside for the rest of the run" in note


def test_when_every_server_refuses_the_key_the_run_stops(bench, tmp_path, capsys):
    db = tmp_path / "s.db"
    with (
        FakeOpenAI({"": [status(401, "bad key")]}) as one,
        FakeOpenAI({"": [status(403, "forbidden")]}) as two,
    ):
        code = main(evaluate(bench, db, [one.base_url, two.base_url], "--concurrency", "1"))
        posts = len(one.requests) + len(two.requests)
    err = capsys.readouterr().err
    assert code == 2 and posts == 2  # as one server refusing the key: bad input
    (stop,) = [line for line in err.splitlines() if "the run stops" in line]
    assert stop.count("refused the API key") >= 2 and "every server refused the API key" in stop
    assert one.base_url in stop and two.base_url in stop


def test_failed_items_past_ten_are_counted_not_listed(capsys):
    from medrcube_desktop.cli.common import FAILURES_LISTED, list_failures

    failed = [{"item": f"i{n}", "error": "HTTP 500 from h"} for n in range(324)]
    failed[3]["error"] = "unreadable answer"
    list_failures(failed)
    lines = capsys.readouterr().err.splitlines()
    assert FAILURES_LISTED == 10 and len(lines) == 11
    assert lines[:10] == [f"i{n}: {failed[n]['error']}" for n in range(10)]
    assert lines[10] == (
        "324 items failed (the first 10 listed above; --json lists every one); "
        "most often (323): HTTP 500 from h"
    )


def test_a_new_run_where_every_item_failed_is_not_kept(bench, tmp_path, capsys, caplog):
    db = tmp_path / "s.db"
    # a 400 is the request's fault, not the server's: items fail, the run goes on
    with FakeOpenAI({"": [status(400, "bad request")]}) as server:
        code = main(evaluate(bench, db, [server.base_url], "--json", "--concurrency", "1"))
        asked = len(server.requests)
    out, err = capsys.readouterr()
    assert code == 1 and asked == 12
    assert len(json.loads(out)["failed"]) == 12
    assert "12 items failed (the first 10 listed above" in err
    assert "run r stored no answer, so it is not kept" in caplog.text
    store = StudyStore(db)
    try:
        assert store.eval_run("r") is None
    finally:
        store.close()
    with FakeOpenAI() as server:  # the same command again: a run of its own, every answer
        assert main(evaluate(bench, db, [server.base_url], "--json")) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 12
