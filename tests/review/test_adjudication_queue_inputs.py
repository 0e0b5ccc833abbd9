"""``adjudicate-queue`` says why a queue would be empty (issue 21): an unknown reviewer,
an unknown model, or a database whose reviews are of another benchmark; restricted items
(reviewed on their text) are in the queue; the LLM's comment is words, not its JSON."""

import json

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.review.adjudication import build_queue, llm_comment
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.review.experts_fixture import ITEMS, fill


@pytest.fixture
def study(tmp_path):
    # i2 (dr-a fails 1.1, dr-b passes it) is restricted: no image shipped
    records = [item(i) if i != "i2" else item(i, image="images/r.png", restricted=True)
               for i in ITEMS]  # fmt: skip
    images = {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    root = write_benchmark(tmp_path / "bench", {"ds1": records}, images)
    other = write_benchmark(tmp_path / "other", {"ds1": [item("x1"), item("x2")]}, images)
    db = tmp_path / "s.db"
    fill(StudyStore(db), experts=("dr-a", "dr-b")).close()
    return str(root), str(other), str(db)


def queue(capsys, *args):
    capsys.readouterr()
    code = main(["adjudicate-queue", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_restricted_item_is_in_the_queue(study, capsys):
    root, _, db = study
    code, out, _ = queue(capsys, "--db", db, "--dataset", root, "--json")
    assert code == 0
    # 1.1: dr-a fails i0-i2, dr-b i0, i1, i3 (apart on i2, i3); 2.3: dr-a fails i5, i6,
    # dr-b i5 (apart on i6); i2 was left out while restricted items were
    assert [e["item_id"] for e in json.loads(out)["items"]] == ["i2", "i3", "i6"]


def test_an_unknown_reviewer_is_named_with_the_known_ones(study, capsys):
    root, _, db = study
    code, _, err = queue(capsys, "--db", db, "--dataset", root, "--reviewer", "dr-x")
    assert code == 2
    assert "unknown reviewer 'dr-x' (known: dr-a, dr-b)" in err


def test_an_unknown_model_is_named_with_the_judged_ones(study, capsys):
    root, _, db = study
    code, _, err = queue(capsys, "--db", db, "--dataset", root, "--model", "gpt-4")
    assert code == 2 and "no judgments by model 'gpt-4' (judged by: gpt-5.1)" in err


def test_the_wrong_benchmark_is_said_not_an_empty_queue(study, capsys):
    _, other, db = study
    code, out, err = queue(capsys, "--db", db, "--dataset", other)
    assert code == 2 and "0 items to adjudicate" not in out
    assert (
        "the database's reviews are for another benchmark: none of its 12 reviewed items "
        f"(e.g. i0, i1, i10) is in {other}"
    ) in err


def test_the_llm_comment_is_words_not_its_raw_json(study):
    _, _, db = study
    entries = build_queue(StudyStore(db), model="gpt-5.1", against="llm").entries
    (llm,) = [j for j in next(e for e in entries if e.item_id == "i8").judgments
              if j.kind == "llm"]  # fmt: skip
    assert "{" not in llm.comment
    assert (
        llm.comment
        == "fails 2.3 Plausibility of Distractors (the LLM gives scores only, no reasons)"
    )
    assert llm_comment(dict.fromkeys(["1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "2.3"], 1)) == (
        "passes all seven rules (the LLM gives scores only, no reasons)"
    )
