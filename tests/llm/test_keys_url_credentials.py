"""A password in ``--base-url`` is sent as HTTP Basic authentication; an endpoint that
echoes the Authorization header puts its base64 form in the answer. No form of any
credential reaches the database, ``results.json``, the logs or the terminal (issue 21)."""

from __future__ import annotations

import base64
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.llm.keys import KeyRedactor, url_secrets
from tests.conftest import dicom_file, item, write_benchmark

KEY = "sk-echo-test-9f8e7d6c5b4a3210"
USER, PASSWORD = "alice", "s3cr@t-pass/ü"  # '@', '/' and 'ü' percent-encoded in the URL
ALL_PASS = {"1.1": 1, "1.2": 1, "1.3": 1, "1.4": 1, "2.1": 1, "2.2": 1, "2.3": 1}


def forms() -> list[str]:
    """Every form the credentials travel in, computed here by hand from RFC 7617."""
    pair = f"{USER}:{PASSWORD}"
    basic = base64.b64encode(pair.encode()).decode()
    return [KEY, f"Bearer {KEY}", PASSWORD, quote(PASSWORD, safe=""), pair, basic,
            basic.rstrip("="), f"Basic {basic}"]  # fmt: skip


class Echo:
    """A chat-completions server that answers with the Authorization header it got (in
    the content of a 200, and in the error message of a 500 for a question with
    ``[500]``)."""

    def __init__(self, judge: bool = False) -> None:
        self.seen: list[str] = []
        echo = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                auth = self.headers.get("Authorization", "")
                echo.seen.append(auth)
                status, text = 200, f"B. (debug: Authorization: {auth})"
                if judge:
                    text = json.dumps(ALL_PASS) + f" Authorization: {auth}"
                if "[500]" in json.dumps(body):
                    status = 500
                    payload = {"error": {"message": f"bad header {auth}", "code": 500}}
                else:
                    payload = {
                        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}],
                    }  # fmt: skip
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        port = self.server.server_address[1]
        secret = f"{USER}:{quote(PASSWORD, safe='')}"
        self.base_url = f"http://{secret}@127.0.0.1:{port}/v1"

    def __enter__(self) -> Echo:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def leaks(data: bytes) -> list[str]:
    """The forms found in ``data``."""
    return [form for form in forms() if form.encode() in data]


def every_file(*folders: Path) -> bytes:
    return b"".join(p.read_bytes() for f in folders for p in sorted(f.rglob("*")) if p.is_file())


@pytest.fixture
def bench(tmp_path):
    records = [item("q0", question="Which modality [500]?"), item("q1"), item("q2")]
    return write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def test_url_secrets_hold_the_basic_auth_header_in_every_form():
    url = f"http://{USER}:{quote(PASSWORD, safe='')}@host:1/v1?token=abcd1234"
    got = set(url_secrets(url))
    want = set(forms()) - {KEY, f"Bearer {KEY}", f"Basic {base64.b64encode(b'x').decode()}"}
    assert {f for f in want if not f.startswith("Basic ")} <= got
    redactor = KeyRedactor(KEY, url_secrets(url))
    for form in forms():
        assert redactor.scrub(f"echo <{form}> end").count("[API key]") >= 1, form
        assert not leaks(redactor.scrub(f"echo <{form}> end").encode()), form


def test_an_echoed_basic_auth_header_is_stored_nowhere(
    bench, tmp_path, monkeypatch, capsys, isolated_settings, caplog
):
    monkeypatch.setenv("ECHO_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "s.db"
    with Echo() as server:
        args = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "openai"]
        args += ["--model", "m", "--base-url", server.base_url, "--api-key-env", "ECHO_KEY"]
        args += ["--run", "r1", "--max-attempts", "1", "--image-workers", "0"]
        assert main(args) == 1  # the 500 is one failed item
        basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        assert server.seen and all(a == f"Basic {basic}" for a in server.seen)  # as sent
    out = tmp_path / "results.json"
    export = ["export-run", "--db", str(db), "--run", "r1", "--dataset", str(bench)]
    assert main([*export, "--out", str(out)]) == 0
    assert "[API key]" in json.loads(out.read_text())[0]["response"]  # the echo, scrubbed
    captured = capsys.readouterr()
    assert not leaks((captured.out + captured.err + caplog.text).encode())
    assert not leaks(every_file(tmp_path, isolated_settings))
    assert b"Basic [API key]" in every_file(tmp_path)  # the echo was stored, scrubbed


def test_judge_stores_no_form_of_an_echoed_basic_auth_header(
    tmp_path, monkeypatch, capsys, isolated_settings, caplog
):
    monkeypatch.setenv("ECHO_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    records = [item("a"), item("b", question="Which organ [500]?")]
    root = write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    db = tmp_path / "study.db"
    with Echo(judge=True) as server:
        args = ["judge", "--dataset", str(root), "--db", str(db), "--model", "m1"]
        args += ["--base-url", server.base_url, "--api-key-env", "ECHO_KEY"]
        args += ["--max-attempts", "1"]
        main(args)
        assert server.seen
    exported = tmp_path / "judgments.jsonl"
    main(["export-judgments", "--db", str(db), "--model", "m1", "--out", str(exported)])
    captured = capsys.readouterr()
    assert not leaks((captured.out + captured.err + caplog.text).encode())
    assert not leaks(every_file(tmp_path, isolated_settings))
    assert b"Basic [API key]" in every_file(tmp_path)  # the echo was stored, scrubbed
