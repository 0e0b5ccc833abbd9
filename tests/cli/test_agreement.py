"""An agreement study from imported reviews and judgments, end to end, against numbers
checked by hand; and the files ``--out`` writes."""

import csv
import json

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from tests.conftest import dicom_file, item, write_benchmark

# Ten items. The expert and the LLM agree everywhere except:
#   1.3: expert fails i0 i1 i2, LLM fails i0 i1 i3 i4  → table [[2, 1], [2, 5]]
#   2.2: expert passes all, LLM fails i5 .. i9          → table [[0, 0], [5, 5]]
EXPERT_FAILS = {"1.3": {"i0", "i1", "i2"}}
LLM_FAILS = {"1.3": {"i0", "i1", "i3", "i4"}, "2.2": {"i5", "i6", "i7", "i8", "i9"}}
ITEMS = [f"i{k}" for k in range(10)]


def scores(fails, item_id):
    return {rule: 0 if item_id in fails.get(rule, set()) else 1 for rule in RULE_IDS}


@pytest.fixture
def study(tmp_path):
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
            s = scores(EXPERT_FAILS, i)
            writer.writerow([i, *(s[r] for r in RULE_IDS), "wordy" if 0 in s.values() else ""])
    judgments = tmp_path / "llm.jsonl"
    judgments.write_text(
        "".join(json.dumps({"id": i, **scores(LLM_FAILS, i)}) + "\n" for i in ITEMS)
    )
    db = str(tmp_path / "study.db")
    assert main(["import-reviews", "--db", db, "--reviewer", "dr-a", str(reviews)]) == 0
    assert main(["import-judgments", "--db", db, "--model", "gpt-5.1", str(judgments)]) == 0
    args = ["study", "--dataset", str(root), "--db", db, "--name", "all", "--n", "10"]
    assert main([*args, "--seed", "3"]) == 0
    return db


