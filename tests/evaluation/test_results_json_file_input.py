"""What a results.json may hold (issue 21): a UTF-8 byte order mark (Windows editors
write one) is read like the file without it; a million ids of another benchmark give
ten lines and a count, not a line each."""

from __future__ import annotations

import json

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.results_json import MAX_LISTED, import_run, item_record
from medrcube_desktop.store import StudyStore


def _records(items, letter="B"):
    return [{**item_record(i), "model_response": letter} for i in items]


def test_a_results_json_with_a_byte_order_mark_imports(bench, tmp_path, capsys):
    items = load_benchmark(bench).items
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(_records(items)).encode())
    db = tmp_path / "s.db"
    args = ["import-run", "--db", str(db), "--dataset", str(bench), str(path)]
    assert main(args) == 0
    assert f"{len(items)} responses stored in run bom" in capsys.readouterr().out
    assert main(["credibility", "--results", str(path), "--json"]) in (0, 1)
    assert "BOM" not in capsys.readouterr().err


def test_many_foreign_ids_are_counted_not_listed_one_by_one(bench, tmp_path, capsys):
    items = load_benchmark(bench).items
    foreign = [{"id": f"other-{n}", "model_response": "A"} for n in range(2500)]
    nameless = [{"model_response": "A"}] * 3  # a kind under the limit: listed in full
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(_records(items) + foreign + nameless))
    imported = import_run(StudyStore(None), "r", "m", items, path)
    assert imported.stored == len(items)
    listed = [p for p in imported.problems if "record #" in p and "not in this" in p]
    assert len(listed) == MAX_LISTED and "'other-0'" in listed[0] and "'other-9'" in listed[-1]
    assert sum("has no id" in p for p in imported.problems) == 3
    assert imported.problems[-1] == (
        f"{path}: 2,500 records with an id not in this benchmark (the first 10 listed above)"
    )
    assert len(imported.problems) == MAX_LISTED + 3 + 1
    db = tmp_path / "s.db"
    assert main(["import-run", "--db", str(db), "--dataset", str(bench), str(path)]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) < 20 and "2,500 records with an id not in" in err
