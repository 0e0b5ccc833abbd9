"""Items split among reviewers with an overlap: exact counts, balance, a stable seed."""

import json

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.assignment import assign, split_items
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark

IDS = [f"q{k:03d}" for k in range(100)]


def test_100_items_two_reviewers_20_percent_overlap():
    split = split_items(IDS, ["A", "B"], 0.2, seed=7)
    a, b = set(split.items["A"]), set(split.items["B"])
    assert len(a & b) == 20 == len(split.overlap)
    assert len(a - b) == 40 and len(b - a) == 40
    assert a | b == set(IDS)
    assert split.items["A"] == [i for i in IDS if i in a]  # benchmark order kept


def test_three_reviewers_share_the_overlap_and_the_load_evenly():
    split = split_items(IDS, ["A", "B", "C"], 0.3, seed=1)
    assert len(split.overlap) == 30
    loads = {name: len(ids) for name, ids in split.items.items()}
    assert sum(loads.values()) == 130 and max(loads.values()) - min(loads.values()) <= 1
    for x, y in (("A", "B"), ("A", "C"), ("B", "C")):
        assert len(set(split.items[x]) & set(split.items[y])) == 10
    covered = [sum(i in set(ids) for ids in split.items.values()) for i in IDS]
    assert sorted(set(covered)) == [1, 2]


def test_same_seed_same_split_whatever_the_order_of_the_items():
    first = split_items(IDS, ["A", "B"], 0.2, seed=3)
    again = split_items(list(reversed(IDS)), ["A", "B"], 0.2, seed=3)
    assert {k: set(v) for k, v in first.items.items()} == {
        k: set(v) for k, v in again.items.items()
    }
    other = split_items(IDS, ["A", "B"], 0.2, seed=4)
    assert other.overlap != first.overlap


@pytest.mark.parametrize("reviewers, overlap", [(["A"], 0.2), (["A", "A"], 0.2), (["A", "B"], 1.5)])
def test_bad_assignments_are_refused(reviewers, overlap):
    with pytest.raises(MedRCubeError):
        split_items(IDS, reviewers, overlap, 0)


def test_stored_assignment_is_read_back_and_replaced_whole():
    store = StudyStore(None)
    record = assign(store, IDS, ["A", "B"], 0.2, 7)
    assert len(record.items["A"]) == 60 and len(record.overlap_items) == 20
    assert store.assigned_items("A") == set(record.items["A"])
    assert store.assigned_items("someone else") is None
    assign(store, IDS[:10], ["A", "B"], 0.0, 1, new_reviewers=["C"])
    assert sum(len(v) for v in store.assignment().items.values()) == 10


def test_assign_command_prints_the_counts_and_is_stable_when_run_again(tmp_path, capsys):
    root = write_benchmark(
        tmp_path / "bench", {"ds1": [item(i) for i in IDS]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    db = str(tmp_path / "s.db")
    args = ["assign", "--db", db, "--dataset", str(root), "--reviewer", "A", "--reviewer", "B",
            "--overlap", "0.2", "--seed", "9", "--json"]  # fmt: skip
    outs = []
    for _ in range(2):
        capsys.readouterr()
        assert main(args) == 0
        outs.append(json.loads(capsys.readouterr().out))
        outs[-1]["items_of_a"] = sorted(StudyStore(db).assignment().items["A"])
    changes = [out.pop("changes") for out in outs]
    assert outs[0] == outs[1]
    assert changes[1]["A"] == {"before": 60, "after": 60, "added": [], "removed": [],
                               "committed": 0, "named": True}  # fmt: skip
    assert outs[0]["reviewers"] == {"A": 60, "B": 60} and outs[0]["overlap"] == 20
    assert outs[0]["only"] == {"A": 40, "B": 40}
    capsys.readouterr()
    assert main(args[:-1]) == 0
    text = capsys.readouterr().out
    assert "A: 60 items (40 only theirs)" in text and "overlap 20" in text


def test_the_review_session_lists_a_reviewer_only_their_assigned_items(tmp_path):
    from medrcube_desktop.core.dataset import load_benchmark
    from medrcube_desktop.review.session import ItemFilter, ReviewSessionState

    ids = [f"q{k:02d}" for k in range(10)]
    root = write_benchmark(
        tmp_path / "bench", {"ds1": [item(i) for i in ids]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    items = load_benchmark(root).items
    store = StudyStore(tmp_path / "s.db")
    record = assign(store, ids, ["A", "B"], 0.2, 5)
    mine = ReviewSessionState(items, store, "A")
    assert [i.id for i in mine.visible] == list(record.items["A"])
    assert mine.progress() == (0, 6)
    assert {i.id for i in mine.set_filter(ItemFilter())} == set(record.items["A"])
    assert len(ReviewSessionState(items, store, "adjudicator").visible) == 10


def test_more_reviewers_than_overlap_items_spreads_the_pairs():
    """15 reviewers, 12 items, half of them reviewed twice: 18 reviews, so every
    reviewer gets one or two items and no one is in every pair."""
    from medrcube_desktop.review.assignment import split_items

    split = split_items([f"i{n}" for n in range(12)], [f"r{n}" for n in range(1, 16)], 0.5, 0)
    loads = sorted(len(ids) for ids in split.items.values())
    assert sum(loads) == 12 + 6 and loads[0] >= 1 and loads[-1] <= 2
