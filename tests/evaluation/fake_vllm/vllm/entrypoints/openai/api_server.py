"""A test double of ``python -m vllm.entrypoints.openai.api_server --model M --port P``:
serves the test suite's OpenAI-compatible server (with ``/health`` and ``/version``) on
that port, after logging to stdout and starting an "EngineCore" child as vLLM does.

FAKE_VLLM_SERVE_FAIL=1 makes it log a root cause, then vLLM's wrap-up, and exit 1, like
a model whose KV cache does not fit. FAKE_VLLM_RECORD names a file that gets the
command line as JSON.
"""

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[6]))

from tests.evaluation.fake_vllm.vllm import __version__, start_engine_core  # noqa: E402
from tests.llm.fake_openai import FakeOpenAI, _Server  # noqa: E402


def main() -> int:
    args = sys.argv[1:]
    print("INFO 12-01 09:00:00 [api_server.py:1] vLLM API server version", __version__)
    print("INFO: args", " ".join(args), flush=True)
    if os.environ.get("FAKE_VLLM_RECORD"):
        with open(os.environ["FAKE_VLLM_RECORD"], "a", encoding="utf-8") as f:
            f.write(json.dumps({"kind": "serve", "argv": args}) + "\n")
    if os.environ.get("FAKE_VLLM_SERVE_FAIL"):
        print("Traceback (most recent call last):")
        print('  File "kv_cache_utils.py", line 1, in check_enough_kv_cache_memory')
        print("ValueError: not enough KV cache memory for the model")
        for n in range(60):
            print(f"DEBUG noise line {n}")
        print("RuntimeError: Engine core initialization failed. See root cause above.")
        sys.stdout.flush()
        return 1
    start_engine_core()
    port = int(args[args.index("--port") + 1])
    fake = FakeOpenAI(latency_s=0.0, version=__version__)
    fake.server.server_close()
    fake.server = _Server(("127.0.0.1", port), fake._handler())
    time.sleep(0.3)  # "loading the model"
    fake.server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
