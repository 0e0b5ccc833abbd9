"""Agreement intervals and p-values of ``review.agreement.stats`` against second
implementations (issue 26 item 2): Wilson from statsmodels and its closed form, McNemar
from scipy's exact binomial test, kappa from statsmodels' asymptotic interval, AC1 from
Gwet's (2008) variance formula, the percentile bootstrap redone by hand from the same
seeded draws, and invariants (raters swapped, categories relabelled, items permuted)
checked with hypothesis.

irrCAC (PyPI 0.4.4) would have been the second AC1 implementation, but installing it
downgrades numpy, scipy and pandas (its pins), so Gwet's formula is written out here.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.proportion import proportion_confint

from medrcube_desktop.core.rubric import PRINCIPLES, RULE_IDS
from medrcube_desktop.review.agreement.stats import compare, mcnemar_exact_p, wilson_ci

Z = stats.norm.ppf(0.975)


def _wilson_closed_form(k: int, n: int) -> tuple[float, float]:
    """Wilson (1927): (p + z²/2n ± z √(p(1−p)/n + z²/4n²)) / (1 + z²/n)."""
    p = k / n
    centre = (p + Z**2 / (2 * n)) / (1 + Z**2 / n)
    half = Z / (1 + Z**2 / n) * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2))
    return centre - half, centre + half


def _raters(n: int, seed: int, flip: float = 0.15, pass_rate: float = 0.7):
    """Two raters on ``n`` items: B copies A except a share ``flip`` of judgments."""
    rng = np.random.default_rng(seed)
    a = (rng.random((n, 7)) < pass_rate).astype(int)
    b = np.where(rng.random((n, 7)) < flip, 1 - a, a)
    first = {f"i{k:04d}": dict(zip(RULE_IDS, map(int, a[k]), strict=True)) for k in range(n)}
    second = {f"i{k:04d}": dict(zip(RULE_IDS, map(int, b[k]), strict=True)) for k in range(n)}
    return first, second, a, b


def _reference_percentile(values: np.ndarray, bootstrap: int, seed: int, statistic=None):
    """The percentile bootstrap as a textbook loop: draw n rows with replacement from
    ``default_rng(seed)`` (one (B, n) array, what the docstring of ``Draws`` promises),
    take the statistic of each draw, the 2.5 and 97.5 percentiles."""
    n = len(values)
    draws = np.random.default_rng(seed).integers(0, n, size=(bootstrap, n))
    statistic = statistic or (lambda rows: float(np.mean(values[rows])))
    replicates = np.array([statistic(row) for row in draws])
    replicates = replicates[np.isfinite(replicates)]
    return tuple(np.percentile(replicates, [2.5, 97.5]))


# ---------------------------------------------------------------- Wilson


@pytest.mark.parametrize(("k", "n"), [(45, 50), (50, 50), (0, 7), (3, 10), (199, 211)])
def test_wilson_ci_equals_the_closed_form_and_statsmodels(k, n):
    got = wilson_ci(k, n)
    assert got == pytest.approx(_wilson_closed_form(k, n), abs=1e-12)
    assert got == pytest.approx(proportion_confint(k, n, alpha=0.05, method="wilson"))


def test_each_rules_wilson_interval_is_of_the_agreeing_items_not_the_disagreeing():
    # mutant: wilson_ci(n - agree, n) beside each rule's agreement
    first, second, a, b = _raters(60, seed=3)
    result = compare(first, second, bootstrap=0)
    for k, rule in enumerate(RULE_IDS):
        agree = int(np.sum(a[:, k] == b[:, k]))
        figures = result.rules[rule]
        assert figures.wilson_ci95 == pytest.approx(_wilson_closed_form(agree, 60), abs=1e-12)
        low, high = figures.wilson_ci95
        assert low <= figures.agreement <= high


# ---------------------------------------------------------------- McNemar


@pytest.mark.parametrize(
    "table",
    [
        [[10, 0], [12, 30]],
        [[5, 3], [9, 40]],
        [[1, 7], [7, 1]],
        [[20, 1], [0, 20]],
        [[4, 14], [2, 9]],
    ],
)
def test_mcnemar_exact_p_is_scipys_two_sided_binomial_test_of_the_discordant_pairs(table):
    b, c = table[0][1], table[1][0]
    assert mcnemar_exact_p(table) == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue)


def test_mcnemar_p_of_a_rule_is_of_its_own_discordant_pairs():
    first, second, a, b = _raters(80, seed=5, flip=0.2)
    result = compare(first, second, bootstrap=0)
    for k, rule in enumerate(RULE_IDS):
        fails_a = int(np.sum((a[:, k] == 0) & (b[:, k] == 1)))
        passes_a = int(np.sum((a[:, k] == 1) & (b[:, k] == 0)))
        expected = (
            stats.binomtest(fails_a, fails_a + passes_a, 0.5).pvalue if fails_a + passes_a else 1
        )
        assert result.rules[rule].mcnemar_p == pytest.approx(expected)


# ---------------------------------------------------------------- bootstrap


def test_agreement_bootstrap_intervals_equal_a_textbook_loop_over_the_same_draws():
    first, second, a, b = _raters(40, seed=7, flip=0.25)
    result = compare(first, second, bootstrap=500, seed=11)
    matches = a == b
    for k, rule in enumerate(RULE_IDS):
        assert result.rules[rule].ci95 == pytest.approx(
            _reference_percentile(matches[:, k].astype(float), 500, 11)
        )
    assert result.sample_ci95 == pytest.approx(
        _reference_percentile(matches.all(axis=1).astype(float), 500, 11)
    )


def test_each_principles_all_match_interval_is_of_its_own_rules_not_the_sample_level():
    # mutant: a principle's all-match interval replaced by the sample-level one
    first, second, a, b = _raters(40, seed=8, flip=0.12)
    result = compare(first, second, bootstrap=500, seed=2)
    matches = a == b
    for pid, rules in PRINCIPLES.items():
        cols = [RULE_IDS.index(r) for r in rules]
        all_match = matches[:, cols].all(axis=1).astype(float)
        expected = _reference_percentile(all_match, 500, 2)
        assert result.principles[pid]["all_match"] == pytest.approx(all_match.mean())
        assert result.principles[pid]["all_match_ci95"] == pytest.approx(expected)
    p1 = result.principles["1"]["all_match_ci95"]
    assert p1 != pytest.approx(result.sample_ci95)  # the data tell the two apart


def _kappa(a, b):
    po = np.mean(a == b)
    pa, pb = np.mean(a), np.mean(b)
    pe = pa * pb + (1 - pa) * (1 - pb)
    return (po - pe) / (1 - pe) if not math.isclose(pe, 1) else math.nan


def _ac1(a, b):
    po = np.mean(a == b)
    pi = (np.mean(a) + np.mean(b)) / 2
    pe = 2 * pi * (1 - pi)
    return (po - pe) / (1 - pe)


def test_kappa_and_ac1_bootstrap_intervals_equal_a_textbook_loop_over_the_same_draws():
    first, second, a, b = _raters(30, seed=9, flip=0.25, pass_rate=0.6)
    result = compare(first, second, bootstrap=400, seed=4)
    for k, rule in enumerate(RULE_IDS):
        x, y = a[:, k], b[:, k]
        figures = result.rules[rule]
        kappa = _reference_percentile(x, 400, 4, lambda rows, x=x, y=y: _kappa(x[rows], y[rows]))
        ac1 = _reference_percentile(x, 400, 4, lambda rows, x=x, y=y: _ac1(x[rows], y[rows]))
        assert figures.kappa_ci95 == pytest.approx(kappa)
        assert figures.ac1_ci95 == pytest.approx(ac1)


def _gwet_ac1_se(a: np.ndarray, b: np.ndarray) -> float:
    """Gwet (2008, Br J Math Stat Psychol 61:29-48, eq. 28 with f = 0, q = 2): the
    variance of AC1 for two raters from the table of proportions p_kl."""
    n = len(a)
    p = np.array([[np.mean((a == k) & (b == m)) for m in (0, 1)] for k in (0, 1)])
    pa = p[0, 0] + p[1, 1]
    pi = (p.sum(axis=1) + p.sum(axis=0)) / 2  # π_k
    pe = float(np.sum(pi * (1 - pi)))  # 1/(q−1) Σ π_k(1−π_k), q = 2
    g = (pa - pe) / (1 - pe)
    middle = sum(p[k, k] * (1 - pi[k]) for k in (0, 1)) - pa * pe
    last = sum(p[k, m] * (1 - (pi[k] + pi[m]) / 2) ** 2 for k in (0, 1) for m in (0, 1)) - pe**2
    var = (pa * (1 - pa) - 4 * (1 - g) * middle + 4 * (1 - g) ** 2 * last) / (n * (1 - pe) ** 2)
    return math.sqrt(var)


def test_kappa_and_ac1_intervals_match_their_asymptotic_95_percent_intervals():
    """On 600 items the bootstrap percentile interval is the normal one to a few % of
    its width: kappa against statsmodels (Fleiss, Cohen & Everitt 1969), AC1 against
    Gwet's variance formula. A 90 % interval (0.84 of the width) fails it."""
    first, second, a, b = _raters(600, seed=12, flip=0.15, pass_rate=0.7)
    result = compare(first, second, bootstrap=2000, seed=1)
    for k, rule in enumerate(RULE_IDS[:3]):
        x, y = a[:, k], b[:, k]
        figures = result.rules[rule]
        table = np.array([[np.sum((x == i) & (y == j)) for j in (0, 1)] for i in (0, 1)])
        reference = sm_cohens_kappa(table)
        assert figures.cohen_kappa == pytest.approx(reference.kappa)
        half = (reference.kappa_upp - reference.kappa_low) / 2
        assert figures.kappa_ci95[1] - figures.kappa_ci95[0] == pytest.approx(2 * half, rel=0.06)
        assert figures.kappa_ci95 == pytest.approx(
            (reference.kappa_low, reference.kappa_upp), abs=0.15 * half
        )
        se = _gwet_ac1_se(x, y)
        ac1 = figures.gwet_ac1
        assert ac1 == pytest.approx(_ac1(x, y))
        assert figures.ac1_ci95[1] - figures.ac1_ci95[0] == pytest.approx(2 * Z * se, rel=0.06)
        assert figures.ac1_ci95 == pytest.approx((ac1 - Z * se, ac1 + Z * se), abs=0.2 * Z * se)


