"""What the ``vllm`` (offline ``LLM.chat``) and ``hf`` (transformers ``generate``)
engines share (:mod:`.local_engines`): the model runs in child processes
(:mod:`.model_worker`), never in the app's.

A CUDA crash or out-of-memory ends a child, not the app; the error carries the root
cause from the child's log (:func:`.child.failure_message`). Cancel, a crash and the
end of a run stop each child's whole process group, vLLM's EngineCore included.

Data parallel (``data_parallel_size`` N): N children, each with its own share of the
GPUs (``CUDA_VISIBLE_DEVICES``, ``tensor_parallel_size`` x ``pipeline_parallel_size``
each), take requests from one queue, so a faster child takes more. This is vLLM's own
recipe for offline data parallelism (one engine per rank; ``LLM`` itself refuses
``data_parallel_size > 1``), and serves transformers the same way.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import threading
import time
from collections.abc import Iterable, Iterator

from medrcube_desktop.errors import EngineError
from medrcube_desktop.evaluation.engines.base import (
    EvalRequest,
    EvalResponse,
    OnResponse,
    SamplingConfig,
)
from medrcube_desktop.evaluation.engines.child import (
    ModelProcess,
    engine_processes,
    failure_message,
)

WORKER = "medrcube_desktop.evaluation.engines.model_worker"
GUARD = "medrcube_desktop.evaluation.engines.guard"
LOST_ENGINE = (
    "lost a process of its engine (vLLM's EngineCore or a Worker died: killed, or out of memory?)"
)
ENGINE_DEAD_SIGNS = ("EngineDeadError", "engine core exited unexpectedly")
"""Log lines by which vLLM says its EngineCore died (vLLM v1 ``core_client``)."""


def gpu_shares(ranks: int, per_rank: int, visible: str | None) -> list[str | None]:
    """``CUDA_VISIBLE_DEVICES`` for each of ``ranks`` children using ``per_rank`` GPUs
    each, taken in order from ``visible`` (the app's own setting) or 0, 1, 2...; one
    rank leaves the setting alone (``None``)."""
    if ranks <= 1:
        return [None]
    devices = [d for d in (visible or "").split(",") if d.strip()] or [
        str(n) for n in range(ranks * per_rank)
    ]
    if len(devices) < ranks * per_rank:
        raise EngineError(
            f"data parallel size {ranks} x {per_rank} GPUs per model needs {ranks * per_rank} "
            f"GPUs; CUDA_VISIBLE_DEVICES lists {len(devices)}"
        )
    return [",".join(devices[r * per_rank : (r + 1) * per_rank]) for r in range(ranks)]


class WorkerEngine:
    """Common part of the child-process engines (see :class:`VLLMEngine`, :class:`HFEngine`).

    Subclasses give :attr:`name`, :attr:`backend`, :meth:`engine_args` and
    :meth:`describe`.
    """

    name = ""
    backend = ""
    missing_hint = ""

    def __init__(
        self,
        model: str,
        sampling: SamplingConfig | None,
        revision: str,
        data_parallel_size: int,
        gpus_per_rank: int,
        chunk_size: int,
        python: str,
        startup_timeout_s: float,
        env: dict[str, str] | None = None,
    ) -> None:
        self.model, self.revision = model, revision
        self.sampling = sampling or SamplingConfig()
        self.data_parallel_size = max(1, data_parallel_size)
        self.gpus_per_rank = max(1, gpus_per_rank)
        self.chunk_size = max(1, chunk_size)
        self.python, self.startup_timeout_s = python, startup_timeout_s
        self.env = dict(env or {})
        self.processes: list[ModelProcess] = []
        self._versions: dict[str, str] = {}
        self._gpu = ""
        self.model_max_len: int | None = None
        self._engine_pids: list[set[int]] = []
        self._checked = 0.0

    def engine_args(self) -> dict[str, object]:
        raise NotImplementedError

    def describe(self) -> dict[str, object]:
        raise NotImplementedError

    def sampling_args(self) -> dict[str, object]:
        """Decoding, whole (``SamplingParams`` / the generation config)."""
        s = self.sampling
        return {
            "temperature": s.temperature,
            "top_p": s.top_p,
            "max_tokens": s.max_tokens,
            "seed": s.seed,
            **s.extra,
        }

    def config(self) -> dict[str, object]:
        """The child's configuration line."""
        return {
            "backend": self.backend,
            "chunk_size": self.chunk_size,
            "engine_args": self.engine_args(),
            "sampling": self.sampling_args(),
        }

    def library_versions(self) -> dict[str, str]:
        """Versions the children reported, and the context length the model got
        (``max_model_len``, from its config unless given)."""
        versions = dict(self._versions)
        if self.model_max_len:
            versions["max_model_len"] = str(self.model_max_len)
        return versions

    def gpu(self) -> str:
        return self._gpu

    # -- running -------------------------------------------------------------------

    def _start_child(self, rank: int, devices: str | None, answers: queue.Queue) -> ModelProcess:
        read_fd, write_fd = os.pipe()
        env = dict(self.env)
        if devices is not None:
            env["CUDA_VISIBLE_DEVICES"] = devices
        try:
            process = ModelProcess(
                [self.python, "-m", GUARD, WORKER, str(write_fd)],
                f"{self.name}-{rank}" if self.data_parallel_size > 1 else self.name,
                env=env,
                pass_fds=(write_fd,),
                stdin=True,
            )
        except OSError as exc:
            os.close(read_fd)
            raise EngineError(f"cannot start {self.python}: {exc}") from None
        finally:
            os.close(write_fd)  # the child holds its copy: EOF when it exits
        assert process.stdin is not None
        try:
            process.stdin.write(json.dumps(self.config()) + "\n")
            process.stdin.flush()
        except OSError:  # it exited at once (not a Python, say): its log says why
            os.close(read_fd)
            self.processes.append(process)
            raise self._died(len(self.processes) - 1, "did not start") from None
        threading.Thread(target=_read_answers, args=(read_fd, rank, answers), daemon=True).start()
        return process

    def run(
        self, requests: Iterable[EvalRequest], on_response: OnResponse, cancel: threading.Event
    ) -> None:
        """Start the children, stream the requests, deliver answers as they come.

        Raises
        ------
        EngineError
            The backend is not installed, a child did not start within
            ``startup_timeout_s`` or died (root cause and log tail in the message).
        """
        answers: queue.Queue = queue.Queue()
        shares = gpu_shares(self.data_parallel_size, self.gpus_per_rank,
                            os.environ.get("CUDA_VISIBLE_DEVICES"))  # fmt: skip
        self.processes = []
        for rank, devices in enumerate(shares):
            self.processes.append(self._start_child(rank, devices, answers))
        ready: set[int] = set()
        deadline = time.monotonic() + self.startup_timeout_s
        while len(ready) < len(self.processes):
            message = self._next(answers, cancel, deadline)
            if message is None:
                return  # cancelled while loading
            rank, line = message
            if line is None or not line.get("ready"):
                raise self._died(rank, "did not start")
            ready.add(rank)
            self._versions = {str(k): str(v) for k, v in (line.get("versions") or {}).items()}
            self._gpu = str(line.get("gpu") or "")
            self.model_max_len = line.get("max_model_len")
        self._engine_pids = [engine_processes(p.pid) for p in self.processes]
        self._checked = time.monotonic()
        source = _Shared(iter(requests))
        for process in self.processes:
            threading.Thread(target=_feed, args=(process, source, cancel), daemon=True).start()
        finished: set[int] = set()
        while len(finished) < len(self.processes):
            message = self._next(answers, cancel, None)
            if message is None:
                return  # cancelled
            rank, line = message
            if line is None:
                code = self.processes[rank].wait()
                if code != 0:
                    raise self._died(rank, LOST_ENGINE if self._engine_lost(rank) else "stopped")
                finished.add(rank)
                continue
            if "unreadable" in line or not line.get("item_id"):
                raise self._died(rank, f"wrote {line.get('unreadable', line)!r} on its answer pipe")
            on_response(
                EvalResponse(
                    item_id=line["item_id"],
                    text=line.get("text", ""),
                    error=line.get("error", ""),
                    latency_s=line.get("latency_s"),
                    prompt_tokens=line.get("prompt_tokens"),
                    completion_tokens=line.get("completion_tokens"),
                )
            )
        if source.error is not None:
            raise source.error

    def _next(self, answers: queue.Queue, cancel, deadline: float | None):
        """The next (rank, message) of any child (message None: that child's answers
        ended); None when cancelled (the children are stopped then)."""
        while True:
            if cancel.is_set():
                self.close()
                return None
            try:
                return answers.get(timeout=0.2)
            except queue.Empty:
                pass
            if deadline is None and time.monotonic() - self._checked > 2.0:
                self._check_engine_processes()
            if deadline is not None and time.monotonic() > deadline:
                self.close()
                raise EngineError(
                    f"{self.name}: the model did not load within {self.startup_timeout_s:g} s "
                    f"(model {self.model})"
                )

    def _check_engine_processes(self) -> None:
        """vLLM's child hangs when its EngineCore or a Worker is killed: notice that one
        of them has gone (every 2 s) and stop with the log rather than wait forever."""
        self._checked = time.monotonic()
        for rank, (process, pids) in enumerate(zip(self.processes, self._engine_pids, strict=True)):
            if pids and not pids <= engine_processes(process.pid):
                raise self._died(rank, LOST_ENGINE)

    def _engine_lost(self, rank: int) -> bool:
        """Whether the child that ended had lost a process of its engine first: one it
        had at start is gone, or vLLM said so in its log (its monitor thread notices the
        death and the next request raises ``EngineDeadError``; vLLM v1
        ``core_client.MPClient.start_engine_core_monitor``)."""
        pids = self._engine_pids[rank] if rank < len(self._engine_pids) else set()
        if pids and not pids <= engine_processes(self.processes[rank].pid):
            return True
        return any(
            sign in line for line in self.processes[rank].lines() for sign in ENGINE_DEAD_SIGNS
        )

    def _died(self, rank: int, what: str) -> EngineError:
        process = self.processes[rank]
        with_code = process.poll()
        self.close()
        lines = process.lines()
        needed = (self.backend_module, "torch")  # torch: what both backends load first
        missing = next(
            (m for line in lines if "No module named" in line for m in needed if f"'{m}" in line),
            None,
        )
        if missing is not None:
            return EngineError(f"{missing} is not installed for {self.python}: {self.missing_hint}")
        status = f" (exit status {with_code})" if with_code is not None else ""
        return EngineError(
            failure_message(f"{self.name} {what}{status} (model {self.model}):", process)
        )

    @property
    def backend_module(self) -> str:
        return self.backend if self.backend != "hf" else "transformers"

    def close(self) -> None:
        """Stop every child and its process group (safe to call twice)."""
        for process in self.processes:
            process.stop()


class _Shared:
    """One request iterator shared by the feeders (one ``next`` at a time)."""

    def __init__(self, requests: Iterator[EvalRequest]) -> None:
        self.requests = requests
        self.lock = threading.Lock()
        self.error: BaseException | None = None

    def next(self) -> EvalRequest | None:
        with self.lock:
            try:
                return next(self.requests, None)
            except Exception as exc:  # noqa: BLE001 - reported by run() at the end
                self.error = exc
                return None


def _read_answers(fd: int, rank: int, answers: queue.Queue) -> None:
    with os.fdopen(fd, "r", encoding="utf-8") as stream:
        for line in stream:
            try:
                answers.put((rank, json.loads(line)))
            except ValueError:
                answers.put((rank, {"unreadable": line[:200]}))
    answers.put((rank, None))


def _feed(process: ModelProcess, source: _Shared, cancel: threading.Event) -> None:
    stdin = process.stdin
    assert stdin is not None
    try:
        while not cancel.is_set():
            request = source.next()
            if request is None:
                break
            image = base64.b64encode(request.image).decode() if request.image else None
            line = {"item_id": request.item_id, "prompt": request.prompt,
                    "image_b64": image, "image_mime": request.image_mime}  # fmt: skip
            stdin.write(json.dumps(line) + "\n")
            stdin.flush()
    except (BrokenPipeError, ValueError, OSError):
        return  # the child is gone; run() reports why
    finally:
        with contextlib.suppress(BrokenPipeError, OSError, ValueError):  # the child may be gone
            stdin.close()
