"""``export-run`` writes image paths relative to the benchmark, never this machine's
absolute ones (issue 21), and the file still groups by image and imports back."""

import json

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.results_json import import_run, item_record
from medrcube_desktop.store import StudyStore


def test_export_run_writes_benchmark_relative_image_paths(bench, tmp_path, capsys):
    items = load_benchmark(bench).items
    source = tmp_path / "in" / "results.json"
    source.parent.mkdir()
    source.write_text(json.dumps([{**item_record(i), "model_response": "B"} for i in items]))
    db = tmp_path / "s.db"
    store = StudyStore(db)
    assert import_run(store, "r1", "m1", items, source).stored == 12
    store.close()
    out = tmp_path / "out" / "results.json"
    args = ["export-run", "--db", str(db), "--run", "r1", "--dataset", str(bench)]
    assert main([*args, "--out", str(out)]) == 0
    records = json.loads(out.read_text())
    assert {r["image_path"] for r in records} == {"ds1/images/ct.dcm"}
    assert str(tmp_path) not in out.read_text()
    # the exported file imports back as the same run
    again = StudyStore(None)
    assert import_run(again, "r1", "m1", items, out).stored == 12


def test_item_record_without_a_root_is_relative_to_its_test_json(bench):
    (first, *_) = load_benchmark(bench).items
    assert item_record(first)["image_path"] == "images/ct.dcm"
