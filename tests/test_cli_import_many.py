"""``import-run`` over many results.json files, then ``compare`` with a text-only run."""

import csv
import json

import numpy as np

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.compare.report import EXTRA_OUTPUTS, OUTPUTS
from medrcube_desktop.evaluation.results_json import item_record
from medrcube_desktop.store import StudyStore
from tests.test_cli_compare import _bench


def _results(path, items, p_right, seed):
    rng = np.random.default_rng(seed)
    records = [
        {**item_record(i), "model_response": "B" if rng.random() < p_right else "A"} for i in items
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records))
    return path


def test_a_folder_of_results_is_one_command_and_bad_files_are_named(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    results = tmp_path / "results"
    for n, model in enumerate(["gpt-5.1", "Lingshu-7B", "InternVL3_5-8B"]):
        _results(results / model / "results.json", items, 0.4 + 0.2 * n, n)
    (results / "broken").mkdir()
    (results / "broken" / "results.json").write_text("{not json")
    db = tmp_path / "s.db"
    base = ["import-run", "--db", str(db), "--dataset", str(root)]
    assert main([*base, "--json", str(results)]) == 1  # one bad file, the others stored
    out = json.loads(capsys.readouterr().out)
    by_run = {row["run"]: row for row in out["files"]}
    assert set(by_run) == {"gpt-5.1", "Lingshu-7B", "InternVL3_5-8B", "broken"}
    assert "broken/results.json: cannot read results" in by_run["broken"]["error"]
    assert out["stored"] == 3 * len(items) and out["run"] is None
    # again: the same files resume (nothing added); another file under a taken name is
    # refused for that file only, and --replace imports it afresh
    other = _results(tmp_path / "elsewhere" / "gpt-5.1.json", items, 0.9, 7)
    text = _results(tmp_path / "t" / "Lingshu-7B-text.json", items, 0.3, 8)
    assert main([*base, str(other), str(text), "--text-only"]) == 1
    err = capsys.readouterr().err
    assert "gpt-5.1.json: run 'gpt-5.1' exists with other settings" in err and "--replace" in err
    store = StudyStore(db)
    assert store.eval_run("Lingshu-7B-text").text_only is True
    store.close()
    assert main([*base, "--replace", "--run", "gpt-5.1", "--model", "gpt-5.1", str(other)]) == 0
    assert f"{len(items)} responses stored in run gpt-5.1" in capsys.readouterr().out
    assert main([*base, "--run", "x", str(other), str(text)]) == 2
    assert "--run and --model name one file's run" in capsys.readouterr().err


def test_compare_shows_the_text_only_drop_and_the_leakage(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    base = ["import-run", "--db", str(db), "--dataset", str(root)]
    files = [_results(tmp_path / f"{m}.json", items, p, n)
             for n, (m, p) in enumerate([("gpt-5.1", 0.5), ("Lingshu-7B", 0.7), ("qwen", 0.9)])]  # fmt: skip
    assert main([*base, *map(str, files)]) == 0
    text = _results(tmp_path / "lt" / "results.json", items, 0.4, 9)
    assert main([*base, "--run", "lt", "--model", "Lingshu-7B", "--text-only", str(text)]) == 0
    capsys.readouterr()
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(root), "--min-items", "2"]
    args += ["--leakage", "--preset", "both", "--bootstrap", "200", "--out", str(out), "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["order"] == ["gpt-5.1", "Lingshu-7B", "lt", "qwen"]
    (pair,) = result["text_only"]
    assert (pair["image_run"], pair["text_run"]) == ("Lingshu-7B", "lt")
    assert pair["rows"][0]["voxel"] == "Overall"
    assert {row["item"] for row in result["leakage"]} <= {i.id for i in items}
    assert len(result["leakage"]) == pair["rows"][0]["without_image"] * 32
    assert set(result["credibility_by_preset"]) == {"paper", "official"}
    model = result["credibility"]["models"][0]
    assert model["preset"] == "paper" and model["n_boot"] == 200
    assert model["acc_h_low"] <= model["acc_h"] <= model["acc_h_high"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*OUTPUTS, *EXTRA_OUTPUTS])
    # both presets' rows, the paper's first
    with (out / "credibility.csv").open(newline="") as f:
        presets = [row["preset"] for row in csv.DictReader(f)]
    assert presets == ["paper"] * 4 + ["official"] * 4
    assert "preset" in (out / "credibility.csv").read_text().splitlines()[0]
