"""``demo build --with-examples``: the examples study, read back through the commands a
user runs on it (compare, credibility, agreement, adjudicate-queue, export-run,
export-reviews), each figure checked against the seeded script computed here."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.demo import examples
from medrcube_desktop.demo.build import build_demo
from medrcube_desktop.demo.example_script import (
    EXPERTS,
    JUDGE,
    PERSONALITIES,
    scripted_answers,
    scripted_scores,
)
from medrcube_desktop.demo.examples import build_examples

RUNS = [p.run for p in PERSONALITIES]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """The demo and its examples study, built once for the module (settings, data and
    image cache folders in tmp, never the user's)."""
    base = tmp_path_factory.mktemp("examples")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("DATA_DIR", "CONFIG_DIR", "IMAGE_CACHE"):
            patch.setenv(f"MEDRCUBE_{name}", str(base / name.lower()))
        root = build_demo(base / "demo")
        db = examples.examples_db_path(root)
        summary = build_examples(root, db)
    items = load_benchmark(root).items
    return root, db, summary, items


@pytest.fixture
def warm_cache(study, monkeypatch):
    """The module's image cache, so that a second build prepares no image again."""
    root = study[0]
    monkeypatch.setenv("MEDRCUBE_IMAGE_CACHE", str(root.parent / "image_cache"))


def _json(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _kappa(first: list[int], second: list[int]) -> float:
    """Cohen's kappa of two 0/1 label lists, by hand: (po - pe) / (1 - pe)."""
    n = len(first)
    po = sum(a == b for a, b in zip(first, second, strict=True)) / n
    p1, p2 = sum(first) / n, sum(second) / n
    pe = p1 * p2 + (1 - p1) * (1 - p2)
    return (po - pe) / (1 - pe)


def test_compare_counts_each_run_as_the_script_answered(study, capsys):
    root, db, summary, items = study
    found = _json(capsys, ["compare", "--db", str(db), "--dataset", str(root),
                           "--bootstrap", "0", "--stability", "0"])  # fmt: skip
    assert found["runs"] == RUNS
    script = scripted_answers(items)
    correct = {run: sum(script[run][i.id] == i.answer for i in items) for run in RUNS}
    for run in RUNS:
        overall = found["leaderboard"]["runs"][run]["overall"]["Overall"]
        assert (overall["n"], overall["correct"]) == (len(items), correct[run])
        assert overall["accuracy"] == pytest.approx(correct[run] / len(items))
    # models of different accuracy, and the baseline below its image run
    assert correct["demo-strong"] > correct["demo-middling"] > correct["demo-weak"]
    assert correct["demo-strong-text-only"] < correct["demo-strong"]
    pairs = [(p["image_run"], p["text_run"]) for p in found["text_only"]]
    assert pairs == [("demo-strong", "demo-strong-text-only")]
    unparsed = {run: info["unparsed"] for run, info in found["families"].items()}
    assert unparsed["demo-weak"] == sum(script["demo-weak"][i.id] is None for i in items) > 0
    assert summary.runs["demo-strong"]["correct"] == correct["demo-strong"]


def test_credibility_works_on_a_run_and_agrees_with_compare(study, capsys):
    root, db, _, _ = study
    figures = _json(capsys, ["credibility", "--run", "demo-strong", "--db", str(db),
                             "--dataset", str(root)])  # fmt: skip
    groups = [figures[f"group_{g}"] for g in "abcd"]
    assert figures["total_pairs"] == sum(groups) > 0
    found = _json(capsys, ["compare", "--db", str(db), "--dataset", str(root),
                           "--run", "demo-strong", "--bootstrap", "0", "--stability", "0"])  # fmt: skip
    (model,) = found["credibility"]["models"]
    assert [model[g] for g in "abcd"] == groups


def test_the_reviews_and_judgments_are_the_seeded_labels(study):
    from medrcube_desktop.store import StudyStore

    _, db, _, items = study
    seeded = scripted_scores(items)
    store = StudyStore(db, read_only=True)
    try:
        for expert in EXPERTS:
            first = store.first_reviews(expert)
            assert {i: dict(r.scores) for i, r in first.items()} == seeded[expert]
            assert all(r.image_shown and r.blind for r in first.values())
            failed = [r for r in first.values() if 0 in r.scores.values()]
            assert failed and all(r.comment.startswith("Fails ") for r in failed)
            # a note on every item where the revealed LLM judgment differs, none elsewhere
            noted = {i for i, r in first.items() if r.uid in store.noted_review_uids(expert)}
            differ = {i for i in first if seeded[expert][i] != seeded[JUDGE][i]}
            assert noted == differ and differ
        judged = store.judgments(JUDGE)
        assert {i: dict(j.scores) for i, j in judged.items()} == seeded[JUDGE]
        assert {j.status for j in judged.values()} == {"ok"}
    finally:
        store.close()


def test_agreement_gives_expert_expert_and_expert_llm_kappas_as_by_hand(study, capsys):
    _, db, _, items = study
    seeded = scripted_scores(items)
    ids = [i.id for i in items]

    def labels(rater: str, rule: str) -> list[int]:
        return [seeded[rater][i][rule] for i in ids]

    pair = _json(capsys, ["agreement", "--db", str(db), "--reviewer", EXPERTS[0],
                          "--reviewer2", EXPERTS[1], "--bootstrap", "0"])  # fmt: skip
    llm = _json(capsys, ["agreement", "--db", str(db), "--reviewer", EXPERTS[0],
                         "--model", JUDGE, "--bootstrap", "0"])  # fmt: skip
    assert pair["n_samples"] == llm["n_samples"] == len(items)
    for rule in RULE_IDS:
        a, b, m = labels(EXPERTS[0], rule), labels(EXPERTS[1], rule), labels(JUDGE, rule)
        assert pair["rules"][rule]["cohen_kappa"] == pytest.approx(_kappa(a, b), abs=1e-6)
        assert llm["rules"][rule]["cohen_kappa"] == pytest.approx(_kappa(a, m), abs=1e-6)
    # the experts disagree on some rules, so the kappas are not 1
    assert any(pair["rules"][r]["cohen_kappa"] < 1 for r in RULE_IDS)
    panel = _json(capsys, ["agreement", "--db", str(db), "--reviewer", EXPERTS[0],
                           "--reviewer", EXPERTS[1], "--model", JUDGE, "--bootstrap", "0"])  # fmt: skip
    kinds = [column["kind"] for column in panel["columns"]]
    assert "ceiling" in kinds and len(kinds) >= 2  # expert-expert beside expert-LLM
    ceiling = panel["columns"][kinds.index("ceiling")]["rows"]["1.1"]["cohen_kappa"]
    assert ceiling == pytest.approx(
        _kappa(labels(EXPERTS[0], "1.1"), labels(EXPERTS[1], "1.1")), abs=1e-6
    )


def test_the_queue_lists_the_disagreements_less_the_adjudicated_one(study, capsys):
    root, db, summary, items = study
    seeded = scripted_scores(items)
    differ = sorted(i.id for i in items if seeded[EXPERTS[0]][i.id] != seeded[EXPERTS[1]][i.id])
    assert len(differ) == summary.disagreements > 1
    queue = _json(capsys, ["adjudicate-queue", "--db", str(db), "--dataset", str(root)])
    assert [e["item_id"] for e in queue["items"]] == differ
    assert queue["n_open"] == len(differ) - 1
    done = next(e for e in queue["items"] if e["item_id"] == summary.adjudicated)
    assert done["open"] == [] and sorted(done["adjudicated"]) == done["rules"]
    truth = seeded["truth"][summary.adjudicated]
    assert {r: a["value"] for r, a in done["adjudicated"].items()} == {
        r: truth[r] for r in done["rules"]
    }
    still = _json(capsys, ["adjudicate-queue", "--db", str(db), "--dataset", str(root),
                           "--open-only"])  # fmt: skip
    assert [e["item_id"] for e in still["items"]] == [i for i in differ if i != summary.adjudicated]


TIMES = {"started_at", "committed_at", "active_seconds"}
"""Review columns that are measured, not seeded."""


def _exports(capsys, root: Path, db: Path, out: Path) -> dict[str, object]:
    """Every run (results.json) and every expert's reviews (CSV, time columns left out)."""
    found: dict[str, object] = {}
    for run in RUNS:
        path = out / f"{run}.json"
        _json(capsys, ["export-run", "--db", str(db), "--run", run, "--dataset", str(root),
                       "--out", str(path)])  # fmt: skip
        found[run] = json.loads(path.read_text(encoding="utf-8"))
    for expert in EXPERTS:
        path = out / f"{expert}.csv"
        _json(capsys, ["export-reviews", "--db", str(db), "--reviewer", expert,
                       "--out", str(path)])  # fmt: skip
        with path.open(encoding="utf-8-sig", newline="") as f:
            found[expert] = [{k: v for k, v in row.items() if k not in TIMES}
                             for row in csv.DictReader(f)]  # fmt: skip
    return found


@pytest.mark.slow  # a second build, through the command
def test_demo_build_with_examples_is_the_same_for_the_same_seed(
    study, warm_cache, tmp_path, capsys
):
    root, db, _, _ = study
    again = tmp_path / "demo"
    built = _json(capsys, ["demo", "build", str(again), "--with-examples"])
    assert built["examples"]["db"] == str(tmp_path / "demo-examples.sqlite")
    assert sorted(built["examples"]["runs"]) == sorted(RUNS)
    # a count beside disagreements, the item by its id apart (it held the id)
    assert built["examples"]["adjudicated"] == 1 and built["examples"]["disagreements"] > 1
    assert built["examples"]["adjudicated_items"] == [study[2].adjudicated]
    first = _exports(capsys, root, db, tmp_path / "first")
    second = _exports(capsys, again, Path(built["examples"]["db"]), tmp_path / "second")
    assert first == second
    assert first[EXPERTS[0]] != first[EXPERTS[1]]  # the comparison can tell two apart
    # another seed scripts other answers and scores
    items = load_benchmark(root).items
    assert scripted_answers(items, 1) != scripted_answers(items)
    assert scripted_scores(items, 1) != scripted_scores(items)


def test_demo_build_with_examples_refuses_an_existing_database_before_building(tmp_path, capsys):
    (tmp_path / "demo-examples.sqlite").write_text("mine")
    assert main(["demo", "build", str(tmp_path / "demo"), "--with-examples"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert not (tmp_path / "demo").exists()
    assert (tmp_path / "demo-examples.sqlite").read_text() == "mine"


def test_with_examples_opens_nothing_without_demo_or_with_db(tmp_path, capsys):
    assert main(["--with-examples"]) == 2
    assert "--with-examples goes with --demo" in capsys.readouterr().err
    assert main(["--demo", "--with-examples", "--db", str(tmp_path / "x.db")]) == 2
    assert "leave out --db" in capsys.readouterr().err


def test_ensure_examples_keeps_a_current_study_and_sets_another_aside(study, tmp_path, monkeypatch):
    from medrcube_desktop.store import StudyStore

    root, db, _, _ = study
    before = db.stat().st_mtime_ns, db.read_bytes()
    assert examples.ensure_examples(root, db) == db
    assert (db.stat().st_mtime_ns, db.read_bytes()) == before  # current: not rebuilt
    stale = tmp_path / "stale.sqlite"
    store = StudyStore(stale)
    try:
        store.set_state(examples.VERSION_KEY, "0/0")  # made for another demo
        store.set_state("mine", "a review added by the user")
    finally:
        store.close()
    built = []  # the build itself is checked above; here only that it is asked for
    monkeypatch.setattr(
        examples, "build_examples", lambda demo, path, **kw: built.append((demo, path))
    )
    assert examples.ensure_examples(root, stale) == stale
    assert built == [(root, stale)] and not stale.exists()  # moved aside, then built
    (aside,) = tmp_path.glob("stale.sqlite.replaced-*")
    old = StudyStore(aside, read_only=True)
    try:
        assert old.get_state("mine") == "a review added by the user"
    finally:
        old.close()


def test_ctrl_c_while_the_demo_is_written_builds_no_examples(tmp_path, monkeypatch, capsys):
    """Ctrl+C during ``demo build --with-examples``'s first step (the demo, which runs to
    its end) stops there: exit status 1, no study database, the examples never started.
    Fails on the code that dropped the first step's cancel (the examples were built and
    the status was 0)."""
    from medrcube_desktop.cli import benchmark

    real = benchmark.run_in_terminal
    calls = []

    def pressed_during_the_first(job, **kwargs):
        calls.append(kwargs.get("on_cancel"))
        if len(calls) > 1:
            return real(job, **kwargs)

        def interrupted(progress, cancel):
            cancel.set()  # as the runner does on the first Ctrl+C
            return job(progress, cancel)

        return real(interrupted, **kwargs)

    monkeypatch.setattr(benchmark, "run_in_terminal", pressed_during_the_first)
    monkeypatch.setattr(
        examples, "build_examples", lambda *a, **kw: pytest.fail("examples built after Ctrl+C")
    )
    out = tmp_path / "demo"
    assert main(["demo", "build", str(out), "--with-examples", "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["examples"] == {"db": str(tmp_path / "demo-examples.sqlite"), "cancelled": True}
    assert len(calls) == 1 and "no examples study" in calls[0]
    calls.clear()  # the same without --json: the line says what to do next
    assert main(["demo", "build", str(tmp_path / "again"), "--with-examples"]) == 1
    err = capsys.readouterr()
    assert f"the demo in {tmp_path / 'again'} is whole; to build both again" in err.out + err.err
    assert not (tmp_path / "demo-examples.sqlite").exists()
    assert not (tmp_path / "again-examples.sqlite").exists()
    assert len(load_benchmark(out).items) == printed["items"] == 29  # the demo is whole


def test_ensure_examples_says_a_truncated_study_could_not_be_read(
    study, tmp_path, monkeypatch, caplog
):
    """A truncated examples study (a copy cut short, a full disk) is set aside and built
    again with a warning that says it could not be read and why, not that it "was made
    for another demo" (the message before, which hid the store's error)."""
    root, db, _, _ = study
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(db.read_bytes()[:20000])
    monkeypatch.setattr(examples, "build_examples", lambda demo, path, **kw: None)
    with caplog.at_level("WARNING", logger=examples.__name__):
        assert examples.ensure_examples(root, broken) == broken
    (aside,) = tmp_path.glob("broken.sqlite.replaced-*")
    assert aside.read_bytes() == db.read_bytes()[:20000]
    (message,) = [r.getMessage() for r in caplog.records]
    assert f"{broken} could not be read (" in message and "another demo" not in message
    assert str(aside) in message


def test_a_study_that_appears_during_the_build_is_never_replaced(study, tmp_path, monkeypatch):
    """Two builds of one folder at once: the one that ends second finds the database
    there and refuses (DatasetError naming it), leaving the first's file, and reviews
    added to it since, as they are; no staging file is left. Fails on the rename into
    place, which replaced the file."""
    from medrcube_desktop.errors import DatasetError

    root, _, _, _ = study
    db = tmp_path / "demo-examples.sqlite"

    def other_build_ends_first(staging, *args):
        staging.write_bytes(b"these examples")
        db.write_bytes(b"the other build's study, reviewed since")

    monkeypatch.setattr(examples, "_build", other_build_ends_first)
    with pytest.raises(DatasetError, match="appeared while the examples were built") as raised:
        examples.build_examples(root, db)
    assert str(db) in str(raised.value)
    assert db.read_bytes() == b"the other build's study, reviewed since"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo-examples.sqlite"]


def test_the_examples_study_of_a_folder_spelt_with_dots_goes_beside_that_folder(
    tmp_path, monkeypatch
):
    """``.`` and ``..`` read as the folders they name. Fails on the path's own last part
    (``Path('.').with_name`` raised ValueError; ``demo/sub/..`` gave
    ``demo/..-examples.sqlite``, inside the demo's parent under a name of dots)."""
    (tmp_path / "demo" / "sub").mkdir(parents=True)
    beside = tmp_path / "demo-examples.sqlite"
    monkeypatch.chdir(tmp_path / "demo")
    for spelling in (".", "../demo", "./sub/..", str(tmp_path / "demo" / "sub" / "..")):
        assert examples.examples_db_path(Path(spelling)) == beside, spelling
    from medrcube_desktop.errors import DatasetError

    with pytest.raises(DatasetError, match="beside the demo's folder"):
        examples.examples_db_path(Path("/"))


def test_demo_build_dot_with_examples_in_an_empty_folder(tmp_path, monkeypatch, capsys):
    """``demo build . --with-examples`` run in the empty folder meant for the demo: no
    traceback, the study is asked for beside it (the build itself is checked above)."""
    demo = tmp_path / "demo"
    demo.mkdir()
    monkeypatch.chdir(demo)
    asked = []

    def cancelled(root, db, **kw):  # stands in for the build: stop at once
        asked.append(db)
        return examples.ExamplesSummary(str(db), str(root), 0, cancelled=True)

    monkeypatch.setattr(examples, "build_examples", cancelled)
    assert main(["demo", "build", ".", "--with-examples", "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["items"] == 29 and len(load_benchmark(demo).items) == 29
    assert asked == [tmp_path / "demo-examples.sqlite"]
