"""import-judgments: a bad line, even one that is not UTF-8, costs only itself."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from tests.llm.fake_openai import ALL_PASS


def test_an_undecodable_line_is_listed_and_the_other_lines_stored(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    path.write_bytes(
        b"\xef\xbb\xbf"  # a byte-order mark is no problem
        + json.dumps({"id": "x", **ALL_PASS}).encode()
        + b"\r\n"
        + b'{"id": "caf\xe9", "1.1": 1}\n'  # Latin-1, not UTF-8
        + json.dumps({"id": "z", **ALL_PASS}).encode()
        + b"\n"
    )
    db = tmp_path / "s.db"
    capsys.readouterr()
    args = ["import-judgments", "--db", str(db), "--model", "m", str(path), "--json"]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert f"{path} line 2: not UTF-8 text (byte 0xe9)" in captured.err
    assert json.loads(captured.out)["imported"] == 2
    assert set(StudyStore(db).judgments("m")) == {"x", "z"}
    assert main(args) == 1  # importing again adds nothing
    assert json.loads(capsys.readouterr().out)["skipped"] == 2


def test_a_bad_judgment_line_names_its_item(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps({"id": "y", **ALL_PASS, "1.4": 2}) + "\n")
    assert (
        main(["import-judgments", "--db", str(tmp_path / "s.db"), "--model", "m", str(path)]) == 1
    )
    assert f"{path} line 1 item y: not a judgment" in capsys.readouterr().err


def test_an_llm_line_that_says_cannot_judge_is_told_only_experts_do(tmp_path, capsys):
    path = tmp_path / "j.jsonl"
    path.write_text(json.dumps({"id": "y", **ALL_PASS, "1.4": " N/A "}) + "\n")
    assert (
        main(["import-judgments", "--db", str(tmp_path / "s.db"), "--model", "m", str(path)]) == 1
    )
    err = capsys.readouterr().err
    assert f"{path} line 1 item y: not a judgment: 1.4: " in err
    assert (
        'an LLM judgment is 0 or 1 on every rule: 1.4 says "cannot judge", which only an '
        "expert does: import-reviews)" in err
    )
