"""Long answers: the stored answer is cut at a cap (saying so), and answers are parsed and stored off the engine's event loop,
so one long answer (or a database waiting for a lock) stalls no other request."""

import asyncio
import threading
import time

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.engines.base import EvalRequest
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.evaluation.parse import MAX_ANSWER_CHARS, cap_answer, parse_answer
from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record
from medrcube_desktop.store import StudyStore
from tests.benchmarks.bench_parse import OPTIONS, answer
from tests.llm.fake_openai import FakeOpenAI, text


def test_a_long_answer_without_an_answer_phrase_is_read_to_its_last_letter():
    # the slowest path (no answer phrase, every letter read); its speed is measured by
    # tests/benchmarks/bench_parse.py (128,000 characters: 63 s quadratic, ms linear),
    # which CI's report prints: no timing in a unit test
    assert parse_answer(answer(64_000), OPTIONS).letter == "B"


def test_a_long_answer_is_cut_at_the_cap_and_says_so():
    assert cap_answer("B") == "B"
    exact = "x" * MAX_ANSWER_CHARS
    assert cap_answer(exact) == exact
    long = answer(MAX_ANSWER_CHARS + 50_000)
    cut = cap_answer(long)
    assert cut.startswith(long[:MAX_ANSWER_CHARS])
    assert cut[MAX_ANSWER_CHARS:] == (
        f"\n[cut by MedRCube: the answer ran to {len(long):,} characters, the first "
        f"{MAX_ANSWER_CHARS:,} are kept]"
    )
    assert parse_answer(cut[MAX_ANSWER_CHARS:], OPTIONS).letter is None  # the note is no choice


def test_the_engine_stores_a_cut_answer_parsed_off_its_event_loop(bench, tmp_path):
    items = load_benchmark(bench).items[:3]
    store = StudyStore(tmp_path / "s.db")
    runaway = "The scan shows it plainly. " * 6_000 + "\nThe answer is B."
    caller = threading.get_ident()
    seen = []
    real_save = store.save_response

    def save(record):
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:
            on_loop = False
        seen.append((threading.get_ident() == caller, on_loop))
        return real_save(record)

    store.save_response = save
    with FakeOpenAI({"scan 0?": [text(runaway)]}) as server:
        engine = OpenAIEngine("m", [server.base_url], "not-needed", concurrency=2)
        record = run_record("long", engine, "m", ImageOptions(), str(bench))
        state = run_evaluation(items, store, record, engine)
    assert state.answered == 3 and state.failed == []
    assert seen == [(True, False)] * 3  # the caller's thread, no event loop running there
    stored = store.responses("long")["q00"].response
    assert len(runaway) > MAX_ANSWER_CHARS and stored == cap_answer(runaway)
    assert "[cut by MedRCube: the answer ran to" in stored


def test_a_slow_store_delays_no_request_in_flight(tmp_path):
    # on the event loop, one slow on_response held every request; off it, the others
    # are all answered while the first one is still being stored
    with FakeOpenAI() as server:
        engine = OpenAIEngine("m", [server.base_url], "not-needed", concurrency=4)
        requests = [EvalRequest(f"i{k}", f"scan {k}?") for k in range(8)]
        asked_when_first_stored = []

        def on_response(response):
            if not asked_when_first_stored:
                time.sleep(1.0)
                asked_when_first_stored.append(len(server.requests))

        engine.run(requests, on_response, threading.Event())
    assert asked_when_first_stored == [8]


class _Rambles:
    """An engine (as the hf or vllm one) that answers every item at great length."""

    name = "rambles"

    def describe(self):
        return {"engine": "rambles"}

    def library_versions(self):
        return {}

    def gpu(self):
        return ""

    def run(self, requests, on_response, cancel):
        from medrcube_desktop.evaluation.engines.base import EvalResponse

        for request in requests:
            on_response(EvalResponse(request.item_id, answer(MAX_ANSWER_CHARS + 10_000)))

    def close(self):
        pass


def test_every_engines_answer_and_an_imported_one_are_cut_at_the_cap(bench, tmp_path):
    import json

    from medrcube_desktop.evaluation.results_json import import_run

    items = load_benchmark(bench).items[:2]
    store = StudyStore(tmp_path / "s.db")
    record = run_record("r", _Rambles(), "m", ImageOptions(text_only=True), str(bench))
    run_evaluation(items, store, record, _Rambles(), ImageOptions(text_only=True))
    results = tmp_path / "results.json"
    long = answer(MAX_ANSWER_CHARS + 10_000)
    results.write_text(json.dumps([{"id": items[0].id, "model_response": long}]))
    import_run(store, "imported", "m", items, results)
    for run in ("r", "imported"):
        stored = [r.response for r in store.responses(run).values()]
        assert stored and all(len(t) < MAX_ANSWER_CHARS + 200 for t in stored)
        assert all(t.endswith("are kept]") for t in stored)
    store.close()
