"""``rescore`` and ``compare --release-diff`` from the command line, on the hand-written
release of tests/release_fixture.py."""

import csv
import json

import pytest

from medrcube_desktop.cli import main
from tests import release_fixture as rf


@pytest.fixture
def study(tmp_path):
    return rf.build(tmp_path)


def _json(capsys, *args):
    capsys.readouterr()
    assert main([*map(str, args), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_rescore_then_compare_the_releases(study, tmp_path, capsys):
    source, release, db = study
    tree = rf.tree_digest(source), rf.tree_digest(release)
    originals = {run: rf.table_rows(db, run) for run in ("alpha", "beta", "gamma", "gamma-text")}
    done = _json(capsys, "rescore", "--release", release, "--db", db)
    assert {r["run"]: (r["correct_after"], r["scored"]) for r in done["runs"]} == {
        "alpha@v2": (6, 8), "beta@v2": (5, 8), "gamma@v2": (4, 8), "gamma-text@v2": (4, 8),
    }  # fmt: skip
    again = _json(capsys, "rescore", "--release", release, "--db", db, "--runs", "alpha")
    assert [(r["run"], r["status"], r["added"]) for r in again["runs"]] == [("alpha@v2", "kept", 0)]
    assert main(["rescore", "--release", str(release), "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "alpha@v2 (kept, from alpha): accuracy 70.0% of 10 → 75.0% of 8" in text
    assert "need a new answer (1): qn" in text
    out = tmp_path / "diff"
    diff = _json(capsys, "compare", "--db", db, "--dataset", source, "--release-diff", release,
                 "--out", out, "--diff-bootstrap", 500, "--seed", 3)  # fmt: skip
    assert (diff["n_boot"], diff["seed"], diff["release"]["version"]) == (500, 3, "v2")
    assert {m["run"]: m["rank_change"] for m in diff["models"]} == {
        "gamma": -2,
        "alpha": 1,
        "beta": 0,
        "gamma-text": None,
    }
    written = json.loads((out / "release_diff.json").read_text())
    assert {k: v for k, v in written.items() if k != "meta"} == diff
    with open(out / "release_diff_models.csv", encoding="utf-8-sig") as f:
        rows = {r["run"]: r for r in csv.DictReader(f)}
    assert rows["gamma"]["to_wrong"] == "3" and rows["alpha"]["diff"] == "0.125"
    html = (out / "release_diff.html").read_text()
    assert "Release v2" in html and "+12.5" in html and "1 → 3 (-2)" in html
    # the text shows the same figures
    assert main(["compare", "--db", str(db), "--dataset", str(source), "--release-diff",
                 str(release), "--diff-bootstrap", "500", "--seed", "3"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    gamma = next(line for line in lines if line.startswith("gamma "))
    assert "80.0" in gamma and "50.0" in gamma and "-37.5" in gamma and "1 → 3 (-2)" in gamma
    assert {run: rf.table_rows(db, run) for run in originals} == originals
    assert (rf.tree_digest(source), rf.tree_digest(release)) == tree


@pytest.mark.parametrize(
    "args, message",
    [
        (["--runs", "nope"], "no run named 'nope'"),
        (["--release", "{source}"], "release.json: missing: not a release folder"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(study, capsys, args, message):
    source, release, db = study
    argv = ["rescore", "--release", str(release), "--db", str(db)]
    argv += [a.format(source=source) for a in args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_rescoring_a_rescored_run_is_refused_with_exit_2(study, capsys):
    source, release, db = study
    argv = ["rescore", "--release", str(release), "--db", str(db), "--runs"]
    assert main([*argv, "alpha"]) == 0
    capsys.readouterr()
    assert main([*argv, "alpha@v2"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "run 'alpha@v2' is already rescored on release 'v2'" in err
    assert rf.table_rows(db, "alpha@v2@v2") == []  # no run of that name, no answers


def test_release_diff_refuses_an_out_inside_the_source_or_the_release(study, tmp_path, capsys):
    source, release, db = study
    assert main(["rescore", "--release", str(release), "--db", str(db)]) == 0
    tree = rf.tree_digest(source), rf.tree_digest(release)
    argv = ["compare", "--db", str(db), "--dataset", str(source), "--release-diff", str(release)]
    for out, said in ((source / "sub", f"is inside the source benchmark {source}"),
                      (release / "sub", f"is inside the release {release}"),
                      (tmp_path, f"holds the source benchmark {source}")):  # fmt: skip
        capsys.readouterr()
        assert main([*argv, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"{out}: {said}" in err and err.count("\n") == 1
    assert not (source / "sub").exists() and not (release / "sub").exists()
    assert (rf.tree_digest(source), rf.tree_digest(release)) == tree


def test_rescore_refuses_a_missing_database_and_creates_none(study, tmp_path, capsys):
    source, release, db = study
    assert main(["rescore", "--release", str(release), "--db", str(tmp_path / "no.db")]) == 2
    assert "no such review database" in capsys.readouterr().err
    assert not (tmp_path / "no.db").exists()


def test_compare_release_diff_before_rescore_says_what_to_run(study, capsys):
    source, release, db = study
    argv = ["compare", "--db", str(db), "--dataset", str(source), "--release-diff", str(release)]
    assert main(argv) == 2
    assert "no run has been rescored on release 'v2'" in capsys.readouterr().err


def test_export_run_writes_a_rescored_run_as_any_run(study, tmp_path, capsys):
    source, release, db = study
    assert main(["rescore", "--release", str(release), "--db", str(db)]) == 0
    out = tmp_path / "results.json"
    argv = ["export-run", "--db", str(db), "--run", "alpha@v2", "--dataset", str(release)]
    assert main([*argv, "--out", str(out)]) == 0
    records = {r["id"]: r for r in json.loads(out.read_text())}
    # alpha answered B C D on k1 k2 k3 (keys now A C D); rt retired, qn waits
    assert set(records) == {"k1", "k2", "k3", "u1", "u2", "u3", "u4", "u5"}
    assert [records[i]["correct"] for i in ("k1", "k2", "k3", "u4")] == [False, True, True, False]
