"""The vllm, vllm-server and hf engines' process handling, fast, against test doubles
of vLLM (tests/evaluation/fake_vllm) that behave like the real one where it bit us:
logs on stdout, an EngineCore child in the same process group, the root cause of a
failed start far above the wrap-up line. The real vLLM and transformers run the same
engines in tests/real/."""

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.child import ModelProcess, group_alive, root_cause
from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine
from medrcube_desktop.evaluation.engines.vllm_engine import VLLMServerEngine, server_version
from medrcube_desktop.evaluation.engines.worker_engine import gpu_shares
from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record
from medrcube_desktop.store import StudyStore

ROOT = Path(__file__).resolve().parents[3]
FAKE_VLLM = Path(__file__).resolve().parents[1] / "fake_vllm"


@pytest.fixture
def fake_vllm(tmp_path, monkeypatch):
    """The test double first on the children's path; returns (record file, pids file)."""
    record, pids = tmp_path / "vllm.jsonl", tmp_path / "pids.txt"
    monkeypatch.setenv("PYTHONPATH", f"{FAKE_VLLM}{os.pathsep}{ROOT}")
    monkeypatch.setenv("FAKE_VLLM_RECORD", str(record))
    monkeypatch.setenv("FAKE_VLLM_PIDS", str(pids))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the children's log files
    monkeypatch.setenv("MEDRCUBE_IMAGE_CACHE", str(tmp_path / "cache"))
    return record, pids


def calls(record: Path, kind: str) -> list[dict]:
    return [c for c in map(json.loads, record.read_text().splitlines()) if c["kind"] == kind]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is dead
        return f.read().split(") ")[1][0] != "Z"


def engine_cores(pids: Path) -> list[int]:
    return [int(line) for line in pids.read_text().split()] if pids.exists() else []


def test_vllm_offline_engine_answers_on_its_own_channel_while_vllm_logs_on_stdout(
    bench, tmp_path, fake_vllm
):
    record_file, pids = fake_vllm
    store = StudyStore(tmp_path / "s.db")
    engine = VLLMEngine("Qwen/Qwen2.5-VL-7B-Instruct", max_pixels=401408,
                        tensor_parallel_size=2, chunk_size=5,
                        kv_cache_memory_bytes=2 << 30)  # fmt: skip
    record = run_record("v", engine, "Qwen/Qwen2.5-VL-7B-Instruct", ImageOptions(), str(bench))
    seen = []
    state = run_evaluation(load_benchmark(bench).items, store, record, engine,
                           progress=lambda p: seen.append(p.detail.answered))  # fmt: skip
    assert state.answered == 12 and seen == list(range(1, 13))  # stored one by one
    assert all(r.parsed_answer == "B" and r.correct for r in store.responses("v").values())
    engine_args = calls(record_file, "engine")[0]
    assert "max_model_len" not in engine_args  # the model's own context length
    assert "gpu_memory_utilization" not in engine_args  # vLLM's default unless given
    assert engine_args["kv_cache_memory_bytes"] == 2 << 30
    assert engine_args["tensor_parallel_size"] == 2
    assert engine_args["limit_mm_per_prompt"] == {"image": 1}
    assert engine_args["mm_processor_kwargs"] == {
        "size": {"longest_edge": 401408, "shortest_edge": 3136}
    }
    assert engine_args["generation_config"] == "vllm"  # not the checkpoint's defaults
    sampling = calls(record_file, "sampling")[0]
    assert (sampling["temperature"], sampling["top_p"], sampling["max_tokens"]) == (
        0.0,
        0.0001,
        8192,
    )
    chats = calls(record_file, "chat")
    assert {tuple(c["parts"]) for c in chats} == {("image_url", "text")}
    assert all(c["urls"][0].startswith("data:image/png;base64,") for c in chats)
    assert store.eval_run("v").library_versions["vllm"] == "0.0-test-double"
    assert engine_cores(pids) and not any(alive(p) for p in engine_cores(pids))


def test_max_model_len_and_memory_fraction_are_passed_when_given(bench, tmp_path, fake_vllm):
    record_file, _ = fake_vllm
    engine = VLLMEngine("m", max_model_len=4096, gpu_memory_utilization=0.3)
    record = run_record("v", engine, "m", ImageOptions(text_only=True), str(bench))
    store = StudyStore(tmp_path / "s.db")
    run_evaluation(load_benchmark(bench).items[:1], store, record, engine, ImageOptions(True))
    engine_args = calls(record_file, "engine")[0]
    assert (engine_args["max_model_len"], engine_args["gpu_memory_utilization"]) == (4096, 0.3)