# ---------------------------------------------------------------- invariants


def _scores(matrix: np.ndarray, ids):
    return {
        i: dict(zip(RULE_IDS, map(int, row), strict=True))
        for i, row in zip(ids, matrix, strict=True)
    }


pairs_of_raters = st.integers(2, 25).flatmap(
    lambda n: st.tuples(
        st.lists(st.lists(st.integers(0, 1), min_size=7, max_size=7), min_size=n, max_size=n),
        st.lists(st.lists(st.integers(0, 1), min_size=7, max_size=7), min_size=n, max_size=n),
    )
)

POINTS = ("agreement", "cohen_kappa", "gwet_ac1", "pabak", "mcnemar_p")


def _same(x, y):
    return (x is None and y is None) or (x is not None and y is not None and x == pytest.approx(y))


@settings(max_examples=25, deadline=None)
@given(pairs_of_raters)
def test_swapping_the_two_raters_changes_no_figure_and_transposes_the_table(data):
    a, b = (np.array(m) for m in data)
    ids = [f"i{k:03d}" for k in range(len(a))]
    ab = compare(_scores(a, ids), _scores(b, ids), bootstrap=100, seed=3)
    ba = compare(_scores(b, ids), _scores(a, ids), bootstrap=100, seed=3)
    for rule in RULE_IDS:
        x, y = ab.rules[rule], ba.rules[rule]
        for name in (*POINTS, "ci95", "kappa_ci95", "ac1_ci95", "wilson_ci95"):
            assert _same(getattr(x, name), getattr(y, name)), (rule, name)
        assert y.confusion == [list(r) for r in zip(*x.confusion, strict=True)]


