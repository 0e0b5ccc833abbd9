"""An adjudicator who is also one of the experts: their agreement with the gold standard
is said not to be independent, and given over the items they did not adjudicate."""

import json

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.review.agreement.panel_report import panel_html, panel_lines
from medrcube_desktop.review.agreement.panel_run import run_gold
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import Adjudication
from tests.review.experts_fixture import fill

# dr-a vs dr-b disagree on 1.1 of i2 (dr-a fails) and i3 (dr-b fails), and on 2.3 of i6
# (dr-a fails). dr-b adjudicates i2 and i3 their own way; dr-c adjudicates i6 as dr-a.
NOTE = (
    "dr-b adjudicated 2 of the 12 gold items: dr-b's agreement with gold is not "
    "independent; see 'dr-b vs gold, the 10 items dr-b did not adjudicate'"
)


def adjudicated(store):
    store.save_adjudications([
        Adjudication("i2", "1.1", 1, "the lobe is named right", "dr-b"),
        Adjudication("i3", "1.1", 0, "the plane is wrong", "dr-b"),
        Adjudication("i6", "2.3", 0, "a distractor is implausible", "dr-c"),
    ])  # fmt: skip
    return store


@pytest.fixture
def store():
    return adjudicated(fill(StudyStore(None), experts=("dr-a", "dr-b")))


def test_the_adjudicating_expert_is_named_and_given_the_independent_figure(store):
    run = run_gold(store, ["dr-a", "dr-b"], bootstrap=50)
    assert run.notes == [NOTE] and run.gold["self_adjudicated"] == {"dr-b": 2}
    columns = {c.name: c for c in run.columns}
    assert list(columns) == [
        "dr-a vs gold",
        "dr-b vs gold",
        "dr-b vs gold, the 10 items dr-b did not adjudicate",
    ]
    own, rest = (
        columns["dr-b vs gold"],
        columns["dr-b vs gold, the 10 items dr-b did not adjudicate"],
    )
    assert own.rows["1.1"].agreement == 1.0  # by construction on i2, i3
    assert (own.rows["sample"].agreement, own.rows["sample"].n_items) == (
        pytest.approx(11 / 12),
        [12],
    )
    assert (rest.rows["sample"].agreement, rest.rows["sample"].n_items) == (
        pytest.approx(9 / 10),
        [10],
    )
    assert rest.kind == "gold_independent"
    assert columns["dr-a vs gold"].rows["1.1"].agreement == pytest.approx(10 / 12)
    assert f"note: {NOTE}" in panel_lines(run)
    assert "Note: dr-b adjudicated 2 of the 12 gold items" in panel_html(run)


def test_no_note_when_a_third_person_adjudicates(tmp_path):
    store = fill(StudyStore(None), experts=("dr-a", "dr-b"))
    store.save_adjudications([
        Adjudication(i, r, 0, "decided", "dr-c") for i, r in (("i2", "1.1"), ("i3", "1.1"), ("i6", "2.3"))
    ])  # fmt: skip
    run = run_gold(store, ["dr-a", "dr-b"], bootstrap=0)
    assert run.notes == [] and run.gold["self_adjudicated"] == {}
    assert [c.kind for c in run.columns] == ["gold", "gold"]


def test_an_expert_who_adjudicated_every_gold_item_gets_the_note_without_a_column():
    store = fill(StudyStore(None), items=["i2", "i3"], experts=("dr-a", "dr-b"))
    adjudicated(store)
    run = run_gold(store, ["dr-a", "dr-b"], bootstrap=0)
    assert run.notes == [
        "dr-b adjudicated 2 of the 2 gold items: dr-b's agreement with gold is not "
        "independent (no other item is left to compare)"
    ]
    assert [c.name for c in run.columns] == ["dr-a vs gold", "dr-b vs gold"]


def test_the_agreement_command_says_it_in_text_and_json(tmp_path, capsys):
    db = tmp_path / "s.db"
    adjudicated(fill(StudyStore(db), experts=("dr-a", "dr-b"))).close()
    base = ["agreement", "--db", str(db), "--reviewer", "dr-a", "--reviewer", "dr-b",
            "--gold", "adjudicated", "--bootstrap", "20"]  # fmt: skip
    capsys.readouterr()
    assert main(base) == 0
    assert f"note: {NOTE}" in capsys.readouterr().out.splitlines()
    assert main([*base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["notes"] == [NOTE] and data["gold"]["self_adjudicated"] == {"dr-b": 2}
    assert data["columns"][2]["kind"] == "gold_independent"
