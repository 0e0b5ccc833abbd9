"""Assignments respect work done (issue 21 item 5): reassigning never takes a committed
item from its author's list, restricted items are assigned, ``assign`` says what it
changed and refuses a mistyped (unknown) reviewer name; the split rule is the same one,
only fast."""

import json
import math
import random
from itertools import combinations

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.assignment import assign, split_items
from medrcube_desktop.review.session import ReviewSessionState
from medrcube_desktop.store import Review, StudyStore
from tests.conftest import dicom_file, item, write_benchmark

PASS = dict.fromkeys(RULE_IDS, 1)
T0 = "2026-03-01T10:00:00+00:00"


def naive_split(item_ids, reviewers, overlap, seed):
    """The rule of the module docstring, written the slow obvious way (every pair
    scored each time): what the fast split must give exactly."""
    names = list(reviewers)
    ids = sorted(dict.fromkeys(item_ids))
    random.Random(seed).shuffle(ids)
    n_overlap = round(overlap * len(ids))
    chosen = {name: set() for name in names}
    pairs = list(combinations(names, 2))
    used = dict.fromkeys(pairs, 0)
    for item_id in ids[:n_overlap]:
        load = {p: (len(chosen[p[0]]) + len(chosen[p[1]]),
                    max(len(chosen[p[0]]), len(chosen[p[1]])), used[p]) for p in pairs}  # fmt: skip
        pair = min(pairs, key=load.__getitem__)
        used[pair] += 1
        for name in pair:
            chosen[name].add(item_id)
    for item_id in ids[n_overlap:]:
        name = min(names, key=lambda r: (len(chosen[r]), names.index(r)))
        chosen[name].add(item_id)
    return {name: sorted(chosen[name], key=list(item_ids).index) for name in names}, set(
        ids[:n_overlap]
    )


def test_the_fast_split_is_the_rule_exactly():
    rng = random.Random(21)
    for trial in range(300):
        n, k = rng.randint(1, 50), rng.randint(2, 11)
        fraction = rng.choice([0.0, 0.2, 0.5, 1.0, rng.random()])
        ids = [f"i{j}" for j in range(n)]
        names = [f"r{j}" for j in rng.sample(range(40), k)]
        items, overlap = naive_split(ids, names, fraction, trial)
        split = split_items(ids, names, fraction, trial)
        assert (split.items, set(split.overlap)) == (items, overlap), (n, k, fraction)


def test_thousands_of_reviewers_split_with_the_same_counts():
    split = split_items([f"i{j}" for j in range(7600)], [f"r{j}" for j in range(3000)], 0.2, 1)
    loads = [len(v) for v in split.items.values()]
    assert sum(loads) == 7600 + 1520 and len(split.overlap) == 1520
    assert max(loads) - min(loads) <= 1  # 9120 reviews over 3000: 3 or 4 each


def test_an_overlap_item_committed_by_one_goes_to_them_and_one_other():
    ids = [f"i{j}" for j in range(10)]
    plain = split_items(ids, ["A", "B", "C"], 1.0, 3)  # every item to two
    b_only = [i for i in plain.items["C"] if i not in plain.items["A"]]
    split = split_items(ids, ["A", "B", "C"], 1.0, 3, committed={"A": b_only})
    assert set(b_only) <= set(split.items["A"])
    holders = {i: sum(i in v for v in split.items.values()) for i in ids}
    assert holders == dict.fromkeys(ids, 2) and split.overlap == frozenset(ids)