def run(capsys, db, *extra):
    capsys.readouterr()
    args = ["agreement", "--db", db, "--reviewer", "dr-a", "--model", "gpt-5.1", "--study", "all"]
    assert main([*args, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_imported_study_reproduces_the_hand_checked_figures(study, capsys):
    data = run(capsys, study, "--seed", "11", "--bootstrap", "400")
    assert data["n_samples"] == 10 and data["n_excluded"] == 0
    # items matching on all seven: only i2, i3, i4 (1.3) and i5..i9 (2.2) differ → 2 of 10
    assert data["sample_level"]["agreement"] == pytest.approx(0.2)
    r13 = data["rules"]["1.3"]
    assert r13["confusion"] == [[2, 1], [2, 5]]
    assert r13["agreement"] == pytest.approx(0.7)
    assert r13["cohen_kappa"] == pytest.approx(0.16 / 0.46, abs=1e-6)
    assert r13["gwet_ac1"] == pytest.approx(0.245 / 0.545, abs=1e-6)
    assert r13["pabak"] == pytest.approx(0.4) and r13["mcnemar_p"] == pytest.approx(1.0)
    r22 = data["rules"]["2.2"]  # expert constant (all pass): p_o 0.5, p_e 0.5 → kappa 0
    assert r22["confusion"] == [[0, 0], [5, 5]] and r22["cohen_kappa"] == pytest.approx(0.0)
    # pi = (1 + 0.5) / 2 = 0.75, p_e = 0.375: AC1 = (0.5 - 0.375) / 0.625 = 0.2
    assert r22["gwet_ac1"] == pytest.approx(0.2)
    assert r22["mcnemar_p"] == pytest.approx(2 / 32)  # 0 vs 5 discordant
    r11 = data["rules"]["1.1"]  # all pass for both: kappa undefined
    assert r11["agreement"] == 1.0 and r11["cohen_kappa"] is None and r11["gwet_ac1"] == 1.0
    p1 = data["principles"]["1"]  # verdict = 1.3 here (the other rules always pass)
    assert p1["all_match"] == pytest.approx(0.7) and p1["verdict_agreement"] == pytest.approx(0.7)
    assert p1["confusion"] == [[2, 1], [2, 5]]
    p2 = data["principles"]["2"]
    assert p2["all_match"] == pytest.approx(0.5) and p2["confusion"] == [[0, 0], [5, 5]]
    again = run(capsys, study, "--seed", "11", "--bootstrap", "400")
    assert again["rules"]["1.3"]["ci95"] == r13["ci95"]  # same seed, same intervals
    assert again["sample_level"]["ci95"] == data["sample_level"]["ci95"]
    other = run(capsys, study, "--seed", "12", "--bootstrap", "400")

    def intervals(d):
        return [
            d["rules"][r][k]
            for r in RULE_IDS
            for k in ("ci95", "cohen_kappa_ci95", "gwet_ac1_ci95")
        ]

    assert intervals(again) == intervals(data) and intervals(other) != intervals(data)
    assert data["meta"]["judge_model"] == "gpt-5.1" and data["meta"]["study_seed"] == 3


def test_out_writes_every_file_with_the_provenance(study, capsys, tmp_path):
    out = tmp_path / "report"
    run(capsys, study, "--bootstrap", "100", "--out", str(out))
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "agreement.json",
        "agreement.xlsx",
        "agreement_by_rule.png",
        "agreement_by_rule.svg",
        "agreement_long.csv",
        "confusion_tables.png",
        "confusion_tables.svg",
        "report.html",
    ]
    with open(out / "agreement_long.csv", encoding="utf-8-sig") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 10 * 7 * 2 and rows[0]["judge_model"] == "gpt-5.1"
    assert rows[0]["rubric_version"] == "nbme-medrcube-1"
    html = (out / "report.html").read_text()
    assert "0.70 <span class='ci'>" in html and "MedRCube Desktop" in html
    from openpyxl import load_workbook

    book = load_workbook(out / "agreement.xlsx")
    table = book["Table 5"]
    labels = [table.cell(row=r, column=1).value for r in range(2, table.max_row + 1)]
    assert labels[0].startswith("Sample level") and labels[4].startswith("1.3")
    assert table.cell(row=6, column=2).value == pytest.approx(0.7)
    about = {r[0].value: r[1].value for r in book["About"].iter_rows()}
    assert about["judge_model"] == "gpt-5.1" and about["rubric_version"] == "nbme-medrcube-1"
    from PIL import Image

    png = Image.open(out / "agreement_by_rule.png")
    assert "MedRCube Desktop" in png.info.get("Description", "")
    assert "rubric nbme-medrcube-1" in (out / "confusion_tables.svg").read_text()


def test_a_report_that_fills_the_disk_half_way_leaves_the_earlier_report_whole(
    study, capsys, tmp_path, monkeypatch
):
    import errno

    import medrcube_desktop.review.agreement.report as report

    out = tmp_path / "report"
    run(capsys, study, "--bootstrap", "100", "--out", str(out))
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report, "save_figure", full)  # after the JSON, CSV and XLSX
    args = ["agreement", "--db", study, "--reviewer", "dr-a", "--model", "gpt-5.1"]
    assert main([*args, "--study", "all", "--seed", "5", "--out", str(out)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # no hidden stage left


def test_unknown_rater_or_study_is_one_line_exit_2(study, capsys):
    assert main(["agreement", "--db", study, "--reviewer", "nobody", "--model", "gpt-5.1"]) == 2
    assert "reviewers: dr-a" in capsys.readouterr().err
    args = ["agreement", "--db", study, "--reviewer", "dr-a", "--model", "gpt-5.1"]
    assert main([*args, "--study", "nope"]) == 2
    assert "studies: all" in capsys.readouterr().err


def test_long_csv_item_ids_and_model_names_come_out_as_text(tmp_path, capsys):
    """Item ids and the model name are text from files: a formula in them is quoted."""
    ids = ['=HYPERLINK("http://evil","x")', "+1+1", "ok-1"]
    model = "@SUM(1)"
    reviews = tmp_path / "expert.csv"
    with open(reviews, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["item_id", *RULE_IDS])
        writer.writerows([i, *([1] * 7)] for i in ids)
    judgments = tmp_path / "llm.jsonl"
    judgments.write_text("".join(json.dumps({"id": i, **scores({}, i)}) + "\n" for i in ids))
    db = str(tmp_path / "study.db")
    assert main(["import-reviews", "--db", db, "--reviewer", "dr-a", str(reviews)]) == 0
    assert main(["import-judgments", "--db", db, "--model", model, str(judgments)]) == 0
    out = tmp_path / "report"
    args = ["agreement", "--db", db, "--reviewer", "dr-a", "--model", model]
    assert main([*args, "--bootstrap", "10", "--out", str(out)]) == 0
    with open(out / "agreement_long.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["item_id"] for r in rows} == {"'" + ids[0], "'" + ids[1], "ok-1"}
    assert {r["judge_model"] for r in rows} == {"'@SUM(1)"}
    assert {r["rater"] for r in rows} == {"dr-a", "LLM @SUM(1)"}
    for row in rows:
        assert not any(cell[:1] in "=+-@\t\r" for cell in row.values() if cell)


def test_reviews_imported_without_image_shown_are_said_not_recorded(study, capsys):
    capsys.readouterr()
    args = [
        "agreement",
        "--db",
        study,
        "--reviewer",
        "dr-a",
        "--model",
        "gpt-5.1",
        "--study",
        "all",
    ]
    assert main(args) == 0
    printed = capsys.readouterr()
    # the CSV has no image_shown column: "before v6" was wrong for a v6 database
    assert "(not recorded: dr-a 10; saved before v6 or imported without it)" in (
        printed.out + printed.err
    )
