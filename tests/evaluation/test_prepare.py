"""The picture workers of a run (evaluation/prepare.py): started as the app's own
process is, their allocator tuned (core/malloc_tuning; a spawned or forkserver worker
does not go through the app's entry point)."""

import os
import sys
from concurrent import futures

import pytest

from medrcube_desktop.core import malloc_tuning
from medrcube_desktop.evaluation import prepare


def tuned_before_asked() -> bool | None:
    """In the worker: what ``tune_malloc`` decided before this call (None: never called)."""
    return malloc_tuning._applied


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not malloc_tuning._is_glibc(), reason="glibc only"
)
def test_a_picture_worker_has_its_allocator_tuned(monkeypatch):
    for name in malloc_tuning.ENVIRONMENT + ("GLIBC_TUNABLES",):
        monkeypatch.delenv(name, raising=False)
    with futures.ProcessPoolExecutor(
        1, mp_context=prepare._context(), initializer=prepare._watch_app,
        initargs=(os.getpid(),),
    ) as pool:  # fmt: skip
        assert pool.submit(tuned_before_asked).result(timeout=120) is True
