"""Rescoring stored runs on a hand-written release (tests/release_fixture.py): every
count below is read off the fixture's table of answers, not computed by the code."""

import json
import sqlite3

import pytest

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.release_read import read_release
from medrcube_desktop.evaluation.rescore import is_rescored, rescore_runs, rescored_name
from medrcube_desktop.store import StudyStore
from tests import release_fixture as rf


@pytest.fixture
def study(tmp_path):
    return rf.build(tmp_path)


def _rows(db, run):
    conn = sqlite3.connect(db)
    try:
        return {
            r[0]: r[1:]
            for r in conn.execute(
                "SELECT item_id, parsed_answer, correct, official_answer, official_correct, "
                "response, created_at, latency_s, image FROM eval_responses WHERE run = ?",
                [run],
            )
        }
    finally:
        conn.close()


def test_a_key_change_flips_the_stored_letters_verdict_both_ways(study):
    source, release_dir, db = study
    store = StudyStore(db)
    summary = rescore_runs(store, read_release(release_dir))
    store.close()
    by_source = {r.source: r for r in summary.runs}
    alpha = by_source["alpha"]  # k1 B (right→wrong: key A), k2 C and k3 D (wrong→right)
    assert (alpha.key_changed, alpha.to_right, alpha.to_wrong) == (3, 2, 1)
    beta = by_source["beta"]  # k1 A (wrong→right), k2 B and k3 B (right→wrong)
    assert (beta.key_changed, beta.to_right, beta.to_wrong) == (3, 1, 2)
    rows = _rows(db, "alpha@v2")
    assert rows["k1"][:4] == ("B", 0, "B", 0)  # the stored letter, now wrong
    assert rows["k2"][:4] == ("C", 1, "C", 1)  # the public evaluator's reading too
    assert rows["k3"][:4] == ("D", 1, "D", 1)
    assert _rows(db, "alpha")["k2"][:4] == ("C", 0, "C", 0)  # the source keeps its verdict
    gamma = _rows(db, "gamma@v2")
    assert gamma["u5"][:2] == (None, 0)  # no letter: wrong, as before


def test_retired_answers_leave_the_denominator_and_needs_new_answer_is_listed(study):
    source, release_dir, db = study
    store = StudyStore(db)
    summary = rescore_runs(store, read_release(release_dir), ["alpha", "gamma"])
    store.close()
    alpha, gamma = summary.runs
    assert [r.run for r in summary.runs] == ["alpha@v2", "gamma@v2"]
    # alpha: right before on k1 rt qn u1 u2 u3 u5 = 7 of 10; after over k1-k3, u1-u5:
    # k2 k3 u1 u2 u3 u5 = 6 of 8 (rt retired, qn waits for a new answer)
    assert (alpha.correct_before, alpha.answered_before) == (7, 10)
    assert (alpha.correct_after, alpha.scored) == (6, 8)
    assert alpha.accuracy(True) == 0.75 and alpha.retired == 1
    assert alpha.needs_new_answer == ["qn"]
    # gamma: 8 of 10 before (rt A wrong, u5 unparsed); after 4 of 8 (k1-k3 now wrong, u5)
    assert (gamma.correct_before, gamma.correct_after, gamma.scored) == (8, 4, 8)
    assert set(_rows(db, "gamma@v2")) == {"k1", "k2", "k3", "u1", "u2", "u3", "u4", "u5"}
    data = summary.to_dict()
    assert data["release"]["version"] == "v2"
    assert data["runs"][0]["accuracy_before"] == 0.7 and data["runs"][0]["accuracy_after"] == 0.75


def test_the_rescored_run_is_a_run_like_any_other_linked_to_its_source(study):
    source, release_dir, db = study
    store = StudyStore(db)
    release = read_release(release_dir)
    rescore_runs(store, release)
    text = store.eval_run("gamma-text@v2")
    original = store.eval_run("gamma-text")
    assert is_rescored(text) and not is_rescored(original)
    assert (text.model, text.text_only, text.engine, text.prompt_sha256) == (
        "gamma",
        True,
        "openai",
        "p" * 64,
    )  # pairs with gamma's image run as the original did
    assert text.params == {
        "temperature": 0.0, "rescored_from": "gamma-text", "release_version": "v2",
        "release_dir": str(release_dir.resolve()), "release_digest": release.digest,
        "release_source": str(source.resolve()),
    }  # fmt: skip
    assert text.benchmark == str(release_dir.resolve())
    assert [r.name for r in store.rescored_runs()] == [
        rescored_name(n, "v2") for n in store.eval_run_names() if "@" not in n
    ]
    store.close()
    # every column but the verdicts is the source's (the answer and when it was given)
    old, new = _rows(db, "beta"), _rows(db, "beta@v2")
    for item_id, row in new.items():
        assert row[0] == old[item_id][0] and row[4:] == old[item_id][4:]


