"""``compare``: the leaderboard, voxel correlation and credibility of several runs."""

import csv
import json
import shlex
from pathlib import Path

import numpy as np
import pytest
from openpyxl import load_workbook

from medrcube_desktop.cli import main
from medrcube_desktop.core.csvfile import CSV_ENCODING
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.evaluation.compare.report import FIGURES, OUTPUTS
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.database import utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from tests.conftest import dicom_file, item, write_benchmark
from tests.evaluation.compare.test_matrix import _run

TASKS = ("Modality Recognition", "View Identification", "Disease Diagnosis", "Organ Recognition")


def _bench(tmp_path):
    records = [
        item(f"i{n}", task=TASKS[n % 4], parts=("Chest", "Abdomen")[n // 8 % 2],
             question=f"question {n}?")
        for n in range(32)
    ]  # fmt: skip
    return write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )


@pytest.mark.slow
def test_compare_prints_one_json_document_and_writes_its_tables(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    store = StudyStore(db)
    rng = np.random.default_rng(0)
    skill = {"weak": 0.3, "mid": 0.6, "strong": 0.9, "best": 0.95}
    for run, p in skill.items():
        _run(store, run, {i.id: ("B" if rng.random() < p else "A") for i in items})
    store.close()
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(root), "--min-items", "2", "--json"]
    args += [a for run in skill for a in ("--run", run)] + ["--out", str(out)]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    board = result["leaderboard"]
    correct = {run: sum(1 for i in items if _answer(db, run, i.id) == "B") for run in skill}
    for run in skill:
        overall = board["runs"][run]["overall"]["Overall"]
        assert (overall["n"], overall["correct"]) == (32, correct[run])
    assert len(result["voxels"]["voxels"]) == 8  # 4 tasks x 2 regions, one modality
    assert {m["run"] for m in result["credibility"]["models"]} == set(skill)
    # in the leaderboard's order, as the text, the pane, the CSV and the report list them
    # (issue 21: compare.json kept the --run order, weak first)
    assert [m["run"] for m in result["credibility"]["models"]] == result["order"]
    assert result["order"] != list(skill)  # so the check below can fail
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUTS)
    capsys.readouterr()
    as_text = [a for a in args[:-2] if a != "--json"]
    assert main(as_text) == 0
    printed = capsys.readouterr().out
    table = printed.split("Credibility (95% bootstrap intervals by image):\n")[1]
    for model in result["credibility"]["models"]:  # the JSON's figures, row by row
        row = next(line for line in table.splitlines() if line.split()[0] == model["run"])
        counts = [int(v) for v in row.split()[1:5]]
        assert counts == [model["a"], model["b"], model["c"], model["d"]]
        assert f"{model['acc_h']:.3f} [{model['acc_h_low']:.3f}, {model['acc_h_high']:.3f}]" in row
    assert "NaN" not in printed and "see credibility.csv" not in printed


def _answer(db, run, item_id):
    store = StudyStore(db)
    try:
        return store.responses(run)[item_id].parsed_answer
    finally:
        store.close()


def test_compare_refuses_an_unknown_run_and_an_output_over_its_database(tmp_path, capsys):
    root = _bench(tmp_path)
    db = tmp_path / "s.db"
    StudyStore(db).close()
    assert main(["compare", "--db", str(db), "--dataset", str(root), "--run", "nope"]) == 2
    assert "no run named 'nope'" in capsys.readouterr().err
    args = ["compare", "--db", str(db), "--dataset", str(root), "--run", "x", "--out", str(db)]
    assert main(args) == 2
    assert "is the input" in capsys.readouterr().err


def _stored(db, items, skill, text_only=()):
    """Runs answering B (right) with probability ``skill[run]``; the runs in
    ``text_only`` are text-only runs of the model of the run named before the dash."""
    store = StudyStore(db)
    rng = np.random.default_rng(0)
    for run, p in skill.items():
        model = run.split("~")[0]
        store.save_run(RunRecord(name=run, engine="openai", model=model, params={},
                                 prompt_sha256="x", app_version="t", created_at=utc_now(),
                                 text_only=run in text_only))  # fmt: skip
        for i in items:
            letter = "B" if rng.random() < p else "A"
            store.save_response(ResponseRecord(
                run=run, item_id=i.id, response=letter, parsed_answer=letter, parse_method="t",
                correct=False, official_answer=None, official_correct=False,
                created_at=utc_now(),
            ))  # fmt: skip
    store.close()


def _number(cell):
    return None if cell in ("", None) else float(cell)


