"""The adjudication queue (experts, or expert and LLM, disagreeing), its blinding, and
recording an adjudication; the ``adjudicate-queue`` and ``agreement`` commands."""

import json

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.review.adjudication import adjudicate, build_queue
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.review.experts_fixture import ITEMS, fill

# dr-a vs dr-b: 1.1 differs on i2, i3; 2.3 on i6. Each also differs from the LLM
# (fails 1.1 on i0-i3, 2.3 on i8) on: dr-a i3 i5 i6 i8; dr-b i2 i5 i8.


@pytest.fixture
def store():
    return fill(StudyStore(None), experts=("dr-a", "dr-b", "dr-c"))


def test_queue_lists_expert_disagreements_with_every_rule_that_differs(store):
    queue = build_queue(store, ["dr-a", "dr-b"], "gpt-5.1")
    assert [(e.item_id, e.rules) for e in queue.entries] == [
        ("i2", ("1.1",)),
        ("i3", ("1.1",)),
        ("i6", ("2.3",)),
    ]
    entry = queue.entries[0]
    assert [j.rater for j in entry.judgments] == ["dr-a", "dr-b", "LLM gpt-5.1"]
    assert entry.judgments[0].comment == "dr-a on i2" and entry.judgments[0].revision == 1
    assert entry.open_targets == ["1.1"] and entry.verdict_differs  # dr-b passes i2


def test_queue_against_the_llm_and_on_the_verdict_only(store):
    llm = build_queue(store, ["dr-a", "dr-b"], "gpt-5.1", against="llm")
    assert [e.item_id for e in llm.entries] == ["i2", "i3", "i5", "i6", "i8"]
    verdict = build_queue(store, ["dr-a", "dr-b"], "gpt-5.1", against="any", on="verdict")
    assert [e.item_id for e in verdict.entries] == ["i2", "i3", "i5", "i6", "i8"]
    assert all(e.verdict_differs for e in verdict.entries)
    with pytest.raises(MedRCubeError, match="needs a model"):
        build_queue(store, against="llm")


def test_a_blind_viewer_sees_only_items_they_committed():
    store = fill(StudyStore(None), experts=("dr-a", "dr-b"))
    fill(store, items=["i2"], experts=("dr-c",), model="other")
    queue = build_queue(store, ["dr-a", "dr-b"], viewer="dr-c", blind=True)
    assert [e.item_id for e in queue.entries] == ["i2"] and queue.hidden == 2
    assert queue.hidden_items == ["i3", "i6"]  # their ids only: no judgment goes with them
    assert len(build_queue(store, ["dr-a", "dr-b"], viewer="dr-c", blind=False).entries) == 3


def test_adjudicating_records_the_resolved_judgments_and_leaves_the_queue_entry_settled(store):
    entry = build_queue(store, ["dr-a", "dr-b"], "gpt-5.1").entries[0]
    with pytest.raises(MedRCubeError, match="reason"):
        adjudicate(store, entry, "dr-c", {"1.1": 0}, {"1.1": " "})
    with pytest.raises(MedRCubeError, match="has not committed"):
        adjudicate(store, entry, "dr-z", {"1.1": 0}, {"1.1": "x"})
    (stored,) = adjudicate(store, entry, "dr-c", {"1.1": 0}, {"1.1": "wrong side"})
    assert [(r["rater"], r["value"], r["revision"]) for r in stored.resolves] == [
        ("dr-a", 0, 1),
        ("dr-b", 1, 1),
        ("LLM gpt-5.1", 0, 1),
    ]
    again = build_queue(store, ["dr-a", "dr-b"], "gpt-5.1").entries[0]
    assert again.open_targets == [] and again.adjudicated["1.1"].reason == "wrong side"
    assert store.first_reviews("dr-a")["i2"].scores["1.1"] == 0  # untouched


@pytest.fixture
def cli_study(tmp_path):
    root = write_benchmark(
        tmp_path / "bench", {"ds1": [item(i) for i in ITEMS]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    db = tmp_path / "s.db"
    fill(StudyStore(db), experts=("dr-a", "dr-b")).close()
    return str(root), str(db)


def test_adjudicate_queue_command(cli_study, capsys):
    root, db = cli_study
    capsys.readouterr()
    assert main(["adjudicate-queue", "--db", db, "--dataset", root, "--model", "gpt-5.1",
                 "--json"]) == 0  # fmt: skip
    data = json.loads(capsys.readouterr().out)
    assert data["n_items"] == 3 and data["n_open"] == 3
    assert data["items"][0]["judgments"][1]["comment"] == "dr-b on i2"


def test_agreement_command_with_several_reviewers_and_with_the_gold(cli_study, capsys, tmp_path):
    root, db = cli_study
    base = ["agreement", "--db", db, "--reviewer", "dr-a", "--reviewer", "dr-b",
            "--model", "gpt-5.1", "--bootstrap", "100"]  # fmt: skip
    capsys.readouterr()
    assert main([*base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    names = [c["name"] for c in data["columns"]]
    assert names[:2] == ["expert–expert (ceiling)", "expert–LLM"]
    assert data["columns"][0]["rows"]["1.1"]["agreement"] == pytest.approx(10 / 12)
    assert main([*base, "--out", str(tmp_path / "out")]) == 0
    text = capsys.readouterr().out
    assert "expert–expert (ceiling)" in text and "Sample level" in text
    assert {p.name for p in (tmp_path / "out").iterdir()} >= {"agreement.xlsx", "report.html"}
    assert main([*base, "--gold", "adjudicated", "--json"]) == 0
    gold = json.loads(capsys.readouterr().out)
    assert gold["gold"]["n_items"] == 9 and gold["gold"]["n_left_out"] == 3
    # the old forms still work
    assert main(["agreement", "--db", db, "--reviewer", "dr-a", "--model", "gpt-5.1",
                 "--json", "--bootstrap", "0"]) == 0  # fmt: skip
    assert "sample_level" in json.loads(capsys.readouterr().out)
    assert main(["agreement", "--db", db, "--reviewer", "dr-a"]) == 2