@settings(max_examples=25, deadline=None)
@given(pairs_of_raters)
def test_relabelling_pass_and_fail_changes_no_rules_figure(data):
    a, b = (np.array(m) for m in data)
    ids = [f"i{k:03d}" for k in range(len(a))]
    plain = compare(_scores(a, ids), _scores(b, ids), bootstrap=100, seed=3)
    flipped = compare(_scores(1 - a, ids), _scores(1 - b, ids), bootstrap=100, seed=3)
    for rule in RULE_IDS:
        for name in (*POINTS, "ci95", "kappa_ci95", "ac1_ci95", "wilson_ci95"):
            x, y = getattr(plain.rules[rule], name), getattr(flipped.rules[rule], name)
            assert _same(x, y), (rule, name)


@settings(max_examples=25, deadline=None)
@given(pairs_of_raters, st.randoms(use_true_random=False))
def test_permuting_the_items_changes_no_point_figure(data, random):
    a, b = (np.array(m) for m in data)
    ids = [f"i{k:03d}" for k in range(len(a))]
    shuffled = list(ids)
    random.shuffle(shuffled)  # item ids[k] now called shuffled[k]: rows in another order
    plain = compare(_scores(a, ids), _scores(b, ids), bootstrap=0)
    moved = compare(_scores(a, shuffled), _scores(b, shuffled), bootstrap=0)
    assert _same(plain.sample_level, moved.sample_level)
    for rule in RULE_IDS:
        for name in (*POINTS, "wilson_ci95"):
            x, y = getattr(plain.rules[rule], name), getattr(moved.rules[rule], name)
            assert _same(x, y), (rule, name)
    for pid in PRINCIPLES:
        assert _same(plain.principles[pid]["all_match"], moved.principles[pid]["all_match"])