@pytest.mark.slow
def test_compare_out_writes_a_workbook_figures_and_report_that_agree_with_csv_and_json(
    tmp_path, capsys
):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    skill = {"weak": 0.3, "mid": 0.6, "strong": 0.9, "=cmd": 0.8, "strong~text": 0.4}
    _stored(db, items, skill, text_only={"strong~text"})
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(root), "--min-items", "2", "--json"]
    args += [a for run in skill for a in ("--run", run)] + ["--out", str(out)]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == json.loads((out / "compare.json").read_text(encoding="utf-8"))
    book = load_workbook(out / "compare.xlsx")
    assert book.sheetnames == [
        "Table 3", "leaderboard", "voxel accuracy", "voxel correlation", "clusters",
        "residual correlation", "cluster stability", "regions", "credibility",
        "text-only drops", "image necessity", "necessity items", "meta",
    ]  # fmt: skip  # a text-only run: Table 4 extended (issue 24)
    gaps = list(book["image necessity"].iter_rows(min_row=2, values_only=True))
    assert [(g[0], g[1], g[4], g[10]) for g in gaps] == [
        (g["image_run"], g["ablated_run"], g["scope"], g["gap"])
        for g in result["necessity"]["gaps"]
    ]
    # Fig. 3c's matrix: Spearman ρ of the accuracies less each run's mean, by scipy
    from scipy.stats import spearmanr

    accuracy = np.array(
        [row[2:] for row in book["voxel accuracy"].iter_rows(min_row=2, values_only=True)
         if row[0] != "items"], dtype=float,
    )  # fmt: skip
    residual = accuracy - np.nanmean(accuracy, axis=1, keepdims=True)
    expected = spearmanr(residual).statistic
    np.testing.assert_allclose(np.array(result["voxels"]["residual"]["rho"], dtype=float),
                               expected, atol=1e-12)  # fmt: skip
    stability = result["voxels"]["stability"]
    assert stability["replicates"] == 100 and len(stability["co_clustering"]) == len(accuracy[0])
    # leaderboard: every run x column against the JSON; the formula-like run name is quoted
    rows = list(book["leaderboard"].iter_rows(min_row=2, values_only=True))
    for run, _, _, _, group, value, n, correct, accuracy, low, high in rows:
        if run == "Random":
            assert accuracy == pytest.approx(result["leaderboard"]["random"][group][value])
            continue
        cell = result["leaderboard"]["runs"][run.replace("'=", "=")][group][value]
        assert (n, correct) == (cell["n"], cell["correct"])
        assert [accuracy, low, high] == pytest.approx([cell["accuracy"], cell["low"], cell["high"]])
    assert {r[0] for r in rows} == {"weak", "mid", "strong", "'=cmd", "strong~text", "Random"}
    # voxel correlation: the sheet is the CSV is the JSON
    with open(out / "voxel_correlation.csv", encoding=CSV_ENCODING, newline="") as f:
        table = list(csv.reader(f))
    sheet = list(book["voxel correlation"].iter_rows(values_only=True))
    assert list(sheet[0]) == table[0] == ["voxel", *result["voxels"]["voxels"]]
    rho = np.array([[_number(c) for c in row[1:]] for row in table[1:]], dtype=float)
    np.testing.assert_allclose(np.array([r[1:] for r in sheet[1:]], dtype=float), rho)
    np.testing.assert_allclose(np.array(result["voxels"]["rho"], dtype=float), rho)
    # credibility: sheet against CSV, run by run
    with open(out / "credibility.csv", encoding=CSV_ENCODING, newline="") as f:
        models = list(csv.DictReader(f))
    sheet = list(book["credibility"].iter_rows(values_only=True))
    header = list(sheet[0])
    for row, expected in zip(sheet[1 : 1 + len(models)], models, strict=True):
        got = dict(zip(header, row, strict=True))
        assert got["run"] == expected["run"]
        for key in ("a", "b", "c", "d", "acc_h", "shortcut_prob", "baseline", "log_or"):
            assert _number(got[key]) == pytest.approx(_number(expected[key]))
    r = result["credibility"]["acc_h_vs_shortcut"]
    assert sheet[len(models) + 3][1:6] == pytest.approx(
        (r["r"], r["low"], r["high"], r["p"], r["n"])
    )
    # clusters: labels and within/between as in the JSON
    clusters = result["voxels"]["clusters"]
    sheet = list(book["clusters"].iter_rows(values_only=True))
    names = {row[0]: row[4] for row in sheet[1 : 1 + len(result["voxels"]["voxels"])]}
    assert [names[v] for v in result["voxels"]["voxels"]] == [
        "ABCDEFGH"[c] for c in clusters["labels"]
    ]
    means = {row[0]: row[1] for row in sheet if row and row[0]}
    assert means["mean rho within clusters"] == pytest.approx(clusters["mean_rho_within_clusters"])
    assert means["mean rho between clusters"] == pytest.approx(
        clusters["mean_rho_between_clusters"]
    )
    # the text-only drop pairs the text-only run with its model's image run
    (drop,) = result["text_only"]
    assert (drop["image_run"], drop["text_run"]) == ("strong", "strong~text")
    sheet = list(book["text-only drops"].iter_rows(min_row=2, values_only=True))
    assert sheet[0][:5] == ("strong", "strong~text", "strong", "Overall", drop["rows"][0]["n"])
    assert sheet[0][7] == pytest.approx(drop["rows"][0]["drop"])
    meta = {row[0]: row[1] for row in book["meta"].iter_rows(values_only=True) if row[0]}
    assert meta["database"] == str(db.resolve()) and meta["preset"] == "paper"
    assert (meta["min_items"], meta["clusters"]) == (2, 3)
    command = shlex.split(meta["command"])
    assert command[:2] == ["medrcube-desktop", "compare"]
    assert [command[i + 1] for i, a in enumerate(command) if a == "--run"] == list(skill)
    # figures: valid PNG and SVG files
    for name in OUTPUTS:
        if name.endswith(".png"):
            assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        if name.endswith(".svg"):
            assert (out / name).read_text(encoding="utf-8").rstrip().endswith("</svg>"), name
    # the report: the runs, r, the brain-free island note, the command; no raw markup
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("<svg") == len(FIGURES)
    for run in ("weak", "mid", "strong", "strong~text"):
        assert f"<td>{run}</td>" in page
    assert "<td>=cmd</td>" in page  # escaped text, not a formula: HTML has none
    assert f"Pearson r = {r['r']:.3f} (95% CI {r['low']:.3f} to {r['high']:.3f})" in page
    assert f"Mean ρ within clusters <b>{clusters['mean_rho_within_clusters']:.3f}</b>" in page
    assert shlex.join(command).replace('"', "&quot;").replace("'", "&#x27;") in page
    # the command in the footer makes the same files again
    again = tmp_path / "again"
    capsys.readouterr()
    assert main([*command[1:-1], str(again)]) == 0
    capsys.readouterr()
    assert json.loads((again / "compare.json").read_text(encoding="utf-8")) == result


