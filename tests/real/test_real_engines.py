"""The vllm, vllm-server and hf engines on the real vLLM (CPU build) and transformers,
end to end through the command line a user runs, on the demo benchmark, with a tiny
random-weight Qwen2-VL built here (tests/real/tiny_qwen2vl.py; nothing is downloaded).

vLLM keeps its default logging (to stdout) and multiprocessing (an EngineCore and a
Worker process), so what broke the engines before (issue 11) stays covered: the stdout
clash, orphaned processes, the memory flags, the context length from the model.

Run with the second command of README.md (``-m real``; ``packaging/install_vllm_cpu.sh``
installs vLLM first). Each vLLM start takes 15-30 s on two cores. On a GPU machine
``tests/real/gpu_check.sh`` runs the same tests with ``MEDRCUBE_REAL_GPU=1``: vLLM's
CUDA wheel, CUDA graphs and compilation on (no ``--enforce-eager``), a share of GPU
memory instead of a KV cache size, and the GPU's name in the run record.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.store import StudyStore
from tests.real.tiny_qwen2vl import build_tiny_qwen2vl

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parents[2]
ON_GPU = os.environ.get("MEDRCUBE_REAL_GPU") == "1"
VLLM_FLAGS = (
    ["--gpu-memory-utilization", "0.3"]
    if ON_GPU
    else ["--kv-cache-memory-bytes", "256M", "--enforce-eager"]
)
MARKER = "MEDRCUBE_REAL_TEST"


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return build_tiny_qwen2vl(tmp_path_factory.mktemp("model") / "tiny-qwen2-vl")


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "bench"
    subprocess.run([sys.executable, "-m", "medrcube_desktop", "demo", "build", str(out)],
                   check=True, cwd=ROOT, capture_output=True)  # fmt: skip
    return out


@pytest.fixture(scope="module")
def long_demo(demo, tmp_path_factory) -> Path:
    """The demo with every item asked four times (new ids, same images): 116 items, a
    run of several seconds, so a test acting in the middle of a run finds work left (the
    29 demo items take 0.6 s on two cores, shorter than a loaded machine's pause)."""
    out = tmp_path_factory.mktemp("long") / "bench"
    shutil.copytree(demo, out)
    for items_file in out.glob("*/test.json"):
        items = json.loads(items_file.read_text(encoding="utf-8"))
        again = [{**item, "id": f"{item['id']}-{k}"} for k in range(1, 4) for item in items]
        items_file.write_text(json.dumps(items + again), encoding="utf-8")
    return out


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    return {
        **os.environ,
        "XDG_STATE_HOME": str(tmp_path / "state"),  # the children's logs
        "MEDRCUBE_IMAGE_CACHE": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
        "VLLM_CACHE_ROOT": str(tmp_path / "vllm-cache"),
        MARKER: str(tmp_path),  # inherited by every process the run starts
    }


def command(demo: Path, db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "medrcube_desktop", "evaluate", "--dataset", str(demo),
            "--db", str(db), "--max-tokens", "8", *args]  # fmt: skip


def evaluate(demo: Path, db: Path, env: dict, *args: str) -> dict:
    done = subprocess.run(command(demo, db, *args, "--json"), cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout)


def model_processes(env: dict[str, str]) -> list[str]:
    """Command lines of every live process this test's runs started (they inherit its
    marker variable: vLLM's EngineCore and Worker, our worker, the server), zombies
    left out."""
    marker = f"{MARKER}={env[MARKER]}".encode()
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            environ = (proc / "environ").read_bytes().split(b"\0")
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if state != "Z" and marker in environ:
            found.append(f"{proc.name}: {cmdline[:200]}")
    return found


def wait_until_gone(env: dict[str, str], seconds: float = 60.0) -> list[str]:
    deadline = time.monotonic() + seconds
    while (left := model_processes(env)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


def stored(db: Path) -> int:
    try:
        with sqlite3.connect(db) as raw:
            return raw.execute("SELECT COUNT(*) FROM eval_responses").fetchone()[0]
    except sqlite3.Error:
        return 0


def _terminal_signals() -> None:
    """The child as a terminal starts it: Ctrl+C (SIGINT) not ignored, even when these
    tests run in a background job (a shell starts those with SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_until_stored(demo: Path, db: Path, env: dict, count: int, *args: str):
    """Start an evaluate run in the background; once it has stored ``count`` answers,
    stop it (SIGSTOP) and return it, stopped, with work left: the caller acts (kills a
    process, sends a signal) and then lets it go on with ``child.send_signal(SIGCONT)``,
    so the act always lands in the middle of the run, however fast or loaded the
    machine. The test fails with its stderr if the run ended first."""
    child = subprocess.Popen(command(demo, db, *args), cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             preexec_fn=_terminal_signals)  # fmt: skip
    deadline = time.monotonic() + 600
    while stored(db) < count and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    child.send_signal(signal.SIGSTOP)  # a signal to an ended child is a no-op
    if child.poll() is not None:
        pytest.fail(f"the run ended first: {child.communicate()[1][-4000:]}")
    assert stored(db) >= count, "no answers within 600 s"
    # what the model process had been given when the run stopped: its queue (two
    # requests at chunk size 1), one in hand, a few in the pipe; far fewer than 116
    assert stored(db) + 16 < len(load_benchmark(demo).items), "no work left to act in"
    return child


def check_run(db: Path, demo: Path, name: str) -> dict:
    """Every demo item answered once, with the image in the prompt; the run record."""
    items = load_benchmark(demo).items
    store = StudyStore(db)
    try:
        answers = store.responses(name)
        run = store.eval_run(name)
    finally:
        store.close()
    assert set(answers) == {item.id for item in items}
    assert all(a.image.get("sent") for a in answers.values())  # every item had its picture
    assert all((a.prompt_tokens or 0) > 60 for a in answers.values())  # text + image tokens
    assert run is not None
    return {"run": run, "answers": answers}


def test_vllm_offline_engine_answers_every_demo_item_and_leaves_no_process(
    model, demo, env, tmp_path
):
    db = tmp_path / "s.db"
    summary = evaluate(demo, db, env, "--engine", "vllm", "--model", str(model), "--run", "v",
                       "--chunk-size", "8", *VLLM_FLAGS)  # fmt: skip
    assert summary["n"] == len(load_benchmark(demo).items) and summary["failed"] == []
    run = check_run(db, demo, "v")["run"]
    assert run.library_versions["vllm"] == "0.32.0"
    assert run.library_versions["max_model_len"] == "4096"  # the model's own, not 16384
    if ON_GPU:
        assert run.gpu and run.params["gpu_memory_utilization"] == 0.3
    else:
        assert run.params["kv_cache_memory_bytes"] == 256 << 20
    assert wait_until_gone(env, 30) == []


def test_vllm_server_answers_every_demo_item_and_records_the_server_version(
    model, demo, env, tmp_path
):
    db = tmp_path / "s.db"
    summary = evaluate(demo, db, env, "--engine", "vllm-server", "--model", str(model),
                       "--run", "s", "--concurrency", "4", *VLLM_FLAGS)  # fmt: skip
    assert summary["n"] == len(load_benchmark(demo).items) and summary["failed"] == []
    run = check_run(db, demo, "s")["run"]
    assert run.library_versions["vllm_server"] == "0.32.0"
    assert wait_until_gone(env, 30) == []


def test_hf_engine_answers_every_demo_item_on_two_data_parallel_ranks(model, demo, env, tmp_path):
    db = tmp_path / "s.db"
    summary = evaluate(demo, db, env, "--engine", "hf", "--model", str(model), "--run", "h",
                       "--data-parallel-size", "2")  # fmt: skip
    assert summary["n"] == len(load_benchmark(demo).items) and summary["failed"] == []
    run = check_run(db, demo, "h")["run"]
    assert run.library_versions["transformers"] == "5.19.0"
    assert run.library_versions["max_model_len"] == "4096"
    assert wait_until_gone(env, 30) == []


def test_vllm_and_hf_give_the_same_greedy_answers(model, demo, env, tmp_path):
    # both engines see the same prompt and image through the same chat template: the
    # same prompt length, image tokens included, item by item; and decoding the same
    # random weights greedily gives the same text for most items (bfloat16 kernels of
    # vLLM's CPU backend and of torch differ in the last bits, which can flip a near-tie
    # between two random logits: one item in six did here)
    db = tmp_path / "s.db"
    evaluate(demo, db, env, "--engine", "vllm", "--model", str(model), "--run", "v",
             "--limit", "6", *VLLM_FLAGS)  # fmt: skip
    evaluate(demo, db, env, "--engine", "hf", "--model", str(model), "--run", "h",
             "--limit", "6")  # fmt: skip
    store = StudyStore(db)
    try:
        vllm_answers, hf_answers = store.responses("v"), store.responses("h")
    finally:
        store.close()
    assert len(vllm_answers) == len(hf_answers) == 6
    assert {k: a.prompt_tokens for k, a in vllm_answers.items()} == {
        k: a.prompt_tokens for k, a in hf_answers.items()
    }
    same = [k for k, a in vllm_answers.items() if a.response == hf_answers[k].response]
    assert len(same) >= 4, {
        k: (a.response, hf_answers[k].response) for k, a in vllm_answers.items()
    }


def test_ctrl_c_in_the_middle_stops_every_vllm_process_and_the_run_resumes(
    model, long_demo, env, tmp_path
):
    demo, db = long_demo, tmp_path / "s.db"
    child = start_until_stored(demo, db, env, 3, "--engine", "vllm", "--model", str(model),
                               "--run", "c", "--chunk-size", "1", *VLLM_FLAGS)  # fmt: skip
    assert any("VLLM::" in p for p in model_processes(env))  # vLLM's own processes run
    child.send_signal(signal.SIGINT)  # what Ctrl+C in a terminal does
    child.send_signal(signal.SIGCONT)  # the SIGINT waited; it is handled now
    assert child.wait(120) == 1
    assert wait_until_gone(env, 30) == []
    done_before = stored(db)
    assert 3 <= done_before < len(load_benchmark(demo).items)
    summary = evaluate(demo, db, env, "--engine", "vllm", "--model", str(model), "--run", "c",
                       *VLLM_FLAGS)  # fmt: skip
    assert summary["skipped"] == done_before and summary["failed"] == []
    check_run(db, demo, "c")
    assert wait_until_gone(env, 30) == []


def test_a_killed_app_takes_the_vllm_server_with_it(model, long_demo, env, tmp_path):
    demo, db = long_demo, tmp_path / "s.db"
    child = start_until_stored(demo, db, env, 2, "--engine", "vllm-server", "--model",
                               str(model), "--run", "k", "--concurrency", "1", *VLLM_FLAGS)  # fmt: skip
    assert any("VLLM::" in p for p in model_processes(env))
    child.kill()  # SIGKILL (a stopped process dies too): the app gets no chance to stop anything
    child.wait(10)
    assert wait_until_gone(env, 60) == []


def test_a_context_longer_than_the_model_shows_vllms_reason(model, demo, env, tmp_path):
    done = subprocess.run(
        command(demo, tmp_path / "s.db", "--engine", "vllm", "--model", str(model),
                "--max-model-len", "16384", *VLLM_FLAGS),
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 2
    cause = done.stderr.split("root cause:")[1].split("last lines of its log:")[0]
    assert "User-specified max_model_len (16384) is greater than the derived" in cause
    assert "whole log: " in done.stderr
    assert wait_until_gone(env, 30) == []


def test_a_killed_engine_core_ends_the_run_with_a_message(model, long_demo, env, tmp_path):
    demo, db = long_demo, tmp_path / "s.db"
    child = start_until_stored(demo, db, env, 2, "--engine", "vllm", "--model", str(model),
                               "--run", "k", "--chunk-size", "1", *VLLM_FLAGS)  # fmt: skip
    cores = [p for p in model_processes(env) if "VLLM::EngineCore" in p]
    assert cores
    os.kill(int(cores[0].split(":")[0]), signal.SIGKILL)  # as the OOM killer would
    child.send_signal(signal.SIGCONT)
    _, err = child.communicate(timeout=120)
    # a job that failed on the way exits 1 (2 is for input it could not start on)
    assert child.returncode == 1 and "lost a process of its engine" in err, err[-4000:]
    assert wait_until_gone(env, 30) == []
