"""Images prepared ahead of the requests, in parallel worker processes (issue 11).

Rendering and encoding an image costs 5-100 ms of CPU in Python and numpy; done one at
a time in the request generator, that capped a run at ~9 requests/s whatever the
endpoint's concurrency. :class:`ImagePipeline` runs :func:`prepare_one` in a process
pool (the GIL would serialise threads), keeps a bounded number of images ready ahead
of the requests (bounded memory), prepares a group of items on one image once, and
hands the results over in the order they are ready.

Each worker looks in the on-disk :class:`~medrcube_desktop.evaluation.images.ImageCache`
first, so a second model on the same benchmark renders nothing.
"""

from __future__ import annotations

import concurrent.futures as futures
import logging
import multiprocessing
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from medrcube_desktop.core.items import Item
from medrcube_desktop.evaluation.images import (
    ImageCache,
    PreparedImage,
    original_image,
    preparation_key,
    rendered_image,
)

if TYPE_CHECKING:
    from medrcube_desktop.evaluation.ablation import Ablation

log = logging.getLogger(__name__)


@dataclass
class Prepared:
    """One item's image, or why there is none (``error``)."""

    item: Item
    image: PreparedImage | None
    error: str = ""


@dataclass
class PipelineStats:
    """Where preparation time went, in seconds.

    ``prepare_s``: worker time summed over images (CPU-bound work, so on a busy machine
    wall time); ``wait_s``: time the requests waited for a prepared image (0 when the
    pipeline keeps ahead of the endpoint); counts of images by how they were obtained.
    """

    prepare_s: float = 0.0
    wait_s: float = 0.0
    images: int = 0
    original: int = 0
    rendered: int = 0
    cached: int = 0
    failed: int = 0
    workers: int = 0
    sources: dict[str, int] = field(default_factory=dict)


def prepare_one(
    item: Item, min_side: int, max_pixels: int, cache_folder: str | None
) -> tuple[PreparedImage | None, str, str, float]:
    """Prepare one image (in a worker process): the file itself when it can be sent
    unchanged, else the cached rendering, else a new rendering (then cached).

    Returns ``(image or None, source, error, seconds)`` with ``source`` one of
    ``original``, ``cached``, ``rendered``, ``failed``. Errors are returned, never
    raised, so one bad file fails only its items; a cache that cannot be written is
    logged and the image is still returned.
    """
    from medrcube_desktop.core.file_checks import require_item_files
    from medrcube_desktop.errors import ImageLoadError, StoreError

    started = time.perf_counter()
    try:
        key, cache = None, None
        require_item_files(item)  # exact confinement before any byte is read or sent
        image = original_image(item, min_side, max_pixels)
        source = "original"
        if image is None:
            if cache_folder is not None:
                cache = ImageCache(Path(cache_folder))
                key = preparation_key(item, min_side, max_pixels)
                image = cache.get(key)
                source = "cached"
            if image is None:
                image = rendered_image(item, min_side, max_pixels)
                source = "rendered"
                if cache is not None and key is not None:
                    try:
                        cache.put(key, image)
                    except (OSError, StoreError) as exc:  # StoreError: a guarded target
                        log.warning("image cache %s not written: %s", cache_folder, exc)
        return image, source, "", time.perf_counter() - started
    except (ImageLoadError, OSError) as exc:
        return None, "failed", f"image: {exc}", time.perf_counter() - started
    except Exception as exc:  # noqa: BLE001 - one unreadable file must not end the run
        message = f"image: {type(exc).__name__}: {exc}"
        return None, "failed", message, time.perf_counter() - started


def prepare_ablated(
    item: Item, min_side: int, max_pixels: int, cache_folder: str | None, ablation: Ablation
) -> tuple[PreparedImage | None, str, str, float]:
    """:func:`prepare_one` for an ablation run (in a worker process): the same
    ``(image or None, source, error, seconds)``, the image the one to send."""
    from medrcube_desktop.errors import ImageLoadError
    from medrcube_desktop.evaluation.ablation import SWAPPED, ablated_image, own_picture_info

    started = time.perf_counter()
    sources: list[str] = []

    def prepare(which: Item) -> PreparedImage:
        image, source, error, _ = prepare_one(which, min_side, max_pixels, cache_folder)
        if image is None:
            raise OSError(f"donor {which.id}: {error}")
        sources.append(source)
        return image

    try:
        own = None
        if ablation.mode != SWAPPED:
            own, source = own_picture_info(item, min_side, max_pixels, cache_folder)
            sources.append(source)
        image = ablated_image(item, own, ablation, prepare)
        return image, sources[-1], "", time.perf_counter() - started
    except (ValueError, OSError, ImageLoadError) as exc:
        return None, "failed", f"image: {exc}", time.perf_counter() - started
    except Exception as exc:  # noqa: BLE001 - one unreadable file must not end the run
        return None, "failed", f"image: {type(exc).__name__}: {exc}", time.perf_counter() - started