@settings(max_examples=25, deadline=None)
@given(pairs_of_raters)
def test_agreement_intervals_contain_their_estimate(data):
    a, b = (np.array(m) for m in data)
    ids = [f"i{k:03d}" for k in range(len(a))]
    result = compare(_scores(a, ids), _scores(b, ids), bootstrap=100, seed=0)
    for rule in RULE_IDS:
        figures = result.rules[rule]
        for ci in (figures.wilson_ci95, figures.ci95):
            if ci is not None:
                assert ci[0] - 1e-12 <= figures.agreement <= ci[1] + 1e-12


# ---------------------------------------------------------------- several raters


def test_fleiss_kappa_and_krippendorff_alpha_equal_their_formulas():
    """Fleiss (1971) and Krippendorff's nominal alpha (coincidence matrix, complete
    data) written out for 0/1 judgments of four raters."""
    from medrcube_desktop.review.agreement.stats import multi_rater

    rng = np.random.default_rng(13)
    truth = rng.random((50, 7)) < 0.65
    names = ("r1", "r2", "r3", "r4")
    raters = {
        name: {
            f"i{k:02d}": {
                rule: int(truth[k, j] ^ (rng.random() < 0.2)) for j, rule in enumerate(RULE_IDS)
            }
            for k in range(50)
        }
        for name in names
    }
    result = multi_rater(raters)
    for rule in RULE_IDS:
        ones = np.array([sum(raters[n][f"i{k:02d}"][rule] for n in names) for k in range(50)])
        m, counts = len(names), np.column_stack([len(names) - ones, ones])
        p_i = ((counts**2).sum(axis=1) - m) / (m * (m - 1))
        p_j = counts.sum(axis=0) / counts.sum()
        fleiss = (p_i.mean() - np.sum(p_j**2)) / (1 - np.sum(p_j**2))
        n0, n1 = counts.sum(axis=0)
        disagree = np.sum(2 * counts[:, 0] * counts[:, 1] / (m - 1))
        alpha = 1 - (n0 + n1 - 1) * disagree / (2 * n0 * n1)
        assert result["rules"][rule]["fleiss_kappa"] == pytest.approx(fleiss, abs=1e-6)
        assert result["rules"][rule]["krippendorff_alpha"] == pytest.approx(alpha, abs=1e-6)


