"""Degenerate statistics say so (issue 21, part 6): a correlation over fewer than 4
distinct points or with zero variance, an odds ratio with an empty cell or margin.

Every expected value is computed here by hand. The study: 12 images, each with two
prerequisites (Modality Recognition) and two high-level items (Disease Diagnosis), one
per region; runs ``one`` and ``two`` give the same answers (one model stored twice),
``other`` differs, ``allright`` is right everywhere (all its pairs in group A).
"""

import json
import math
import re
import subprocess
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from openpyxl import load_workbook
from scipy.stats import spearmanr

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare import run_matrix
from medrcube_desktop.evaluation.compare.credibility_models import (
    accuracy_shortcut_correlation,
    credibility_table,
    log_odds_ratio,
    model_credibility,
    permutation_p,
)
from medrcube_desktop.evaluation.compare.credibility_stats import (
    figures_of,
    odds_ratio_reason,
    permutation_p_exact,
)
from medrcube_desktop.evaluation.compare.result import compare_runs
from medrcube_desktop.evaluation.compare.summary_tables import credibility_row
from medrcube_desktop.evaluation.compare.voxels import (
    cluster_voxels,
    distinct_points,
    voxel_correlation,
)
from medrcube_desktop.store import StudyStore
from tests.conftest import dicom_file, item, write_benchmark
from tests.evaluation.compare.test_matrix import _run

ROOT = Path(__file__).resolve().parents[3]


