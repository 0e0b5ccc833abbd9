"""A test double of the vllm package, for fast tests of the ``vllm`` and
``vllm-server`` engines' process handling (the real vLLM runs in tests/real/).

Put this folder first on PYTHONPATH: ``from vllm import LLM, SamplingParams`` then gets
these classes. Like the real vLLM, ``LLM()`` logs to stdout and starts an "EngineCore"
child process (a sleeping Python, its pid in FAKE_VLLM_PIDS when set), so the tests
cover the stdout clash and orphaned processes. ``LLM.chat`` answers "B" (or what
FAKE_VLLM_ANSWER says); everything the engine passed is appended to the JSON-lines file
named by FAKE_VLLM_RECORD. FAKE_VLLM_CRASH_AFTER=N makes the process die (exit 3) after
N answers, like a CUDA error would. FAKE_VLLM_SLOW_START=S sleeps S seconds in ``LLM()``.
Once its "EngineCore" has died, ``chat`` raises ``EngineDeadError``, as the real client
does for a request sent after its monitor thread noticed the death.
"""

import json
import os
import subprocess
import sys
import time

__version__ = "0.0-test-double"
_answered = 0


def _record(kind, payload):
    path = os.environ.get("FAKE_VLLM_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"kind": kind, **payload}) + "\n")


def start_engine_core():
    """A child that sleeps, as vLLM's EngineCore process would run (same group)."""
    # argv[0] as vLLM's setproctitle gives it ("VLLM::EngineCore")
    child = subprocess.Popen(["VLLM::EngineCore", "-c", "import time; time.sleep(600)"],
                             executable=sys.executable)  # fmt: skip
    if os.environ.get("FAKE_VLLM_PIDS"):
        with open(os.environ["FAKE_VLLM_PIDS"], "a", encoding="utf-8") as f:
            f.write(f"{child.pid}\n")
    return child


class EngineDeadError(Exception):
    """vLLM v1's ``vllm.v1.engine.exceptions.EngineDeadError`` (same name and message)."""

    def __init__(self):
        super().__init__(
            "EngineCore encountered an issue. See stack trace (above) for the root cause."
        )


class SamplingParams:
    def __init__(self, **kwargs):
        self.kwargs = kwargs
        _record("sampling", kwargs)


class _Completion:
    def __init__(self, text):
        self.text = text
        self.token_ids = list(range(len(text)))
        self.finish_reason = "stop"


class _Output:
    def __init__(self, text):
        self.outputs = [_Completion(text)]
        self.prompt_token_ids = list(range(100))


class LLM:
    def __init__(self, **kwargs):
        print("INFO 12-01 09:00:00 [llm.py:1] Initializing a V1 LLM engine", flush=True)
        _record("engine", kwargs)
        self.core = start_engine_core()
        time.sleep(float(os.environ.get("FAKE_VLLM_SLOW_START", "0")))

    def chat(self, conversations, sampling_params, use_tqdm=True):
        global _answered
        if self.core.poll() is not None:
            raise EngineDeadError()
        outputs = []
        for conversation in conversations:
            parts = conversation[0]["content"]
            _record(
                "chat",
                {
                    "parts": [p["type"] for p in parts],
                    "urls": [p["image_url"]["url"][:30] for p in parts if p["type"] == "image_url"],
                    "max_tokens": sampling_params.kwargs.get("max_tokens"),
                },
            )
            crash = os.environ.get("FAKE_VLLM_CRASH_AFTER")
            if crash and _answered >= int(crash):
                print("CUDA error: an illegal memory access was encountered", file=sys.stderr)
                sys.stderr.flush()
                os._exit(3)
            time.sleep(float(os.environ.get("FAKE_VLLM_CHAT_DELAY", "0")))
            outputs.append(_Output(os.environ.get("FAKE_VLLM_ANSWER", "B")))
            _answered += 1
        print(f"INFO answered {len(outputs)} conversations", flush=True)  # stdout, as vLLM
        return outputs
