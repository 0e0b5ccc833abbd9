"""The ``vllm`` engine (offline ``LLM.chat`` in a child process) and the
``vllm-server`` engine (``vllm serve`` as a child, or a running server by URL).

The model never loads in the app's process: a CUDA crash or out-of-memory ends the
child, and the error carries the tail of its log.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterable

from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import (
    EvalRequest,
    EvalResponse,
    OnResponse,
    SamplingConfig,
)
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine

LOG_TAIL_LINES = 40


class _LogTail:
    """Keeps the last lines a child wrote to a stream (read on a thread)."""

    def __init__(self, stream) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=LOG_TAIL_LINES)
        self.thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self.thread.start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.append(line.rstrip())

    def text(self) -> str:
        """The lines kept. Called when the child has failed: waits (at most 5 s) for the
        reader to reach the end of its output, so the last lines, the error, are in."""
        self.thread.join(5)
        return "\n".join(self.lines)


def _parallel_args(tensor: int, pipeline: int) -> dict[str, int]:
    return {"tensor_parallel_size": max(1, tensor), "pipeline_parallel_size": max(1, pipeline)}


class VLLMEngine:
    """vLLM's offline engine in a child process (:mod:`.vllm_worker`).

    Parameters
    ----------
    model, revision : str
        Hugging Face model id or local folder; revision ('' for the default).
    sampling : SamplingConfig
        Passed whole to ``SamplingParams`` (temperature, top_p, max_tokens, seed).
    max_model_len : int
        Context length, set explicitly.
    max_images : int
        Per-prompt image limit (``limit_mm_per_prompt``).
    max_pixels : int or None
        Image pixel budget for the processor (``mm_processor_kwargs``), when set.
    tensor_parallel_size, pipeline_parallel_size : int
        GPUs per model (multi-GPU).
    chunk_size : int
        Requests per ``LLM.chat`` call: answers are saved after each chunk.
    python : str
        Interpreter of the child (the one with vLLM installed).
    """

    name = "vllm"

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig | None = None,
        revision: str = "",
        max_model_len: int = 16384,
        max_images: int = 1,
        max_pixels: int | None = None,
        tensor_parallel_size: int = 1,
        pipeline_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.9,
        chunk_size: int = 32,
        trust_remote_code: bool = False,
        python: str = sys.executable,
        startup_timeout_s: float = 1800.0,
    ) -> None:
        self.model, self.revision = model, revision
        self.sampling = sampling or SamplingConfig()
        self.max_model_len, self.max_images, self.max_pixels = max_model_len, max_images, max_pixels
        self.parallel = _parallel_args(tensor_parallel_size, pipeline_parallel_size)
        self.gpu_memory_utilization = gpu_memory_utilization
        self.chunk_size, self.trust_remote_code = chunk_size, trust_remote_code
        self.python, self.startup_timeout_s = python, startup_timeout_s
        self.process: subprocess.Popen | None = None
        self._versions: dict[str, str] = {}
        self._gpu = ""

    def config(self) -> dict[str, object]:
        """The child's configuration line."""
        s = self.sampling
        return {
            "model": self.model,
            "revision": self.revision,
            "max_model_len": self.max_model_len,
            "limit_mm_per_prompt": {"image": self.max_images},
            "mm_processor_kwargs": {"max_pixels": self.max_pixels} if self.max_pixels else {},
            **self.parallel,
            "gpu_memory_utilization": self.gpu_memory_utilization,
            "seed": s.seed,
            "trust_remote_code": self.trust_remote_code,
            "chunk_size": self.chunk_size,
            "sampling": {
                "temperature": s.temperature,
                "top_p": s.top_p,
                "max_tokens": s.max_tokens,
                "seed": s.seed,
                **s.extra,
            },
        }

    def describe(self) -> dict[str, object]:
        return {key: value for key, value in self.config().items() if key != "model"}

    def library_versions(self) -> dict[str, str]:
        return dict(self._versions)

    def gpu(self) -> str:
        return self._gpu

    def run(
        self, requests: Iterable[EvalRequest], on_response: OnResponse, cancel: threading.Event
    ) -> None:
        """Start the child, stream the requests, deliver answers as they come."""
        self.process = subprocess.Popen(
            [self.python, "-m", "medrcube_desktop.evaluation.engines.vllm_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        log = _LogTail(self.process.stderr)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(self.config()) + "\n")
        self.process.stdin.flush()
        ready = self._read_line(log)
        if ready is None or not ready.get("ready"):
            self.process.wait(30)
            if "No module named 'vllm'" in log.text():
                raise EngineError(
                    f"vLLM is not installed for {self.python}: pip install -e '.[vllm]' on a "
                    "machine with an NVIDIA GPU, or use --engine openai / vllm-server --base-url"
                )
            raise EngineError(f"vLLM did not start (model {self.model}):\n{log.text()}")
        self._versions = {"vllm": str(ready.get("vllm", ""))}
        self._gpu = str(ready.get("gpu", ""))
        writer = threading.Thread(target=self._feed, args=(requests, cancel), daemon=True)
        writer.start()
        while not cancel.is_set():
            answer = self._read_line(log)
            if answer is None:
                break
            on_response(
                EvalResponse(
                    item_id=answer["item_id"],
                    text=answer.get("text", ""),
                    prompt_tokens=answer.get("prompt_tokens"),
                    completion_tokens=answer.get("completion_tokens"),
                )
            )
        if cancel.is_set():
            self.close()
            return
        code = self.process.wait()
        if code != 0:
            raise EngineError(f"vLLM stopped with exit status {code}:\n{log.text()}")

    def _feed(self, requests: Iterable[EvalRequest], cancel: threading.Event) -> None:
        assert self.process is not None and self.process.stdin is not None
        stdin = self.process.stdin
        try:
            for request in requests:
                if cancel.is_set():
                    break
                image = base64.b64encode(request.image_png).decode() if request.image_png else None
                stdin.write(
                    json.dumps(
                        {"item_id": request.item_id, "prompt": request.prompt, "image_b64": image}
                    )
                    + "\n"
                )
                stdin.flush()
        except (BrokenPipeError, ValueError):
            return  # the child is gone; run() reports why
        finally:
            with contextlib.suppress(BrokenPipeError, OSError):  # the child may be gone
                stdin.close()

    def _read_line(self, log: _LogTail) -> dict | None:
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            return None
        try:
            return json.loads(line)
        except ValueError:
            raise EngineError(f"vLLM worker wrote {line[:200]!r}:\n{log.text()}") from None

    def close(self) -> None:
        """Stop the child (terminate, then kill after 10 s)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VLLMServerEngine:
    """``vllm serve`` started as a child (stopped with the run), or a running server.

    With ``base_url`` the engine attaches to a running OpenAI-compatible vLLM server;
    without, it starts ``vllm serve MODEL`` on a free local port, waits for ``/health``
    and shows the tail of the server's log if it fails. Requests then go through the
    :class:`OpenAIEngine`.
    """

    name = "vllm-server"

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig | None = None,
        base_url: str | None = None,
        revision: str = "",
        max_model_len: int = 16384,
        max_images: int = 1,
        tensor_parallel_size: int = 1,
        pipeline_parallel_size: int = 1,
        concurrency: int = 16,
        timeout_s: float = 600.0,
        startup_timeout_s: float = 1800.0,
        executable: str = "vllm",
    ) -> None:
        self.model, self.revision, self.base_url = model, revision, base_url
        self.sampling = sampling or SamplingConfig()
        self.max_model_len, self.max_images = max_model_len, max_images
        self.parallel = _parallel_args(tensor_parallel_size, pipeline_parallel_size)
        self.concurrency, self.timeout_s = concurrency, timeout_s
        self.startup_timeout_s, self.executable = startup_timeout_s, executable
        self.process: subprocess.Popen | None = None
        self.log: _LogTail | None = None

    def command(self, port: int) -> list[str]:
        """The ``vllm serve`` command line, every setting explicit."""
        args = [
            self.executable, "serve", self.model,
            "--host", "127.0.0.1", "--port", str(port),
            "--max-model-len", str(self.max_model_len),
            "--limit-mm-per-prompt", json.dumps({"image": self.max_images}),
            "--tensor-parallel-size", str(self.parallel["tensor_parallel_size"]),
            "--pipeline-parallel-size", str(self.parallel["pipeline_parallel_size"]),
            "--seed", str(self.sampling.seed),
            "--generation-config", "vllm",  # not the checkpoint's sampling defaults
        ]  # fmt: skip
        if self.revision:
            args += ["--revision", self.revision]
        return args

    def describe(self) -> dict[str, object]:
        return {
            "attached_to": self.base_url or "",
            "max_model_len": self.max_model_len,
            "limit_mm_per_prompt": {"image": self.max_images},
            **self.parallel,
            "concurrency": self.concurrency,
            "temperature": self.sampling.temperature,
            "top_p": self.sampling.top_p,
            "max_tokens": self.sampling.max_tokens,
            "seed": self.sampling.seed,
        }

    def library_versions(self) -> dict[str, str]:
        return {"openai": __import__("openai").__version__}

    def gpu(self) -> str:
        return ""

    def start(self) -> str:
        """Start the server (unless attached); return its ``/v1`` base URL.

        Raises
        ------
        EngineError
            ``vllm`` is not installed, the server exits, or ``/health`` does not answer
            within ``startup_timeout_s`` (the log tail is in the message).
        """
        if self.base_url:
            return self.base_url
        if shutil.which(self.executable) is None:
            raise EngineError(
                f"{self.executable!r} not found: install vLLM (pip install vllm) or attach "
                "to a running server with --base-url"
            )
        port = _free_port()
        self.process = subprocess.Popen(
            self.command(port),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "VLLM_CONFIGURE_LOGGING": "1"},
        )
        self.log = _LogTail(self.process.stdout)
        root = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise EngineError(
                    f"vllm serve exited with status {self.process.returncode}:\n{self.log.text()}"
                )
            try:
                with urllib.request.urlopen(f"{root}/health", timeout=2) as answer:
                    if answer.status == 200:
                        return f"{root}/v1"
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        self.close()
        raise EngineError(f"vllm serve did not become healthy in {self.startup_timeout_s:g} s")

    def run(
        self, requests: Iterable[EvalRequest], on_response: OnResponse, cancel: threading.Event
    ) -> None:
        """Start (or attach), then answer through the OpenAI-compatible API."""
        url = self.start()
        OpenAIEngine(
            self.model, [url], "not-needed", self.sampling, self.concurrency, self.timeout_s
        ).run(requests, on_response, cancel)

    def close(self) -> None:
        """Stop a server this engine started."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
