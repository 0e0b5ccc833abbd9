"""Agreement on degenerate input says "undefined" with its reason, never NaN or a
zero-width interval (issue 21, part 6): raters agreeing on one category, one item, no
item. Every expected value is computed here by hand."""

import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from openpyxl import load_workbook

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.panel import RaterMatrix, group_columns, rater_matrix
from medrcube_desktop.review.agreement.stats import compare, interval_undefined, multi_rater
from medrcube_desktop.store import Review, StudyStore, utc_now
from tests.conftest import dicom_file, item, write_benchmark

ROOT = Path(__file__).resolve().parents[3]
Z = 1.959963984540054


def scores(value, n, start=0):
    return {f"i{k}": dict.fromkeys(RULE_IDS, value) for k in range(start, start + n)}


def test_raters_agreeing_on_one_category_have_no_kappa_and_no_interval():
    first = second = scores(1, 5)  # both pass every rule of every item
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = compare(first, second, bootstrap=300, seed=1)
    f = result.rules["1.1"]
    assert (f.agreement, f.gwet_ac1, f.pabak) == (1.0, 1.0, 1.0)  # AC1: pi = 1, p_e = 0
    assert f.cohen_kappa is None and f.kappa_ci95 is None and f.ac1_ci95 is None
    assert f.ci95 is None  # it was [1.00, 1.00]
    assert f.undefined == {
        "ci95": "every item agrees (no variation to resample)",
        "cohen_kappa": "both raters gave 'pass' to every item",  # p_e = 1: 0/0
        "kappa_ci95": "both raters gave 'pass' to every item",
        "ac1_ci95": "both raters gave 'pass' to every item",  # AC1 = 1 in every resample
    }
    # Wilson's interval stays: 5 of 5, low = n / (n + z²)
    assert f.wilson_ci95 == pytest.approx((5 / (5 + Z**2), 1.0))
    data = result.to_dict()
    rule = data["rules"]["1.1"]
    assert rule["cohen_kappa"] is None and rule["ci95"] is None
    assert rule["undefined"]["cohen_kappa_ci95"] == f.undefined["kappa_ci95"]
    assert rule["undefined"]["gwet_ac1_ci95"] == f.undefined["ac1_ci95"]
    assert data["sample_level"] == {
        "agreement": 1.0,
        "ci95": None,
        "undefined": {"ci95": "every item agrees (no variation to resample)"},
    }
    assert data["principles"]["1"]["undefined"]["all_match_ci95"] == (
        "every item agrees (no variation to resample)"
    )


def test_one_item_has_no_bootstrap_interval():
    first, second = scores(1, 1), scores(0, 1)
    result = compare(first, second, bootstrap=200)
    f = result.rules["2.1"]
    # p_o = 0, p_e = 0·1 + 1·0 = 0: kappa 0; pi = 1/2, p_e = 1/2: AC1 = -1
    assert (f.agreement, f.cohen_kappa, f.gwet_ac1) == (0.0, 0.0, -1.0)
    for key in ("ci95", "kappa_ci95", "ac1_ci95"):
        assert getattr(f, key) is None  # they were [0, 0], [0, 0] and [-1, -1]
        assert f.undefined[key] == "one item: every resample is that item"
    assert f.wilson_ci95[0] == 0.0 and f.wilson_ci95[1] == pytest.approx(Z**2 / (1 + Z**2))
    assert result.sample_ci95 is None
    assert result.sample_undefined == {"ci95": "one item: every resample is that item"}


def test_no_common_item_makes_every_figure_undefined():
    result = compare(scores(1, 2), scores(0, 2, start=5), bootstrap=100)
    f = result.rules["1.4"]
    assert f.agreement is None and f.cohen_kappa is None and f.mcnemar_p is None
    assert set(f.undefined.values()) == {"no item judged by both raters"}
    assert {"agreement", "cohen_kappa", "gwet_ac1", "pabak", "mcnemar_p"} <= set(f.undefined)
    assert result.sample_undefined["agreement"] == "no item judged by both raters"


def test_interval_undefined_by_hand():
    assert interval_undefined([]) == "no items"
    assert interval_undefined([1.0]) == "one item: every resample is that item"
    assert interval_undefined([0.0, 0.0, 0.0]) == "every item gives 0 (no variation to resample)"
    assert interval_undefined([0.0, 1.0]) is None


