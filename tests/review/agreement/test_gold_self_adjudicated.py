"""Where an expert's agreement with the gold standard comes from: the consensus items
(1.00 by construction), their own adjudications (their own later decision), and the
items adjudicated by someone else (the informative comparison), with counts; the LLM over
every gold item and over the adjudicated ones."""

import json

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.review.agreement.panel_report import panel_html, panel_lines
from medrcube_desktop.review.agreement.panel_run import run_gold
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.adjudications import Adjudication
from tests.review.experts_fixture import fill

# dr-a and dr-b disagree on 1.1 of i2 (dr-a fails) and i3 (dr-b fails), and on 2.3 of i6
# (dr-a fails). dr-b adjudicates i2 and i3 their own way; dr-c adjudicates i6 as dr-a.
# Gold: 12 items, 9 by consensus, 3 adjudicated (i2: 1.1 pass; i3: 1.1 fail; i6: 2.3 fail).
NOTE_A = (
    "dr-a, 12 gold items judged: on the 9 consensus items gold is the experts' shared "
    "verdict, dr-a's included (agreement 1.00 by construction); the 3 items adjudicated "
    "by someone else are the informative comparison ('dr-a vs gold, adjudicated by others')"
)
NOTE_B = (
    "dr-b, 12 gold items judged: on the 9 consensus items gold is the experts' shared "
    "verdict, dr-b's included (agreement 1.00 by construction); on the 2 items dr-b "
    "adjudicated, gold is dr-b's own later decision (dr-b's first judgment matches it on "
    "all seven rules on 2 of them); the 1 item adjudicated by someone else is the "
    "informative comparison ('dr-b vs gold, adjudicated by others')"
)
NOTE = NOTE_B  # the one the pane test looks for


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


def test_each_expert_is_told_where_gold_comes_from_and_compared_on_others_adjudications(store):
    run = run_gold(store, ["dr-a", "dr-b"], "gpt-5.1", bootstrap=50)
    assert NOTE_A in run.notes and NOTE_B in run.notes
    assert run.gold["experts"] == {
        "dr-a": {"n_items": 12, "consensus": 9, "own": 0, "others": 3, "own_matching_first": 0},
        "dr-b": {"n_items": 12, "consensus": 9, "own": 2, "others": 1, "own_matching_first": 2},
    }
    assert (run.gold["n_consensus"], run.gold["n_adjudicated"]) == (9, 3)
    assert run.gold["self_adjudicated"] == {"dr-b": 2}
    columns = {c.name: c for c in run.columns}
    assert [(c.name, c.kind) for c in run.columns] == [
        ("LLM gpt-5.1 vs gold", "gold"),
        ("LLM gpt-5.1 vs gold, adjudicated items", "gold_adjudicated"),
        ("dr-a vs gold", "gold"),
        ("dr-a vs gold, adjudicated by others", "gold_independent"),
        ("dr-b vs gold", "gold"),
        ("dr-b vs gold, adjudicated by others", "gold_independent"),
    ]

    def sample(name):
        row = columns[name].rows["sample"]
        return row.agreement, row.n_items

    # dr-a on i2, i3, i6: 1.1 differs on i2 (fail vs pass) and i3 (pass vs fail); i6 matches
    assert sample("dr-a vs gold, adjudicated by others") == (pytest.approx(1 / 3), [3])
    assert columns["dr-a vs gold, adjudicated by others"].rows["1.1"].agreement == pytest.approx(
        1 / 3
    )
    assert columns["dr-a vs gold, adjudicated by others"].rows["2.3"].agreement == 1.0
    # dr-b on i6 (dr-c's): dr-b passes 2.3, gold fails it
    assert sample("dr-b vs gold, adjudicated by others") == (0.0, [1])
    # every item: dr-a differs on i2, i3; dr-b only on i6 (i2, i3 their own decisions)
    assert sample("dr-a vs gold") == (pytest.approx(10 / 12), [12])
    assert sample("dr-b vs gold") == (pytest.approx(11 / 12), [12])
    # the LLM fails 1.1 on i0-i3 and 2.3 on i8: it differs from gold on i2, i5, i6, i8
    assert sample("LLM gpt-5.1 vs gold") == (pytest.approx(8 / 12), [12])
    # over i2, i3, i6: i3 matches only
    assert sample("LLM gpt-5.1 vs gold, adjudicated items") == (pytest.approx(1 / 3), [3])
    text = "\n".join(panel_lines(run))
    assert " ".join(NOTE_A.split()) in " ".join(text.split())
    assert "by construction" in panel_html(run)


