"""Every form of a URL credential is scrubbed, however the forms overlap (issue 21, the
second hostile trial): a percent-encoded password left the tail of the Basic-auth header
(``Basic [API key]N4``); a non-ASCII one came back JSON-escaped whole; two URLs joined by
a comma kept the second one's password in the run's parameters and the settings file;
the base64 of an API key passed ``import-run``; a two-letter password was kept without a
word."""

from __future__ import annotations

import argparse
import base64
import json
import logging
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.cli.argtypes import base_url
from medrcube_desktop.llm.keys import KeyRedactor, url_secrets, without_secrets
from tests.conftest import dicom_file, item, write_benchmark

KEY = "sk-forms-test-0123456789abcdef"
ALL_PASS = {"1.1": 1, "1.2": 1, "1.3": 1, "1.4": 1, "2.1": 1, "2.2": 1, "2.3": 1}


class HeaderEcho:
    """A chat-completions server whose answer echoes the request's headers (as JSON), the
    decoded Basic-auth pair, and that pair JSON-escaped: as the tester's stub did."""

    def __init__(self, judge: bool = False) -> None:
        self.seen: list[str] = []
        echo = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                self.rfile.read(int(self.headers["Content-Length"]))
                auth = self.headers.get("Authorization", "")
                echo.seen.append(auth)
                decoded = base64.b64decode(auth.removeprefix("Basic ")).decode("utf-8")
                text = f"headers {json.dumps(dict(self.headers.items()))}\n"
                text += f"decoded:{decoded}\nesc:{json.dumps(decoded)}\nlower:{auth.lower()}"
                content = (json.dumps(ALL_PASS) + " " if judge else "Answer: B\n") + text
                payload = {
                    "id": "c", "object": "chat.completion", "created": 0, "model": "m",
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": content}}],
                }  # fmt: skip
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]

    def url(self, user_info: str) -> str:
        return f"http://{user_info}@127.0.0.1:{self.port}/v1"

    def __enter__(self) -> HeaderEcho:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def basic(pair: str) -> str:
    """The header value RFC 7617 gives for ``pair``, computed here."""
    return base64.b64encode(pair.encode("utf-8")).decode("ascii")


def stored_text(db: Path) -> str:
    """Every response, error and judgment text the database holds."""
    with sqlite3.connect(db) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        rows = []
        if "eval_responses" in tables:
            rows += conn.execute("SELECT * FROM eval_responses").fetchall()
        if "judgments" in tables:
            rows += conn.execute("SELECT * FROM judgments").fetchall()
        rows += conn.execute("SELECT * FROM eval_runs").fetchall() if "eval_runs" in tables else []
    return json.dumps(rows, default=str)


@pytest.fixture
def bench(tmp_path):
    records = [item("q0"), item("q1")]
    return write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


# (user info as written in the URL, the decoded pair, what must not be left of it)
CASES = [
    ("admin:hunter2%23x", "admin:hunter2#x", ["hunter2", "N4", "#x"]),
    ("alice:s3cr%C3%A9t%2Fpw", "alice:s3cr\u00e9t/pw", ["s3cr", "t/pw", "sOpdC9wdw", "\\u00e9"]),
]


@pytest.mark.parametrize(("user_info", "pair", "rest"), CASES)
def test_overlapping_forms_of_a_percent_encoded_password_leave_nothing(user_info, pair, rest):
    """The as-written and the decoded forms share a long prefix; replaced one after the
    other, the first left the second's tail (``Basic [API key]N4``)."""
    redactor = KeyRedactor(KEY, url_secrets(f"http://{user_info}@127.0.0.1:1/v1"))
    echo = f'"Authorization": "Basic {basic(pair)}" decoded:{pair} esc:{json.dumps(pair)} end'
    got = redactor.scrub(echo)
    assert got == '"Authorization": "Basic [API key]" decoded:[API key] esc:"[API key]" end'
    assert not [r for r in rest if r in got]


@pytest.mark.parametrize(("user_info", "pair", "rest"), CASES)
def test_evaluate_and_judge_store_no_part_of_an_echoed_percent_encoded_password(
    tmp_path, bench, monkeypatch, capsys, caplog, user_info, pair, rest
):
    monkeypatch.setenv("ECHO_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "s.db"
    with HeaderEcho() as server:
        args = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "openai"]
        args += ["--model", "m", "--run", "r", "--text-only", "--limit", "1"]
        args += ["--base-url", server.url(user_info), "--api-key-env", "ECHO_KEY"]
        assert main(args) == 0
        assert server.seen == [f"Basic {basic(pair)}"]  # what was sent, by hand
    with HeaderEcho(judge=True) as server:
        args = ["judge", "--dataset", str(bench), "--db", str(db), "--model", "j"]
        args += ["--base-url", server.url(user_info), "--api-key-env", "ECHO_KEY"]
        args += ["--max-attempts", "1", "--limit", "1"]
        main(args)
        assert server.seen
    text = stored_text(db)
    assert "Basic [API key]" in text and "decoded:[API key]" in text  # both runs stored
    secret = pair.partition(":")[2]
    for form in [basic(pair), basic(pair).rstrip("="), secret, json.dumps(pair)[1:-1], *rest]:
        assert form not in text, form
    captured = capsys.readouterr()
    assert secret not in captured.out + captured.err + caplog.text


