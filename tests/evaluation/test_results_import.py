"""Importing results.json files: which file a run came from, what a file must hold,
bad records and their messages, and which files a folder gives
(``evaluation.results_json.import_run``, ``evaluation.results_import``)."""

import json
import os
import shutil
import sqlite3

import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError, StoreError
from medrcube_desktop.evaluation.results_import import baseline_model, results_files
from medrcube_desktop.evaluation.results_json import Imported, import_run, item_record
from medrcube_desktop.store import StudyStore


@pytest.fixture
def items(bench):
    return load_benchmark(bench).items


def _write(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records))
    return path


def _answers(items, letter):
    return [{**item_record(i), "model_response": letter} for i in items]


def test_two_results_json_of_one_run_name_do_not_merge(items, tmp_path):
    """jan/gpt/results.json then feb/gpt/results.json: both "results.json", both run
    gpt; the second is another file and is refused, naming both."""
    store = StudyStore(None)
    jan = _write(tmp_path / "jan" / "gpt" / "results.json", _answers(items[:6], "B"))
    feb = _write(tmp_path / "feb" / "gpt" / "results.json", _answers(items, "A"))
    assert import_run(store, "gpt", "gpt", items, jan) == Imported(6, [], 0)
    with pytest.raises(StoreError) as refused:
        import_run(store, "gpt", "gpt", items, feb)
    message = str(refused.value)
    assert message.startswith(f"{feb}: run 'gpt' exists with other settings (source file")
    assert str(jan.resolve()) in message and str(feb.resolve()) in message
    assert "--replace" in message
    assert {r.response for r in store.responses("gpt").values()} == {"B"}
    assert len(store.responses("gpt")) == 6
    run = store.eval_run("gpt")
    assert run.params["source"] == str(jan.resolve())
    assert run.params["source_bytes"] == jan.stat().st_size
    assert len(run.params["source_sha256"]) == 64


def test_a_moved_copy_resumes_and_an_edited_file_is_refused(items, tmp_path):
    store = StudyStore(None)
    first = _write(tmp_path / "a" / "results.json", _answers(items, "B"))
    assert import_run(store, "r", "m", items, first).stored == len(items)
    moved = tmp_path / "moved" / "results.json"
    moved.parent.mkdir()
    shutil.copy(first, moved)
    assert import_run(store, "r", "m", items, moved) == Imported(0, [], len(items))
    _write(first, _answers(items, "A"))  # same path, other answers
    with pytest.raises(StoreError, match="source file differ"):
        import_run(store, "r", "m", items, first)
    assert import_run(store, "r", "m", items, first, replace=True).stored == len(items)
    assert {r.response for r in store.responses("r").values()} == {"A"}


def test_a_file_without_a_record_of_the_benchmark_deletes_and_creates_nothing(items, tmp_path):
    store = StudyStore(None)
    good = _write(tmp_path / "good.json", _answers(items, "B"))
    import_run(store, "r", "m", items, good)
    empty = _write(tmp_path / "empty.json", [])
    strangers = _write(tmp_path / "s.json", [{"id": "zz", "model_response": "B"}, {"id": 7}])
    unanswered = _write(tmp_path / "u.json", [{"id": items[0].id}])
    for path, why in (
        (empty, "empty: no record"),
        (strangers, "none of its 2 records is an item of this benchmark"),
        (unanswered, "none of its 1 records gives a usable answer"),
    ):
        for replace in (True, False):
            for run in ("r", "new"):
                with pytest.raises(MedRCubeError, match=why):
                    import_run(store, run, "m", items, path, replace=replace)
    assert store.eval_run_names() == ["r"] and len(store.responses("r")) == len(items)


