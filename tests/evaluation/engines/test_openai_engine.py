"""The openai engine end to end against a local server (with kill and resume); the vllm
engines' process handling is in test_vllm_engines.py (test doubles, fast) and
tests/real/ (the real vLLM)."""

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.engines.base import SamplingConfig
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record, run_summary
from medrcube_desktop.store import StudyStore
from tests.llm.fake_openai import FakeOpenAI, text

ROOT = Path(__file__).resolve().parents[3]


def test_openai_engine_sends_image_first_and_stores_parsed_answers(bench, tmp_path):
    items = load_benchmark(bench).items
    store = StudyStore(tmp_path / "s.db")
    script = {
        "scan 0?": [text("B")],  # right ("CT" is option B)
        "scan 1?": [text("<think>MRI? no</think>The answer is (B).")],
        "scan 2?": [text("A coronal slice.")],  # the article: unparsed, publicly "A"
        "scan 3?": [text("C")],
    }
    with FakeOpenAI(script) as server:
        engine = OpenAIEngine("qwen", [server.base_url], "not-needed", SamplingConfig(), 4)
        record = run_record("r1", engine, "qwen", ImageOptions(), str(bench))
        state = run_evaluation(items[:4], store, record, engine)
        body = server.requests[0]["body"]
    assert state.answered == 4 and state.failed == []
    parts = body["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["image_url", "text"]
    assert parts[0]["image_url"]["url"].startswith("data:image/png;base64,")
    assert parts[1]["text"].startswith("Question: What is the imaging modality of scan")
    assert (body["temperature"], body["top_p"], body["max_tokens"]) == (0.0, 0.0001, 8192)
    answers = store.responses("r1")
    assert (answers["q01"].parsed_answer, answers["q01"].parse_method) == ("B", "answer_phrase")
    assert answers["q02"].parsed_answer is None and answers["q02"].official_answer == "A"
    assert answers["q00"].image["sent"] == [128, 128]  # CT_small is 128 x 128
    summary = run_summary(store, "r1", items)
    assert summary["n"] == 4 and summary["accuracy"] == 0.5 and summary["unparsed"] == 1
    assert store.eval_run("r1").params["image"]["text_only"] is False


def test_text_only_mode_sends_no_image(bench, tmp_path):
    store = StudyStore(tmp_path / "s.db")
    with FakeOpenAI() as server:
        engine = OpenAIEngine("qwen", [server.base_url], "not-needed")
        record = run_record("t", engine, "qwen", ImageOptions(text_only=True), str(bench))
        run_evaluation(load_benchmark(bench).items[:2], store, record, engine, ImageOptions(True))
        parts = server.requests[0]["body"]["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text"]


def test_two_base_urls_share_the_items(bench, tmp_path):
    store = StudyStore(tmp_path / "s.db")
    with FakeOpenAI(latency_s=0.05) as one, FakeOpenAI(latency_s=0.05) as two:
        engine = OpenAIEngine("m", [one.base_url, two.base_url], "not-needed", concurrency=4)
        record = run_record("dp", engine, "m", ImageOptions(), str(bench))
        run_evaluation(load_benchmark(bench).items, store, record, engine)
        assert len(one.requests) > 0 and len(two.requests) > 0
        assert len(one.requests) + len(two.requests) == 12


@pytest.mark.slow
def test_killed_evaluate_resumes_without_asking_or_storing_an_item_twice(bench, tmp_path):
    db = tmp_path / "s.db"
    with FakeOpenAI(latency_s=0.15) as server:
        args = [sys.executable, "-m", "medrcube_desktop", "evaluate", "--dataset", str(bench)]
        args += ["--db", str(db), "--engine", "openai", "--model", "m", "--run", "r"]
        args += ["--base-url", server.base_url, "--concurrency", "2"]
        child = subprocess.Popen(
            args, cwd=ROOT, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 60
        stored = 0
        while time.monotonic() < deadline and stored < 4:
            time.sleep(0.1)
            if db.exists():
                try:
                    stored = (
                        sqlite3.connect(db)
                        .execute("SELECT COUNT(*) FROM eval_responses")
                        .fetchone()[0]
                    )
                except sqlite3.Error:
                    stored = 0
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        assert 4 <= stored < 12
        done_before = {
            r[0] for r in sqlite3.connect(db).execute("SELECT item_id FROM eval_responses")
        }
        asked_before = len(server.requests)
        assert main([*args[3:], "--json"]) == 0
        resumed = [r["user"] for r in server.requests[asked_before:]]
    for item_id in done_before:
        number = int(item_id[1:])
        assert not any(f"scan {number}?" in user for user in resumed)
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert raw.execute(
        "SELECT COUNT(*), COUNT(DISTINCT item_id) FROM eval_responses"
    ).fetchone() == (12, 12)


def test_cancel_stops_the_openai_engine(bench, tmp_path):
    store = StudyStore(tmp_path / "s.db")
    cancel = threading.Event()
    with FakeOpenAI(latency_s=0.2) as server:
        engine = OpenAIEngine("m", [server.base_url], "not-needed", concurrency=1)
        record = run_record("c", engine, "m", ImageOptions(), str(bench))
        state = run_evaluation(load_benchmark(bench).items, store, record, engine,
                               progress=lambda s: cancel.set(), cancel=cancel)  # fmt: skip
    assert state.cancelled and state.answered < 12


def test_a_dead_server_among_several_costs_no_answers(bench, tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    store = StudyStore(tmp_path / "s.db")
    with FakeOpenAI(latency_s=0.02) as alive:
        engine = OpenAIEngine("m", [dead, alive.base_url], "not-needed", concurrency=4,
                              max_attempts=1, backoff_base_s=0.01)  # fmt: skip
        record = run_record("dp", engine, "m", ImageOptions(), str(bench))
        state = run_evaluation(load_benchmark(bench).items, store, record, engine)
        assert len(alive.requests) == 12
    assert state.failed == [] and state.answered == 12


def test_every_server_dead_stops_the_run_naming_them(bench, tmp_path):
    import socket

    from medrcube_desktop.errors import EngineError

    urls = []
    for _ in range(2):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            urls.append(f"http://127.0.0.1:{s.getsockname()[1]}/v1")
    store = StudyStore(tmp_path / "s.db")
    engine = OpenAIEngine("m", urls, "not-needed", concurrency=2, backoff_base_s=0.01)
    record = run_record("dead", engine, "m", ImageOptions(text_only=True), str(bench))
    with pytest.raises(EngineError, match="nothing answers at .*127.0.0.1.*127.0.0.1"):
        run_evaluation(load_benchmark(bench).items, store, record, engine, ImageOptions(True))


def _silent_server():
    """A server that accepts connections and never answers; returns (url, socket)."""
    import socket

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return f"http://127.0.0.1:{listener.getsockname()[1]}/v1", listener


def test_a_server_that_never_answers_is_set_aside_and_costs_no_answers(bench, tmp_path):
    silent, listener = _silent_server()
    store = StudyStore(tmp_path / "s.db")
    try:
        with FakeOpenAI(latency_s=0.02) as alive:
            engine = OpenAIEngine("m", [silent, alive.base_url], "not-needed", concurrency=2,
                                  timeout_s=0.5, max_attempts=1, backoff_base_s=5)  # fmt: skip
            record = run_record("hang", engine, "m", ImageOptions(text_only=True), str(bench))
            state = run_evaluation(
                load_benchmark(bench).items, store, record, engine, ImageOptions(True)
            )
    finally:
        listener.close()
    assert state.failed == [] and state.answered == 12


def test_a_server_sending_html_is_set_aside_and_named(bench, tmp_path):
    from tests.llm.fake_openai import Reply

    store = StudyStore(tmp_path / "s.db")
    page = Reply(body=b"<html>proxy login</html>", headers={"Content-Type": "text/html"})
    with FakeOpenAI({"scan": [page]}) as html, FakeOpenAI() as alive:
        engine = OpenAIEngine("m", [html.base_url, alive.base_url], "not-needed",
                              concurrency=2, max_attempts=1, backoff_base_s=5)  # fmt: skip
        record = run_record("html", engine, "m", ImageOptions(text_only=True), str(bench))
        state = run_evaluation(
            load_benchmark(bench).items, store, record, engine, ImageOptions(True)
        )
    assert state.failed == [] and state.answered == 12


def test_the_judge_and_the_engine_stop_with_the_same_message_on_a_refused_key(bench, tmp_path):
    from medrcube_desktop.errors import EngineError, JudgeError
    from medrcube_desktop.llm.judge import JudgeConfig, run_judge
    from tests.llm.fake_openai import status

    key = "sk-test-LEAK-0123456789abcdef"
    items = load_benchmark(bench).items[:2]
    refused = {"": [status(401, f"Incorrect API key provided: {key}")]}  # every request
    with FakeOpenAI(refused) as server:
        config = JudgeConfig(model="m", base_url=server.base_url, concurrency=1)
        with pytest.raises(JudgeError) as judged:
            run_judge(items, StudyStore(tmp_path / "j.db"), config, key)
        engine = OpenAIEngine("m", [server.base_url], key, concurrency=1)
        record = run_record("r", engine, "m", ImageOptions(text_only=True), str(bench))
        with pytest.raises(EngineError) as evaluated:
            run_evaluation(items, StudyStore(tmp_path / "e.db"), record, engine, ImageOptions(True))
    assert str(judged.value) == str(evaluated.value)
    assert "refused the API key (401)" in str(judged.value) and key not in str(judged.value)