# ---------------------------------------------------------------- coverage


@pytest.mark.slow
def test_agreement_kappa_and_ac1_intervals_cover_the_truth_95_percent_of_2000_studies():
    """2,002 simulated studies of 120 items (seven independent rules per ``compare``
    call, 286 calls): a true label passes with probability 0.6, each rater reports it
    with probability 0.85. Truth: agreement 0.85² + 0.15² = 0.745; pass rate 0.57, so
    kappa (0.745 − 0.5098)/0.4902 and AC1 (0.745 − 0.4902)/0.5098. About 4 s (so
    marked slow); the four cover 94–95 %, a 90 % interval 0.89."""
    rng = np.random.default_rng(26)
    po, rate = 0.85**2 + 0.15**2, 0.6 * 0.85 + 0.4 * 0.15
    pe_k, pe_g = rate**2 + (1 - rate) ** 2, 2 * rate * (1 - rate)
    truth = {
        "ci95": po,
        "kappa_ci95": (po - pe_k) / (1 - pe_k),
        "ac1_ci95": (po - pe_g) / (1 - pe_g),
    }
    truth["wilson_ci95"] = po
    covered = dict.fromkeys(truth, 0)
    studies = 0
    for call in range(286):
        label = rng.random((120, 7)) < 0.6
        a = (label ^ (rng.random((120, 7)) < 0.15)).astype(int)
        b = (label ^ (rng.random((120, 7)) < 0.15)).astype(int)
        ids = [f"i{k:03d}" for k in range(120)]
        result = compare(_scores(a, ids), _scores(b, ids), bootstrap=400, seed=call)
        for rule in RULE_IDS:
            studies += 1
            for name, value in truth.items():
                low, high = getattr(result.rules[rule], name)
                covered[name] += low <= value <= high
    for name, count in covered.items():
        assert 0.93 <= count / studies <= 0.97, (name, count / studies)


def test_a_kappa_that_every_resample_gives_as_0_has_no_interval_in_either_labelling():
    """Found by the relabelling property: rater A fails every item, B passes one of
    three. Kappa is 0 in every resample (p_o = p_e); in floating point the draws came
    out a few 1e-16 apart, so before the fix the rule had the "interval" (−3.3e-16,
    −5.4e-17), printed [-0.00, -0.00], while the relabelled data (where the draws came
    out equal) said "every resample gives 0". Both now say the latter."""
    from medrcube_desktop.review.agreement.panel import group_columns, rater_matrix

    a = np.zeros((3, 7), dtype=int)
    b = a.copy()
    b[2, 6] = 1
    ids = ["i0", "i1", "i2"]
    for x, y in ((a, b), (1 - a, 1 - b)):
        figures = compare(_scores(x, ids), _scores(y, ids), bootstrap=100, seed=3).rules["2.3"]
        assert figures.cohen_kappa == pytest.approx(0.0, abs=1e-12)
        assert figures.kappa_ci95 is None
        assert figures.undefined["kappa_ci95"] == "every resample gives 0"
        raters = {"x": rater_matrix(_scores(x, ids), ids), "y": rater_matrix(_scores(y, ids), ids)}
        (column,) = group_columns(raters, [("x vs y", "pair", [("x", "y")])], 100, 3)
        assert column.rows["2.3"].kappa_ci95 is None
        assert column.rows["2.3"].undefined["kappa_ci95"] == "every resample gives 0"
