"""Agreement statistics on small tables worked out by hand (values in the comments)."""

import numpy as np
import pytest

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.review.agreement import (
    cohen_kappa,
    compare,
    confusion,
    gwet_ac1,
    mcnemar_exact_p,
    multi_rater,
    pabak,
    percent_agreement,
)

# [[both fail, first fails & second passes], [first passes & second fails, both pass]]
MIXED = [[2, 1], [2, 5]]
ONE_CONSTANT = [[0, 0], [6, 4]]  # the first rater passes all ten items
ALL_PASS = [[0, 0], [0, 10]]
NO_DISCORDANT = [[3, 0], [0, 7]]


def test_percent_agreement_kappa_ac1_pabak_mcnemar_by_hand():
    # n = 10, p_o = 7/10; p_e = 0.3·0.4 + 0.7·0.6 = 0.54; kappa = 0.16 / 0.46
    assert percent_agreement(MIXED) == pytest.approx(0.7)
    assert cohen_kappa(MIXED) == pytest.approx(0.16 / 0.46)
    # pass rates 0.7 and 0.6: pi = 0.65, p_e = 2·0.65·0.35 = 0.455; AC1 = 0.245 / 0.545
    assert gwet_ac1(MIXED) == pytest.approx(0.245 / 0.545)
    assert pabak(MIXED) == pytest.approx(0.4)
    # discordant 1 and 2: p = 2·P(X <= 1), X ~ Bin(3, 1/2) = 2·4/8, capped at 1
    assert mcnemar_exact_p(MIXED) == pytest.approx(1.0)


def test_one_constant_rater_gives_kappa_zero_and_a_significant_mcnemar():
    # p_o = 0.4, p_e = 0·0.6 + 1·0.4 = 0.4: kappa 0; pi = 0.7: AC1 = (0.4 - 0.42) / 0.58
    assert cohen_kappa(ONE_CONSTANT) == pytest.approx(0.0)
    assert gwet_ac1(ONE_CONSTANT) == pytest.approx(-0.02 / 0.58)
    assert pabak(ONE_CONSTANT) == pytest.approx(-0.2)
    assert mcnemar_exact_p(ONE_CONSTANT) == pytest.approx(2 / 64)  # 0 vs 6 discordant


def test_degenerate_tables():
    assert cohen_kappa(ALL_PASS) is None  # p_e = 1: undefined, not 1 and not 0
    assert gwet_ac1(ALL_PASS) == pytest.approx(1.0)  # p_e = 0
    assert percent_agreement(ALL_PASS) == 1.0 and pabak(ALL_PASS) == 1.0
    assert mcnemar_exact_p(ALL_PASS) == 1.0
    assert cohen_kappa(NO_DISCORDANT) == pytest.approx(1.0)
    assert gwet_ac1(NO_DISCORDANT) == pytest.approx(1.0)
    assert mcnemar_exact_p(NO_DISCORDANT) == 1.0
    empty = [[0, 0], [0, 0]]
    assert percent_agreement(empty) is None and cohen_kappa(empty) is None


# statsmodels also computes kappa's standard error, whose variance comes out negative for
# the NO_DISCORDANT table (it takes the square root anyway); only its kappa is compared
@pytest.mark.filterwarnings("ignore:invalid value encountered in sqrt:RuntimeWarning")
def test_kappa_and_mcnemar_match_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar
    from statsmodels.stats.inter_rater import cohens_kappa

    for table in (MIXED, ONE_CONSTANT, NO_DISCORDANT, [[10, 3], [9, 28]]):
        assert cohen_kappa(table) == pytest.approx(cohens_kappa(np.array(table)).kappa)
        assert mcnemar_exact_p(table) == pytest.approx(mcnemar(np.array(table), exact=True).pvalue)