def degenerate_study(tmp_path: Path) -> tuple[Path, Path]:
    """(benchmark folder, database) of the study in the module docstring."""
    tasks = ("Modality Recognition", "Disease Diagnosis")
    records, images = [], {}
    for k in range(12):
        for t in range(4):
            records.append(item(f"i{k}_{t}", image=f"images/ct{k}.dcm", task=tasks[t % 2],
                                parts=("Chest", "Abdomen")[t // 2], question=f"q {k} {t}?"))  # fmt: skip
        images[f"ds1/images/ct{k}.dcm"] = dicom_file("CT_small.dcm")
    root = write_benchmark(tmp_path / "b", {"ds1": records}, images)
    items = load_benchmark(root).items
    store = StudyStore(tmp_path / "s.db")
    rng = np.random.default_rng(1)
    same = {i.id: ("B" if rng.random() < 0.6 else "A") for i in items}
    _run(store, "one", same)
    _run(store, "two", dict(same))
    _run(store, "other", {i.id: ("B" if rng.random() < 0.4 else "A") for i in items})
    _run(store, "allright", {i.id: "B" for i in items})
    store.close()
    return root, tmp_path / "s.db"


@contextmanager
def _no_warning():
    """Any warning (numpy's, scipy's RuntimeWarning) raised as an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


# --- the odds ratio: one rule -------------------------------------------------------


def test_an_empty_cell_adds_half_to_every_cell_and_says_so():
    a, b, c, d = 5, 0, 3, 2
    value, low, high, corrected = log_odds_ratio((a, b, c, d))
    expected = math.log((a + 0.5) * (c + 0.5) / ((b + 0.5) * (d + 0.5)))
    assert corrected and value == pytest.approx(expected)  # ln(5.5·3.5 / (0.5·2.5)) = 2.734
    se = math.sqrt(1 / 5.5 + 1 / 0.5 + 1 / 3.5 + 1 / 2.5)
    assert (low, high) == pytest.approx((expected - 1.959964 * se, expected + 1.959964 * se))
    (fig,) = model_credibility({"m": (a, b, c, d)})
    assert fig.haldane and fig.log_or_undefined is None
    assert fig.log_or_text() == (
        f"{expected:.2f} [{low:.2f}, {high:.2f}] (+0.5 to every cell: a cell was empty "
        "(Haldane-Anscombe))"
    )
    # the same rule in the vectorised figures the bootstrap uses
    assert figures_of(np.array([a, b, c, d], float))["log_or"] == pytest.approx(expected)


@pytest.mark.parametrize(
    ("counts", "reason"),
    [
        ((7, 0, 0, 0), "L right on every pair (C+D = 0)"),  # it was ln(15) = 2.71
        ((0, 0, 4, 3), "L wrong on every pair (A+B = 0)"),
        ((0, 5, 4, 0), "H wrong on every pair (A+D = 0)"),
        ((6, 0, 0, 2), "H right on every pair (B+C = 0)"),
        ((0, 0, 0, 0), "no pairs"),
    ],
)
def test_an_empty_margin_is_undefined_everywhere(counts, reason):
    assert odds_ratio_reason(counts) == reason
    (fig,) = model_credibility({"m": counts})
    assert (fig.log_or, fig.log_or_low, fig.log_or_high) == (None, None, None)
    assert not fig.haldane and fig.log_or_undefined == reason
    assert fig.log_or_text() == f"undefined: {reason}"
    with pytest.raises(MedRCubeError, match=re.escape(f"log odds ratio undefined: {reason}")):
        log_odds_ratio(counts)
    with _no_warning():
        assert math.isnan(figures_of(np.array(counts, float))["log_or"])
        assert math.isnan(permutation_p_exact(np.array([counts]))[0])


def test_an_all_a_run_is_not_given_ln_2n_plus_1():
    # issue 21: "a run whose pairs all fall in one cell gets a log odds ratio of 2.71"
    (fig,) = model_credibility({"m": (7, 0, 0, 0)})
    assert fig.log_or is None  # not ln(7.5 · 0.5 / (0.5 · 0.5)) = ln 15 = 2.708
    row = credibility_row(fig)
    assert row[9] == "undefined: L right on every pair (C+D = 0)"
    assert row[10] == "undefined: L right on every pair (C+D = 0)"  # its permutation p
    low, high = np.ones(7, bool), np.ones(7, bool)
    with pytest.raises(MedRCubeError, match="permutation p undefined: L right on every pair"):
        permutation_p(low, high)


# --- the correlation across models ---------------------------------------------------


def test_three_models_two_identical_give_no_r_interval_or_p():
    counts = {"one": (20, 12, 8, 8), "two": (20, 12, 8, 8), "other": (8, 10, 16, 14)}
    with _no_warning():
        r = accuracy_shortcut_correlation(model_credibility(counts))
    assert (r.r, r.low, r.high, r.p, r.n) == (None, None, None, None, 3)
    assert r.undefined == "fewer than 4 distinct points (3 points, 2 distinct)"
    assert r.summary() == (
        "r undefined: fewer than 4 distinct points (3 points, 2 distinct), n = 3 models"
    )


def test_zero_variance_across_models_is_undefined():
    # Acc_H = (A+D)/N = 0.5 in all four; SP differs
    counts = {
        "a": (40, 10, 40, 10),
        "b": (30, 20, 30, 20),
        "c": (45, 5, 45, 5),
        "d": (25, 25, 25, 25),
    }
    with _no_warning():
        r = accuracy_shortcut_correlation(model_credibility(counts))
    assert r.r is None and r.undefined == "zero variance: Acc_H is the same at every point (0.5)"


# --- Spearman rho between voxels -----------------------------------------------------


def test_distinct_points_of_each_voxel_pair_by_hand():
    acc = np.array([[0.5, 0.2, 0.1], [0.5, 0.2, 0.3], [0.7, 0.9, 0.3], [0.6, np.nan, 0.4]])
    # (v0, v1): runs 0-2 shared, runs 0 and 1 the same point: 2 distinct
    # (v0, v2): 4 points, all distinct; (v1, v2): runs 0-2, 3 distinct
    expected = np.array([[3, 2, 4], [2, 2, 3], [4, 3, 3]])
    np.testing.assert_array_equal(np.diag(distinct_points(acc)), [3, 2, 3])
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_array_equal(distinct_points(acc)[off], expected[off])


def test_voxel_rho_needs_four_distinct_points_and_variation():
    rng = np.random.default_rng(3)
    acc = rng.random((6, 4))
    for run in (1, 3, 5):  # runs 0-1, 2-3 and 4-5 agree on voxels 0 and 1
        acc[run, :2] = acc[run - 1, :2]  # so the pair (0, 1) has 3 distinct points
    acc[:, 3] = 0.5  # voxel 3 constant: zero variance with every partner
    with _no_warning():
        rho = voxel_correlation(acc)
    assert distinct_points(acc)[0, 1] == 3 and not math.isnan(spearmanr(acc[:, :2]).statistic)
    assert np.isnan(rho[0, 1]) and np.isnan(rho[3]).all()
    assert rho[0, 2] == pytest.approx(spearmanr(acc[:, 0], acc[:, 2]).statistic)
    assert rho[1, 2] == pytest.approx(spearmanr(acc[:, 1], acc[:, 2]).statistic)
    # three models, two identical: no pair is defined (it was ±1 for every pair)
    three = np.array([[0.5, 0.2, 0.8], [0.5, 0.2, 0.8], [0.7, 0.9, 0.1]])
    with _no_warning():
        rho = voxel_correlation(three)
    assert np.isnan(rho[~np.eye(3, dtype=bool)]).all()


def test_a_flat_tree_has_an_undefined_cophenetic_r_and_no_warning():
    rho = np.full((4, 4), np.nan)
    np.fill_diagonal(rho, 1.0)
    with _no_warning():
        clustering = cluster_voxels(rho, k=2)
    assert math.isnan(clustering.cophenetic)


# --- one result object, every surface --------------------------------------------------


def _matrix(tmp_path, runs):
    root, db = degenerate_study(tmp_path)
    items = load_benchmark(root).items
    store = StudyStore(db)
    try:
        return run_matrix(store, runs, items)
    finally:
        store.close()


def test_compare_runs_says_why_rho_and_r_are_undefined(tmp_path):
    matrix = _matrix(tmp_path, ["one", "two", "other", "allright"])
    with _no_warning():
        result = compare_runs(matrix, min_items=2, n_boot=200, n_stability=20)
    assert result.rho is None and result.clustering is None
    reason = "fewer than 4 distinct points (4 image runs, 3 distinct; text-only runs are baselines)"
    assert result.voxel_undefined == reason
    assert f"voxel correlation undefined: {reason}" in result.warnings
    # allright has no SP (C+D = 0): three models with SP, one and two the same point
    assert result.correlation.undefined == "fewer than 4 distinct points (3 points, 2 distinct)"
    allright = next(f for f in result.credibility if f.run == "allright")
    assert (allright.a, allright.b, allright.c, allright.d) == (48, 0, 0, 0)
    assert allright.log_or is None and allright.p_permutation is None
    assert (allright.log_or_boot_low, allright.log_or_boot_high) == (None, None)
    document = result.to_dict()
    assert document["voxels"] is None and document["voxels_undefined"] == reason
    r = document["credibility"]["acc_h_vs_shortcut"]
    assert (r["r"], r["low"], r["high"], r["p"]) == (None, None, None, None)
    assert r["undefined"] == "fewer than 4 distinct points (3 points, 2 distinct)"
    model = next(m for m in document["credibility"]["models"] if m["run"] == "allright")
    assert model["log_or"] is None
    assert model["log_or_undefined"] == "L right on every pair (C+D = 0)"


def test_a_defined_log_or_keeps_its_bootstrap_interval(tmp_path):
    matrix = _matrix(tmp_path, ["one", "other"])
    with _no_warning():
        figures, _ = credibility_table(matrix, n_boot=300)
    for f in figures:
        assert f.log_or is not None and f.log_or_undefined is None and not f.haldane
        assert f.log_or == pytest.approx(math.log(f.a * f.c / (f.b * f.d)))
        assert f.log_or_boot_low < f.log_or_boot_high and f.p_permutation is not None


def _cli(*args):
    """The command in a fresh interpreter where a RuntimeWarning is an error."""
    return subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", "medrcube_desktop", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip


@pytest.mark.slow
def test_compare_and_credibility_commands_say_undefined_without_a_library_warning(tmp_path):
    root, db = degenerate_study(tmp_path)
    base = ["--db", str(db), "--dataset", str(root)]
    runs = [a for run in ("one", "two", "other", "allright") for a in ("--run", run)]
    out = tmp_path / "report"
    done = _cli("compare", *base, *runs, "--min-items", "2", "--bootstrap", "200",
                "--stability", "20", "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr  # no RuntimeWarning, no scipy/numpy warning
    text = done.stdout
    summary = "r undefined: fewer than 4 distinct points (3 points, 2 distinct), n = 3 models"
    assert f"Acc_H vs Shortcut Probability: {summary}" in text
    assert "p = 0" not in text and "r = 1.000" not in text
    (row,) = [
        line for line in text.splitlines() if line.startswith("allright ") and "undefined" in line
    ]
    assert row.count("undefined: L right on every pair (C+D = 0)") == 2  # log OR and p
    assert "2.71" not in row
    assert "voxel correlation undefined: fewer than 4 distinct points (4 image runs, 3" in (
        done.stderr
    )
    # the report and the workbook state the same
    page = (out / "report.html").read_text(encoding="utf-8")
    assert f"Pearson {summary}" in page
    assert "undefined: L right on every pair (C+D = 0)" in page
    assert "Voxel correlation (Spearman ρ) undefined: fewer than 4 distinct points" in page
    sheet = list(load_workbook(out / "compare.xlsx")["credibility"].iter_rows(values_only=True))
    r_row = next(row for row in sheet if summary in row)
    assert r_row[1:8] == (None, None, None, None, 3, r_row[6], summary)
    assert r_row[6] == "fewer than 4 distinct points (3 points, 2 distinct)"
    # --json: null values and the reasons
    done = _cli("compare", *base, *runs, "--min-items", "2", "--bootstrap", "0",
                "--stability", "0", "--json")  # fmt: skip
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    document = json.loads(done.stdout)
    r = document["credibility"]["acc_h_vs_shortcut"]
    assert (
        r["r"] is None and r["undefined"] == "fewer than 4 distinct points (3 points, 2 distinct)"
    )
    assert document["voxels"] is None and document["voxels_undefined"].startswith("fewer than 4")
    # credibility of the run whose pairs are all in A
    done = _cli("credibility", *base, "--run", "allright")
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    assert "shortcut_prob  undefined: no pair with L wrong (C+D = 0)" in done.stdout
    done = _cli("credibility", *base, "--run", "allright", "--json")
    figures = json.loads(done.stdout)
    assert figures["shortcut_prob"] is None and (figures["group_a"], figures["total_pairs"]) == (
        48,
        48,
    )
    assert figures["undefined"] == {"shortcut_prob": "no pair with L wrong (C+D = 0)"}


def test_the_commands_table_marks_a_corrected_log_odds_ratio_and_says_why_once():
    from medrcube_desktop.cli.compare import _credibility_lines

    figures = model_credibility({"corrected": (5, 0, 3, 2), "plain": (5, 1, 3, 2)})
    assert [f.haldane for f in figures] == [True, False]
    lines = _credibility_lines(figures).splitlines()
    corrected = next(line for line in lines if line.startswith("corrected "))
    plain = next(line for line in lines if line.startswith("plain "))
    value = math.log(5.5 * 3.5 / (0.5 * 2.5))  # ln(5.5·3.5 / (0.5·2.5)), by hand
    assert f"{value:.2f} [" in corrected and "] *" in corrected
    assert "Haldane" not in corrected  # the note is not on the row (it pushed the columns)
    assert f"{math.log(5 * 3 / (1 * 2)):.2f} [" in plain and "*" not in plain
    assert lines[-1] == "* log OR with +0.5 to every cell: a cell was empty (Haldane-Anscombe)"