def test_rescoring_again_is_idempotent_and_the_sources_never_change(study):
    source, release_dir, db = study
    before = {run: rf.table_rows(db, run) for run in ("alpha", "beta", "gamma", "gamma-text")}
    tree = rf.tree_digest(source), rf.tree_digest(release_dir)
    store = StudyStore(db)
    first = rescore_runs(store, read_release(release_dir))
    rows = {r.run: _rows(db, r.run) for r in first.runs}
    second = rescore_runs(store, read_release(release_dir))
    store.close()
    assert [r.status for r in second.runs] == ["kept"] * 4
    assert [r.added for r in second.runs] == [0] * 4
    assert {r.run: _rows(db, r.run) for r in second.runs} == rows
    assert [r.to_dict() | {"status": "", "added": 0} for r in second.runs] == [
        r.to_dict() | {"status": "", "added": 0} for r in first.runs
    ]
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM eval_runs").fetchone()[0] == 8
    assert conn.execute("SELECT count(*) FROM eval_responses").fetchone()[0] == 4 * 10 + 4 * 8
    conn.close()
    assert {run: rf.table_rows(db, run) for run in before} == before
    assert (rf.tree_digest(source), rf.tree_digest(release_dir)) == tree


def test_a_changed_release_under_the_same_version_is_refused_then_replaced(study, tmp_path):
    source, release_dir, db = study
    store = StudyStore(db)
    rescore_runs(store, read_release(release_dir), ["alpha"])
    store.save_responses([rf.response("alpha@v2", "qn", "B", 3)])  # as --only-changed would
    changes = json.loads((release_dir / "changes.json").read_text())
    changes["items"][0]["changes"][0]["reason"] = "another reason"
    (release_dir / "changes.json").write_text(json.dumps(changes))
    changed = read_release(release_dir)
    with pytest.raises(MedRCubeError, match="another release of version 'v2'.*--replace"):
        rescore_runs(store, changed, ["alpha"])
    assert "qn" in store.answered_ids("alpha@v2")  # nothing written by the refusal
    summary = rescore_runs(store, changed, ["alpha"], replace=True)
    assert summary.runs[0].status == "replaced" and summary.runs[0].added == 8
    assert store.eval_run("alpha@v2").params["release_digest"] == changed.digest
    assert "qn" not in store.answered_ids("alpha@v2")  # deleted with the old rescoring
    store.close()


def test_a_kept_rescoring_keeps_the_new_answers_of_only_changed(study):
    source, release_dir, db = study
    store = StudyStore(db)
    release = read_release(release_dir)
    rescore_runs(store, release, ["beta"])
    store.save_responses([rf.response("beta@v2", "qn", "B", 3)])
    again = rescore_runs(store, release, ["beta"])
    assert again.runs[0].status == "kept" and again.runs[0].added == 0
    assert "qn" in store.answered_ids("beta@v2")
    store.close()


def test_unknown_runs_and_a_name_held_by_another_run_are_refused(study):
    source, release_dir, db = study
    store = StudyStore(db)
    release = read_release(release_dir)
    with pytest.raises(MedRCubeError, match="no run named 'nope'"):
        rescore_runs(store, release, ["nope"])
    from medrcube_desktop.store.evaluation import RunRecord

    store.save_run(RunRecord(name="alpha@v2", engine="openai", model="x", params={},
                             prompt_sha256="p", app_version="t", created_at="2026"))  # fmt: skip
    with pytest.raises(MedRCubeError, match="not made by rescoring run 'alpha'"):
        rescore_runs(store, release, ["alpha"], replace=True)
    assert store.eval_run_names().count("beta@v2") == 0  # refused before any write
    store.close()


def test_a_rescored_run_named_again_is_refused_not_rescored_twice(study):
    source, release_dir, db = study
    store = StudyStore(db)
    release = read_release(release_dir)
    rescore_runs(store, release, ["alpha"])
    names = store.eval_run_names()
    with pytest.raises(MedRCubeError, match=r"run 'alpha@v2' is already rescored on release "
                       r"'v2'.*twice; rescore its source run 'alpha' instead"):  # fmt: skip
        rescore_runs(store, release, ["alpha@v2"])
    with pytest.raises(MedRCubeError, match="'alpha@v2' is already rescored"):
        rescore_runs(store, release, ["beta", "alpha@v2"])  # refused before beta is written
    assert store.eval_run_names() == names and "alpha@v2@v2" not in names
    store.close()


def test_by_default_runs_answered_on_the_release_itself_are_skipped(study):
    from medrcube_desktop.store.evaluation import RunRecord

    source, release_dir, db = study
    store = StudyStore(db)
    store.save_run(RunRecord(name="fresh", engine="openai", model="fresh", params={},
                             prompt_sha256="p", app_version="t", created_at="2027",
                             benchmark=str(release_dir.resolve())))  # fmt: skip
    store.save_responses([rf.response("fresh", "k1", "A", 0)])
    summary = rescore_runs(store, read_release(release_dir))
    assert "fresh" not in [r.source for r in summary.runs]
    assert summary.skipped == ["fresh: answered on this release already"]
    store.close()
