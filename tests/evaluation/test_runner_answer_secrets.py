"""An endpoint that echoes the API key: the key reaches neither the database (main file
and WAL), nor what is shown, nor ``results.json``."""

import json
from pathlib import Path

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from tests.llm.fake_openai import FakeOpenAI, status, text

KEY = "sk-test-echoed-0123456789abcdef"


def database_bytes(db: Path) -> bytes:
    """The main file and whatever -wal / -shm file is beside it."""
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def test_an_echoed_key_is_scrubbed_from_answers_errors_and_exports(
    bench, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("ECHO_KEY", KEY)
    script = {
        "scan 0?": [text(f"B. (debug: Authorization: Bearer {KEY})")],
        "scan 1?": [status(500, f"upstream rejected Bearer {KEY}")],
    }
    db = tmp_path / "s.db"
    with FakeOpenAI(script) as server:
        args = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "openai"]
        args += ["--model", "m", "--base-url", server.base_url, "--api-key-env", "ECHO_KEY"]
        args += ["--run", "r1", "--max-attempts", "1", "--limit", "3", "--json"]
        store = StudyStore(db)  # held open: the WAL keeps what the run wrote
        try:
            assert main(args) == 1  # the 500 is one failed item
            assert server.requests_auth == f"Bearer {KEY}"  # the key was sent
            assert KEY.encode() not in database_bytes(db)
        finally:
            store.close()
    captured = capsys.readouterr()
    assert KEY not in captured.out and KEY not in captured.err
    answers = StudyStore(db).responses("r1")
    assert "[API key]" in answers["q00"].response and answers["q00"].parsed_answer == "B"
    assert KEY.encode() not in database_bytes(db)
    out = tmp_path / "results.json"
    export = ["export-run", "--db", str(db), "--run", "r1", "--dataset", str(bench)]
    assert main([*export, "--out", str(out)]) == 0
    assert KEY.encode() not in out.read_bytes()


def test_export_and_import_run_scrub_keys_the_environment_holds(bench, tmp_path, monkeypatch):
    """A database stored before answers were scrubbed, or another tool's results.json:
    the keys in the environment are taken out on the way through."""
    monkeypatch.setenv("MEDRCUBE_API_KEY_API_EXAMPLE_COM", KEY)
    db = tmp_path / "old.db"
    store = StudyStore(db)
    try:
        store.save_run(RunRecord(name="r1", engine="openai", model="m", params={},
                                 prompt_sha256="x", app_version="0", created_at="2024"))  # fmt: skip
        store.save_response(
            ResponseRecord(run="r1", item_id="q00", response=f"B {KEY}", parsed_answer="B",
                           parse_method="letter", correct=True, official_answer="B",
                           official_correct=True, created_at="2024")
        )  # fmt: skip
    finally:
        store.close()
    out = tmp_path / "results.json"
    export = ["export-run", "--db", str(db), "--run", "r1", "--dataset", str(bench)]
    assert main([*export, "--out", str(out)]) == 0
    assert KEY.encode() not in out.read_bytes()
    assert json.loads(out.read_text())[0]["response"] == "B [API key]"
    leaked = tmp_path / "leaked.json"
    records = json.loads(out.read_text())
    records[0]["response"] = records[0]["model_response"] = f"B {KEY}"
    leaked.write_text(json.dumps(records))
    db2 = tmp_path / "new.db"
    imp = ["import-run", "--db", str(db2), "--run", "i", "--model", "m", "--dataset", str(bench)]
    assert main([*imp, str(leaked)]) == 0
    assert KEY.encode() not in database_bytes(db2)


def test_a_key_echoed_in_another_case_or_cut_at_either_end_is_scrubbed_too():
    from medrcube_desktop.llm.keys import FRAGMENT_CHARS, KeyRedactor

    redactor = KeyRedactor(KEY)
    for echo in (KEY.upper(), KEY[:-1], KEY[3:], KEY[2:-2], KEY[:FRAGMENT_CHARS]):
        assert redactor.scrub(f"debug <{echo}> done") == "debug <[API key]> done", echo
    assert redactor.scrub(f"{KEY}{KEY.upper()} x") == "[API key] x"  # one span, merged
    for word in ("Straße", "ﬁle", "İstanbul"):  # their folds are longer: positions kept
        assert redactor.scrub(f"{word}: {KEY.upper()}.") == f"{word}: [API key]."
    near = KEY[: FRAGMENT_CHARS - 1]  # 11 characters of the key: text, not the key
    assert redactor.scrub(f"a {near} b") == f"a {near} b"
    assert KeyRedactor("sk-short", ["pass"]).scrub("Pass: pass SK-SHORT sk-short") == (
        "Pass: [API key] SK-SHORT [API key]"  # a short secret only as written
    )