SECRET2 = "secret2-of-the-second-url"


@pytest.mark.parametrize(
    "url",
    [
        f"http://u:secret1@127.0.0.1:18100/v1,http://u:{SECRET2}@127.0.0.1:18101/v1",
        f"http://127.0.0.1:18100/v1,127.0.0.1:18101/v1?key={SECRET2}",
        f"http://127.0.0.1:18100/v1/http://u:{SECRET2}@127.0.0.1:18101/v1",
        f"http://127.0.0.1:18100/v1;key={SECRET2}",
    ],
)
def test_one_url_per_base_url_without_path_parameters(url, tmp_path, bench, capsys):
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        base_url(url)
    assert SECRET2 not in str(refused.value) and "secret1" not in str(refused.value)
    args = ["evaluate", "--dataset", str(bench), "--db", str(tmp_path / "s.db")]
    args += ["--engine", "openai", "--model", "m", "--run", "r", "--base-url", url]
    with pytest.raises(SystemExit) as done:
        main(args)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--base-url" in err and SECRET2 not in err
    assert not (tmp_path / "s.db").exists() or SECRET2 not in stored_text(tmp_path / "s.db")


def test_remembered_endpoints_keep_no_secret_of_any_url_in_the_text():
    """What the Evaluate pane and the Judge dialog write to their settings file."""
    typed = (
        f"http://u:secret1@127.0.0.1:18100/v1,http://u:{SECRET2}@127.0.0.1:18101/v1 "
        f"http://h:1/v1;key={SECRET2}?q={SECRET2}#{SECRET2} u:{SECRET2}@h2:3/v1"
    )
    assert without_secrets(typed) == (
        "http://127.0.0.1:18100/v1 http://127.0.0.1:18101/v1 http://h:1/v1 h2:3/v1"
    )
    assert without_secrets("") == ""


def test_a_password_too_short_to_scrub_alone_is_warned_about_and_its_pair_is_scrubbed(
    tmp_path, bench, monkeypatch, caplog
):
    """``carol:ab``: the header and ``carol:ab`` are scrubbed; ``ab`` alone is not (it
    would take 'ab' out of 'about'), and the run says so at its start."""
    redactor = KeyRedactor(KEY, url_secrets("http://carol:ab@h:1/v1"))
    echo = f"Basic {basic('carol:ab')} carol:ab about"
    assert redactor.scrub(echo) == "Basic [API key] [API key] about"
    assert KeyRedactor(KEY, url_secrets("http://u:p@h:1/v1")).scrub(f"{basic('u:p')} u:p up") == (
        "[API key] [API key] up"  # the whole pair whatever its length
    )
    monkeypatch.setenv("ECHO_KEY", KEY)
    caplog.set_level(logging.WARNING)
    with HeaderEcho() as server:
        args = ["evaluate", "--dataset", str(bench), "--db", str(tmp_path / "s.db")]
        args += ["--engine", "openai", "--model", "m", "--run", "r", "--text-only"]
        args += ["--limit", "1", "--base-url", server.url("carol:ab")]
        args += ["--api-key-env", "ECHO_KEY"]
        assert main(args) == 0
    warned = [r.getMessage() for r in caplog.records if "cannot be scrubbed" in r.getMessage()]
    assert warned == [
        f"the password in http://127.0.0.1:{server.port}/v1 has fewer than 4 characters: "
        "it cannot be scrubbed on its own from what the endpoint echoes (the Basic-auth "
        "header is); use a longer one"
    ]


def test_import_run_scrubs_the_base64_of_a_key_as_evaluate_does(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    encoded = base64.b64encode(KEY.encode()).decode()
    as_password = base64.b64encode(f"apikey:{KEY}".encode()).decode()  # key at offset 7
    records = [
        {"id": "q0", "image_path": "ds1/images/ct.dcm", "task": "Modality Recognition",
         "correct": True, "model_response": f"B {encoded} {as_password}"},
    ]  # fmt: skip
    results = tmp_path / "results.json"
    results.write_text(json.dumps(records))
    db = tmp_path / "new.db"
    args = ["import-run", "--db", str(db), "--run", "i", "--model", "m"]
    assert main([*args, "--dataset", str(bench), str(results)]) == 0
    text = stored_text(db)
    assert "[API key]" in text
    assert encoded not in text and encoded.rstrip("=") not in text
    assert as_password[12:-4] not in text  # the key's part of the longer header
    redactor = KeyRedactor(KEY)  # evaluate's scrubber: the same forms
    assert redactor.scrub(f"B {encoded}") == "B [API key]"
