"""Building an engine from plain options (shared by the CLI and the Evaluate pane)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import (
    CHUNK_SIZE,
    CONCURRENCY,
    MAX_ATTEMPTS,
    TIMEOUT_S,
    Engine,
    SamplingConfig,
)

ENGINES = ("vllm", "vllm-server", "openai", "hf")


@dataclass
class EngineOptions:
    """Everything that chooses and configures an engine.

    ``base_urls``: the openai engine's endpoints, or the vllm servers to attach to.
    ``max_model_len`` None: the model's own. ``gpu_memory_utilization`` None: vLLM's
    default (0.92); without a GPU vLLM reads it as a fraction of RAM, so give
    ``kv_cache_memory_bytes`` there. ``python``: the interpreter of the model's child
    process (None: the app's own).
    """

    engine: str
    model: str
    base_urls: list[str] = field(default_factory=list)
    concurrency: int = CONCURRENCY
    max_tokens: int = SamplingConfig.max_tokens
    temperature: float = SamplingConfig.temperature
    top_p: float = SamplingConfig.top_p
    seed: int = SamplingConfig.seed
    max_model_len: int | None = None
    max_pixels: int | None = None
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    data_parallel_size: int = 1
    gpu_memory_utilization: float | None = None
    kv_cache_memory_bytes: int | None = None
    python: str | None = None
    enforce_eager: bool = False
    revision: str = ""
    api_key_env: str | None = None
    timeout_s: float = TIMEOUT_S
    max_attempts: int = MAX_ATTEMPTS
    chunk_size: int = CHUNK_SIZE


def build_engine(options: EngineOptions) -> Engine:
    """The engine the options describe.

    Raises
    ------
    EngineError
        Unknown engine, or the openai engine without a base URL.
    JudgeError
        No API key for a remote endpoint.
    """
    sampling = SamplingConfig(options.temperature, options.top_p, options.max_tokens, options.seed)
    if options.engine == "openai":
        from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
        from medrcube_desktop.llm.keys import find_api_key

        if not options.base_urls:
            raise EngineError("the openai engine needs --base-url")
        key, _ = find_api_key(options.base_urls[0], options.api_key_env)
        return OpenAIEngine(
            options.model,
            options.base_urls,
            key,
            sampling,
            concurrency=options.concurrency,
            timeout_s=options.timeout_s,
            max_attempts=options.max_attempts,
        )
    python = options.python or sys.executable
    local = options.model.startswith(("/", "./", "../", "~"))
    if local and not Path(options.model).expanduser().is_dir() and not options.base_urls:
        raise EngineError(f"no model folder {options.model} (a local path; or give a model id)")
    vllm: dict[str, Any] = {  # what both vLLM engines take, under vLLM's own names
        "revision": options.revision,
        "max_model_len": options.max_model_len,
        "max_pixels": options.max_pixels,
        "tensor_parallel_size": options.tensor_parallel_size,
        "pipeline_parallel_size": options.pipeline_parallel_size,
        "data_parallel_size": options.data_parallel_size,
        "gpu_memory_utilization": options.gpu_memory_utilization,
        "kv_cache_memory_bytes": options.kv_cache_memory_bytes,
        "enforce_eager": options.enforce_eager,
        "python": python,
    }
    if options.engine == "vllm-server":
        from medrcube_desktop.evaluation.engines.vllm_engine import VLLMServerEngine

        return VLLMServerEngine(
            options.model,
            sampling,
            base_urls=options.base_urls,
            concurrency=options.concurrency,
            timeout_s=options.timeout_s,
            max_attempts=options.max_attempts,
            **vllm,
        )
    if options.engine == "vllm":
        from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine

        return VLLMEngine(options.model, sampling, chunk_size=options.chunk_size, **vllm)
    if options.engine == "hf":
        from medrcube_desktop.evaluation.engines.local_engines import HFEngine

        return HFEngine(
            options.model,
            sampling,
            revision=options.revision,
            max_pixels=options.max_pixels,
            data_parallel_size=options.data_parallel_size,
            python=python,
        )
    raise EngineError(f"unknown engine {options.engine!r} (engines: {', '.join(ENGINES)})")
