"""The loader's fast path builds exactly the item the full validation builds, and gives
way to it for anything out of the ordinary."""

import copy
import dataclasses
import gc
import pickle
from pathlib import Path

import pytest

from medrcube_desktop.core import records as record_module
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.items import Item, item_from_fields
from tests.conftest import dicom_file, write_benchmark


def record(item_id, **overrides):
    base = {
        "id": item_id,
        "question": " Which organ? ",
        "option_A": "Liver",
        "option_B": "Spleen ",
        "option_C": "Kidney",
        "option_D": None,
        "gt_answer": "Spleen",
        "image_path": "images/ct.dcm",
        "task": "Organ Recognition",
        "modality": "CT",
        "parts": "Abdomen",
        "dataset": "ds1",
    }
    base.update(overrides)
    return base


VARIANTS = [
    {},
    {"correct_index": 1},
    {"correct_index": 2},  # 1-based
    {"correct_index": 0},  # names Liver: a problem for the full path
    {"correct_index": True},
    {"original_task": " organ segmentation "},
    {"original_task": ""},
    {"restricted": True},
    {"restricted": "yes"},
    {"bbox": [1, 2, 30, 40]},
    {"custom": "kept in extra"},
    {"option_E": "Bone"},  # after a gap
    {"option_D": "Bone", "option_E": "Lung", "option_F": "Heart"},
    {"option_B": 3},
    {"option_B": ""},
    {"question": 7},
    {"question": "   "},
    {"modality": None},
    {"image_path": "../outside.dcm"},
    {"image_path": "/abs.dcm"},
    {"image_path": "images/./ct.dcm"},
    {"task": "no such task"},
    {"gt_answer": "Heart"},
    {"id": 17},
    {"id": "#3"},
    {"id": " "},
]


@pytest.mark.parametrize("check_files", [False, True])
def test_fast_and_full_paths_agree(tmp_path, monkeypatch, check_files):
    records = [record(f"it-{n}", **v) for n, v in enumerate(VARIANTS)]
    records.append(record("it-0"))  # a duplicate id
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    fast = load_benchmark(root, check_files=check_files)
    full = _full_load(monkeypatch, root, check_files=check_files)
    assert fast.items == full.items and fast.problems == full.problems
    assert fast.restricted == full.restricted
    assert len(fast.items) > 10 and fast.problems  # both kinds are exercised
    by_id = {item.id: item for item in fast.items}
    assert by_id["it-10"].extra == {"custom": "kept in extra"}
    assert by_id["it-5"].original_task == "organ segmentation"
    assert by_id["it-0"].options == {"A": "Liver", "B": "Spleen", "C": "Kidney"}


def _full_load(monkeypatch, root, **options):
    """``load_benchmark`` with both fast paths turned off (the full validation only)."""
    with monkeypatch.context() as patch:
        patch.setattr(record_module, "quick_item", lambda *_args: None)
        patch.setattr(record_module, "quick_chunk", lambda *_args: None)
        return load_benchmark(root, **options)


def _spy_runs(monkeypatch):
    """The results of every ``quick_chunk`` call of the next loads."""
    runs = []
    real = record_module.quick_chunk

    def spy(*args):
        runs.append(real(*args))
        return runs[-1]

    monkeypatch.setattr(record_module, "quick_chunk", spy)
    return runs


# Plain records in shapes the column path (core/quick_chunk.py) takes, mixed in one file
PLAIN_VARIANTS = [
    {},
    {"correct_index": 1},
    {"correct_index": None},
    {"original_task": " organ segmentation "},
    {"original_task": None},
    {"restricted": False},
    {"restricted": True},  # image there: an ordinary item
    {"restricted": True, "image_path": "images/absent.dcm"},  # listed apart
    {"restricted": None},
    {"bbox": [1, 2, 30, 40]},
    {"bbox": None},
    {"custom": "kept in extra", "other": [1, 2]},
    {"option_C": None},  # two options
    {"option_D": "Bone"},
    {"option_D": "Bone", "option_E": "Lung", "option_F": "Heart"},
    {"option_D": "Bone", "option_E": None, "option_F": None},
    {"image_path": "images/./ct.dcm"},
    {"image_path": "images//ct.dcm"},
    {"image_path": "images/sub/../ct.dcm"},
    {"image_path": " images/ct.dcm "},
    {"image_path": "images/ct.dcm/"},
    {"task": "organ recognition"},
    {"mask_path": None},
    {"id": " spaced "},
]


