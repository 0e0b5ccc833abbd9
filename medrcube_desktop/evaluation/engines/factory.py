"""Building an engine from plain options (shared by the CLI and the Evaluate pane)."""

from __future__ import annotations

from dataclasses import dataclass, field

from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import Engine, SamplingConfig

ENGINES = ("vllm", "vllm-server", "openai")


@dataclass
class EngineOptions:
    """Everything that chooses and configures an engine.

    ``base_urls``: the openai engine's endpoints, or the vllm-server to attach to.
    """

    engine: str
    model: str
    base_urls: list[str] = field(default_factory=list)
    concurrency: int = 16
    max_tokens: int = 8192
    temperature: float = 0.0
    top_p: float = 0.0001
    seed: int = 0
    max_model_len: int = 16384
    max_pixels: int | None = None
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    revision: str = ""
    api_key_env: str | None = None
    timeout_s: float = 600.0
    max_attempts: int = 3
    chunk_size: int = 32


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
            options.concurrency,
            options.timeout_s,
            options.max_attempts,
        )
    if options.engine == "vllm-server":
        from medrcube_desktop.evaluation.engines.vllm_engine import VLLMServerEngine

        return VLLMServerEngine(
            options.model,
            sampling,
            base_url=options.base_urls[0] if options.base_urls else None,
            revision=options.revision,
            max_model_len=options.max_model_len,
            tensor_parallel_size=options.tensor_parallel_size,
            pipeline_parallel_size=options.pipeline_parallel_size,
            concurrency=options.concurrency,
            timeout_s=options.timeout_s,
        )
    if options.engine == "vllm":
        from medrcube_desktop.evaluation.engines.vllm_engine import VLLMEngine

        return VLLMEngine(
            options.model,
            sampling,
            revision=options.revision,
            max_model_len=options.max_model_len,
            max_pixels=options.max_pixels,
            tensor_parallel_size=options.tensor_parallel_size,
            pipeline_parallel_size=options.pipeline_parallel_size,
            chunk_size=options.chunk_size,
        )
    raise EngineError(f"unknown engine {options.engine!r} (engines: {', '.join(ENGINES)})")