@pytest.fixture
def bench(tmp_path):
    """29 items with their image and 3 restricted (text only, no image shipped)."""
    ids = [f"q{k:02d}" for k in range(29)]
    records = [item(i) for i in ids] + [
        item(f"r{k}", image=f"images/r{k}.png", restricted=True) for k in range(3)
    ]
    root = write_benchmark(
        tmp_path / "bench", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    return root


def run(capsys, *args):
    capsys.readouterr()
    code = main(["assign", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_reassigning_keeps_each_committed_item_on_its_authors_list(tmp_path, bench, capsys):
    db = tmp_path / "s.db"
    common = ["--db", db, "--dataset", bench, "--reviewer", "A", "--reviewer", "B", "--json"]
    code, out, _ = run(capsys, *common, "--overlap", "0.2", "--seed", "1")
    assert code == 0
    first = json.loads(out)
    assert first["items"] == 32  # the 3 restricted items are assigned too
    store = StudyStore(db)
    a_list = list(store.assignment().items["A"])
    assert {"r0", "r1", "r2"} <= set(a_list) | set(store.assignment().items["B"])
    done = a_list[:8]  # A commits 8 of their items
    for item_id in done:
        store.save_review(Review("A", item_id, PASS, "", T0, T0))
    benchmark = load_benchmark(bench)
    session = ReviewSessionState(benchmark.items, store, "A", restricted=benchmark.restricted)
    assert session.progress() == (8, len(a_list))
    store.close()
    for seed in range(2, 12):  # whatever the new split, A keeps the 8
        code, out, _ = run(capsys, *common, "--overlap", "0.5", "--seed", seed)
        assert code == 0
        changes = json.loads(out)["changes"]
        store = StudyStore(db)
        new_a = set(store.assignment().items["A"])
        assert set(done) <= new_a and changes["A"]["committed"] == 8
        assert not set(done) & set(changes["A"]["removed"])
        session = ReviewSessionState(benchmark.items, store, "A", restricted=benchmark.restricted)
        assert session.progress() == (8, len(new_a))
        assert {i.id for i in session.visible} == new_a  # restricted ones listed too
        store.close()


def test_assign_says_what_changed_for_each_reviewer(tmp_path, bench, capsys):
    db = tmp_path / "s.db"
    common = ["--db", db, "--dataset", bench, "--reviewer", "A", "--reviewer", "B"]
    assert run(capsys, *common, "--overlap", "0", "--seed", "1")[0] == 0
    store = StudyStore(db)
    before = {k: set(v) for k, v in store.assignment().items.items()}
    store.save_review(Review("A", sorted(before["A"])[0], PASS, "", T0, T0))
    store.close()
    code, out, _ = run(capsys, *common, "--overlap", "0", "--seed", "2", "--json")
    changes = json.loads(out)["changes"]
    after = {k: set(v) for k, v in StudyStore(db).assignment().items.items()}
    for name in ("A", "B"):
        assert set(changes[name]["added"]) == after[name] - before[name]
        assert set(changes[name]["removed"]) == before[name] - after[name]
        assert (changes[name]["before"], changes[name]["after"]) == (16, len(after[name]))
    code, out, _ = run(capsys, *common, "--overlap", "0", "--seed", "3")
    a_line = next(line for line in out.splitlines() if line.startswith("A: "))
    assert "added" in a_line and "removed" in a_line
    assert a_line.endswith("; 1 committed, kept on their list")


def test_a_reviewer_left_out_keeps_only_what_they_committed(tmp_path, bench, capsys):
    db = tmp_path / "s.db"
    assert run(capsys, "--db", db, "--dataset", bench, "--reviewer", "A", "--reviewer", "B")[0] == 0
    store = StudyStore(db)
    mine = sorted(store.assignment().items["B"])[:2]
    for item_id in mine:
        store.save_review(Review("B", item_id, PASS, "", T0, T0))
    store.close()
    args = ["--db", db, "--dataset", bench, "--reviewer", "A", "--new-reviewer", "C"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert StudyStore(db).assignment().items["B"] == tuple(mine)
    assert "B: 2 items" in out and "not named: keeps only the items they committed" in out


def test_a_mistyped_reviewer_is_refused_and_nothing_changes(tmp_path, bench, capsys):
    db = tmp_path / "s.db"
    common = ["--db", db, "--dataset", bench]
    assert run(capsys, *common, "--reviewer", "alice", "--reviewer", "bob")[0] == 0
    before = StudyStore(db).assignment()
    code, _, err = run(capsys, *common, "--reviewer", "alice", "--reviewer", "bbo")
    assert code == 2
    assert "unknown reviewer 'bbo' (known: alice, bob)" in err and "--new-reviewer" in err
    assert StudyStore(db).assignment() == before
    code, _, _ = run(capsys, *common, "--reviewer", "alice", "--reviewer", "bob",
                     "--new-reviewer", "carol")  # fmt: skip
    assert code == 0 and set(StudyStore(db).assignment().items) == {"alice", "bob", "carol"}


def test_a_first_assignment_takes_any_names():
    store = StudyStore(None)
    assert set(assign(store, ["i1", "i2"], ["x", "y"], 0.0, 0).items) == {"x", "y"}
    with pytest.raises(MedRCubeError, match="unknown reviewer 'z'"):
        assign(store, ["i1", "i2"], ["x", "z"], 0.0, 0)
    assert math.isclose(store.assignment().overlap, 0.0)


def test_a_blind_study_gets_one_database_per_reviewer_holding_no_judgment(tmp_path, bench, capsys):
    from medrcube_desktop.review.study import StudySettings
    from medrcube_desktop.store.exchange import merge

    db = tmp_path / "s.db"
    store = StudyStore(db)
    StudySettings(blind=True, repeat_share=0.0).save(store)
    store.save_review(Review("A", "q00", PASS, "analyst's copy", T0, T0))
    store.save_study("pilot", 3, "task", ["q01", "r0"], T0)
    store.close()
    folder = tmp_path / "per-reviewer"
    args = ["--db", db, "--dataset", bench, "--reviewer", "A", "--new-reviewer", "B"]
    code, out, _ = run(capsys, *args, "--databases", folder, "--json")
    assert code == 0
    assert json.loads(out)["databases"] == {"A": str(folder / "A.db"), "B": str(folder / "B.db")}
    study = StudyStore(db).assignment()
    for name in ("A", "B"):
        mine = StudyStore(folder / f"{name}.db")
        part = mine.assignment()  # only their own part (blinding), none of the other's
        assert part.items == {name: study.items[name]} and part.reviewers == (name,)
        assert (part.overlap, part.seed, part.n_items) == (study.overlap, study.seed, study.n_items)
        assert mine.reviewers() == [] and mine.judgment_models() == []  # nothing to print
        assert StudySettings.load(mine).blind is True
        assert mine.study("pilot").item_ids == ("q01", "r0")
        mine.save_review(Review(name, study.items[name][-1], PASS, name, T0, T0))
        mine.close()
    summary = merge(StudyStore(db), [folder / "A.db", folder / "B.db"])
    assert summary.total("reviews") == 2
    assert [c for f in summary.files for c in f.conflicts] == []  # same assignment
    # run again: the reviewers' files are never overwritten, and nothing is stored
    before = StudyStore(db).assignment()
    code, _, err = run(capsys, *args, "--seed", "5", "--databases", folder)
    assert code == 2 and f"{folder / 'A.db'}: already exists" in err
    assert StudyStore(db).assignment() == before


def test_reviewer_names_become_safe_distinct_file_names(tmp_path):
    from medrcube_desktop.review.reviewer_files import file_name, reviewer_paths

    assert file_name("Dr. Ana Lü") == "Dr._Ana_Lü.db"
    assert file_name("../../etc") == "etc.db"
    paths = reviewer_paths(tmp_path, ["a b", "a/b"])  # one stem: each gets its hash
    assert len({p.name for p in paths.values()}) == 2
    (tmp_path / "x.db").write_bytes(b"")
    with pytest.raises(MedRCubeError, match="already exists"):
        reviewer_paths(tmp_path, ["x"])


def test_merging_a_reviewer_file_says_whose_reviews_it_brought_in(tmp_path, bench, capsys):
    """The tester's case: bob's review imported into alice's --databases file came back
    into the study without a word. Merge now counts reviews per reviewer and warns."""
    db = tmp_path / "s.db"
    folder = tmp_path / "per-reviewer"
    args = ["--db", db, "--dataset", bench, "--reviewer", "alice", "--new-reviewer", "bob"]
    assert run(capsys, *args, "--databases", folder)[0] == 0
    study = StudyStore(db).assignment()
    alice = StudyStore(folder / "alice.db")
    assert alice.assignment().items == {"alice": study.items["alice"]}
    alice.save_review(Review("alice", study.items["alice"][0], PASS, "mine", T0, T0))
    alice.save_review(Review("alice", study.items["alice"][1], PASS, "mine", T0, T0))
    alice.save_review(Review("bob", study.items["bob"][0], PASS, "not hers", T0, T0))
    alice.close()
    capsys.readouterr()
    assert main(["merge", str(db), str(folder / "alice.db")]) == 0
    captured = capsys.readouterr()
    assert f"{folder / 'alice.db'}: added 3 reviews," in captured.out
    assert "(reviews by alice 2, bob 1)" in captured.out
    assert (
        f"{folder / 'alice.db'}: the file of reviewer alice (its assignment names them only) "
        "holds reviews by bob (1); they are merged: check how they got into it"
    ) in captured.err
    assert "conflict" not in captured.err  # her part of the study's assignment
    assert StudyStore(db).assignment().items == study.items
