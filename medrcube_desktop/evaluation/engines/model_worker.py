"""Child process of the ``vllm`` and ``hf`` engines: a model answering JSON lines.

Run as ``python -m medrcube_desktop.evaluation.engines.guard
medrcube_desktop.evaluation.engines.model_worker FD``. Requests come on stdin; answers
go to file descriptor ``FD``, a pipe of its own: vLLM and transformers write their logs
to stdout and stderr, which the parent keeps as the child's log (issue 11: vLLM's
first log line on stdout was read as a broken message). Protocol, one JSON object per
line:

- stdin, first line: the configuration, ``{"backend": "vllm" | "hf", "chunk_size",
  "sampling": {...}, "engine_args": {...}}`` (see :mod:`.vllm_backend`,
  :mod:`.hf_backend`);
- FD: ``{"ready": true, "versions": {...}, "gpu": NAME, "max_model_len": N}`` once the
  model is loaded;
- stdin, then: requests ``{"item_id", "prompt", "image_b64", "image_mime"}`` (image may
  be null);
- FD: one ``{"item_id", "text", "prompt_tokens", "completion_tokens"}`` or
  ``{"item_id", "error"}`` per request, up to ``chunk_size`` answered together as soon
  as that many are waiting or no more arrive for 50 ms; the process ends when stdin
  closes.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading

CHUNK_WAIT_S = 0.05
"""How long a chunk waits for more requests before it is answered (seconds)."""


def _backend(config: dict):
    if config["backend"] == "vllm":
        from medrcube_desktop.evaluation.engines.vllm_backend import VLLMBackend

        return VLLMBackend(config)
    if config["backend"] == "hf":
        from medrcube_desktop.evaluation.engines.hf_backend import HFBackend

        return HFBackend(config)
    raise ValueError(f"unknown backend {config['backend']!r}")


def _read_requests(lines: queue.Queue) -> None:
    for line in sys.stdin:
        if line.strip():
            lines.put(json.loads(line))
    lines.put(None)


def main() -> int:
    answers = os.fdopen(int(sys.argv[1]), "w", encoding="utf-8", buffering=1)
    sys.stdout = sys.stderr  # a stray print goes to the log, never to the answers
    config = json.loads(sys.stdin.readline())
    backend = _backend(config)
    answers.write(json.dumps({"ready": True, **backend.ready_info()}) + "\n")
    size = max(1, int(config.get("chunk_size", 32)))
    # bounded: a busy child stops reading, so the parent's feeder gives work to others
    pending: queue.Queue = queue.Queue(maxsize=2 * size)
    threading.Thread(target=_read_requests, args=(pending,), daemon=True).start()
    finished = False
    while not finished:
        first = pending.get()
        if first is None:
            break
        chunk = [first]
        while len(chunk) < size:
            try:
                request = pending.get(timeout=CHUNK_WAIT_S)
            except queue.Empty:
                break
            if request is None:
                finished = True
                break
            chunk.append(request)
        for answer in backend.answer(chunk):
            answers.write(json.dumps(answer) + "\n")
    answers.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
