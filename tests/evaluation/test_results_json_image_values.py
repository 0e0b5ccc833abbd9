"""import-run's per-file reading of the ablation fields (issue 25 item 1):
``file_image_mode`` writes each distinct plain value of ``image_mode``, ``image_run`` and
``image_seed`` once (``results_json._json_values``), not ``json.dumps`` per record; the
old comprehension is kept here as the reference, and both are run on the same records
and the same files (same values, same refusals, same stored rows)."""

import json
import math
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation import results_json
from medrcube_desktop.evaluation.results_json import file_image_mode, import_run, item_record
from medrcube_desktop.store import StudyStore


def _old_json_values(records, key):
    """What ``file_image_mode`` computed per key before issue 25."""
    return {json.dumps(r.get(key)) for r in records if isinstance(r, dict)}


# values that compare equal but are written differently (0.0 / -0.0, 1 / 1.0 / True),
# unhashable ones, NaN (never equal to itself), texts
VALUES = [None, 0, 1, -1, True, False, 0.0, -0.0, 1.0, 3, 3.0, math.nan, math.inf, "",
          "blank", "swapped", "x", [1], [], {"a": 1}, {}, 2**70]  # fmt: skip
RECORD = st.one_of(
    st.just(7),  # not an object
    st.just({}),  # the key absent
    st.builds(
        lambda k, v: {k: v}, st.sampled_from(["image_seed", "other"]), st.sampled_from(VALUES)
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(RECORD, max_size=12))
def test_distinct_values_are_the_old_per_record_ones(records):
    assert results_json._json_values(records, "image_seed") == _old_json_values(
        records, "image_seed"
    )


def test_equal_values_written_differently_stay_apart():
    """The cases a set of values (not of texts) would merge: computed by hand."""
    records = [{"image_seed": 0.0}, {"image_seed": -0.0}, {"image_seed": 1},
               {"image_seed": True}, {"image_seed": 1.0}, {}, 5]  # fmt: skip
    assert results_json._json_values(records, "image_seed") == {
        "0.0", "-0.0", "1", "true", "1.0", "null",
    }  # fmt: skip
    assert results_json._json_values([5, "x"], "image_seed") == set()


@pytest.mark.parametrize(
    "fields",
    [
        [{}] * 3,
        [{"image_mode": "blank", "image_seed": 4}] * 3,
        [{"image_mode": "blank", "image_seed": 4}, {"image_mode": "blank", "image_seed": 4.0}],
        [{"image_mode": "noise", "image_seed": 0.0}, {"image_mode": "noise", "image_seed": -0.0}],
        [{"image_mode": "noise", "image_seed": True}, {"image_mode": "noise", "image_seed": 1}],
        [{"image_mode": "swapped", "image_run": "gpt"}, {"image_mode": "swapped"}],
        [{"image_mode": "blank", "image_seed": [1]}] * 2,
        [{"image_mode": "text-only"}] * 2,
        [{"image_mode": "nonsense"}],
    ],
)
@pytest.mark.parametrize("text_only", [False, True])
def test_file_image_mode_says_what_it_said(fields, text_only, tmp_path, monkeypatch):
    records = [{"id": str(n), **f} for n, f in enumerate(fields)] + [3]
    path = tmp_path / "results.json"

    def outcome():
        try:
            return file_image_mode(path, records, text_only)
        except MedRCubeError as exc:
            return str(exc)

    new = outcome()
    monkeypatch.setattr(results_json, "_json_values", _old_json_values)
    assert new == outcome()


def _stored(db_path):
    with sqlite3.connect(db_path) as conn:
        conn.row_factory = sqlite3.Row
        runs = [
            {k: row[k] for k in row.keys() if k != "created_at"}  # noqa: SIM118
            for row in conn.execute("SELECT * FROM eval_runs ORDER BY name")
        ]
        rows = [
            {k: row[k] for k in row.keys() if k != "created_at"}  # noqa: SIM118
            for row in conn.execute("SELECT * FROM eval_responses ORDER BY run, item_id")
        ]
    return runs, rows


def test_import_stores_the_runs_and_rows_of_the_old_path(bench, tmp_path, monkeypatch):
    """Public-format files, image and ablation ones (a blank run with its seed, one
    with a seed of two spellings, refused), imported by both paths: the same runs (all
    columns but the time stamp), rows, problems and refusals."""
    items = load_benchmark(bench).items
    blank = {"image_mode": "blank", "image_seed": 11}
    files = []
    for name, extra in (("plain", [{}]), ("blank", [blank]),
                        ("mixed", [blank, {**blank, "image_seed": 11.0}])):  # fmt: skip
        records = [
            {**item_record(item), "model_response": "ABCD"[n % 4], "correct": False,
             **extra[n % len(extra)]}
            for n, item in enumerate(items)
        ] + [{"id": "zz", "model_response": "B", **extra[0]}, 5]  # fmt: skip
        files.append(tmp_path / f"{name}.json")
        files[-1].write_text(json.dumps(records, indent=2))
    done = {}
    for label in ("new", "old"):
        if label == "old":
            monkeypatch.setattr(results_json, "_json_values", _old_json_values)
        store = StudyStore(tmp_path / f"{label}.db")
        done[label] = []
        for f in files:
            try:
                done[label].append(import_run(store, f.stem, "m", items, f))
            except MedRCubeError as exc:
                done[label].append(str(exc).replace(str(tmp_path), "TMP"))
        store.close()
    assert done["new"] == done["old"]
    assert "several image_seed values (11, 11.0)" in done["new"][2]
    assert done["new"][0].stored == done["new"][1].stored == len(items)
    new, old = _stored(tmp_path / "new.db"), _stored(tmp_path / "old.db")
    assert [r["name"] for r in new[0]] == ["blank", "plain"]
    assert new == old
