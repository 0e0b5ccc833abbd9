"""Building an engine from plain options (shared by the CLI and the Evaluate pane)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engine_options import (
    ENGINE,
    ENGINES,
    SAMPLING,
    defaults,
    engine_kwargs,
)
from medrcube_desktop.evaluation.engines.base import Engine, SamplingConfig

__all__ = ["ENGINES", "EngineOptions", "build_engine"]


class EngineOptions:
    """Everything that chooses and configures an engine: one attribute per row of
    :data:`~medrcube_desktop.evaluation.engine_options.ENGINE` (its default where not
    given); ``engine`` and ``model`` are required.

    ``base_urls``: the openai engine's endpoints, or the vllm servers to attach to.
    ``max_model_len`` None: the model's own. ``gpu_memory_utilization`` None: vLLM's
    default (0.92); without a GPU vLLM reads it as a fraction of RAM, so give
    ``kv_cache_memory_bytes`` there. ``python``: the interpreter of the model's child
    process (None: the app's own).

    Raises
    ------
    TypeError
        A name that is no row of the table, or ``engine`` or ``model`` missing.
    """

    def __init__(self, **values: Any) -> None:
        unknown = sorted(values.keys() - ENGINE.keys())
        if unknown:
            raise TypeError(f"EngineOptions: no engine option {', '.join(unknown)}")
        missing = [n for n, row in ENGINE.items() if row.required and n not in values]
        if missing:
            raise TypeError(f"EngineOptions: {', '.join(missing)} needed")
        self.values: dict[str, Any] = {**defaults(), **values}
        self.values["base_urls"] = list(self.values["base_urls"] or [])

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["values"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "values":
            object.__setattr__(self, name, value)
        elif name in ENGINE:
            self.values[name] = value
        else:
            raise AttributeError(f"EngineOptions: no engine option {name}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EngineOptions) and other.values == self.values

    def __repr__(self) -> str:
        return f"EngineOptions({', '.join(f'{k}={v!r}' for k, v in self.values.items())})"


def build_engine(options: EngineOptions, image_mode: str = "image") -> Engine:
    """The engine the options describe, for a run in ``image_mode``.

    A text-only run on ``vllm`` or ``vllm-server`` (one this app starts) sets vLLM's
    image limit to 0 (``limit_mm_per_prompt={"image": 0}``, vLLM's way to disable a
    modality: no memory for the vision encoder's inputs is reserved, and the child adds
    ``language_model_only=True`` where the installed vLLM has it, so the vision encoder
    is not loaded). The other engines send a text-only request as they did.

    Raises
    ------
    EngineError
        Unknown engine, or the openai engine without a base URL.
    JudgeError
        No API key for a remote endpoint.
    """
    sampling = SamplingConfig(**{name: options.values[name] for name in SAMPLING})
    kwargs = engine_kwargs(options.values, options.engine)  # the table's rows, by name
    if options.engine == "openai":
        from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
        from medrcube_desktop.llm.keys import find_api_key

        if not options.base_urls:
            raise EngineError("the openai engine needs --base-url")
        key, _ = find_api_key(options.base_urls[0], options.api_key_env)
        return OpenAIEngine(options.model, api_key=key, sampling=sampling, **kwargs)
    kwargs["python"] = options.python or sys.executable
    if image_mode == "text-only" and options.engine in ("vllm", "vllm-server"):
        kwargs["max_images"] = 0  # the language-model-only path
    local = options.model.startswith(("/", "./", "../", "~"))
    if local and not Path(options.model).expanduser().is_dir() and not options.base_urls:
        raise EngineError(f"no model folder {options.model} (a local path; or give a model id)")
    if options.engine == "vllm-server":
        from medrcube_desktop.evaluation.engines.vllm_engine import VLLMServerEngine

        return VLLMServerEngine(options.model, sampling, **kwargs)
    if options.engine == "vllm":
        from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine

        return VLLMEngine(options.model, sampling, **kwargs)
    if options.engine == "hf":
        from medrcube_desktop.evaluation.engines.local_engines import HFEngine

        return HFEngine(options.model, sampling, **kwargs)
    raise EngineError(f"unknown engine {options.engine!r} (engines: {', '.join(ENGINES)})")