def test_a_crashing_vllm_child_keeps_what_was_stored_and_leaves_no_process(
    bench, tmp_path, fake_vllm, monkeypatch
):
    _, pids = fake_vllm
    monkeypatch.setenv("FAKE_VLLM_CRASH_AFTER", "5")
    store = StudyStore(tmp_path / "s.db")
    engine = VLLMEngine("m", chunk_size=1)
    record = run_record("crash", engine, "m", ImageOptions(), str(bench))
    with pytest.raises(EngineError, match="illegal memory access") as caught:
        run_evaluation(load_benchmark(bench).items, store, record, engine)
    assert "exit status 3" in str(caught.value) and "whole log:" in str(caught.value)
    assert len(store.responses("crash")) == 5
    assert not any(alive(p) for p in engine_cores(pids))


def test_cancel_while_the_model_loads_stops_every_process_of_the_engine(
    bench, tmp_path, fake_vllm, monkeypatch
):
    _, pids = fake_vllm
    monkeypatch.setenv("FAKE_VLLM_SLOW_START", "60")
    engine = VLLMEngine("m")
    record = run_record("c", engine, "m", ImageOptions(), str(bench))
    cancel = threading.Event()

    def evaluate() -> None:  # a store belongs to the thread that opened it
        store = StudyStore(tmp_path / "s.db")
        run_evaluation(load_benchmark(bench).items, store, record, engine, None, None, cancel)

    worker = threading.Thread(target=evaluate)
    worker.start()
    deadline = time.monotonic() + 30
    while not engine_cores(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    group = engine.processes[0].pid
    assert group_alive(group)
    cancel.set()
    worker.join(30)
    assert not worker.is_alive()
    assert not group_alive(group) and not any(alive(p) for p in engine_cores(pids))


def test_vllm_not_installed_says_how_to_install_and_leaves_no_empty_run(
    bench, tmp_path, monkeypatch
):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # no vllm anywhere on the path
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    store = StudyStore(tmp_path / "s.db")
    engine = VLLMEngine("m")
    record = run_record("novllm", engine, "m", ImageOptions(), str(bench))
    with pytest.raises(EngineError, match="vllm is not installed.*install_vllm_cpu.sh"):
        run_evaluation(load_benchmark(bench).items[:1], store, record, engine)
    assert store.eval_run("novllm") is None  # retrying with other settings is not refused


def test_vllm_server_runs_from_the_apps_interpreter_records_its_version_and_stops_its_group(
    bench, tmp_path, fake_vllm
):
    record_file, pids = fake_vllm
    store = StudyStore(tmp_path / "s.db")
    engine = VLLMServerEngine("Qwen/Qwen2.5-VL-7B-Instruct", startup_timeout_s=30,
                              kv_cache_memory_bytes=1 << 30, data_parallel_size=2)  # fmt: skip
    record = run_record("s", engine, "Qwen/Qwen2.5-VL-7B-Instruct", ImageOptions(), str(bench))
    state = run_evaluation(load_benchmark(bench).items[:3], store, record, engine)
    assert state.answered == 3
    argv = calls(record_file, "serve")[0]["argv"]
    assert argv[argv.index("--model") + 1] == "Qwen/Qwen2.5-VL-7B-Instruct"
    assert argv[argv.index("--kv-cache-memory-bytes") + 1] == str(1 << 30)
    assert argv[argv.index("--data-parallel-size") + 1] == "2"
    assert argv[argv.index("--generation-config") + 1] == "vllm"
    assert "--max-model-len" not in argv and "--gpu-memory-utilization" not in argv
    assert store.eval_run("s").library_versions["vllm_server"] == "0.0-test-double"
    assert engine.process is not None and engine.process.poll() is not None  # stopped
    assert engine_cores(pids) and not any(alive(p) for p in engine_cores(pids))


def test_a_server_that_fails_to_start_shows_the_root_cause_not_only_the_last_lines(
    bench, tmp_path, fake_vllm, monkeypatch
):
    monkeypatch.setenv("FAKE_VLLM_SERVE_FAIL", "1")
    engine = VLLMServerEngine("m", startup_timeout_s=30)
    with pytest.raises(EngineError) as caught:
        engine.start()
    message = str(caught.value)
    cause = message.split("root cause:")[1].split("last lines")[0]
    assert "ValueError: not enough KV cache memory for the model" in cause
    assert "See root cause above" not in cause
    assert "hint: on a machine without a GPU" in message


def test_root_cause_of_a_real_vllm_failure_log():
    # the shape of vLLM 0.32's log when the KV cache does not fit (abridged)
    log = [
        "INFO 12-01 08:00:01 [core.py:93] Initializing a V1 LLM engine (v0.32.0)",
        "(EngineCore_DP0 pid=4242) ERROR 12-01 08:00:09 [core.py:700] EngineCore failed to start.",
        "(EngineCore_DP0 pid=4242) Traceback (most recent call last):",
        '(EngineCore_DP0 pid=4242)   File "vllm/v1/core/kv_cache_utils.py", line 700',
        "(EngineCore_DP0 pid=4242) ValueError: To serve at least one request with the "
        "models's max seq len (16384), (0.38 GiB KV cache is needed, which is larger than "
        "the available KV cache memory (0.12 GiB).",
        "Traceback (most recent call last):",
        "RuntimeError: Engine core initialization failed. See root cause above. Failed "
        "core proc(s): {'EngineCore_DP0': 1}",
    ]
    cause = root_cause(log)
    assert len(cause) == 1 and "ValueError: To serve at least one request" in cause[0]


def test_an_attached_server_reports_its_version(tmp_path):
    from tests.llm.fake_openai import FakeOpenAI

    with FakeOpenAI(version="0.32.0") as server:
        assert server_version(server.base_url) == "0.32.0"
    with FakeOpenAI() as server:  # not vLLM: no /version
        assert server_version(server.base_url) == ""


def test_gpu_shares_for_data_parallel_ranks():
    assert gpu_shares(1, 4, None) == [None]
    assert gpu_shares(2, 2, None) == ["0,1", "2,3"]
    assert gpu_shares(2, 1, "4,6,7") == ["4", "6"]
    with pytest.raises(EngineError, match="needs 4 GPUs"):
        gpu_shares(2, 2, "0,1")


def test_a_stopped_child_takes_its_whole_process_group(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    script = (
        "import subprocess, sys, time\n"
        "c = subprocess.Popen([sys.executable, '-c', 'import signal, time; "
        "signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)'])\n"
        "print(c.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    process = ModelProcess([os.sys.executable, "-c", script], "test")
    deadline = time.monotonic() + 20
    while not process.lines(0) and time.monotonic() < deadline:
        time.sleep(0.05)
    grandchild = int(process.lines(0)[0])
    process.stop(grace_s=1.0)  # the grandchild ignores SIGTERM: SIGKILL after 1 s
    time.sleep(0.2)
    assert not alive(grandchild) and not group_alive(process.pid)
    assert process.log_path is not None and process.log_path.read_text().strip() == str(grandchild)
    assert signal.SIGTERM  # (POSIX only: the project's CI is Linux)


def test_a_killed_app_takes_its_vllm_child_and_engine_core_with_it(bench, tmp_path, fake_vllm):
    import subprocess
    import sys

    _, pids = fake_vllm
    script = (
        "import sys\n"
        "from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine\n"
        "import threading\n"
        "VLLMEngine('m').run(iter([]), print, threading.Event())\n"
    )
    env = {**os.environ, "FAKE_VLLM_SLOW_START": "120"}
    app = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=ROOT)
    deadline = time.monotonic() + 30
    while not engine_cores(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert engine_cores(pids), "the fake EngineCore never started"
    app.kill()  # SIGKILL: the app stops nothing itself
    app.wait(10)
    deadline = time.monotonic() + 20
    while any(alive(p) for p in engine_cores(pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(p) for p in engine_cores(pids))


def test_root_cause_keeps_the_indented_reason_pydantic_gives():
    log = [
        "Traceback (most recent call last):",
        '  File "vllm/config/model.py", line 1, in __post_init__',
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig",
        "  Value error, User-specified max_model_len (16384) is greater than the derived "
        "max_model_len (max_position_embeddings=4096.0 or model_max_length=None in model's "
        "config.json).",
        "    For further information visit https://errors.pydantic.dev/2.14/v/value_error",
        "INFO 12-01 09:00:00 next log line",
    ]
    (cause,) = root_cause(log)
    assert cause.startswith("pydantic_core._pydantic_core.ValidationError: 1 validation error")
    assert "User-specified max_model_len (16384) is greater" in cause
    assert "next log line" not in cause


def test_root_cause_behind_vllms_worker_prefix_and_log_header():
    # vLLM 0.32 on a CPU without --kv-cache-memory-bytes (abridged from a real log)
    log = [
        "(VllmWorker-0 pid=14614) ERROR 12-01 09:37:14 [multiproc_executor.py:953]     raise "
        "ValueError(",
        "(VllmWorker-0 pid=14614) ERROR 12-01 09:37:14 [multiproc_executor.py:953] ValueError: "
        "Available memory on node 0 (10.47/14.09 GiB) on startup is less than desired CPU "
        "memory utilization (0.92, 12.96 GiB). On the CPU backend, the "
        "`--gpu-memory-utilization` flag controls the fraction of CPU memory reserved",
        "(EngineCore pid=14542) ERROR 12-01 09:37:16 [core.py:1510] Exception: WorkerProc "
        "initialization failed due to an exception in a background process. See stack trace "
        "for root cause.",
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core "
        "proc(s): {}",
    ]
    (cause,) = root_cause(log)
    assert "ValueError: Available memory on node 0" in cause


def test_a_killed_engine_core_stops_the_run_instead_of_hanging(
    bench, tmp_path, fake_vllm, monkeypatch
):
    _, pids = fake_vllm
    monkeypatch.setenv("FAKE_VLLM_CHAT_DELAY", "0.5")
    store = StudyStore(tmp_path / "s.db")
    engine = VLLMEngine("m", chunk_size=1)
    record = run_record("core", engine, "m", ImageOptions(text_only=True), str(bench))
    killed = []

    def progress(record) -> None:
        if record.detail.answered == 2 and not killed:
            killed.append(engine_cores(pids)[0])
            os.kill(killed[0], signal.SIGKILL)  # as the OOM killer would

    with pytest.raises(EngineError, match="lost a process of its engine"):
        run_evaluation(load_benchmark(bench).items, store, record, engine,
                       ImageOptions(True), progress)  # fmt: skip
    assert 2 <= len(store.responses("core")) < 12


def test_a_child_that_stops_on_a_dead_engine_core_says_it_lost_its_engine(
    bench, tmp_path, fake_vllm, monkeypatch
):
    # the EngineCore dies between two requests: vLLM's next chat raises EngineDeadError
    # and the child exits 1 before the parent's 2 s check of the engine's processes
    _, pids = fake_vllm
    monkeypatch.setenv("FAKE_VLLM_CHAT_DELAY", "0.2")  # work left when it dies
    store = StudyStore(tmp_path / "s.db")
    engine = VLLMEngine("m", chunk_size=1)
    record = run_record("dead", engine, "m", ImageOptions(text_only=True), str(bench))
    killed = []

    def progress(record) -> None:
        if record.detail.answered == 2 and not killed:
            killed.append(engine_cores(pids)[0])
            os.kill(killed[0], signal.SIGKILL)
            while alive(killed[0]):
                time.sleep(0.01)

    with pytest.raises(EngineError, match="lost a process of its engine") as failed:
        run_evaluation(load_benchmark(bench).items, store, record, engine,
                       ImageOptions(True), progress)  # fmt: skip
    assert "EngineDeadError" in str(failed.value)  # the root cause from the child's log


@pytest.mark.parametrize("attempts", [1, 4])
def test_vllm_server_honours_max_attempts_for_server_errors_and_empty_replies(
    bench, tmp_path, attempts
):
    from medrcube_desktop.evaluation.engines.factory import EngineOptions, build_engine
    from tests.llm.fake_openai import FakeOpenAI, Reply, status

    script = {"scan 0?": [status(500, "engine died")], "scan 1?": [Reply(content=None)]}
    store = StudyStore(tmp_path / "s.db")
    with FakeOpenAI(script) as server:  # attached, as --engine vllm-server --base-url does
        engine = build_engine(EngineOptions(engine="vllm-server", model="m", concurrency=2,
                                            base_urls=[server.base_url], max_attempts=attempts))  # fmt: skip
        record = run_record("a", engine, "m", ImageOptions(text_only=True), str(bench))
        items = load_benchmark(bench).items[:3]
        state = run_evaluation(items, store, record, engine, ImageOptions(True))
        assert server.per_key["scan 0?"] == attempts  # HTTP requests, the SDK's retries
        assert server.per_key["scan 1?"] == attempts  # replies asked, by the client's loop
    failed = {f["item"]: f["error"] for f in state.failed}
    assert sorted(failed) == ["q00", "q01"] and state.answered == 1
    assert "HTTP 500" in failed["q00"] and "holds no answer" in failed["q01"]
    assert engine.describe()["max_attempts"] == attempts