def test_several_raters_on_one_item_or_one_value_are_undefined():
    one_item = {name: scores(v, 1) for name, v in (("a", 1), ("b", 0), ("c", 1))}
    rules = multi_rater(one_item)["rules"]
    assert rules["1.1"] == {
        "fleiss_kappa": None,  # it was -0.5
        "krippendorff_alpha": None,
        "undefined": "one item judged by every rater: agreement beyond chance needs at least 2",
    }
    same = {name: scores(0, 3) for name in "abc"}
    assert multi_rater(same)["rules"]["2.3"]["undefined"] == "every rater gave 'fail' to every item"


def test_the_panel_says_the_same_as_two_raters():
    first = second = scores(1, 4)
    items = sorted(first)
    matrices: dict[str, RaterMatrix] = {
        "a": rater_matrix(first, items),
        "b": rater_matrix(second, items),
    }
    (column,) = group_columns(matrices, [("a vs b", "pair", [("a", "b")])], 200, 3)
    rule = column.rows["1.1"]
    assert rule.ci95 is None and rule.cohen_kappa is None and rule.ac1_ci95 is None
    assert rule.undefined["ci95"] == "every resample gives 1"
    assert rule.undefined["cohen_kappa"].startswith("p_e = 1 for every pair")
    assert compare(first, second, bootstrap=200, seed=3).rules["1.1"].ci95 is None
    assert column.to_dict()["rows"]["1.1"]["undefined"] == rule.undefined


def _study(tmp_path):
    root = write_benchmark(tmp_path / "b", {"ds1": [item(f"c{k}") for k in range(4)]},
                           {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})  # fmt: skip
    store = StudyStore(tmp_path / "s.db")
    for k in range(4):
        a = dict.fromkeys(RULE_IDS, 1)
        b = {**a, "2.1": 0 if k == 0 else 1}  # only 2.1 on c0 differs
        store.save_review(Review("dr-a", f"c{k}", a, "", utc_now(), utc_now()))
        store.save_review(Review("dr-b", f"c{k}", b, "", utc_now(), utc_now()))
    store.close()
    return root, tmp_path / "s.db"


@pytest.mark.slow
def test_the_agreement_command_says_undefined_without_a_library_warning(tmp_path):
    _, db = _study(tmp_path)
    args = [sys.executable, "-W", "error::RuntimeWarning", "-m", "medrcube_desktop", "agreement",
            "--db", str(db), "--reviewer", "dr-a", "--reviewer2", "dr-b", "--bootstrap", "300"]  # fmt: skip
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    (row,) = [line for line in lines if line.startswith("1.1 ")]
    assert row.split()[-5:] == ["[undefined]", "undefined", "1.00", "1.00", "1.000"]
    assert (
        "Cohen's kappa, Kappa interval, AC1 interval for P1, 1.1, 1.2, 1.3, 1.4, 2.2, 2.3 "
        "undefined: both raters gave 'pass' to every item"
    ) in lines
    assert "nan" not in done.stdout.lower() and "[1.00, 1.00]" not in done.stdout
    # the report and the workbook say the same
    out = tmp_path / "report"
    done = subprocess.run([*args, "--out", str(out)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)  # fmt: skip
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "undefined: both raters gave &#x27;pass&#x27; to every item" in page
    assert "<td>undefined</td>" in page and "[1.00, 1.00]" not in page
    sheet = list(load_workbook(out / "agreement.xlsx")["Table 5"].iter_rows(values_only=True))
    column = sheet[0].index("Undefined")
    (rule,) = [row for row in sheet if str(row[0]).startswith("1.1 ")]
    assert rule[6] is None  # Cohen's kappa
    assert "Cohen's kappa: undefined: both raters gave 'pass' to every item" in rule[column]
    document = json.loads(
        subprocess.run(
            [*args, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=300
        ).stdout
    )
    assert document["rules"]["1.1"]["cohen_kappa"] is None
    assert document["rules"]["1.1"]["undefined"]["cohen_kappa"] == (
        "both raters gave 'pass' to every item"
    )
    # 2.1: 3 of 4 agree, defined, by hand
    assert document["rules"]["2.1"]["agreement"] == 0.75
    assert math.isclose(
        document["rules"]["2.1"]["gwet_ac1"],
        (0.75 - 2 * 0.875 * 0.125) / (1 - 2 * 0.875 * 0.125),
        abs_tol=1e-6,
    )
