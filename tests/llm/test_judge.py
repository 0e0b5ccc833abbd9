"""The real openai client against a local OpenAI-compatible server started by the test."""

import json
import logging
import threading
import time

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import JudgeError
from medrcube_desktop.llm.judge import JudgeConfig, run_judge
from medrcube_desktop.llm.prompt import load_prompt
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import ALL_PASS, FakeOpenAI, ok, refusal, status, text

KEY = "sk-test-LEAK-0123456789abcdef"
FAIL_13 = {**ALL_PASS, "1.3": 0}

SCRIPT = {
    "[valid]": [ok(FAIL_13)],
    "[malformed]": [text('{"1.1": 1, "1.2": ')],
    "[fenced]": [text('```json\n{"1.1":1}\n```')],
    "[two]": [text(json.dumps({**ALL_PASS, "2.2": 2}))],
    "[refusal]": [refusal("I can't assess medical content.")],
    "[ratelimit]": [status(429, "slow down", {"Retry-After": "1"}), ok()],
    "[server]": [status(500, "internal error"), status(503, "overloaded"), ok()],
    "[slow]": [ok(delay_s=2.0), ok()],
    "[recovers]": [text("Sure! Here is my evaluation."), ok(FAIL_13)],
}


def benchmark(tmp_path, markers):
    records = [
        item(f"i{n}", question=f"Which organ is outlined {marker}?")
        for n, marker in enumerate(markers)
    ]
    root = write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return load_benchmark(root).items


def config(server, **overrides):
    values = dict(
        model="gpt-5.1",
        base_url=server.base_url,
        concurrency=4,
        timeout_s=0.8,
        max_attempts=3,
    )
    values.update(overrides)
    return JudgeConfig(**values)


def test_every_item_ends_judged_or_failed_with_its_raw_text_and_a_resume_asks_nothing_again(
    tmp_path,
):
    items = benchmark(tmp_path, list(SCRIPT))
    store = StudyStore(tmp_path / "study.db")
    with FakeOpenAI(SCRIPT) as server:
        started = time.monotonic()
        summary = run_judge(items, store, config(server), KEY)
        elapsed = time.monotonic() - started
        first_requests = len(server.requests)
    assert elapsed >= 1.0  # the 429 waited for its Retry-After
    assert summary.judged == 5 and summary.skipped == 0
    failed = {f["item"]: f["error"] for f in summary.failed}
    assert sorted(failed) == ["i1", "i2", "i3", "i4"]
    assert "not a JSON object" in failed["i1"] and "2.2" in failed["i3"]
    assert "refused" in failed["i4"]
    ok_rows = store.conn.execute(
        "SELECT item_id, COUNT(*) FROM judgments WHERE status='ok' GROUP BY item_id"
    ).fetchall()
    assert sorted(ok_rows) == [("i0", 1), ("i5", 1), ("i6", 1), ("i7", 1), ("i8", 1)]
    judged = store.judgments("gpt-5.1")
    assert judged["i0"].scores == FAIL_13 and judged["i8"].scores == FAIL_13
    assert judged["i0"].prompt_sha256 == load_prompt().sha256
    assert judged["i0"].base_url == server.base_url and judged["i0"].prompt_tokens == 1000
    failures = store.failed_judgments("gpt-5.1")
    assert failures["i1"].raw_text == '{"1.1": 1, "1.2": '  # the raw answer, not a guess
    assert failures["i4"].raw_text == "I can't assess medical content."
    assert summary.requests == first_requests
    assert (
        summary.prompt_tokens
        == 1000
        * sum(
            1
            for r in server.requests
            if r["user"]  # every answered request reported usage
        )
        - 1000 * 4
    )  # the 429, 500, 503 and the timed-out request carried no usage

    with FakeOpenAI(SCRIPT) as again:  # resume: only the failed items are asked again
        resumed = run_judge(items, store, config(again), KEY)
    asked = "\n".join(again.user_messages())
    assert resumed.skipped == 5 and len(resumed.failed) == 4
    for done in ("[valid]", "[ratelimit]", "[server]", "[slow]", "[recovers]"):
        assert done not in asked


def test_an_endpoint_without_structured_output_gets_plain_json_requests(tmp_path):
    items = benchmark(tmp_path, ["[valid]", "[other]"])
    store = StudyStore(tmp_path / "study.db")
    with FakeOpenAI(SCRIPT, refuse_response_format=True) as server:
        summary = run_judge(items, store, config(server, concurrency=1), KEY)
    assert summary.judged == 2
    structured = [r["structured"] for r in server.requests]
    assert structured == [True, False, False]  # refused once, then plain for the run


