"""vLLM's offline engine inside :mod:`.model_worker` (never imported by the app itself).

``engine_args`` go to ``vllm.LLM`` as given: the parent sets every one that matters
(``limit_mm_per_prompt``, ``seed``, ``generation_config="vllm"`` so the checkpoint's
sampling defaults never apply, parallelism, memory) and leaves ``max_model_len`` out
unless the user gives it, so vLLM takes the model's own context length. Sampling goes
whole to ``SamplingParams``. Source: vLLM's ``LLM`` and ``SamplingParams`` API
(docs.vllm.ai, offline inference).
"""

from __future__ import annotations

from medrcube_desktop.evaluation.engines.backend_common import conversation, gpu_name


def language_model_only(engine_args: dict) -> dict:
    """``engine_args`` with ``language_model_only=True`` when the run sends no image
    (``limit_mm_per_prompt`` image 0, a text-only run) and the installed vLLM has that
    option (``EngineArgs.language_model_only``, newer vLLM: the vision encoder is not
    loaded); else as given (the image limit 0 alone disables the image inputs)."""
    limits = engine_args.get("limit_mm_per_prompt") or {}
    if limits.get("image") != 0 or "language_model_only" in engine_args:
        return engine_args
    try:
        import dataclasses

        from vllm.engine.arg_utils import EngineArgs

        known = {f.name for f in dataclasses.fields(EngineArgs)}
    except (ImportError, TypeError):  # an older or unusual vLLM: the limit alone
        return engine_args
    return (
        {**engine_args, "language_model_only": True}
        if "language_model_only" in known
        else engine_args
    )


class VLLMBackend:
    """Loads the model once; answers chunks with ``LLM.chat``."""

    def __init__(self, config: dict) -> None:
        from vllm import LLM, SamplingParams

        self.llm = LLM(**language_model_only(dict(config["engine_args"])))
        self.sampling = SamplingParams(**config["sampling"])

    def ready_info(self) -> dict:
        import vllm

        info: dict = {"versions": {"vllm": vllm.__version__}, "gpu": gpu_name()}
        try:
            info["versions"]["torch"] = __import__("torch").__version__
            info["versions"]["transformers"] = __import__("transformers").__version__
            info["max_model_len"] = self.llm.llm_engine.model_config.max_model_len
        except (AttributeError, ImportError):  # versions and length are informative only
            pass
        return info

    def answer(self, chunk: list[dict]) -> list[dict]:
        """One answer per request of ``chunk``; a chunk that fails is asked again item
        by item, so only the request at fault gets an ``error``. A dead engine raises
        (the parent reports the child's log)."""
        try:
            outputs = self.llm.chat([conversation(r) for r in chunk], self.sampling,
                                    use_tqdm=False)  # fmt: skip
        except Exception as exc:
            if "EngineDead" in type(exc).__name__:
                raise
            if len(chunk) == 1:
                return [{"item_id": chunk[0]["item_id"], "error": f"{type(exc).__name__}: {exc}"}]
            return [answer for request in chunk for answer in self.answer([request])]
        answers = []
        for request, output in zip(chunk, outputs, strict=True):
            completion = output.outputs[0]
            answers.append(
                {
                    "item_id": request["item_id"],
                    "text": completion.text,
                    "prompt_tokens": len(output.prompt_token_ids or []),
                    "completion_tokens": len(completion.token_ids or []),
                    "finish_reason": completion.finish_reason,
                }
            )
        return answers
