"""``import_results`` reading files ahead in worker processes (issue 25 item 1) stores
what the files read one by one in the storing thread store: the same runs (every column
but the time stamps), rows, problems, refusals and warnings, for files given by relative
paths (the workers read from the importing process's folder) and answers holding an API
key of the importing process's environment (the workers scrub its keys)."""

import json
import sqlite3

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation import prepare, results_import
from medrcube_desktop.evaluation.results_import import ResultsFile, import_results
from medrcube_desktop.evaluation.results_json import item_record
from medrcube_desktop.store import StudyStore

KEY = "sk-test-Zq8Xv2Lm4Np6Rt0Wy3Bc5Df7Gh9Jk1"  # a made-up key, set for this test only


def _stored(db_path):
    with sqlite3.connect(db_path) as conn:
        conn.row_factory = sqlite3.Row
        tables = {}
        for table, order in (("eval_runs", "name"), ("eval_responses", "run, item_id")):
            tables[table] = [
                {k: row[k] for k in row.keys() if k != "created_at"}  # noqa: SIM118
                for row in conn.execute(f"SELECT * FROM {table} ORDER BY {order}")  # noqa: S608
            ]
    return tables


def _files(tmp_path, items):
    """Six files: clean ones, one answer holding the key, bad records, an unreadable
    file, one of no item, and a second file of an earlier run name."""
    answers = ["B", "The answer is (A).", f"B, my key is {KEY}", "", "C. something", "A"]
    made = []
    for n in range(6):
        records = [
            {**item_record(item), "model_response": answers[(n + k) % len(answers)]}
            for k, item in enumerate(items)
        ]
        records += [{"id": "zz", "model_response": "B"}, 4, dict(records[0])]
        made.append(tmp_path / "res" / f"m{n}" / "results.json")
        made[-1].parent.mkdir(parents=True)
        made[-1].write_text(json.dumps(records, indent=1))
    made[3].write_text("[{not json")
    made[4].write_text(json.dumps([{"id": "nope", "model_response": "A"}]))
    plan = [ResultsFile(p.relative_to(tmp_path), f"m{n}") for n, p in enumerate(made)]
    plan[5] = ResultsFile(plan[5].path, "m1")  # refused: the run of m1's file
    return plan + [ResultsFile(made[2].relative_to(tmp_path), "m2b", text_only=True)]


def test_no_workers_without_an_idle_core_or_for_two_files(monkeypatch):
    files = [ResultsFile(f"{n}.json", str(n)) for n in range(3)]
    monkeypatch.setattr(results_import.os, "getloadavg", lambda: (7.5, 7.0, 6.0))
    monkeypatch.setattr(prepare, "default_workers", lambda: 2)
    assert results_import._idle_cores() == 2 - 7.5
    assert results_import._Reader.start(files, []) is None
    monkeypatch.setattr(results_import.os, "getloadavg", lambda: (0.5, 0.5, 0.5))
    assert results_import._Reader.start(files[:2], []) is None
    monkeypatch.setattr(results_import.sys, "frozen", True, raising=False)  # the bundle
    assert results_import._Reader.start(files, []) is None


def test_reading_ahead_stores_what_reading_in_turn_stores(bench, tmp_path, monkeypatch):
    items = load_benchmark(bench).items
    plan = _files(tmp_path, items)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    started = []
    real_start = results_import._Reader.start

    def start(files, its):
        reader = real_start(files, its)
        started.append(reader is not None)
        return reader

    monkeypatch.setattr(results_import._Reader, "start", staticmethod(start))
    monkeypatch.setattr(results_import, "_idle_cores", lambda: 2.0)  # a busy machine too
    done = {}
    for label in ("ahead", "in turn"):
        if label == "in turn":
            monkeypatch.setattr(results_import, "READ_AHEAD_FILES", 10**9)
        store = StudyStore(tmp_path / f"{label}.db")
        done[label] = import_results(store, plan, items)
        store.close()
    assert started == [True, False]
    assert done["ahead"] == done["in turn"]
    rows = done["ahead"]
    assert [row["stored"] for row in rows] == [len(items)] * 3 + [0, 0, 0, len(items)]
    assert len(rows[0]["problems"]) == 3  # the foreign id, the number, the repeat
    assert "not valid JSON" in str(rows[3]["error"])
    assert "none of its 1 records is an item" in str(rows[4]["error"])
    assert "is also the run of" in str(rows[5]["error"])
    assert rows[6]["warnings"]  # text-only, no image run of its model
    ahead, in_turn = _stored(tmp_path / "ahead.db"), _stored(tmp_path / "in turn.db")
    assert ahead == in_turn
    assert KEY not in json.dumps(ahead)
    assert any("my key is" in r["response"] for r in ahead["eval_responses"])


def test_a_worker_killed_mid_import_leaves_the_rest_read_in_turn(bench, tmp_path, monkeypatch):
    # a worker killed (out of memory, a signal) breaks the pool: the files it had, and
    # those not yet given to it, are read in the storing thread; the import goes on
    import time

    items = load_benchmark(bench).items
    made = []
    for n in range(6):
        records = [{**item_record(item), "model_response": "ABCD"[n % 4]} for item in items]
        made.append(tmp_path / f"r{n}.json")
        made[-1].write_text(json.dumps(records))
    plan = [ResultsFile(path, f"m{n}") for n, path in enumerate(made)]
    monkeypatch.setattr(results_import, "_idle_cores", lambda: 2.0)
    real_answers = results_import._Reader.answers
    killed = []

    def answers(self, n):
        if n == 1 and not killed:  # the first file's answers came; now kill the workers
            for process in list(self._pool._processes.values()):
                process.kill()
                killed.append(process.pid)
            deadline = time.monotonic() + 30
            while not self._pool._broken and time.monotonic() < deadline:
                time.sleep(0.02)
            assert self._pool._broken  # the pool knows: no more work is taken
        return real_answers(self, n)

    monkeypatch.setattr(results_import._Reader, "answers", answers)
    store = StudyStore(tmp_path / "study.db")
    rows = import_results(store, plan, items)
    assert killed
    assert [row["error"] for row in rows] == [None] * 6
    assert [row["stored"] for row in rows] == [len(items)] * 6
    for n in range(6):
        stored = store.responses(f"m{n}")
        assert {r.parsed_answer for r in stored.values()} == {"ABCD"[n % 4]}
    store.close()
