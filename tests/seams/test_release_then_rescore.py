"""Seam: a release written by ``review.release.write_release`` (the ``release``
command's writer) read by ``rescore`` and ``compare --release-diff``: the corrections of
tests/release_fixture.py made as accepted proposals give the figures the hand-written
release gives, and neither the source nor the stored runs change."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.evaluation.release_read import read_release
from medrcube_desktop.review.release import write_release
from tests import release_fixture as rf
from tests.review.release_fixture import accepted


def _corrections():
    return [
        accepted("k1", "answer_key", {"answer": "A"}, rule="1.3", source_file="ds1/test.json"),
        accepted("k2", "answer_key", {"answer": "C"}, rule="1.3", source_file="ds1/test.json"),
        accepted("k3", "answer_key", {"answer": "D"}, rule="2.1", source_file="ds1/test.json"),
        accepted("rt", "retire", {}, rule="1.1", source_file="ds1/test.json"),
        accepted("qn", "question_text", {"text": "Which modality acquired this scan?"},
                 rule="1.2", source_file="ds1/test.json"),
    ]  # fmt: skip


def test_a_real_release_rescored_gives_the_hand_counts(tmp_path, capsys):
    source = rf.write_source(tmp_path / "source", images=True)
    db = rf.write_runs(tmp_path / "study.db", source)
    tree = rf.tree_digest(source)
    runs = {run: rf.table_rows(db, run) for run in ("alpha", "beta", "gamma", "gamma-text")}
    out = tmp_path / "v2"
    write_release(source, _corrections(), out, "v2")
    release = read_release(out)
    assert release.version == "v2" and release.retired == {"rt"}
    assert release.needs_new_answer == ["qn"]
    assert {i: c.answer_after for i, c in release.changes.items() if c.key_changed} == rf.NEW_KEY
    capsys.readouterr()
    assert main(["rescore", "--release", str(out), "--db", str(db), "--json"]) == 0
    done = {r["source"]: r for r in json.loads(capsys.readouterr().out)["runs"]}
    assert {s: (r["correct_before"], r["correct_after"], r["scored"]) for s, r in done.items()} == {
        "alpha": (7, 6, 8), "beta": (7, 5, 8), "gamma": (8, 4, 8), "gamma-text": (7, 4, 8),
    }  # fmt: skip
    assert main(["compare", "--db", str(db), "--dataset", str(source), "--release-diff",
                 str(out), "--json"]) == 0  # fmt: skip
    models = {m["run"]: m for m in json.loads(capsys.readouterr().out)["models"]}
    assert models["gamma"]["rank_change"] == -2 and models["alpha"]["diff"] == 0.125
    assert {run: rf.table_rows(db, run) for run in runs} == runs
    assert rf.tree_digest(source) == tree