def _watch_app(app_pid: int) -> None:
    """Worker initializer: end this worker when the app is gone (killed with SIGKILL, it
    cannot shut its pool down). A forkserver's worker is not the app's child, so
    ``PR_SET_PDEATHSIG`` cannot be used; a daemon thread looks once a second. The
    worker's allocator is tuned as the app's is (:func:`~medrcube_desktop.core.malloc_tuning.tune_malloc`:
    a spawned process does not go through the app's entry point)."""
    import signal
    import threading

    from medrcube_desktop.core.malloc_tuning import tune_malloc

    tune_malloc()  # a worker prepares one picture after another, as the viewer renders
    # Ctrl+C in a terminal reaches the whole process group: the app stops the pool
    # itself, so a worker need not die with a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while True:
            time.sleep(1.0)
            try:
                os.kill(app_pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # a process of another user took the pid: gone
                os._exit(0)

    threading.Thread(target=watch, daemon=True, name="watch-app").start()


def default_workers() -> int:
    """One worker per CPU core this process may use (at least 1, at most 8)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(8, cores))


def _context():
    # fork is unsafe in a process with threads (the GUI, the engine's event loop);
    # forkserver forks workers from a clean single-threaded server (Python docs,
    # "Contexts and start methods"), spawn elsewhere.
    if sys.platform.startswith("linux"):
        context = multiprocessing.get_context("forkserver")
        # imported once in the server, so each worker starts with numpy, Pillow and the
        # renderer loaded (a worker otherwise spends ~0.5 s importing them)
        context.set_forkserver_preload(["medrcube_desktop.evaluation.prepare",
                                        "medrcube_desktop.evaluation.ablation",
                                        "medrcube_desktop.imaging.render"])  # fmt: skip
        return context
    return multiprocessing.get_context("spawn")


def group_key(item: Item) -> tuple:
    """Items with the same image, mask, box and modality get one preparation."""
    return (str(item.image_path), str(item.mask_path), item.bbox, item.modality)


class ImagePipeline:
    """Iterate to get a :class:`Prepared` per item, in the order images are ready.

    Parameters
    ----------
    items : sequence of Item
    min_side, max_pixels : int
        Size policy (see :func:`~medrcube_desktop.evaluation.images.model_image`).
    cache : ImageCache or None
        Where prepared images are kept between runs (None: no cache).
    workers : int or None
        Processes (default: one per core). 0 prepares in this process (tests, tiny runs).
    ahead : int or None
        Images prepared and not yet handed over, at most (bounds memory; default
        4 per worker + 16, a few tens of MB).
    mode, seed : str, int
        The run's image mode (:mod:`~.image_modes`): ``blank``, ``swapped`` and ``noise``
        prepare the picture sent instead (:func:`prepare_ablated`), one per
        group as for ``image``; ``seed`` picks the donor or the noise.
    pool : sequence of Item or None
        The items a ``swapped`` picture may come from (default: ``items``); a resumed
        run passes every item of the run, so the choice does not depend on what is left.
    """

    def __init__(
        self,
        items: Sequence[Item],
        min_side: int,
        max_pixels: int,
        cache: ImageCache | None = None,
        workers: int | None = None,
        ahead: int | None = None,
        mode: str = "image",
        seed: int = 0,
        pool: Sequence[Item] | None = None,
    ) -> None:
        self.mode, self.seed = mode, seed
        self._donors = None
        if mode == "swapped":
            from medrcube_desktop.evaluation.ablation import donor_index

            self._donors = donor_index(items if pool is None else pool)
        groups: dict[tuple, list[Item]] = {}
        for item in items:
            groups.setdefault(group_key(item), []).append(item)
        self.groups = list(groups.values())
        self.min_side, self.max_pixels = min_side, max_pixels
        self.cache = cache
        self.workers = default_workers() if workers is None else max(0, workers)
        self.workers = min(self.workers, len(self.groups))
        self.ahead = ahead or 4 * max(1, self.workers) + 16
        self.stats = PipelineStats(workers=self.workers)
        self._executor: futures.ProcessPoolExecutor | None = None
        self._pending: dict[futures.Future, list[Item]] = {}
        self._queue: Iterator[list[Item]] = iter(())
        self._retry: list[list[Item]] = []
        self._failed_now: list[tuple[list[Item], tuple]] = []
        self._tries: dict[int, int] = {}
        self._started = False

    def start(self) -> None:
        """Start the workers and the first images now (say, while a model loads), rather
        than at the first request. Iterating calls it when it was not called."""
        if self.workers == 0 or self._executor is not None or self._started:
            return
        self._started = True
        self._executor = self._new_executor()
        self._queue = iter(self.groups)
        self._fill()

    def _new_executor(self) -> futures.ProcessPoolExecutor:
        return futures.ProcessPoolExecutor(
            self.workers, mp_context=_context(), initializer=_watch_app, initargs=(os.getpid(),)
        )

    def _fill(self) -> None:
        folder = str(self.cache.folder) if self.cache is not None else None
        while len(self._pending) < self.ahead:
            executor = self._executor
            if executor is None:
                return
            group = self._retry.pop() if self._retry else next(self._queue, None)
            if group is None:
                return
            try:
                future = executor.submit(*self._job(group[0], folder))
            except futures.process.BrokenProcessPool:
                self._retry.append(group)
                self._failed_now.extend(self._restart_pool())
                continue
            self._pending[future] = group

    def _job(self, item: Item, folder: str | None) -> tuple:
        """The worker function and its arguments that prepare ``item``'s picture."""
        if self.mode in ("image", "text-only"):
            return prepare_one, item, self.min_side, self.max_pixels, folder
        from medrcube_desktop.evaluation.ablation import Ablation, swap_donors_indexed

        donors = swap_donors_indexed(item, self._donors, self.seed) if self._donors else ()
        ablation = Ablation(self.mode, self.seed, donors)
        return prepare_ablated, item, self.min_side, self.max_pixels, folder, ablation

    def _worker_died(self) -> bool:
        """Whether a worker of the pool has exited. The pool notices a dead worker itself,
        except when one dies while sending its result: then its manager waits forever
        for the rest of the message (CPython's ProcessPoolExecutor), so look."""
        processes = getattr(self._executor, "_processes", None) or {}
        return any(p.exitcode is not None for p in list(processes.values()))

    def _restart_pool(self) -> list[tuple[list[Item], tuple]]:
        """A worker died (killed, out of memory): a new pool takes the images that were
        in flight, once; an image in flight when a second pool broke fails (it is likely
        the one killing them). Returns the groups that fail now, with their outcome."""
        if self._executor is not None:
            _abandon(self._executor)
        self._executor = self._new_executor()
        failed = []
        for group in list(self._pending.values()):
            self._tries[id(group)] = self._tries.get(id(group), 0) + 1
            if self._tries[id(group)] >= 2:
                failed.append((group, (None, "failed", "image: the preparing process died "
                                       "twice on it (out of memory?)", 0.0)))  # fmt: skip
            else:
                self._retry.append(group)
        self._pending.clear()
        return failed

    def __iter__(self) -> Iterator[Prepared]:
        if self.workers == 0:
            folder = str(self.cache.folder) if self.cache is not None else None
            for group in self.groups:
                function, *args = self._job(group[0], folder)
                yield from self._hand_over(group, function(*args))
            return
        self.start()
        pending = self._pending
        try:
            while self._executor is not None:  # close() from another thread ends the loop
                self._fill()
                while self._failed_now:
                    yield from self._hand_over(*self._failed_now.pop())
                if not pending:
                    return
                started = time.perf_counter()
                done, _ = futures.wait(list(pending), 1.0, futures.FIRST_COMPLETED)
                self.stats.wait_s += time.perf_counter() - started
                if not done:
                    if self._worker_died():
                        self._failed_now.extend(self._restart_pool())
                    continue
                for future in done:
                    if future not in pending:
                        continue  # taken by a restart of the pool
                    if future.cancelled():
                        return  # closed
                    try:
                        outcome = future.result()
                    except futures.process.BrokenProcessPool:
                        self._failed_now.extend(self._restart_pool())
                        break
                    yield from self._hand_over(pending.pop(future), outcome)
        except RuntimeError:  # submit after close() from another thread
            if self._executor is not None:
                raise
        finally:
            self.close()

    def _hand_over(self, group: list[Item], outcome) -> Iterator[Prepared]:
        image, source, error, seconds = outcome
        self.stats.prepare_s += seconds
        self.stats.images += 1
        setattr(self.stats, source, getattr(self.stats, source) + 1)
        for item in group:
            yield Prepared(item, image, error)

    def close(self) -> None:
        """Stop the workers; images not handed over are dropped (safe to call twice)."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = getattr(executor, "_processes", None) or {}
        if any(p.exitcode is not None for p in list(processes.values())):
            _abandon(executor)  # a dead worker may have left its manager stuck
        else:
            executor.shutdown(wait=False, cancel_futures=True)


def _abandon(executor: futures.ProcessPoolExecutor) -> None:
    """Stop a pool one of whose workers died, so that nothing of it outlives it.

    A worker killed while it sends a result leaves the pool's manager thread in
    ``Connection.recv`` waiting for the rest of the message (CPython 3.11-3.13,
    ``concurrent/futures/process.py``, ``wait_result_broken_or_wakeup``), and the
    interpreter joins that thread at exit: the app would never exit. The last open end of
    the result pipe is this process's own, so once every worker is gone, closing it ends
    the wait with EOF, and the manager marks the pool broken and stops. ``_processes``
    and ``_result_queue`` are private; there is no public way to do this.
    """
    processes = list((getattr(executor, "_processes", None) or {}).values())
    results = getattr(executor, "_result_queue", None)  # shutdown() drops it
    for process in processes:
        if process.exitcode is None:
            process.kill()  # the survivors: nothing waits for them
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(5.0)
    writer = getattr(results, "_writer", None)
    if writer is not None and not writer.closed:
        writer.close()