def test_compare_out_with_too_few_runs_still_writes_every_file_saying_why(tmp_path, capsys):
    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    _stored(db, items, {"solo": 0.7})
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(root), "--run", "solo", "--out", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert (
        "voxel correlation undefined: fewer than 2 voxels of at least 5 items (--min-items; "
        "in the pane “Min. items per voxel”) to correlate (0); fewer than 4 distinct points "
        "(1 image run, 1 distinct" in err
    )
    assert sorted(p.name for p in out.iterdir()) == sorted(
        n for n in OUTPUTS if n != "voxel_correlation.csv"
    )
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "Voxel correlation (Spearman ρ) undefined: fewer than 2 voxels" in page
    assert "voxel correlation" not in load_workbook(out / "compare.xlsx").sheetnames


def test_compare_refuses_every_output_name_over_the_database(tmp_path, capsys):
    root = _bench(tmp_path)
    db = tmp_path / "report.html"
    StudyStore(db).close()
    args = [
        "compare",
        "--db",
        str(db),
        "--dataset",
        str(root),
        "--run",
        "x",
        "--out",
        str(tmp_path),
    ]
    assert main(args) == 2
    assert "is the input" in capsys.readouterr().err
    assert Path(db).stat().st_size > 0


def test_compare_needs_no_picture_and_keeps_no_stale_file(tmp_path, capsys):
    """Results without the images are compared (only the items' text is needed); a
    second comparison into the same folder leaves no file of the first; a file as --out
    is refused before anything is computed."""
    import shutil

    root = _bench(tmp_path)
    items = load_benchmark(root).items
    db = tmp_path / "s.db"
    _stored(db, items, {"weak": 0.3, "mid": 0.5, "strong": 0.8, "best": 0.9})
    for folder in root.glob("*/images"):
        shutil.rmtree(folder)
    out = tmp_path / "cmp"
    args = ["compare", "--db", str(db), "--dataset", str(root), "--min-items", "2", "--json"]
    assert main([*args, "--out", str(out)]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["leaderboard"]["runs"]["strong"]["overall"]["Overall"]["n"] == len(items)
    assert (out / "voxel_correlation.csv").is_file()
    assert main([*args, "--run", "weak", "--out", str(out)]) == 0  # one run: no correlation
    capsys.readouterr()
    assert not (out / "voxel_correlation.csv").exists()
    with (out / "leaderboard.csv").open(encoding="utf-8-sig") as f:
        header = next(csv.reader(f))
    assert header[:5] == ["run", "series", "group", "text_only", "Overall"]
    (tmp_path / "f.txt").write_text("x")
    assert main([*args, "--out", str(tmp_path / "f.txt")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_compare_with_no_answer_to_this_benchmark_is_an_error(tmp_path, capsys):
    root = _bench(tmp_path)
    db = tmp_path / "s.db"
    other = [i for i in load_benchmark(root).items]
    _stored(db, other, {"a": 0.5})
    store = StudyStore(db)
    with store.transaction("t") as conn:
        conn.execute("UPDATE eval_responses SET item_id = 'elsewhere-' || item_id")
    store.close()
    assert main(["compare", "--db", str(db), "--dataset", str(root)]) == 2
    assert "none of the 1 runs has an answer" in capsys.readouterr().err
