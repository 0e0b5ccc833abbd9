"""``judge``, ``import-judgments`` and ``export-judgments`` from the command line."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import ALL_PASS, FakeOpenAI, ok, text

FAIL_22 = {**ALL_PASS, "2.2": 0}


def bench(tmp_path):
    records = [
        item("a", question="Which organ is outlined [fail22]?"),
        item("b", question="Which organ is outlined [broken]?"),
        item("c", question="Which organ is outlined?"),
    ]
    return write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def test_judge_json_summary_resume_and_jsonl_round_trip(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-cli-abcdefgh")
    root, db = bench(tmp_path), tmp_path / "study.db"
    script = {"[fail22]": [ok(FAIL_22)], "[broken]": [text("no idea")]}
    with FakeOpenAI(script) as server:
        args = ["judge", "--dataset", str(root), "--db", str(db), "--model", "m1"]
        args += ["--base-url", server.base_url, "--max-attempts", "2", "--json"]
        assert main(args) == 1  # one item failed
        out, err = capsys.readouterr()
        summary = json.loads(out)
        assert summary["judged"] == 2 and summary["skipped"] == 0
        assert summary["failed"][0]["item"] == "b" and "b: unusable answer" in err
        assert summary["tokens"] == {"prompt": 4000, "completion": 80}  # 4 answers
        assert main([*args, "--limit", "1"]) == 0  # "a" is done: nothing to ask
        assert json.loads(capsys.readouterr().out)["skipped"] == 1
    out_file = tmp_path / "j.jsonl"
    assert main(["export-judgments", "--db", str(db), "--model", "m1", "--out", str(out_file)]) == 0
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert lines == [{"id": "a", **FAIL_22}, {"id": "c", **ALL_PASS}]  # failures are not exported
    other = tmp_path / "other.db"
    imp = ["import-judgments", "--db", str(other), "--model", "m1", str(out_file), "--json"]
    capsys.readouterr()
    assert main(imp) == 0 and json.loads(capsys.readouterr().out)["imported"] == 2
    assert main(imp) == 0 and json.loads(capsys.readouterr().out)["skipped"] == 2
    assert StudyStore(other).judgments("m1")["a"].scores == FAIL_22


def test_import_reports_bad_lines_by_number_and_keeps_the_good_ones(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    path.write_text(
        json.dumps({"id": "x", **ALL_PASS})
        + "\n"
        + json.dumps({"id": "y", **ALL_PASS, "1.4": 2})
        + "\nnot json\n"
        + json.dumps({"id": "z", **ALL_PASS, "1.1": True})
        + "\n"
    )
    db = tmp_path / "s.db"
    assert main(["import-judgments", "--db", str(db), "--model", "m", str(path)]) == 1
    err = capsys.readouterr().err
    assert "line 2" in err and "line 3" in err and "line 4" in err
    assert set(StudyStore(db).judgments("m")) == {"x"}


def test_batch_request_file_and_output_import(tmp_path, capsys):
    root, db = bench(tmp_path), tmp_path / "study.db"
    requests = tmp_path / "batch.jsonl"
    args = ["judge", "--dataset", str(root), "--db", str(db), "--model", "gpt-5.1"]
    assert main([*args, "--batch-out", str(requests), "--json"]) == 0
    lines = [json.loads(line) for line in requests.read_text().splitlines()]
    assert [line["custom_id"] for line in lines] == ["a", "b", "c"]
    assert lines[0]["url"] == "/v1/chat/completions" and lines[0]["method"] == "POST"
    body = lines[0]["body"]
    assert body["model"] == "gpt-5.1" and body["response_format"]["json_schema"]["strict"]
    assert "[fail22]" in body["messages"][1]["content"]
    answers = {"a": json.dumps(FAIL_22), "b": "```json\n{}\n```", "c": json.dumps(ALL_PASS)}
    output = tmp_path / "batch_output.jsonl"
    output.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"batch_req_{n}",
                    "custom_id": line["custom_id"],
                    "response": {
                        "status_code": 200,
                        "body": {
                            "choices": [{"message": {"content": answers[line["custom_id"]]}}],
                            "usage": {"prompt_tokens": 900, "completion_tokens": 15},
                        },
                    },
                    "error": None,
                }
            )
            + "\n"
            for n, line in enumerate(lines)
        )
    )
    imp = ["import-judgments", "--db", str(db), "--model", "gpt-5.1", "--batch", str(output)]
    assert main(imp) == 1  # "b" answered with a fenced block: stored as failed, listed
    assert "item b" in capsys.readouterr().err
    store = StudyStore(db)
    judged = store.judgments("gpt-5.1")
    assert judged["a"].scores == FAIL_22 and judged["a"].source == "batch"
    assert store.failed_judgments("gpt-5.1")["b"].raw_text == "```json\n{}\n```"
    assert main([*args, "--batch-out", str(requests)]) == 0  # only "b" is left to ask
    assert [json.loads(x)["custom_id"] for x in requests.read_text().splitlines()] == ["b"]


def test_importing_a_file_twice_adds_nothing_even_with_two_lines_per_item(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    path.write_text(
        json.dumps({"id": "x", **ALL_PASS}) + "\n" + json.dumps({"id": "x", **FAIL_22}) + "\n"
    )
    db = tmp_path / "s.db"
    args = ["import-judgments", "--db", str(db), "--model", "m", str(path), "--json"]
    assert main(args) == 0 and json.loads(capsys.readouterr().out)["imported"] == 2
    assert main(args) == 0 and json.loads(capsys.readouterr().out)["imported"] == 0
    assert StudyStore(db).judgments("m")["x"].scores == FAIL_22


def test_a_malformed_batch_line_is_a_problem_not_a_crash(tmp_path, capsys):
    output = tmp_path / "out.jsonl"
    output.write_text(
        json.dumps({"custom_id": "a", "response": {"status_code": 200, "body": "a string"}})
        + "\n"
        + json.dumps({"custom_id": "b", "response": "str"})
        + "\n"
    )
    db = tmp_path / "s.db"
    args = ["import-judgments", "--db", str(db), "--model", "m", "--batch", str(output)]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "line 1 item a" in err and "line 2 item b" in err


def test_a_batch_line_that_is_not_utf8_costs_only_itself(tmp_path, capsys):
    good = {
        "custom_id": "a",
        "response": {
            "status_code": 200,
            "body": {"choices": [{"message": {"content": json.dumps(ALL_PASS)}}]},
        },
        "error": None,
    }
    output = tmp_path / "out.jsonl"
    output.write_bytes(b'{"custom_id": "b\xff"}\n' + json.dumps(good).encode() + b"\n")
    db = tmp_path / "s.db"
    args = ["import-judgments", "--db", str(db), "--model", "m", "--batch", str(output)]
    assert main([*args, "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["imported"] == 1 and f"{output} line 1:" in err
    assert StudyStore(db).judgments("m")["a"].scores == ALL_PASS
