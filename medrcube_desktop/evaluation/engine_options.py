"""The options of an evaluation engine, declared once (issue 22 item 2): each one's CLI
flag, the Evaluate pane's label, default, type, range, help and the engines it applies
to (:class:`EngineOption`, a :class:`~medrcube_desktop.core.options.Option` with
``engines``). The ``evaluate`` command's engine flags, :func:`.cli.evaluate.engine_options`,
:class:`.engines.factory.EngineOptions` (its attributes and defaults), the factory's
keyword arguments to each engine (:func:`engine_kwargs`), the Evaluate pane's engine
fields and ``docs/evaluate-options.md`` (:func:`engine_options_markdown`) are made from
:data:`ENGINE`; the keys each engine's ``describe()`` records (the run record, compared
on resume) are :func:`recorded_keys`. Adding an engine option is one row here plus its
use in the engine.

Light on purpose (no numpy, no engine module): the CLI builds its parser from it at
every start.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from medrcube_desktop.core.options import Option, markdown_table, options
from medrcube_desktop.evaluation.engines.base import (
    CHUNK_SIZE,
    CONCURRENCY,
    MAX_ATTEMPTS,
    SAMPLING_RANGES,
    TIMEOUT_S,
    SamplingConfig,
)
from medrcube_desktop.llm.config import MAX_CONCURRENCY

ENGINES = ("vllm", "vllm-server", "openai", "hf")
"""The engines, as ``--engine`` names them."""

VLLM = ("vllm", "vllm-server")
LOCAL = ("vllm", "vllm-server", "hf")


@dataclass(frozen=True)
class EngineOption(Option):
    """An :class:`~medrcube_desktop.core.options.Option` of the engine.

    Attributes
    ----------
    engines : tuple of str
        The engines it applies to (of :data:`ENGINES`); the factory passes it, under
        ``name``, to the constructor of each unless it is one of :data:`NOT_KEYWORDS`.
    recorded_as : tuple of str
        The keys under which ``describe()`` records it where not ``name`` (vLLM's own
        names: ``max_pixels`` is ``mm_processor_kwargs``), made by the engine; empty:
        ``name``, as given (:func:`recorded`), or not recorded (:data:`NOT_RECORDED`).
    omitted_unset : tuple of str
        The engines whose ``describe()`` leaves it out when it is unset (None, 0, '',
        False): the ``vllm`` engine records ``vllm.LLM``'s arguments, only those it sets.
    operational : bool
        It does not change the answers: a resume may use another value
        (:func:`operational_keys`, the runner's ``OPERATIONAL_PARAMS``).
    """

    engines: tuple[str, ...] = ENGINES
    recorded_as: tuple[str, ...] = ()
    omitted_unset: tuple[str, ...] = ()
    operational: bool = False


def _sampling(name: str, label: str, metavar: str, type_: type) -> EngineOption:
    low, high, low_included, words = SAMPLING_RANGES[name]
    return EngineOption(
        name, "--" + name.replace("_", "-"), label, getattr(SamplingConfig, name), words,
        type_, low, high, kind=name, metavar=metavar,
        range_words="" if low_included else words,
    )  # fmt: skip


ENGINE: dict[str, EngineOption] = options(  # type: ignore[assignment]
    EngineOption("engine", "--engine", "Engine", None, "the engine that runs the model", str,
                 choices=ENGINES, required=True),
    EngineOption("model", "--model", "Model", None,
                 "Hugging Face model id, local model folder, or the endpoint's model name",
                 str, kind="new_name", metavar="NAME", required=True),
    EngineOption("base_urls", "--base-url", "Base URLs", None,
                 "endpoint (repeat to spread items over servers); vllm-server: attach to it",
                 str, kind="base_url", metavar="URL", engines=("vllm-server", "openai"),
                 recorded_as=("base_urls", "attached_to"), operational=True),
    EngineOption("concurrency", "--concurrency", "Concurrent requests", CONCURRENCY,
                 "requests in flight at once, over all endpoints (%(default)s)", int, 1,
                 MAX_CONCURRENCY, kind="concurrency", metavar="N",
                 engines=("vllm-server", "openai"), operational=True),
    _sampling("max_tokens", "Max tokens", "N", int),
    _sampling("temperature", "Temperature", "T", float),
    _sampling("top_p", "Top p", "P", float),
    _sampling("seed", "Seed", "S", int),
    EngineOption("max_model_len", "--max-model-len", "Context length", None,
                 "vllm: context length (default: the model's own)", int, 1,
                 kind="positive", metavar="N", engines=VLLM, omitted_unset=("vllm",)),
    EngineOption("max_pixels", "--max-pixels", "", None, "image pixel budget", int, 1,
                 kind="positive", metavar="N", engines=LOCAL,
                 recorded_as=("mm_processor_kwargs", "processor_kwargs")),
    EngineOption("tensor_parallel_size", "--tensor-parallel-size", "", 1,
                 "GPUs per model replica (tensor parallel)", int, 1, kind="positive",
                 metavar="N", engines=VLLM),
    EngineOption("pipeline_parallel_size", "--pipeline-parallel-size", "", 1,
                 "GPUs per model replica (pipeline stages)", int, 1, kind="positive",
                 metavar="N", engines=VLLM),
    EngineOption("data_parallel_size", "--data-parallel-size", "Data parallel", 1,
                 "vllm, hf: model replicas (N x tensor x pipeline GPUs); vllm-server: passed on",
                 int, 1, 64, kind="positive", metavar="N", engines=LOCAL,
                 range_words="1 or more (the pane: up to 64)", operational=True),
    EngineOption("gpu_memory_utilization", "--gpu-memory-utilization", "GPU memory share",
                 None, "vllm: share of GPU memory vLLM may take (its default 0.92 in vLLM "
                 "0.32); without a GPU, the share of RAM for the KV cache", float,
                 kind="fraction", metavar="F", engines=VLLM,
                 range_words="more than 0, at most 1", omitted_unset=("vllm",), operational=True),
    EngineOption("kv_cache_memory_bytes", "--kv-cache-memory-bytes", "KV cache", None,
                 "vllm: KV cache size (e.g. 2G) instead of a share; what a CPU-only machine "
                 "needs", int, kind="byte_size", metavar="SIZE", engines=VLLM,
                 range_words="bytes (K, M, G suffixes)", omitted_unset=("vllm",), operational=True),
    EngineOption("enforce_eager", "--enforce-eager", "Eager (no compilation: starts faster)",
                 False, "vllm, vllm-server: no CUDA graphs or compilation (starts faster, "
                 "runs slower)", bool, engines=VLLM, omitted_unset=("vllm",), operational=True),
    EngineOption("python", "--python", "", None,
                 "vllm, vllm-server, hf: the interpreter with vLLM or transformers (default: "
                 "the app's own)", str, metavar="PATH", engines=LOCAL, operational=True),
    EngineOption("revision", "--revision", "", "", "model revision", str, metavar="REV",
                 engines=LOCAL, omitted_unset=("vllm",)),
    EngineOption("api_key_env", "--api-key-env", "", None,
                 "openai engine: read the key from VAR", str, metavar="VAR",
                 engines=("openai",), operational=True),
    EngineOption("timeout_s", "--timeout", "", TIMEOUT_S, "per request", float,
                 kind="seconds", metavar="S", engines=("vllm-server", "openai"),
                 range_words="seconds, more than 0", operational=True),
    EngineOption("max_attempts", "--max-attempts", "", MAX_ATTEMPTS,
                 "requests per item before it is stored as failed (%(default)s)", int, 1,
                 kind="positive", metavar="N",
                 engines=("vllm-server", "openai"), operational=True),
    EngineOption("chunk_size", "--chunk-size", "", CHUNK_SIZE,
                 "vllm: requests per LLM.chat call (answers are saved after each)", int, 1,
                 kind="positive", metavar="N", engines=("vllm",), operational=True),
)  # fmt: skip
"""Every engine option, in the order of ``evaluate --help``."""

SAMPLING = tuple(SAMPLING_RANGES)
"""The rows the factory passes as one :class:`~.engines.base.SamplingConfig`."""

NOT_KEYWORDS = frozenset({"engine", "model", "api_key_env", *SAMPLING})
"""Rows the factory does not pass by name: the engine's class, its first argument, the
key's variable (read to find the key) and the decoding (one ``SamplingConfig``)."""

NOT_RECORDED: dict[str, tuple[str, ...]] = {
    "engine": ENGINES, "model": ENGINES, "api_key_env": ENGINES, "python": ENGINES,
    "revision": ("vllm-server",), "timeout_s": ("vllm-server",),
}  # fmt: skip
"""Rows the ``describe()`` of these engines does not record: the run record has the
engine, model and revision of its own; the key's variable and the interpreter do not
change answers (nor does vllm-server's request timeout, which it has never recorded)."""

FIXED_RECORDS = frozenset({
    "limit_mm_per_prompt", "trust_remote_code", "generation_config", "device", "dtype",
    "extra",
})  # fmt: skip
"""Keys ``describe()`` records that are no option: what the engines fix themselves."""


def defaults() -> dict[str, object]:
    """Each option's default by name (``base_urls``: an empty list, a new one each call)."""
    found: dict[str, object] = {name: row.default for name, row in ENGINE.items()}
    found["base_urls"] = []
    return found


def engine_kwargs(values: Mapping[str, Any], engine: str) -> dict[str, Any]:
    """The keyword arguments the factory gives ``engine``'s constructor: each row that
    applies to it (``engines``), not in :data:`NOT_KEYWORDS`, from ``values`` (by name),
    in the table's order."""
    return {
        name: values[name]
        for name, row in ENGINE.items()
        if engine in row.engines and name not in NOT_KEYWORDS
    }


def recorded_keys(engine: str) -> set[str]:
    """The keys ``engine``'s ``describe()`` may hold: the rows that apply to it, under
    their ``recorded_as`` names, and :data:`FIXED_RECORDS`."""
    keys = set(FIXED_RECORDS)
    for name, row in ENGINE.items():
        if engine in row.engines and engine not in NOT_RECORDED.get(name, ()):
            keys.update(row.recorded_as or (name,))
    return keys


def recorded(engine: Any) -> dict[str, object]:
    """The options ``engine`` (an engine object: its ``name``, an attribute of each
    option's name, the decoding in its ``sampling``) records in ``describe()`` under
    their own names, as given: the rows that apply to it, less :data:`NOT_RECORDED`,
    those it records otherwise (``recorded_as``: the engine makes them) and, for the
    engines of ``omitted_unset``, the unset ones. In the table's order (the store
    writes the keys sorted)."""
    entries: dict[str, object] = {}
    for name, row in ENGINE.items():
        skip = engine.name not in row.engines or row.recorded_as
        if skip or engine.name in NOT_RECORDED.get(name, ()):
            continue
        value = getattr(engine.sampling if name in SAMPLING else engine, name)
        if engine.name in row.omitted_unset and not value:
            continue
        entries[name] = value
    return entries


def made_records() -> frozenset[str]:
    """The ``describe()`` keys an engine makes itself: the ``recorded_as`` names of the
    rows and :data:`FIXED_RECORDS`."""
    return FIXED_RECORDS | {key for row in ENGINE.values() for key in row.recorded_as}


def operational_keys() -> frozenset[str]:
    """The ``describe()`` keys of the operational rows (under their recorded names):
    the parameters a resume may change."""
    return frozenset(
        key
        for name, row in ENGINE.items()
        if row.operational and set(row.engines) - set(NOT_RECORDED.get(name, ()))
        for key in row.recorded_as or (name,)
    )


def default_run_name(model: str, engine: str, mode: str | bool = "image") -> str:
    """The run name when none is given, by ``evaluate`` and the Evaluate pane alike:
    model and engine (``Qwen/Qwen2.5-VL-7B-Instruct-vllm``), then the image mode unless it
    is ``image`` (``-text-only`` for the prior-leakage baseline, ``-blank``,
    ``-swapped``, ``-noise``). ``mode`` True or False is text-only or image (the
    signature before image modes)."""
    if isinstance(mode, bool):
        mode = "text-only" if mode else "image"
    return f"{model}-{engine}{'' if mode == 'image' else f'-{mode}'}"


def engines_text(row: EngineOption) -> str:
    """The engines ``row`` applies to, for the docs (``all`` for every one)."""
    return "all" if set(row.engines) == set(ENGINES) else ", ".join(row.engines)


def engine_options_markdown(rows: Iterable[EngineOption] | None = None) -> str:
    """The Markdown table of ``docs/evaluate-options.md``: the rows of
    :func:`~medrcube_desktop.core.options.markdown_table` with an Engines column and a
    "Resume may change" one (``operational``: a run resumed under its name may use
    another value; the others must be the stored run's)."""
    rows = list(ENGINE.values() if rows is None else rows)
    lines = markdown_table(rows).splitlines()
    lines[0] = lines[0].replace("| Help |", "| Engines | Resume may change | Help |")
    lines[1] += "---|---|"
    for i, row in enumerate(rows, start=2):
        head, _, tail = lines[i].rpartition(" | ")
        resume = "yes" if row.operational else "no"
        lines[i] = f"{head} | {engines_text(row)} | {resume} | {tail}"
    return "\n".join(lines) + "\n"