@pytest.mark.parametrize("images", [True, False])
def test_column_path_builds_what_the_full_path_builds(tmp_path, monkeypatch, images):
    records = [record(f"it-{n}", **v) for n, v in enumerate(PLAIN_VARIANTS)]
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    runs = _spy_runs(monkeypatch)
    fast = load_benchmark(root, images=images, check_files=False)
    assert runs and all(run is not None for run in runs)  # the column path took them all
    full = _full_load(monkeypatch, root, images=images, check_files=False)
    assert fast.items == full.items and fast.problems == full.problems == []
    assert fast.restricted == full.restricted and len(fast.restricted) == 1
    for a, b in zip(fast.items, full.items, strict=True):
        assert {f.name: getattr(a, f.name) for f in dataclasses.fields(Item)} == {
            f.name: getattr(b, f.name) for f in dataclasses.fields(Item)
        }
        assert type(a.image_path) is type(b.image_path)


def test_column_path_with_integer_ids_and_both_index_conventions(tmp_path, monkeypatch):
    records = [record(n, correct_index=1 if n % 2 else 2) for n in range(6)]
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    runs = _spy_runs(monkeypatch)
    fast = load_benchmark(root, check_files=False)
    assert runs[0] is not None
    full = _full_load(monkeypatch, root, check_files=False)
    assert fast.items == full.items and len(fast.items) == 6
    assert fast.problems == full.problems and "mixes conventions" in fast.problems[0].message


@pytest.mark.parametrize("variant", VARIANTS + [{"mask_path": "images/ct.dcm"}], ids=repr)
def test_one_odd_record_sends_its_run_to_the_record_path(tmp_path, monkeypatch, variant):
    records = [record(f"plain-{n}") for n in range(3)]
    records.insert(1, record("odd", **variant))
    records.append(record("plain-0"))  # a duplicate id, after the odd one
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    fast = load_benchmark(root, check_files=False)
    full = _full_load(monkeypatch, root, check_files=False)
    assert fast.items == full.items and fast.problems == full.problems
    assert fast.restricted == full.restricted


def test_runs_follow_one_another_in_order(tmp_path, monkeypatch):
    """Runs of :data:`CHUNK` records: a duplicate in a later run is found, good runs
    around a bad one stay on the column path, the items keep file order."""
    monkeypatch.setattr(record_module, "CHUNK", 4)
    records = [record(f"it-{n}") for n in range(11)]
    records[5] = record("it-5", gt_answer="Heart")  # matches no option
    records[9] = record("it-1")  # a duplicate of the first run's
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    runs = _spy_runs(monkeypatch)
    fast = load_benchmark(root, check_files=False)
    assert [run is not None for run in runs] == [True, False, False]
    full = _full_load(monkeypatch, root, check_files=False)
    assert fast.items == full.items and fast.problems == full.problems
    assert {p.item for p in fast.problems} == {"it-5", "it-1"}


def test_a_column_item_is_an_ordinary_item(tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"ds1": [record("a"), record("b")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    item = load_benchmark(root, check_files=False).items[0]
    assert "image_path" not in vars(item)  # made when first read
    again = pickle.loads(pickle.dumps(item))
    assert item.image_path == root.resolve() / "ds1/images/ct.dcm"
    assert isinstance(item.image_path, Path) and item.image_path is item.image_path
    assert again == item and dataclasses.replace(item, question="Q").image_path == item.image_path
    assert copy.copy(item) == item and copy.deepcopy(item) == item
    with pytest.raises(AttributeError):
        item.no_such_field  # noqa: B018
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.image_path = Path("x")  # type: ignore[misc]


def test_item_from_fields_is_an_ordinary_item():
    fields = {f.name: f"v-{f.name}" for f in dataclasses.fields(Item)}
    item = item_from_fields(dict(fields))
    assert item == Item(**fields)
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.id = "other"  # type: ignore[misc]


def test_loading_leaves_the_collector_as_it_was(tmp_path):
    root = write_benchmark(tmp_path / "b", {"ds1": [record("a")]}, {})
    assert gc.isenabled()
    load_benchmark(root, check_files=False)
    assert gc.isenabled()
    gc.disable()
    try:
        load_benchmark(root, check_files=False)
        assert not gc.isenabled()
    finally:
        gc.enable()
