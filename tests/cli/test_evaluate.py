"""``evaluate``, ``export-run``, ``import-run`` and ``credibility`` from the command line."""

import json

import pytest

from medrcube_desktop.cli import main
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI, text

# one image; L items: modality (right), view (wrong); H items: disease (right), abnormity (wrong)
RECORDS = [
    ("m1", "Modality Recognition", "q-modality"),
    ("v1", "View Identification", "q-view"),
    ("d1", "Disease Diagnosis", "q-disease"),
    ("a1", "Abnormity Diagnosis", "q-abnormity"),
]
SCRIPT = {"q-modality": [text("B")], "q-view": [text("A")], "q-disease": [text("Answer: B")],
          "q-abnormity": [text("a normal scan")]}  # fmt: skip


@pytest.fixture
def bench(tmp_path):
    records = [item(i, task=task, question=f"{q}: which one?") for i, task, q in RECORDS]
    return write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def test_evaluate_export_import_and_credibility(bench, tmp_path, capsys):
    db = str(tmp_path / "s.db")
    with FakeOpenAI(SCRIPT) as server:
        args = ["evaluate", "--dataset", str(bench), "--db", db, "--engine", "openai"]
        args += ["--model", "m", "--base-url", server.base_url, "--run", "r1", "--json"]
        assert main(args) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["run"], summary["n"], summary["correct"]) == ("r1", 4, 2)
    assert summary["unparsed"] == 1 and summary["by_task"]["DD"]["accuracy"] == 1.0
    assert summary["random_baseline"] == pytest.approx(0.25)
    # paper preset: d1, a1 × m1 (right), v1 (wrong): A (d1,m1), D (d1,v1), B (a1,m1), C (a1,v1)
    cred = ["credibility", "--db", db, "--dataset", str(bench), "--run", "r1", "--json"]
    assert main(cred) == 0
    assert json.loads(capsys.readouterr().out) == {
        "group_a": 1, "group_b": 1, "group_c": 1, "group_d": 1, "total_pairs": 4,
        "luck_rate": 0.5, "rationality": 0.5, "shortcut_prob": 0.5, "acc_h": 0.5,
    }  # fmt: skip
    assert main(["credibility", "--db", db, "--dataset", str(bench), "--run", "r2"]) == 2
    assert "no run named 'r2' (runs: r1)" in capsys.readouterr().err
    out = tmp_path / "results.json"
    assert (
        main(["export-run", "--db", db, "--run", "r1", "--dataset", str(bench), "--out", str(out)])
        == 0
    )
    records = json.loads(out.read_text())
    assert {r["id"]: r["parse_method"] for r in records}["d1"] == "answer_phrase"
    assert all("model_response" in r and "correct" in r for r in records)
    # official preset from the file: View Identification ignored → A (d1,m1), B (a1,m1)
    capsys.readouterr()
    assert main(["credibility", "--results", str(out), "--preset", "official", "--json"]) == 0
    official = json.loads(capsys.readouterr().out)
    assert (official["group_a"], official["group_b"], official["total_pairs"]) == (1, 1, 2)
    assert official["shortcut_prob"] is None
    only_low = [r for r in records if r["id"] in ("m1", "v1")]  # no high-level item
    (tmp_path / "low.json").write_text(json.dumps(only_low))
    assert main(["credibility", "--results", str(tmp_path / "low.json")]) == 0
    assert (
        "no image holds both a prerequisite and a high-level item (paper preset, --preset paper)"
        in (capsys.readouterr().err)
    )
    db2 = str(tmp_path / "other.db")
    imp = [
        "import-run",
        "--db",
        db2,
        "--run",
        "imported",
        "--model",
        "m",
        "--dataset",
        str(bench),
        str(out),
    ]
    assert main(imp) == 0
    assert main(imp) == 0  # twice: nothing added the second time
    assert "run imported: already stored (4 answers): nothing to add" in capsys.readouterr().out
    assert main([*cred[:2], db2, *cred[3:6], "imported", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["group_d"] == 1


def test_engine_that_cannot_start_is_one_line_exit_2(bench, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # no vllm importable
    args = ["evaluate", "--dataset", str(bench), "--db", str(tmp_path / "s.db")]
    assert main([*args, "--engine", "vllm-server", "--model", "m"]) == 2
    assert "vLLM is not installed for" in capsys.readouterr().err
    assert main([*args, "--engine", "openai", "--model", "m"]) == 2
    assert "needs --base-url" in capsys.readouterr().err


def test_every_option_of_the_run_commands_says_what_it_is_in_help():
    """A new user reads ``evaluate --help``, ``export-run --help`` and ``credibility
    --help``: every flag there has a line of help (``--concurrency N`` with its default,
    ``--engine``, ``--model``, export-run's ``--run``/``--out``), none a bare metavar."""
    from medrcube_desktop.cli.app import commands

    parsers = commands()
    bare = {
        (name, action.option_strings[0])
        for name in ("evaluate", "export-run", "credibility")
        for action in parsers[name]._actions
        if action.option_strings and action.dest != "help" and not action.help
    }
    assert bare == set()
    assert "both" not in parsers["credibility"].format_help().split("--preset", 1)[1][:200]
    text = parsers["evaluate"].format_help()
    assert "requests in flight at once, over all endpoints (16)" in text
    assert "requests per item before it is stored as failed (3)" in text


def test_every_flag_and_argument_of_every_command_has_a_line_of_help():
    """``--help`` of any command: no flag or positional argument shown as a bare
    metavar (a new user found 19 across judge, study, assign, the exports, render)."""
    from medrcube_desktop.cli.app import commands

    bare = sorted(
        (name, action.option_strings[0] if action.option_strings else action.dest)
        for name, parser in commands().items()
        for action in parser._actions
        if action.dest != "help" and not action.help
    )
    assert bare == []