def scores_from(table_per_rule):
    """Two raters' scores whose 2×2 table on each rule is the one given."""
    first, second = {}, {}
    n = sum(map(sum, next(iter(table_per_rule.values()))))
    cells = {}
    for rule, table in table_per_rule.items():
        pairs = [(0, 0)] * table[0][0] + [(0, 1)] * table[0][1]
        pairs += [(1, 0)] * table[1][0] + [(1, 1)] * table[1][1]
        cells[rule] = pairs
    for k in range(n):
        item = f"i{k:02d}"
        first[item] = {rule: cells[rule][k][0] for rule in RULE_IDS}
        second[item] = {rule: cells[rule][k][1] for rule in RULE_IDS}
    return first, second


def test_compare_rules_principles_and_sample_level_by_hand():
    tables = dict.fromkeys(RULE_IDS, NO_DISCORDANT)
    tables["1.3"] = MIXED
    first, second = scores_from(tables)
    first["only-first"] = dict.fromkeys(RULE_IDS, 1)  # judged by one rater: excluded
    result = compare(first, second, bootstrap=0)
    assert len(result.items) == 10 and result.excluded == ["only-first"]
    assert result.rules["1.3"].confusion == MIXED
    assert result.rules["1.3"].cohen_kappa == pytest.approx(0.16 / 0.46)
    assert result.rules["2.1"].agreement == 1.0
    # rule 1.3 disagrees on items 2, 3 and 4 (orders: 00 00 01 10 10 11 ...): 7 of 10 match
    assert result.sample_level == pytest.approx(0.7)
    assert result.principles["1"]["all_match"] == pytest.approx(0.7)
    assert result.principles["2"]["all_match"] == 1.0
    # principle 1 verdict: pass when 1.1–1.4 pass; items 0-2 fail 1.1 (NO_DISCORDANT puts
    # the 3 both-fail rows first), so the verdicts differ only on items 3 and 4
    verdict = result.principles["1"]["verdict"]
    assert verdict.confusion == [[3, 0], [2, 5]]
    assert verdict.agreement == pytest.approx(0.8)
    assert result.items_in_cell("1.3", 1, 0) == ["i03", "i04"]
    assert result.items_in_cell("P1", 1, 0) == ["i03", "i04"]
    data = result.to_dict()
    assert data["n_samples"] == 10 and data["n_excluded"] == 1
    assert data["principles"]["1"]["verdict_agreement"] == pytest.approx(0.8)
    assert data["rules"]["1.3"]["confusion"] == MIXED


def test_bootstrap_intervals_are_seeded_and_contain_the_estimate():
    first, second = scores_from({**dict.fromkeys(RULE_IDS, NO_DISCORDANT), "2.2": MIXED})
    one = compare(first, second, bootstrap=500, seed=7)
    two = compare(first, second, bootstrap=500, seed=7)
    other = compare(first, second, bootstrap=500, seed=8)
    assert one.rules["2.2"].ci95 == two.rules["2.2"].ci95
    assert one.rules["2.2"].ci95 != other.rules["2.2"].ci95
    low, high = one.rules["2.2"].ci95
    assert low <= 0.7 <= high and low >= 0 and high <= 1
    # no disagreement in any resample: no interval, said so (issue 21: it was [1.00, 1.00])
    assert one.rules["1.1"].ci95 is None and one.rules["1.1"].wilson_ci95[1] == 1.0
    assert one.rules["1.1"].undefined["ci95"] == "every item agrees (no variation to resample)"
    assert one.rules["1.1"].undefined["kappa_ci95"] == "every resample gives 1"
    assert one.sample_ci95[0] <= one.sample_level <= one.sample_ci95[1]