def test_an_adjudicator_who_overruled_their_own_judgment_does_not_score_one(store):
    # dr-b failed 1.1 of i3 and now adjudicates it as a pass (dr-a's reading)
    store.save_adjudication(Adjudication("i3", "1.1", 1, "on reflection it is right", "dr-b"))
    run = run_gold(store, ["dr-a", "dr-b"], bootstrap=0)
    assert run.gold["experts"]["dr-b"]["own_matching_first"] == 1  # i2 only
    assert "matches it on all seven rules on 1 of them" in run.notes[1]
    own = {c.name: c for c in run.columns}["dr-b vs gold"]
    assert own.rows["1.1"].agreement == pytest.approx(11 / 12)  # i3 differs


def test_a_third_person_adjudicating_leaves_every_expert_an_independent_column():
    store = fill(StudyStore(None), experts=("dr-a", "dr-b"))
    store.save_adjudications([
        Adjudication(i, r, 0, "decided", "dr-c") for i, r in (("i2", "1.1"), ("i3", "1.1"), ("i6", "2.3"))
    ])  # fmt: skip
    run = run_gold(store, ["dr-a", "dr-b"], bootstrap=0)
    assert run.gold["self_adjudicated"] == {}
    assert [c.kind for c in run.columns] == ["gold", "gold_independent"] * 2


def test_an_expert_who_adjudicated_every_disputed_item_has_no_independent_column():
    store = fill(StudyStore(None), items=["i0", "i2", "i3"], experts=("dr-a", "dr-b"))
    adjudicated(store)
    run = run_gold(store, ["dr-a", "dr-b"], bootstrap=0)
    assert [c.name for c in run.columns] == [
        "dr-a vs gold",
        "dr-a vs gold, adjudicated by others",
        "dr-b vs gold",
    ]
    assert run.notes[1] == (
        "dr-b, 3 gold items judged: on the 1 consensus item gold is the experts' shared "
        "verdict, dr-b's included (agreement 1.00 by construction); on the 2 items dr-b "
        "adjudicated, gold is dr-b's own later decision (dr-b's first judgment matches it "
        "on all seven rules on 2 of them); no item was adjudicated by someone else: dr-b "
        "has no independent comparison with gold"
    )


def test_one_reviewer_or_only_the_llm_against_the_gold_of_every_reviewer(store):
    run = run_gold(store, ["dr-a"], bootstrap=0)
    assert run.gold["panel"] == ["dr-a", "dr-b"] and run.gold["n_items"] == 12
    assert [c.name for c in run.columns] == ["dr-a vs gold", "dr-a vs gold, adjudicated by others"]
    llm = run_gold(store, [], "gpt-5.1", bootstrap=0)
    assert [c.kind for c in llm.columns] == ["gold", "gold_adjudicated"]
    assert llm.columns[0].rows["sample"].agreement == pytest.approx(8 / 12)


def test_the_agreement_command_says_it_in_text_and_json(tmp_path, capsys):
    db = tmp_path / "s.db"
    adjudicated(fill(StudyStore(db), experts=("dr-a", "dr-b"))).close()
    base = ["agreement", "--db", str(db), "--reviewer", "dr-a", "--reviewer", "dr-b",
            "--gold", "adjudicated", "--bootstrap", "20"]  # fmt: skip
    capsys.readouterr()
    assert main(base) == 0
    out = capsys.readouterr().out
    assert " ".join(NOTE_B.split()) in " ".join(out.split())
    assert max(len(line) for line in out.splitlines()) <= 120
    assert main([*base, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert NOTE_B in data["notes"] and data["gold"]["self_adjudicated"] == {"dr-b": 2}
    assert [c["kind"] for c in data["columns"]] == ["gold", "gold_independent"] * 2


def test_the_command_compares_one_reviewer_or_the_llm_alone_with_gold(tmp_path, capsys):
    db = tmp_path / "s.db"
    adjudicated(fill(StudyStore(db), experts=("dr-a", "dr-b"))).close()
    base = ["agreement", "--db", str(db), "--gold", "adjudicated", "--bootstrap", "0", "--json"]
    assert main([*base, "--reviewer", "dr-a"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["columns"]] == [
        "dr-a vs gold",
        "dr-a vs gold, adjudicated by others",
    ]
    assert data["gold"]["panel"] == ["dr-a", "dr-b"]
    assert main([*base, "--model", "gpt-5.1"]) == 0
    assert json.loads(capsys.readouterr().out)["raters"] == {"LLM gpt-5.1": 12}
    assert main(base) == 2
    assert "compare --model or a --reviewer" in capsys.readouterr().err
