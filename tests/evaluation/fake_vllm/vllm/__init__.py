"""A test double of the vllm package for the ``vllm`` engine's child process.

Put this folder first on PYTHONPATH: ``from vllm import LLM, SamplingParams`` then gets
these classes. ``LLM.chat`` answers "B" (or what FAKE_VLLM_ANSWER says) to every
conversation, and everything the engine passed is appended to the JSON-lines file named
by FAKE_VLLM_RECORD, so a test can check every parameter was set explicitly.
FAKE_VLLM_CRASH_AFTER=N makes the process die (exit 3) after N answers, like a CUDA
error would.
"""

import json
import os
import sys

__version__ = "0.0-test-double"
_answered = 0


def _record(kind, payload):
    path = os.environ.get("FAKE_VLLM_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"kind": kind, **payload}) + "\n")


class SamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        _record("sampling", kwargs)


class _Completion:
    def __init__(self, text):
        self.text = text
        self.token_ids = list(range(len(text)))


class _Output:
    def __init__(self, text):
        self.outputs = [_Completion(text)]
        self.prompt_token_ids = list(range(100))


class LLM:
    def __init__(self, **kwargs):
        _record("engine", kwargs)

    def chat(self, conversations, sampling_params, use_tqdm=True):
        global _answered
        outputs = []
        for conversation in conversations:
            parts = conversation[0]["content"]
            _record(
                "chat",
                {
                    "parts": [p["type"] for p in parts],
                    "max_tokens": sampling_params.kwargs.get("max_tokens"),
                },
            )
            crash = os.environ.get("FAKE_VLLM_CRASH_AFTER")
            if crash and _answered >= int(crash):
                print("CUDA error: an illegal memory access was encountered", file=sys.stderr)
                sys.stderr.flush()
                os._exit(3)
            outputs.append(_Output(os.environ.get("FAKE_VLLM_ANSWER", "B")))
            _answered += 1
        return outputs
