""" "Cannot judge" end to end (issue 24): a CSV with abstentions imported, then the
agreement text, --json and exported files report the abstention rates beside the
figures, and adjudicate-queue lists the abstained items as needing a decision."""

import csv
import json

from openpyxl import load_workbook

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from tests.conftest import dicom_file, item, write_benchmark

ITEMS = [f"i{k}" for k in range(8)]
# dr-a cannot judge 1.4 on i0 and i1 (text only) and fails 1.3 on i2; the LLM fails 1.3
# on i2 and i3 and never abstains
EXPERT = {i: dict.fromkeys(RULE_IDS, "1") for i in ITEMS}
EXPERT["i0"]["1.4"] = EXPERT["i1"]["1.4"] = "cannot judge"
EXPERT["i1"]["2.3"] = "NA"
EXPERT["i2"]["1.3"] = "0"
LLM = {i: dict.fromkeys(RULE_IDS, 1) for i in ITEMS}
LLM["i2"]["1.3"] = LLM["i3"]["1.3"] = 0


def make_study(tmp_path):
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item(i) for i in ITEMS]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    reviews = tmp_path / "expert.csv"
    with open(reviews, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["item_id", *RULE_IDS, "comment"])
        for i in ITEMS:
            writer.writerow([i, *(EXPERT[i][r] for r in RULE_IDS), "x"])
    judgments = tmp_path / "llm.jsonl"
    judgments.write_text("".join(json.dumps({"id": i, **LLM[i]}) + "\n" for i in ITEMS))
    db = str(tmp_path / "study.db")
    assert main(["import-reviews", "--db", db, "--reviewer", "dr-a", str(reviews)]) == 0
    assert main(["import-judgments", "--db", db, "--model", "gpt", str(judgments)]) == 0
    return root, db


def test_agreement_reports_abstention_rates_and_excludes_them_pairwise(tmp_path, capsys):
    root, db = make_study(tmp_path)
    args = ["agreement", "--db", db, "--reviewer", "dr-a", "--model", "gpt", "--bootstrap", "50"]
    capsys.readouterr()
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["n_samples"] == 8
    assert data["rules"]["1.4"]["confusion"] == [[0, 0], [0, 6]]  # i0, i1 left out
    assert data["rules"]["2.3"]["confusion"] == [[0, 0], [0, 7]]  # i1 left out
    assert data["rules"]["1.3"]["confusion"] == [[1, 0], [1, 6]]  # all 8
    # all seven: i0 and i1 left out; of i2..i7 only i3 differs → 5 of 6
    assert data["sample_level"]["agreement"] == round(5 / 6, 6)
    found = data["abstentions"]
    assert found["first"]["counts"]["1.4"] == 2 and found["first"]["rates"]["1.4"] == 0.25
    assert found["first"]["rates"]["2.3"] == 0.125
    assert set(found["second"]["counts"].values()) == {0}  # the LLM never abstains
    assert found["sample_level_left_out"] == 2
    assert main([*args, "--out", str(tmp_path / "out")]) == 0
    text = capsys.readouterr().out
    assert "Cannot judge, dr-a (of 8 compared items): 1.4 2 (25 %), 2.3 1 (12 %)." in text
    assert "Cannot judge, LLM gpt (of 8 compared items): never." in text
    assert "sample level (all seven) 2 item(s)" in text
    book = load_workbook(tmp_path / "out" / "agreement.xlsx")
    rows = list(book["Cannot judge"].iter_rows(values_only=True))
    assert rows[0][0] == "Rule" and ("1.4", 2, 0.25, 0, 0.0, 2) in rows
    assert "Cannot judge." in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    long = (tmp_path / "out" / "agreement_long.csv").read_text(encoding="utf-8-sig")
    assert "i0,1.4,dr-a,cannot judge," in long


def test_the_adjudication_queue_lists_abstained_items_as_needing_a_decision(tmp_path, capsys):
    root, db = make_study(tmp_path)
    capsys.readouterr()
    queue = ["adjudicate-queue", "--db", db, "--dataset", str(root)]
    assert main([*queue, "--json"]) == 0  # one expert, no LLM: only the abstentions
    data = json.loads(capsys.readouterr().out)
    entries = {e["item_id"]: e for e in data["items"]}
    assert sorted(entries) == ["i0", "i1"]
    assert entries["i1"]["rules"] == ["1.4", "2.3"] and entries["i1"]["open"] == ["1.4", "2.3"]
    assert entries["i1"]["abstained"] == {"dr-a": ["1.4", "2.3"]}
    assert entries["i0"]["judgments"][0]["scores"]["1.4"] == "cannot judge"
    assert main(queue) == 0
    text = capsys.readouterr().out
    assert "i0\trules 1.4\topen: 1.4\tdr-a: 111?111\tcannot judge: dr-a 1.4" in text