def test_a_refused_key_stops_the_run_with_a_message_that_does_not_quote_it(tmp_path):
    items = benchmark(tmp_path, ["[denied]", "[valid]"])
    store = StudyStore(tmp_path / "study.db")
    script = {"[denied]": [status(401, f"Incorrect API key provided: {KEY}")]}
    with FakeOpenAI(script) as server, pytest.raises(JudgeError) as raised:
        run_judge(items, store, config(server, concurrency=1), KEY)
    assert "refused the API key" in str(raised.value) and KEY not in str(raised.value)


def test_cancel_stops_the_run_and_a_later_run_finishes_the_rest(tmp_path):
    items = benchmark(tmp_path, [f"[n{n}]" for n in range(12)])
    store = StudyStore(tmp_path / "study.db")
    cancel = threading.Event()

    def progress(record):
        if record.done >= 2:
            cancel.set()

    with FakeOpenAI(latency_s=0.2) as server:
        first = run_judge(items, store, config(server, concurrency=2), KEY, progress, cancel)
        assert first.cancelled and 2 <= first.judged < 12
        rest = run_judge(items, store, config(server, concurrency=4), KEY)
    assert rest.skipped == first.judged and rest.judged == 12 - first.judged
    assert len(store.judged_item_ids("gpt-5.1")) == 12


def test_the_api_key_is_in_no_database_log_or_export(tmp_path):
    from medrcube_desktop.llm.batch import export_batch_requests
    from medrcube_desktop.llm.exchange import export_judgments

    items = benchmark(tmp_path, ["[valid]", "[echo]", "[malformed]"])
    db = tmp_path / "study.db"
    store = StudyStore(db)
    log_file = tmp_path / "run.log"
    handler = logging.FileHandler(log_file)
    root = logging.getLogger()
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.DEBUG)  # the SDK's own debug logging included
    script = {**SCRIPT, "[echo]": [status(500, f"bad key {KEY} in header"), text(KEY)]}
    try:

        def progress(record):  # a careless log line during the run
            logging.getLogger("medrcube_desktop").error("run used key %s", KEY)

        with FakeOpenAI(script) as server:
            run_judge(items, store, config(server), KEY, progress)
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()
    export_judgments(store, "gpt-5.1", tmp_path / "out.jsonl")
    export_batch_requests(items, store, config(server), tmp_path / "batch.jsonl")
    store.close()
    assert log_file.read_text()  # something was logged
    for path in tmp_path.iterdir():
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path.name


def test_a_200_answer_that_is_not_json_is_a_stored_failure_and_the_run_goes_on(tmp_path):
    from tests.llm.fake_openai import Reply

    items = benchmark(tmp_path, ["[html]", "[valid]", "[other]"])
    store = StudyStore(tmp_path / "study.db")
    html = Reply(body=b"<html><body>Gateway</body></html>")
    with FakeOpenAI({"[html]": [html]}) as server:
        summary = run_judge(items, store, config(server, concurrency=1), KEY)
    assert summary.judged == 2 and [f["item"] for f in summary.failed] == ["i0"]
    assert "unreadable answer" in store.failed_judgments("gpt-5.1")["i0"].error


def test_an_answer_giving_a_rule_twice_is_refused():
    from medrcube_desktop.llm.parse import UnusableAnswer, parse_judgment

    with pytest.raises(UnusableAnswer, match="1.1 given twice"):
        parse_judgment('{"1.1":0,"1.1":1,"1.2":1,"1.3":1,"1.4":1,"2.1":1,"2.2":1,"2.3":1}')


def test_a_second_run_of_the_same_model_on_the_same_database_is_refused(tmp_path):
    import json as _json
    import os

    items = benchmark(tmp_path, ["[valid]"])
    store = StudyStore(tmp_path / "study.db")
    import socket

    alive = _json.dumps({"pid": os.getppid(), "host": socket.gethostname(), "since": "x"})
    store.set_state("judge.running:gpt-5.1", alive)
    from medrcube_desktop.store.locks import LockHeld

    with FakeOpenAI() as server, pytest.raises(LockHeld, match="already in progress"):
        run_judge(items, store, config(server), KEY)
    gone = _json.dumps({"pid": 2**22 + 12345, "host": socket.gethostname(), "since": "x"})
    store.set_state("judge.running:gpt-5.1", gone)  # a crashed run's claim
    with FakeOpenAI() as server:
        assert run_judge(items, store, config(server), KEY).judged == 1
    assert store.get_state("judge.running:gpt-5.1") is None  # released


def test_a_dead_endpoint_stops_the_run_naming_it_after_the_sdks_retries(tmp_path):
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    items = benchmark(tmp_path, [f"[n{n}]" for n in range(6)])
    store = StudyStore(tmp_path / "study.db")
    config = JudgeConfig(model="gpt-5.1", base_url=dead, concurrency=1, max_attempts=1)
    with pytest.raises(JudgeError, match=r"nothing answers at http://127\.0\.0\.1:\d+/v1"):
        run_judge(items, store, config, KEY)
    assert len(store.failed_judgments("gpt-5.1")) == 2  # the third call stopped the run
