"""The ``vllm`` and ``hf`` engines: a model in child processes of the app (see
:class:`~medrcube_desktop.evaluation.engines.worker_engine.WorkerEngine` for the process
handling they share)."""

from __future__ import annotations

import sys

from medrcube_desktop.evaluation.engines.base import CHUNK_SIZE, SamplingConfig
from medrcube_desktop.evaluation.engines.worker_engine import WorkerEngine


class VLLMEngine(WorkerEngine):
    """vLLM's offline engine in child processes.

    Parameters
    ----------
    model, revision : str
        Hugging Face model id or local folder; revision ('' for the default).
    sampling : SamplingConfig
        Passed whole to ``SamplingParams`` (temperature, top_p, max_tokens, seed).
    max_model_len : int or None
        Context length; None takes the model's own (its config).
    max_images : int
        Per-prompt image limit (``limit_mm_per_prompt``).
    max_pixels : int or None
        Image pixel budget of a Qwen2-VL-style processor (``mm_processor_kwargs``
        ``size.longest_edge``, a pixel count for these processors).
    tensor_parallel_size, pipeline_parallel_size, data_parallel_size : int
        GPUs per model, and models (one child each).
    gpu_memory_utilization : float or None
        Fraction of GPU memory vLLM may take (vLLM's default 0.92 when None). On a
        machine without a GPU vLLM reads it as the fraction of RAM for the KV cache.
    kv_cache_memory_bytes : int or None
        KV cache size in bytes, instead of the fraction (vLLM ``kv_cache_memory_bytes``).
    chunk_size : int
        Requests per ``LLM.chat`` call: answers are saved after each chunk.
    enforce_eager : bool
        No CUDA graphs or torch.compile (vLLM ``enforce_eager``): starts in a third of
        the time, runs slower; for short runs and tests.
    python : str
        Interpreter of the child (the one with vLLM installed).
    """

    name = "vllm"
    backend = "vllm"
    missing_hint = (
        "pip install -e '.[vllm]' on a machine with an NVIDIA GPU, packaging/install_vllm_cpu.sh "
        "on a CPU-only one, or use --engine openai / vllm-server --base-url"
    )

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig | None = None,
        revision: str = "",
        max_model_len: int | None = None,
        max_images: int = 1,
        max_pixels: int | None = None,
        tensor_parallel_size: int = 1,
        pipeline_parallel_size: int = 1,
        data_parallel_size: int = 1,
        gpu_memory_utilization: float | None = None,
        kv_cache_memory_bytes: int | None = None,
        chunk_size: int = CHUNK_SIZE,
        trust_remote_code: bool = False,
        enforce_eager: bool = False,
        python: str = sys.executable,
        startup_timeout_s: float = 1800.0,
    ) -> None:
        super().__init__(model, sampling, revision, data_parallel_size,
                         tensor_parallel_size * pipeline_parallel_size, chunk_size, python,
                         startup_timeout_s)  # fmt: skip
        self.max_model_len, self.max_images, self.max_pixels = max_model_len, max_images, max_pixels
        self.tensor_parallel_size = max(1, tensor_parallel_size)
        self.pipeline_parallel_size = max(1, pipeline_parallel_size)
        self.gpu_memory_utilization = gpu_memory_utilization
        self.kv_cache_memory_bytes = kv_cache_memory_bytes
        self.trust_remote_code, self.enforce_eager = trust_remote_code, enforce_eager

    def engine_args(self) -> dict[str, object]:
        """Keyword arguments of ``vllm.LLM``: only what is set (vLLM's names)."""
        args: dict[str, object] = {
            "model": self.model,
            "limit_mm_per_prompt": {"image": self.max_images},
            "tensor_parallel_size": self.tensor_parallel_size,
            "pipeline_parallel_size": self.pipeline_parallel_size,
            "seed": self.sampling.seed,
            "trust_remote_code": self.trust_remote_code,
            # vLLM's own defaults, not the checkpoint's generation_config.json (which
            # vLLM loads by default); every value that matters is in SamplingParams.
            "generation_config": "vllm",
        }
        optional = {
            "revision": self.revision or None,
            "max_model_len": self.max_model_len,
            "gpu_memory_utilization": self.gpu_memory_utilization,
            "kv_cache_memory_bytes": self.kv_cache_memory_bytes,
            "mm_processor_kwargs": pixel_budget_kwargs(self.max_pixels),
            "enforce_eager": self.enforce_eager,
        }
        args.update({key: value for key, value in optional.items() if value})
        return args

    def describe(self) -> dict[str, object]:
        return described(self)


MIN_PIXELS = 56 * 56
"""Qwen2-VL's default ``min_pixels`` (3,136), sent with a pixel budget: the processor
needs both bounds."""


def pixel_budget_kwargs(max_pixels: int | None) -> dict[str, object] | None:
    """Processor keyword arguments for a pixel budget, or None.

    Qwen2-VL-style processors in transformers 5 take ``size={"longest_edge": N,
    "shortest_edge": M}``, both pixel counts (``smart_resize(min_pixels=shortest_edge,
    max_pixels=longest_edge)`` in transformers 5.19; ``max_pixels`` itself is deprecated
    and goes in 5.23, and a ``size`` without both keys is refused).
    """
    if not max_pixels:
        return None
    return {"size": {"longest_edge": int(max_pixels),
                     "shortest_edge": min(MIN_PIXELS, int(max_pixels))}}  # fmt: skip


class HFEngine(WorkerEngine):
    """transformers ``generate`` in child processes (paper D.3: models vLLM lacks).

    Parameters as :class:`VLLMEngine` where they apply; ``device`` ("auto": CUDA when
    present, else CPU) and ``dtype`` ("auto": the checkpoint's) choose where and how the
    weights load. Requests are answered one at a time.
    """

    name = "hf"
    backend = "hf"
    missing_hint = "pip install transformers torch (or use the vllm or openai engines)"

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig | None = None,
        revision: str = "",
        max_pixels: int | None = None,
        data_parallel_size: int = 1,
        device: str = "auto",
        dtype: str = "auto",
        trust_remote_code: bool = False,
        python: str = sys.executable,
        startup_timeout_s: float = 1800.0,
    ) -> None:
        super().__init__(model, sampling, revision, data_parallel_size, 1, 1, python,
                         startup_timeout_s)  # fmt: skip
        self.max_pixels, self.device, self.dtype = max_pixels, device, dtype
        self.trust_remote_code = trust_remote_code

    def engine_args(self) -> dict[str, object]:
        return {
            "model": self.model,
            "revision": self.revision,
            "trust_remote_code": self.trust_remote_code,
            "device": self.device,
            "dtype": self.dtype,
            "processor_kwargs": pixel_budget_kwargs(self.max_pixels) or {},
        }

    def describe(self) -> dict[str, object]:
        return described(self)


def described(engine: WorkerEngine) -> dict[str, object]:
    """``describe()`` of a child-process engine: the options it records as given
    (:func:`~medrcube_desktop.evaluation.engine_options.recorded`), what it makes of the
    others and fixes itself (the keys of its ``engine_args`` among
    :func:`~medrcube_desktop.evaluation.engine_options.made_records`: a pixel budget as
    the processor's arguments, ``trust_remote_code``…) and any extra decoding parameter."""
    from medrcube_desktop.evaluation.engine_options import made_records, recorded

    made = made_records()
    args = {key: value for key, value in engine.engine_args().items() if key in made}
    return {**args, **recorded(engine), **engine.sampling.extra}
