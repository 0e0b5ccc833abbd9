"""transformers ``generate`` inside :mod:`.model_worker`: the ``hf`` engine (paper D.3,
for models vLLM does not support). Never imported by the app itself.

The model loads with ``AutoModelForImageTextToText`` and ``AutoProcessor`` (the
processor's chat template builds the prompt, as vLLM's ``LLM.chat`` does); decoding is
set explicitly from the run's sampling (greedy at temperature 0), starting from the
checkpoint's generation config only for its stop and padding tokens, so its sampling
defaults never apply. Requests are answered one at a time (no padding across images).
Source: transformers docs, "Image-text-to-text" and ``GenerationConfig``.
"""

from __future__ import annotations

import base64
import copy
import io

from medrcube_desktop.evaluation.engines.backend_common import gpu_name
from medrcube_desktop.evaluation.engines.base import SamplingConfig


class HFBackend:
    """``engine_args``: ``model``, ``revision``, ``trust_remote_code``, ``dtype``
    ("auto"), ``device`` ("auto": CUDA when there is one, else CPU),
    ``processor_kwargs`` (e.g. the pixel budget); ``sampling``: ``temperature``,
    ``top_p``, ``max_tokens``, ``seed``."""

    def __init__(self, config: dict) -> None:
        import torch
        from transformers import AutoModelForImageTextToText, AutoProcessor

        args = config["engine_args"]
        common = {"revision": args.get("revision") or None,
                  "trust_remote_code": bool(args.get("trust_remote_code"))}  # fmt: skip
        self.processor = AutoProcessor.from_pretrained(args["model"], **common)
        self.processor_kwargs = args.get("processor_kwargs") or {}
        device = args.get("device") or "auto"
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = AutoModelForImageTextToText.from_pretrained(
            args["model"], **common, dtype=args.get("dtype") or "auto"
        ).to(device)
        self.model.eval()
        self.torch = torch
        self.generation = self._generation_config(config["sampling"])
        self.seed = int(config["sampling"].get("seed", 0))

    def _generation_config(self, sampling: dict):
        generation = copy.deepcopy(self.model.generation_config)  # stop and pad tokens only
        greedy = float(sampling.get("temperature", 0.0)) <= 0.0
        generation.do_sample = not greedy
        generation.temperature = None if greedy else float(sampling["temperature"])
        generation.top_p = None if greedy else float(sampling.get("top_p", 1.0))
        generation.top_k = None
        generation.num_beams = 1
        generation.repetition_penalty = None
        generation.max_new_tokens = int(sampling.get("max_tokens", SamplingConfig.max_tokens))
        generation.max_length = None
        return generation

    def ready_info(self) -> dict:
        import transformers

        config = self.model.config
        text = getattr(config, "text_config", config)
        return {
            "versions": {
                "transformers": transformers.__version__,
                "torch": self.torch.__version__,
            },  # fmt: skip
            "gpu": gpu_name(),
            "max_model_len": getattr(text, "max_position_embeddings", None),
            "device": str(self.model.device),
        }

    def answer(self, chunk: list[dict]) -> list[dict]:
        """One answer per request; a request that fails gets an ``error``."""
        answers = []
        for request in chunk:
            try:
                answers.append(self._answer_one(request))
            except Exception as exc:  # noqa: BLE001 - one bad request fails only itself
                answers.append({"item_id": request["item_id"],
                                "error": f"{type(exc).__name__}: {exc}"})  # fmt: skip
        return answers

    def _answer_one(self, request: dict) -> dict:
        import time

        from PIL import Image

        started = time.monotonic()
        content: list[dict] = []
        if request.get("image_b64"):
            image = Image.open(io.BytesIO(base64.b64decode(request["image_b64"])))
            content.append({"type": "image", "image": image.convert("RGB")})
        content.append({"type": "text", "text": request["prompt"]})
        inputs = self.processor.apply_chat_template(
            [{"role": "user", "content": content}],
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
            **({"processor_kwargs": self.processor_kwargs} if self.processor_kwargs else {}),
        ).to(self.model.device)
        self.torch.manual_seed(self.seed)  # the same answer whatever the order of items
        with self.torch.inference_mode():
            output = self.model.generate(**inputs, generation_config=self.generation)
        prompt_tokens = int(inputs["input_ids"].shape[1])
        new = output[0, prompt_tokens:]
        eos = self.generation.eos_token_id
        stops = set(eos if isinstance(eos, list) else [eos]) - {None}
        finish = "stop" if len(new) and int(new[-1]) in stops else "length"
        return {
            "item_id": request["item_id"],
            "text": self.processor.decode(new, skip_special_tokens=True),
            "prompt_tokens": prompt_tokens,
            "completion_tokens": int(len(new)),
            "finish_reason": finish,
            "latency_s": round(time.monotonic() - started, 4),
        }
