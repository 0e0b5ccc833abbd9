"""Engines end to end: openai against a local server (with kill and resume), vllm and
vllm-server through the same contract with test doubles of vLLM."""

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import SamplingConfig
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.evaluation.engines.vllm_engine import VLLMEngine, VLLMServerEngine
from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record, run_summary
from medrcube_desktop.store import ReviewStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI, text

ROOT = Path(__file__).resolve().parents[2]
FAKE_VLLM = Path(__file__).resolve().parent / "fake_vllm"


@pytest.fixture
def bench(tmp_path):
    records = [
        item(f"q{n:02d}", question=f"What is the imaging modality of scan {n}?") for n in range(12)
    ]
    return write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def test_openai_engine_sends_image_first_and_stores_parsed_answers(bench, tmp_path):
    items = load_benchmark(bench).items
    store = ReviewStore(tmp_path / "s.db")
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
    store = ReviewStore(tmp_path / "s.db")
    with FakeOpenAI() as server:
        engine = OpenAIEngine("qwen", [server.base_url], "not-needed")
        record = run_record("t", engine, "qwen", ImageOptions(text_only=True), str(bench))
        run_evaluation(load_benchmark(bench).items[:2], store, record, engine, ImageOptions(True))
        parts = server.requests[0]["body"]["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text"]


def test_two_base_urls_share_the_items(bench, tmp_path):
    store = ReviewStore(tmp_path / "s.db")
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


def test_vllm_offline_engine_through_its_child_process(bench, tmp_path, monkeypatch):
    record_file = tmp_path / "vllm.jsonl"
    monkeypatch.setenv("PYTHONPATH", f"{FAKE_VLLM}{os.pathsep}{ROOT}")
    monkeypatch.setenv("FAKE_VLLM_RECORD", str(record_file))
    store = ReviewStore(tmp_path / "s.db")
    engine = VLLMEngine("Qwen/Qwen2.5-VL-7B-Instruct", max_model_len=8192, max_pixels=401408,
                        tensor_parallel_size=2, chunk_size=5)  # fmt: skip
    record = run_record("v", engine, "Qwen/Qwen2.5-VL-7B-Instruct", ImageOptions(), str(bench))
    seen = []
    state = run_evaluation(load_benchmark(bench).items, store, record, engine,
                           progress=lambda s: seen.append(s.answered))  # fmt: skip
    assert state.answered == 12 and seen == list(range(1, 13))  # stored one by one
    assert all(r.parsed_answer == "B" and r.correct for r in store.responses("v").values())
    calls = [json.loads(line) for line in record_file.read_text().splitlines()]
    engine_args = next(c for c in calls if c["kind"] == "engine")
    assert engine_args["max_model_len"] == 8192 and engine_args["tensor_parallel_size"] == 2
    assert engine_args["limit_mm_per_prompt"] == {"image": 1}
    assert engine_args["mm_processor_kwargs"] == {"max_pixels": 401408}
    assert engine_args["generation_config"] == "vllm"  # not the checkpoint's defaults
    sampling = next(c for c in calls if c["kind"] == "sampling")
    assert (sampling["temperature"], sampling["top_p"], sampling["max_tokens"]) == (
        0.0,
        0.0001,
        8192,
    )
    assert {tuple(c["parts"]) for c in calls if c["kind"] == "chat"} == {("image_url", "text")}
    assert store.eval_run("v").library_versions["vllm"] == "0.0-test-double"


def test_a_crashing_vllm_child_is_an_engine_error_and_keeps_what_was_stored(
    bench, tmp_path, monkeypatch
):
    monkeypatch.setenv("PYTHONPATH", f"{FAKE_VLLM}{os.pathsep}{ROOT}")
    monkeypatch.setenv("FAKE_VLLM_CRASH_AFTER", "5")
    store = ReviewStore(tmp_path / "s.db")
    engine = VLLMEngine("m", chunk_size=1)
    record = run_record("crash", engine, "m", ImageOptions(), str(bench))
    with pytest.raises(EngineError, match="illegal memory access"):
        run_evaluation(load_benchmark(bench).items, store, record, engine)
    assert len(store.responses("crash")) == 5


def fake_vllm_command(tmp_path) -> Path:
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "vllm"
    script.write_text(f"#!{sys.executable}\nimport runpy, sys\nsys.argv[0] = 'vllm'\n"
                      f"runpy.run_path({str(Path(__file__).parent / 'fake_vllm_serve.py')!r}, run_name='__main__')\n")  # fmt: skip
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder


def test_vllm_server_engine_starts_serve_waits_for_health_and_stops_it(
    bench, tmp_path, monkeypatch
):
    monkeypatch.setenv("PATH", f"{fake_vllm_command(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    store = ReviewStore(tmp_path / "s.db")
    engine = VLLMServerEngine("Qwen/Qwen2.5-VL-7B-Instruct", startup_timeout_s=30)
    assert "--generation-config" in engine.command(8000)
    record = run_record("s", engine, "Qwen/Qwen2.5-VL-7B-Instruct", ImageOptions(), str(bench))
    state = run_evaluation(load_benchmark(bench).items[:3], store, record, engine)
    assert state.answered == 3
    assert engine.process is not None and engine.process.poll() is not None  # stopped


def test_vllm_server_that_fails_to_start_shows_its_log(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{fake_vllm_command(tmp_path)}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_VLLM_SERVE_FAIL", "1")
    engine = VLLMServerEngine("m", startup_timeout_s=30)
    with pytest.raises(EngineError, match="not enough GPU memory"):
        engine.start()


def test_cancel_stops_the_openai_engine(bench, tmp_path):
    store = ReviewStore(tmp_path / "s.db")
    cancel = threading.Event()
    with FakeOpenAI(latency_s=0.2) as server:
        engine = OpenAIEngine("m", [server.base_url], "not-needed", concurrency=1)
        record = run_record("c", engine, "m", ImageOptions(), str(bench))
        state = run_evaluation(load_benchmark(bench).items, store, record, engine,
                               progress=lambda s: cancel.set(), cancel=cancel)  # fmt: skip
    assert state.cancelled and state.answered < 12


def test_vllm_not_installed_says_how_to_install_and_leaves_no_empty_run(
    bench, tmp_path, monkeypatch
):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # no vllm anywhere on the path
    store = ReviewStore(tmp_path / "s.db")
    engine = VLLMEngine("m")
    record = run_record("novllm", engine, "m", ImageOptions(), str(bench))
    with pytest.raises(EngineError, match="not installed"):
        run_evaluation(load_benchmark(bench).items[:1], store, record, engine)
    assert store.eval_run("novllm") is None  # retrying with other settings is not refused
