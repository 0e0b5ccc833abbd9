"""Rule 1.4 against the ablation evidence (issue 24 item 3): Cohen's κ by scikit-learn,
its interval by a seeded bootstrap written here, the 2×2 table by hand; through
``run_study``, the ``agreement`` command (text, --json, XLSX)."""

import json

import numpy as np
import pytest
from openpyxl import load_workbook
from sklearn.metrics import cohen_kappa_score

from medrcube_desktop.cli import main
from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.necessity import evidence_lines, rule_evidence
from medrcube_desktop.review.agreement.run import run_study
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests.review.test_necessity_evidence import _store_runs, items  # noqa: F401

# 12 items: the expert's 1.4 and whether the evidence says answerable
EXPERT_14 = [0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 0]
ANSWERABLE = [1, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0]
IDS = [f"x{n:02d}" for n in range(12)]


def _scores(value14):
    return {r: (value14 if r == "1.4" else 1) for r in RULE_IDS}


def _kappa_interval(a, b, draws, seed):
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(a), size=(draws, len(a)))
    kappas = []
    for row in rows:
        x, y = a[row], b[row]
        po = np.mean(x == y)
        pe = x.mean() * y.mean() + (1 - x.mean()) * (1 - y.mean())
        if not np.isclose(pe, 1.0):
            kappas.append((po - pe) / (1 - pe))
    return np.percentile(kappas, [2.5, 97.5])


def test_rule_1_4_against_the_evidence_is_kappa_with_its_interval():
    raters = {"dr-a": {i: _scores(v) for i, v in zip(IDS, EXPERT_14, strict=True)}}
    evidence = {i: {"answerable": bool(v)} for i, v in zip(IDS, ANSWERABLE, strict=True)}
    evidence.pop("x11")  # no ablation run answered it: left out
    found = rule_evidence(raters, evidence, IDS, bootstrap=400, seed=3, threshold=0.5)
    f = found["raters"]["dr-a"]
    a = np.array(EXPERT_14[:11])
    b = 1 - np.array(ANSWERABLE[:11])  # answerable => expected 1.4 fail (0)
    assert f["n"] == 11 and f["answerable"] == 4 and f["expert_fail"] == 4
    assert f["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-6)
    # rows: the expert fail/pass; columns: answerable / not
    assert f["confusion"] == [[3, 1], [1, 6]]
    assert f["agreement"] == pytest.approx(9 / 11, abs=1e-6)
    low, high = _kappa_interval(a, b, 400, 3)
    assert f["cohen_kappa_ci95"] == pytest.approx([low, high], abs=1e-6)
    assert found["expected"].startswith("answerable") and found["threshold"] == 0.5
    line = evidence_lines(found)[0]
    assert "11 items, 4 answerable" in line and f"κ {f['cohen_kappa']:.2f} [" in line


@pytest.fixture
def study(items, tmp_path):  # noqa: F811
    db = tmp_path / "s.db"
    store = StudyStore(db)
    _store_runs(store)  # answerable: q0, q3 (tests.review.test_necessity_evidence)
    for n, value in enumerate([0, 1, 1, 0, 1, 0]):  # dr-a's 1.4 on q0..q5
        store.save_review(Review("dr-a", f"q{n}", _scores(value), "", utc_now(), utc_now()))
        store.save_review(Review("dr-b", f"q{n}", _scores(1), "", utc_now(), utc_now()))
    store.close()
    return db


def test_run_study_and_the_command_report_it(items, study, tmp_path, capsys):  # noqa: F811
    from medrcube_desktop.evaluation.compare.necessity import store_evidence

    store = StudyStore(study)
    evidence = store_evidence(store, items)
    run = run_study(store, "dr-a", reviewer2="dr-b", bootstrap=0, evidence=evidence)
    store.close()
    f = run.evidence["raters"]["dr-a"]
    # dr-a fails q0, q3, q5; answerable q0, q3: two both-fail, one fail not answerable
    assert f["confusion"] == [[2, 1], [0, 3]] and f["n"] == 6
    assert f["cohen_kappa"] == pytest.approx(cohen_kappa_score([0, 1, 1, 0, 1, 0],
                                                               [0, 1, 1, 0, 1, 1]), abs=1e-6)  # fmt: skip
    assert run.evidence["raters"]["dr-b"]["expert_fail"] == 0
    root = items[0].root  # the benchmark folder the runs are scored on
    out = tmp_path / "out"
    args = ["agreement", "--db", str(study), "--reviewer", "dr-a", "--reviewer2", "dr-b",
            "--ablation-evidence", str(root), "--bootstrap", "0", "--out", str(out)]  # fmt: skip
    assert main([*args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rule_1_4_evidence"]["raters"]["dr-a"] == f
    assert main(args) == 0
    # a sentence of its own, capitalised as the lines before it
    assert "\nRule 1.4 of dr-a against the ablation evidence" in capsys.readouterr().out
    sheet = load_workbook(out / "agreement.xlsx")["Rule 1.4 evidence"]
    rows = list(sheet.iter_rows(min_row=3, values_only=True))
    assert rows[0][:4] == ("dr-a", 6, 2, 3) and rows[0][8:] == (2, 1, 0, 3)
    assert main(args[:-6] + ["--bootstrap", "0", "--json"]) == 0  # not asked: not there
    assert "rule_1_4_evidence" not in json.loads(capsys.readouterr().out)


def test_evidence_from_a_benchmark_no_ablation_run_answered_is_said(
    items,  # noqa: F811
    study,
    tmp_path,
    capsys,
):
    from tests.conftest import dicom_file, item, write_benchmark

    other = write_benchmark(tmp_path / "other", {"ds1": [item("z1")]},
                            {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})  # fmt: skip
    # the runs are scored on another benchmark: 0 items compared, and the command says why
    args = ["agreement", "--db", str(study), "--reviewer", "dr-a", "--reviewer2", "dr-b",
            "--ablation-evidence", str(other), "--bootstrap", "0"]  # fmt: skip
    assert main(args) == 0
    err = capsys.readouterr().err
    assert f"warning: --ablation-evidence {other}: no ablation run" in err
    assert main(["agreement", "--db", str(study), "--reviewer", "dr-a", "--reviewer2", "dr-b",
                 "--ablation-evidence", str(items[0].root), "--bootstrap", "0"]) == 0  # fmt: skip
    assert "no ablation run" not in capsys.readouterr().err


def test_an_expert_who_cannot_judge_1_4_is_left_out_pairwise_and_counted():
    """A "cannot judge" on 1.4 was read as int() and the command died (issue 24 trial)."""
    from medrcube_desktop.core.rubric import CANNOT_JUDGE

    values = [*EXPERT_14[:10], CANNOT_JUDGE, CANNOT_JUDGE]
    raters = {"dr-a": {i: _scores(v) for i, v in zip(IDS, values, strict=True)}}
    evidence = {i: {"answerable": bool(v)} for i, v in zip(IDS, ANSWERABLE, strict=True)}
    f = rule_evidence(raters, evidence, IDS, bootstrap=0, seed=3, threshold=0.5)["raters"]["dr-a"]
    a, b = np.array(EXPERT_14[:10]), 1 - np.array(ANSWERABLE[:10])
    assert f["n"] == 10 and f["cannot_judge"] == 2
    assert f["cohen_kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-6)
    assert "2 left out (cannot judge 1.4)" in evidence_lines({"raters": {"dr-a": f}})[0]