def test_bad_records_are_named_and_duplicate_ids_store_no_conflicting_answer(items, tmp_path):
    a, b, c, d, e = (i.id for i in items[:5])
    records = [
        {"id": a, "model_response": "B"},  # 1
        {"id": a, "model_response": "A"},  # 2: conflicts with 1
        {"id": b, "model_response": "B"},  # 3
        {"id": b, "model_response": "B"},  # 4: the same answer
        {"model_response": "B"},  # 5: no id
        {"id": None, "model_response": "B"},  # 6
        {"id": "zz", "model_response": "B"},  # 7
        {"id": c},  # 8: in the benchmark, no answer
        {"id": d, "response": None, "model_response": "B"},  # 9
        {"id": e, "response": "", "model_response": "B"},  # 10
        "text",  # 11
    ]
    path = _write(tmp_path / "r.json", records)
    store = StudyStore(None)
    stored, problems, already, _ = import_run(store, "r", "m", items, path)
    answers = store.responses("r")
    assert sorted(answers) == sorted([b, d, e]) and (stored, already) == (3, 0)
    assert {answers[x].parsed_answer for x in (d, e)} == {"B"}  # null, "" do not hide it
    assert problems == [
        f"{path} record #5 has no id",
        f"{path} record #6 has no id",
        f"{path} record #7: id 'zz' not in this benchmark",
        f"{path} record #8 (id {c!r}): no model_response (nor response)",
        f"{path} record #11: not an object",
        f"{path} record #2: id {a!r} also at record #1 with another answer; none of its 2 "
        "answers is stored",
        f"{path} record #4: id {b!r} also at record #3 with the same answer; stored once",
    ]
    assert not any("None" in p for p in problems)


def test_unusable_files_and_names_are_refused_with_the_real_file_named(items, tmp_path):
    store = StudyStore(None)
    good = _write(tmp_path / "g.json", _answers(items, "B"))
    for name in ("", "  "):
        with pytest.raises(MedRCubeError, match="an empty run name"):
            import_run(store, name, "m", items, good)
    db = tmp_path / "study.db"
    sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(MedRCubeError, match=rf"^{db}: is an SQLite database, not a results"):
        import_run(store, "r", "m", items, db)
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe[]")
    with pytest.raises(MedRCubeError, match=rf"^{binary}: cannot read results: not UTF-8"):
        import_run(store, "r", "m", items, binary)
    with pytest.raises(MedRCubeError, match=rf"^{tmp_path / 'no.json'}: cannot read results"):
        import_run(store, "r", "m", items, tmp_path / "no.json")
    assert store.eval_run_names() == []


def test_a_folder_gives_results_json_three_levels_deep_and_says_what_it_skips(tmp_path):
    top = tmp_path / "results"
    wanted = [
        top / "a.json",
        top / "gpt" / "results.json",
        top / "org" / "model" / "results.json",
        top / "x" / "y" / "z" / "results.json",
    ]
    for path in [*wanted, top / "w" / "x" / "y" / "z" / "results.json", top / "sub" / "o.json"]:
        _write(path, [])
    (top / "notes.txt").write_text("")
    os.mkfifo(top / "pipe.json")
    outside = _write(tmp_path / "outside" / "m" / "results.json", []).parent.parent
    (top / "link").symlink_to(outside, target_is_directory=True)
    files, problems, skipped = results_files(
        [top, tmp_path / "results" / "gpt" / ".." / "gpt" / "results.json"]
    )
    assert files == sorted(wanted) and problems == []
    assert skipped == [
        f"{top / 'link'}: a symbolic link to a folder; not followed",
        f"{top / 'pipe.json'}: is a named pipe, not a file; skipped",
        f"{top / 'w' / 'x' / 'y' / 'z' / 'results.json'}: more than 3 folders deep; not "
        "searched (name it, or its folder)",
        f"{top}: skipped 1 .json file(s) in subfolders not named results.json "
        f"({top / 'sub' / 'o.json'}); name a file to import it",
    ]
    # one file by two spellings is one file, under its first spelling
    spelled = tmp_path / "results" / "gpt" / ".." / "gpt" / "results.json"
    files, _, _ = results_files([spelled, top / "gpt" / "results.json"])
    assert files == [spelled]


@pytest.mark.parametrize(
    ("run", "model"),
    [
        ("Lingshu-7B-text-only", "Lingshu-7B"),
        ("Lingshu-7B_TEXT_ONLY", "Lingshu-7B"),
        ("lingshu-7b-textonly", "Lingshu-7B"),  # case folded to the one image run
        ("gpt-text", "openai/gpt-5.1"),  # the image run's model, by its run name
        ("gpt_Text", "openai/gpt-5.1"),
        ("openai/gpt-5.1-text", "openai/gpt-5.1"),  # by its model
        ("Lingshu-7B", None),  # no suffix
        ("-text", None),
        ("qwen-text", None),  # no image run of that name
    ],
)
def test_a_text_only_run_name_implies_its_image_model(run, model):
    image_models = {"Lingshu-7B": "Lingshu-7B", "gpt": "openai/gpt-5.1",
                    "openai/gpt-5.1": "openai/gpt-5.1"}  # fmt: skip
    assert baseline_model(run, image_models) == model