def test_fleiss_kappa_and_krippendorff_alpha_by_hand():
    # 4 items, 3 raters; passes per item 3, 0, 2, 1 on every rule
    votes = [(1, 1, 1), (0, 0, 0), (0, 1, 1), (0, 0, 1)]
    raters = {
        name: {f"i{k}": dict.fromkeys(RULE_IDS, votes[k][r]) for k in range(4)}
        for r, name in enumerate(("a", "b", "c"))
    }
    result = multi_rater(raters)
    assert result["n_samples"] == 4
    # Fleiss: P-bar = (1 + 1 + 1/3 + 1/3) / 4 = 2/3, P_e = 0.5: kappa = 1/3
    assert result["rules"]["1.1"]["fleiss_kappa"] == pytest.approx(1 / 3, abs=1e-6)
    # Krippendorff (nominal): D_o = 4/12, D_e = 72/132: alpha = 1 - 0.6111... = 7/18
    assert result["rules"]["2.3"]["krippendorff_alpha"] == pytest.approx(7 / 18, abs=1e-6)


def test_confusion_orientation_first_rater_in_rows():
    assert confusion(np.array([0, 0, 1, 1]), np.array([1, 0, 0, 0])) == [[1, 1], [2, 0]]


def test_run_study_adds_multi_rater_and_intra_rater_figures(tmp_path):
    from medrcube_desktop.review.agreement import run_study
    from medrcube_desktop.store import Review, StudyStore, utc_now
    from medrcube_desktop.store.judgments import Judgment

    store = StudyStore(tmp_path / "s.db")
    passing = dict.fromkeys(RULE_IDS, 1)
    votes = [(1, 1, 1), (0, 0, 0), (0, 1, 1), (0, 0, 1)]  # the Fleiss example above, on 2.1
    for k, vote in enumerate(votes):
        for name, v in zip(("a", "b", "c"), vote, strict=True):
            store.save_review(
                Review(name, f"i{k}", {**passing, "2.1": v}, "", utc_now(), utc_now())
            )
    # reviewer a sees i0 and i2 again: same on i0, 2.1 flipped on i2
    store.save_review(
        Review("a", "i0", {**passing, "2.1": 1}, "", utc_now(), utc_now(), repeat=True)
    )
    store.save_review(
        Review("a", "i2", {**passing, "2.1": 1}, "", utc_now(), utc_now(), repeat=True)
    )
    run = run_study(store, "a", reviewer2="b", bootstrap=0)
    assert run.multi["n_samples"] == 4
    assert run.multi["rules"]["2.1"]["fleiss_kappa"] == pytest.approx(1 / 3, abs=1e-6)
    assert run.multi["rules"]["1.1"]["fleiss_kappa"] is None  # everyone passes 1.1
    assert run.intra["n_repeated"] == 2
    assert run.intra["rules"]["2.1"]["agreement"] == pytest.approx(0.5)
    assert run.intra["sample_level"] == pytest.approx(0.5)
    data = run.to_dict()
    assert "multi_rater" in data and data["intra_rater"]["reviewer"] == "a"
    store.save_judgment(Judgment("i0", "m", passing, created_at=utc_now()))
    with_llm = run_study(store, "a", model="m", bootstrap=0)
    assert with_llm.result.items == ["i0"] and with_llm.result.excluded == ["i1", "i2", "i3"]


def test_vectorised_bootstrap_statistics_equal_the_2x2_formulas():
    from medrcube_desktop.review.agreement.intervals import draw_statistics as _draw_statistics
    from medrcube_desktop.review.agreement.stats import wilson_ci

    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 2, 30), rng.integers(0, 2, 30)
    draws = rng.integers(0, 30, size=(50, 30))
    per_draw = _draw_statistics(a, b, draws)
    for k, rows in enumerate(draws):
        table = confusion(a[rows], b[rows])
        kappa = cohen_kappa(table)
        assert (np.isnan(per_draw["kappa"][k]) and kappa is None) or per_draw["kappa"][
            k
        ] == pytest.approx(kappa)
        assert per_draw["ac1"][k] == pytest.approx(gwet_ac1(table))
    low, high = wilson_ci(50, 50)  # Wilson: 1 / (1 + z²/n) = 0.9287 for 50 of 50
    assert low == pytest.approx(0.9287, abs=1e-4) and high == pytest.approx(1.0)
