"""An answer holding half of a UTF-16 surrogate pair (an emoji cut in two where a model
stopped at its token limit; ``json.dumps`` writes it ``\\ud83d``) is stored with U+FFFD
in its place and listed as a bad record; the database's UTF-8 cannot hold it, and the
whole file was refused (``StoreError ... surrogates not allowed``)."""

import json

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.results_json import import_run, item_record
from medrcube_desktop.store import StudyStore


def test_half_a_character_is_replaced_and_said(bench, tmp_path):
    items = load_benchmark(bench).items
    records = [{**item_record(item), "model_response": "A"} for item in items]
    records[1]["model_response"] = "B \ud83d"  # the first half of U+1F600, alone
    records[2]["model_response"] = "C \ud83d\ude00"  # a whole pair: one character
    records[3]["model_response"] = "\ude00D"  # a second half, alone
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records))  # ensure_ascii: the halves as \\u escapes
    assert "\\ud83d\\ude00" in path.read_text() and "\\ude00D" in path.read_text()
    store = StudyStore(None)
    stored, problems, already, _ = import_run(store, "r", "m", items, path)
    assert (stored, already) == (len(items), 0)
    said = (
        "model_response holds half of a UTF-16 surrogate pair (a character cut in two, as "
        "an answer cut off at its token limit has); stored with U+FFFD in its place"
    )
    assert problems == [
        f"{path} record #2 (id {items[1].id!r}): {said}",
        f"{path} record #4 (id {items[3].id!r}): {said}",
    ]
    answers = store.responses("r")
    assert answers[items[1].id].response == "B \ufffd"
    assert answers[items[1].id].parsed_answer == "B"
    assert answers[items[2].id].response == "C \U0001f600"  # whole: stored as it is
    assert answers[items[3].id].response == "\ufffdD"
    assert answers[items[0].id].response == "A"
    store.close()
