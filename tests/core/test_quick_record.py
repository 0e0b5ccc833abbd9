"""The loader's fast path builds exactly the item the full validation builds, and gives
way to it for anything out of the ordinary."""

import dataclasses
import gc

import pytest

from medrcube_desktop.core import dataset
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
    monkeypatch.setattr(dataset, "quick_item", lambda *_args: None)
    full = load_benchmark(root, check_files=check_files)
    assert fast.items == full.items and fast.problems == full.problems
    assert fast.restricted == full.restricted
    assert len(fast.items) > 10 and fast.problems  # both kinds are exercised
    by_id = {item.id: item for item in fast.items}
    assert by_id["it-10"].extra == {"custom": "kept in extra"}
    assert by_id["it-5"].original_task == "organ segmentation"
    assert by_id["it-0"].options == {"A": "Liver", "B": "Spleen", "C": "Kidney"}


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
