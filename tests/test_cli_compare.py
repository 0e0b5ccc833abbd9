"""``compare``: the leaderboard, voxel correlation and credibility of several runs."""

import json

import numpy as np

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.evaluation.test_compare_matrix import _run

TASKS = ("Modality Recognition", "View Identification", "Disease Diagnosis", "Organ Recognition")


def _bench(tmp_path):
    records = [
        item(f"i{n}", task=TASKS[n % 4], parts=("Chest", "Abdomen")[n // 8 % 2],
             question=f"question {n}?")
        for n in range(32)
    ]  # fmt: skip
    return write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


def test_compare_prints_one_json_document_and_writes_its_tables(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    store = StudyStore(db)
    rng = np.random.default_rng(0)
    skill = {"weak": 0.3, "mid": 0.6, "strong": 0.9, "best": 0.95}
    for run, p in skill.items():
        _run(store, run, {i.id: ("B" if rng.random() < p else "A") for i in items})
    store.close()
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(root), "--min-items", "2", "--json"]
    args += [a for run in skill for a in ("--run", run)] + ["--out", str(out)]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    board = result["leaderboard"]
    correct = {run: sum(1 for i in items if _answer(db, run, i.id) == "B") for run in skill}
    for run in skill:
        overall = board["runs"][run]["overall"]["Overall"]
        assert (overall["n"], overall["correct"]) == (32, correct[run])
    assert len(result["voxels"]["voxels"]) == 8  # 4 tasks x 2 regions, one modality
    assert {m["run"] for m in result["credibility"]["models"]} == set(skill)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["leaderboard.csv", "voxel_correlation.csv", "credibility.csv", "compare.json"]
    )


def _answer(db, run, item_id):
    store = StudyStore(db)
    try:
        return store.responses(run)[item_id].parsed_answer
    finally:
        store.close()


def test_compare_refuses_an_unknown_run_and_an_output_over_its_database(tmp_path, capsys):
    root = _bench(tmp_path)
    db = tmp_path / "s.db"
    StudyStore(db).close()
    assert main(["compare", "--db", str(db), "--dataset", str(root), "--run", "nope"]) == 2
    assert "no run named 'nope'" in capsys.readouterr().err
    args = ["compare", "--db", str(db), "--dataset", str(root), "--run", "x", "--out", str(db)]
    assert main(args) == 2
    assert "is the input" in capsys.readouterr().err
