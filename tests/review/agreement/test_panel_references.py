"""The several-experts table's intervals (``review.agreement.panel``) against the
two-rater statistics of ``review.agreement.stats`` (another implementation: weights
times values instead of indexed draws) on the same seeded draws (issue 26 item 2)."""

import numpy as np
import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement.panel import group_columns, rater_matrix
from medrcube_desktop.review.agreement.stats import compare


def test_a_one_pair_column_has_the_two_rater_figures_and_intervals():
    rng = np.random.default_rng(21)
    a = (rng.random((45, 7)) < 0.7).astype(int)
    b = np.where(rng.random((45, 7)) < 0.2, 1 - a, a)
    ids = [f"i{k:02d}" for k in range(45)]
    first = {i: dict(zip(RULE_IDS, map(int, r), strict=True)) for i, r in zip(ids, a, strict=True)}
    second = {i: dict(zip(RULE_IDS, map(int, r), strict=True)) for i, r in zip(ids, b, strict=True)}
    raters = {"x": rater_matrix(first, ids), "y": rater_matrix(second, ids)}
    (column,) = group_columns(raters, [("x vs y", "pair", [("x", "y")])], 400, 6)
    reference = compare(first, second, bootstrap=400, seed=6)
    assert column.rows["sample"].agreement == pytest.approx(reference.sample_level)
    assert column.rows["sample"].ci95 == pytest.approx(reference.sample_ci95)
    for rule in RULE_IDS:
        row, ref = column.rows[rule], reference.rules[rule]
        assert row.agreement == pytest.approx(ref.agreement)
        assert row.cohen_kappa == pytest.approx(ref.cohen_kappa)
        assert row.gwet_ac1 == pytest.approx(ref.gwet_ac1)
        assert row.ci95 == pytest.approx(ref.ci95)
        assert row.kappa_ci95 == pytest.approx(ref.kappa_ci95)
        assert row.ac1_ci95 == pytest.approx(ref.ac1_ci95)
    for pid in ("1", "2"):
        assert column.rows[f"P{pid}"].kappa_ci95 == pytest.approx(reference.verdict(pid).kappa_ci95)
