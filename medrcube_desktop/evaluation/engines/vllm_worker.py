"""Child process of the ``vllm`` engine: vLLM's offline engine answering JSON lines.

Run as ``python -m medrcube_desktop.evaluation.engines.vllm_worker``. Protocol (one JSON
object per line):

- stdin, first line: the configuration (model, revision, max_model_len,
  limit_mm_per_prompt, mm_processor_kwargs, tensor_parallel_size,
  pipeline_parallel_size, gpu_memory_utilization, seed, chunk_size, sampling);
- stdout: ``{"ready": true, "vllm": VERSION, "gpu": NAME}`` once the model is loaded;
- stdin, then: requests ``{"item_id", "prompt", "image_b64"}`` (image may be null);
- stdout: one ``{"item_id", "text", "prompt_tokens", "completion_tokens"}`` per request,
  in chunks of ``chunk_size`` (``LLM.chat`` on a chunk), so answers are saved as they
  come; the process ends when stdin closes.

Every sampling parameter is passed explicitly: vLLM would otherwise take defaults from
the checkpoint's generation config.
"""

from __future__ import annotations

import json
import sys


def _conversation(request: dict) -> list[dict]:
    content: list[dict] = []
    if request.get("image_b64"):
        url = f"data:image/png;base64,{request['image_b64']}"
        content.append({"type": "image_url", "image_url": {"url": url}})
    content.append({"type": "text", "text": request["prompt"]})
    return [{"role": "user", "content": content}]


def _gpu_name() -> str:
    try:
        import torch

        return torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""
    except Exception:  # noqa: BLE001 - the name is informative only
        return ""


def main() -> int:
    import vllm
    from vllm import LLM, SamplingParams

    config = json.loads(sys.stdin.readline())
    engine_args = {
        "model": config["model"],
        "max_model_len": config["max_model_len"],
        "limit_mm_per_prompt": config["limit_mm_per_prompt"],
        "tensor_parallel_size": config["tensor_parallel_size"],
        "pipeline_parallel_size": config["pipeline_parallel_size"],
        "gpu_memory_utilization": config["gpu_memory_utilization"],
        "seed": config["seed"],
        "trust_remote_code": config.get("trust_remote_code", False),
        # vLLM's own defaults, not the checkpoint's generation_config.json (which newer
        # vLLM loads by default); every value that matters is in SamplingParams anyway.
        "generation_config": "vllm",
    }
    if config.get("revision"):
        engine_args["revision"] = config["revision"]
    if config.get("mm_processor_kwargs"):
        engine_args["mm_processor_kwargs"] = config["mm_processor_kwargs"]
    llm = LLM(**engine_args)
    sampling = SamplingParams(**config["sampling"])
    print(json.dumps({"ready": True, "vllm": vllm.__version__, "gpu": _gpu_name()}), flush=True)
    chunk: list[dict] = []
    size = max(1, int(config.get("chunk_size", 32)))
    for line in sys.stdin:
        if line.strip():
            chunk.append(json.loads(line))
        if len(chunk) >= size:
            _answer(llm, sampling, chunk)
            chunk = []
    if chunk:
        _answer(llm, sampling, chunk)
    return 0


def _answer(llm, sampling, chunk: list[dict]) -> None:
    outputs = llm.chat([_conversation(r) for r in chunk], sampling, use_tqdm=False)
    for request, output in zip(chunk, outputs, strict=True):
        completion = output.outputs[0]
        print(
            json.dumps(
                {
                    "item_id": request["item_id"],
                    "text": completion.text,
                    "prompt_tokens": len(output.prompt_token_ids or []),
                    "completion_tokens": len(completion.token_ids or []),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
