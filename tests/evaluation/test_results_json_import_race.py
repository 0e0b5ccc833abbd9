"""Two ``import-run``s into one run name at once (issue 21): exactly one stores its
file, the other is refused, never a run mixing two models' answers, never "already
stored" about the other file's answers. The check and the writes are one transaction."""

from __future__ import annotations

import json
import sys
import threading

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import StoreError
from medrcube_desktop.evaluation.results_json import import_run, item_record
from medrcube_desktop.store import StudyStore

ROUNDS = 12


@pytest.fixture
def items(bench):
    return load_benchmark(bench).items


def _file(path, items, letter):
    path.write_text(json.dumps([{**item_record(i), "model_response": letter} for i in items]))
    return path


def _race(db, items, jobs):
    """Run each ``(model, file)`` import in its own thread and connection, started
    together; return what each gave (an Imported or the StoreError)."""
    barrier = threading.Barrier(len(jobs))
    outcomes: dict[str, object] = {}

    def one(model, path):
        store = StudyStore(db)
        try:
            barrier.wait()
            outcomes[model] = import_run(store, "r", model, items, path)
        except StoreError as exc:
            outcomes[model] = exc
        finally:
            store.close()

    threads = [threading.Thread(target=one, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_two_imports_into_one_run_name_never_mix(items, tmp_path):
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: the old race shows
    try:
        a = _file(tmp_path / "a.json", items, "A")
        b = _file(tmp_path / "b.json", items, "B")
        for n in range(ROUNDS):
            db = tmp_path / f"round{n}.db"
            StudyStore(db).close()
            outcomes = _race(db, items, [("model-a", a), ("model-b", b)])
            won = [m for m, o in outcomes.items() if not isinstance(o, Exception)]
            lost = [m for m, o in outcomes.items() if isinstance(o, Exception)]
            assert len(won) == 1 and len(lost) == 1, (n, outcomes)
            assert outcomes[won[0]].stored == len(items) and outcomes[won[0]].already == 0
            assert "exists with other settings" in str(outcomes[lost[0]])
            store = StudyStore(db)
            try:
                run = store.eval_run("r")
                answers = {r.response for r in store.responses("r").values()}
            finally:
                store.close()
            assert run.model == won[0]
            assert answers == {"A" if won[0] == "model-a" else "B"}, (n, answers)
    finally:
        sys.setswitchinterval(old)


def test_a_file_of_the_same_bytes_under_another_name_warns_naming_the_run(items, tmp_path):
    """A hard link (or a copy) of one model's results imported as a second run."""
    import os

    a = _file(tmp_path / "a.json", items, "A")
    linked = tmp_path / "linked.json"
    os.link(a, linked)
    store = StudyStore(None)
    assert import_run(store, "gpt", "gpt", items, a).warnings == ()
    again = import_run(store, "gpt-copy", "gpt-copy", items, linked)
    assert again.stored == len(items)
    assert len(again.warnings) == 1
    assert "the same content" in again.warnings[0] and "run 'gpt'" in again.warnings[0]
    # a re-import resumes a run already stored (and warned about): no second warning
    assert import_run(store, "gpt", "gpt", items, a).warnings == ()
    assert import_run(store, "gpt-copy", "gpt-copy", items, linked).warnings == ()
