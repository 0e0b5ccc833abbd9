"""An answer an endpoint sends with half of a UTF-16 surrogate pair (``\\ud83d``: an
emoji cut at the token limit, valid JSON, no UTF-8): stored with U+FFFD in its place and
said, as ``import-run`` does (``results_json``); before, the database's UTF-8 refused the
whole answer and the item was lost to the run."""

import logging

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.evaluation.runner import ImageOptions, run_evaluation, run_record
from medrcube_desktop.store import StudyStore
from tests.llm.fake_openai import FakeOpenAI, text


def test_an_answer_with_half_a_character_is_stored_whole_with_a_replacement(
    bench, tmp_path, caplog
):
    items = load_benchmark(bench).items[:2]
    store = StudyStore(tmp_path / "s.db")
    with FakeOpenAI({"scan 0?": [text("The answer is B \ud83d")]}) as server:
        engine = OpenAIEngine("m", [server.base_url], "not-needed", concurrency=1)
        record = run_record("half", engine, "m", ImageOptions(), str(bench))
        with caplog.at_level(logging.WARNING):
            state = run_evaluation(items, store, record, engine)
    assert state.answered == 2 and state.failed == []
    stored = store.responses("half")["q00"]
    assert stored.response == "The answer is B \ufffd" and stored.parsed_answer == "B"
    said = [r.getMessage() for r in caplog.records if "half of a UTF-16" in r.getMessage()]
    assert said == [
        "item q00 of run half: the answer holds half of a UTF-16 surrogate pair (a "
        "character cut in two, as an answer cut off at its token limit has); stored with "
        "U+FFFD in its place"
    ]
