"""``import-run`` over many results.json files, then ``compare`` with a text-only run."""

import csv
import json

import numpy as np

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.compare.report import EXTRA_OUTPUTS, OUTPUTS
from medrcube_desktop.evaluation.results_json import item_record
from medrcube_desktop.store import StudyStore
from tests.cli.test_compare import _bench


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
    # three image runs: Spearman rho over three points is undefined (issue 21), so no CSV
    assert result["voxels_undefined"].startswith("fewer than 4 distinct points (3 image runs")
    assert sorted(p.name for p in out.iterdir()) == sorted(
        n for n in [*OUTPUTS, *EXTRA_OUTPUTS] if n != "voxel_correlation.csv"
    )
    # both presets' rows, the paper's first
    with (out / "credibility.csv").open(newline="") as f:
        presets = [row["preset"] for row in csv.DictReader(f)]
    assert presets == ["paper"] * 4 + ["official"] * 4
    assert "preset" in (out / "credibility.csv").read_text().splitlines()[0]


def test_same_named_results_of_two_folders_stay_apart_and_empty_files_delete_nothing(
    tmp_path, capsys
):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    base = ["import-run", "--db", str(db), "--dataset", str(root)]
    jan = _results(tmp_path / "jan" / "gpt" / "results.json", items, 0.9, 1)
    feb = _results(tmp_path / "feb" / "gpt" / "results.json", items, 0.1, 2)
    assert main([*base, str(jan)]) == 0
    assert main([*base, str(feb)]) == 2
    err = capsys.readouterr().err
    assert f"{feb}: run 'gpt' exists with other settings (source file differ)" in err
    assert str(jan.resolve()) in err and str(feb.resolve()) in err
    # the same file again, by another spelling too: nothing to add, and no bar
    again = tmp_path / "jan" / "gpt" / ".." / "gpt" / "results.json"
    assert main([*base, str(again), str(jan)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"run gpt: already stored ({len(items)} answers): nothing to add\n"
    empty = tmp_path / "e" / "gpt.json"
    empty.parent.mkdir()
    empty.write_text("[]")
    for extra in ([], ["--replace"]):
        assert main([*base, *extra, str(empty)]) == 2
        assert "gpt.json: empty: no record (nothing imported)" in capsys.readouterr().err
    store = StudyStore(db)
    assert store.eval_run_names() == ["gpt"] and len(store.responses("gpt")) == len(items)
    store.close()
    assert main([*base, "--run", " ", str(jan)]) == 2
    assert "--run: an empty name" in capsys.readouterr().err


def test_progress_names_runs_and_no_bar_is_drawn_when_no_file_is_usable(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    base = ["import-run", "--db", str(tmp_path / "s.db"), "--dataset", str(root)]
    for model in ("a", "b"):
        (tmp_path / "bad" / model).mkdir(parents=True)
        (tmp_path / "bad" / model / "results.json").write_text("[]")
    assert main([*base, str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert "file/s" not in err  # no bar at all
    for model in ("m1", "m2"):
        _results(tmp_path / "good" / model / "results.json", items, 0.5, 3)
    assert main([*base, str(tmp_path / "good")]) == 0
    err = capsys.readouterr().err
    # named by run, and no stray empty bar ("0file [00:00, ?file/s]"; a rate such as
    # "485.40file/s" is fine)
    assert "at=m2" in err and "at=results.json" not in err and "0file [" not in err


def test_text_only_files_among_image_runs_find_their_model(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    base = ["import-run", "--db", str(db), "--dataset", str(root)]
    text = _results(tmp_path / "Lingshu-7B-text" / "results.json", items, 0.3, 4)
    lonely = _results(tmp_path / "qwen_text_only.json", items, 0.3, 5)
    image = _results(tmp_path / "Lingshu-7B" / "results.json", items, 0.7, 6)
    args = ["--text-only-file", str(text), "--text-only-file", str(lonely), str(image)]
    assert main([*base, *args, str(text)]) == 0  # text named twice: one text-only file
    err = capsys.readouterr().err
    assert "run Lingshu-7B-text: text-only baseline of model Lingshu-7B" in err
    assert "run qwen_text_only is text-only but the database holds no image run of model " in err
    assert "--model NAME" in err
    store = StudyStore(db)
    runs = {name: store.eval_run(name) for name in store.eval_run_names()}
    store.close()
    assert {n: (r.model, r.text_only) for n, r in runs.items()} == {
        "Lingshu-7B-text": ("Lingshu-7B", True),
        "qwen_text_only": ("qwen_text_only", True),
        "Lingshu-7B": ("Lingshu-7B", False),
    }
    args = ["compare", "--db", str(db), "--dataset", str(root), "--min-items", "2", "--json"]
    assert main(args) == 0
    (pair,) = json.loads(capsys.readouterr().out)["text_only"]
    assert (pair["image_run"], pair["text_run"]) == ("Lingshu-7B", "Lingshu-7B-text")
