"""A test double of the ``vllm`` command: ``vllm serve MODEL --port P ...`` starts the
test suite's OpenAI-compatible server (with ``/health``) on that port.

FAKE_VLLM_SERVE_FAIL=1 makes it print an error and exit 1 instead, like a model that
does not fit in GPU memory.
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.llm.fake_openai import FakeOpenAI, _Server  # noqa: E402


def main() -> int:
    args = sys.argv[1:]
    print("INFO: starting fake vllm", " ".join(args), flush=True)
    if os.environ.get("FAKE_VLLM_SERVE_FAIL"):
        print("ValueError: not enough GPU memory for the KV cache", flush=True)
        return 1
    port = int(args[args.index("--port") + 1])
    fake = FakeOpenAI(latency_s=0.0)
    fake.server.server_close()
    fake.server = _Server(("127.0.0.1", port), fake._handler())
    time.sleep(0.3)  # "loading the model"
    fake.server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
