"""``evaluate --only-changed``: a rescored run answers just the items its release marked
"needs a new answer", resuming the run ``rescore`` made (tests/release_fixture.py)."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.store import StudyStore
from tests import release_fixture as rf
from tests.llm.fake_openai import FakeOpenAI, text

SCRIPT = {"What is the imaging modality": [text("B")], "Which modality acquired": [text("C")]}


def _evaluate(server, dataset, db, run, *extra):
    return ["evaluate", "--dataset", str(dataset), "--db", str(db), "--engine", "openai",
            "--model", "m", "--base-url", server.base_url, "--run", run, "--text-only",
            *extra, "--json"]  # fmt: skip


def test_only_changed_answers_just_the_items_needing_a_new_answer(tmp_path, capsys):
    source = rf.write_source(tmp_path / "source", images=True)
    release = rf.write_release(tmp_path / "release", source, images=True)
    db = tmp_path / "s.db"
    tree = rf.tree_digest(source), rf.tree_digest(release)
    with FakeOpenAI(SCRIPT) as server:
        assert main(_evaluate(server, source, db, "m1")) == 0
        assert len(server.requests) == 10
    capsys.readouterr()
    assert main(["rescore", "--release", str(release), "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["needs_new_answer"] == ["qn"]
    before = rf.table_rows(db, "m1")
    with FakeOpenAI(SCRIPT) as server:
        assert main(_evaluate(server, release, db, "m1@v2", "--only-changed")) == 0
        assert [m for m in server.user_messages() if "modality" in m] == [
            m for m in server.user_messages()
        ]
        assert len(server.requests) == 1 and "Which modality acquired" in server.user_messages()[0]
    summary = json.loads(capsys.readouterr().out)
    # the whole release counted: k1 k2 k3 u1-u5 answered B before (u* right: 5) and
    # qn answered C now (wrong): 5 of 9
    assert (summary["run"], summary["n"], summary["correct"]) == ("m1@v2", 9, 5)
    store = StudyStore(db)
    assert store.responses("m1@v2")["qn"].parsed_answer == "C"
    assert store.eval_run("m1@v2").params["rescored_from"] == "m1"
    store.close()
    with FakeOpenAI(SCRIPT) as server:  # again: nothing left to answer
        assert main(_evaluate(server, release, db, "m1@v2", "--only-changed")) == 0
        assert server.requests == []
    assert rf.table_rows(db, "m1") == before
    assert (rf.tree_digest(source), rf.tree_digest(release)) == tree


def test_only_changed_refuses_a_run_rescore_did_not_make(tmp_path, capsys):
    source = rf.write_source(tmp_path / "source", images=True)
    release = rf.write_release(tmp_path / "release", source, images=True)
    db = rf.write_runs(tmp_path / "s.db", source)
    with FakeOpenAI(SCRIPT) as server:
        assert main(_evaluate(server, release, db, "alpha", "--only-changed")) == 2
        assert "run 'alpha' was not made by `rescore`" in capsys.readouterr().err
        assert main(["rescore", "--release", str(release), "--db", str(db), "--json"]) == 0
        assert main(_evaluate(server, source, db, "alpha@v2", "--only-changed")) == 2
        assert "release.json: missing" in capsys.readouterr().err
        assert server.requests == []


def test_only_changed_takes_the_runs_engine_settings_and_counts_what_it_held(tmp_path, capsys):
    """No --engine, --model, --text-only, --max-tokens: the rescored run's own settings
    (the user retyped them all); an operational flag (--concurrency) may differ; one
    that changes answers, given with another value, is refused naming both values. The
    summary counts the 8 answers rescore kept as held before this run (it said 0)."""
    source = rf.write_source(tmp_path / "source", images=True)
    release = rf.write_release(tmp_path / "release", source, images=True)
    db = tmp_path / "s.db"
    with FakeOpenAI(SCRIPT) as server:
        assert main(_evaluate(server, source, db, "m1", "--max-tokens", "300")) == 0
    assert main(["rescore", "--release", str(release), "--db", str(db), "--json"]) == 0
    capsys.readouterr()
    bare = ["evaluate", "--only-changed", "--run", "m1@v2", "--dataset", str(release),
            "--db", str(db)]  # fmt: skip
    with FakeOpenAI(SCRIPT) as server:
        url = ["--base-url", server.base_url]
        assert main([*bare, *url, "--max-tokens", "256", "--engine", "openai"]) == 2
        err = capsys.readouterr().err
        assert "max_tokens: the run has 300, you gave 256" in err and "engine" not in err.split(
            "settings;")[1]  # fmt: skip
        assert main([*bare, *url, "--engine", "hf"]) == 2
        assert "engine: the run has 'openai', you gave 'hf'" in capsys.readouterr().err
        assert server.requests == []
        assert main([*bare, *url, "--concurrency", "2"]) == 0
        assert len(server.requests) == 1 and "Which modality acquired" in server.user_messages()[0]
        assert server.requests[0]["body"]["max_tokens"] == 300
    out = capsys.readouterr().out
    assert "run m1@v2: 9 answered (8 before this run)" in out
    store = StudyStore(db)
    assert store.eval_run("m1@v2").params["max_tokens"] == 300
    store.close()


def test_evaluate_without_engine_or_model_names_them(tmp_path, capsys):
    source = rf.write_source(tmp_path / "source", images=True)
    assert main(["evaluate", "--dataset", str(source), "--db", str(tmp_path / "s.db")]) == 2
    assert "required: --engine, --model" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists()
