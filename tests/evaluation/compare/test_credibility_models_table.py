"""The credibility table of every run (issue 26): its intervals wired to the right
figures from the right clusters, its warnings, the exact permutation p against the
hypergeometric tail (scipy), how the log odds ratio, the permutation p and the Acc_H–SP
correlation are written, and the independence simulation redone here."""

import math

import numpy as np
import pytest
from scipy import stats

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.credibility_models import (
    FEW_IMAGES,
    Z95,
    Correlation,
    ModelCredibility,
    accuracy_shortcut_correlation,
    counts_of,
    credibility_table,
    independent_r,
    log_odds_ratio,
    model_credibility,
    model_pairs,
    permutation_p,
)
from medrcube_desktop.evaluation.compare.credibility_stats import (
    CORRECTION_NOTE,
    bootstrap_intervals,
    image_counts,
)
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from tests.conftest import dicom_file, item, write_benchmark

FIXTURE = [
    ("m1", "ct", "Modality Recognition"),
    ("o1", "ct", "Organ Recognition"),
    ("d1", "ct", "Disease Diagnosis"),
    ("v2", "mr", "View Identification"),
    ("s2", "mr", "Severity Grading"),
]
N = np.nan
# runs r1, r2, r3, r4 (r4 answered nothing); rows as FIXTURE
CORRECT = [[1, 1, 0, N], [1, 0, N, N], [1, 1, 0, N], [1, 0, 1, N], [1, 1, 0, N]]
# paper pairs: d1×m1 and d1×o1 on ct, s2×v2 on mr (L, H):
#   r1: A A | A      r2: A D | D      r3: C - | B
PER_IMAGE = np.array(
    [
        [[2, 0, 0, 0], [1, 0, 0, 1], [0, 0, 1, 0], [0, 0, 0, 0]],  # ct
        [[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]],  # mr
    ],
    dtype=float,
)


@pytest.fixture
def matrix(tmp_path):
    records = [item(i, image=f"images/{img}.dcm", task=task) for i, img, task in FIXTURE]
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": records},
        {
            "ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
            "ds1/images/mr.dcm": dicom_file("MR_small.dcm"),
        },
    )
    items = {i.id: i for i in load_benchmark(root).items}
    return RunMatrix(
        tuple(items[i] for i, *_ in FIXTURE),
        ("r1", "r2", "r3", "r4"),
        np.array(CORRECT, dtype=float),
        np.zeros((5, 4), bool),
        text_only=(False, True, False, False),
    )


FEW = (
    "the paper preset's pairs lie on only 2 images: intervals that resample images rest on "
    "that few clusters and come out too narrow (of zero width on one image), and Woolf's "
    "interval of the log odds ratio, which takes pairs as independent, is too narrow as well"
)
NO_PAIRS = (
    "run 'r4' has no (prerequisite, high-level) pair under the paper preset: no credibility figures"
)


def test_without_bootstrap_the_table_has_counts_p_preset_and_warnings(matrix):
    figures, warnings = credibility_table(matrix, "paper", n_boot=0)
    assert [(f.run, f.a, f.b, f.c, f.d) for f in figures] == [
        ("r1", 3, 0, 0, 0),
        ("r2", 1, 0, 0, 2),
        ("r3", 0, 1, 1, 0),
        ("r4", 0, 0, 0, 0),
    ]
    assert warnings == [FEW, NO_PAIRS]
    assert FEW_IMAGES == 20
    for f in figures:
        assert f.n_boot is None and f.acc_h_low is None and f.log_or_boot_high is None
        assert f.preset == "paper"
    assert [f.text_only for f in figures] == [False, True, False, False]
    # every run here has an empty margin: the exact p is undefined, as its odds ratio
    assert [f.p_permutation for f in figures] == [None] * 4
    assert [f.log_or_undefined for f in figures][3] == "no pairs"


def test_the_intervals_are_the_image_bootstrap_of_the_per_image_counts(matrix):
    np.testing.assert_array_equal(image_counts(matrix, "paper").counts, PER_IMAGE)
    figures, _ = credibility_table(matrix, "paper", n_boot=300, seed=11)
    bounds = bootstrap_intervals(PER_IMAGE, 300, 11)
    for c, f in enumerate(figures):
        assert f.n_boot == 300
        for name in ("acc_h", "rationality", "shortcut_prob"):
            for end, k in (("low", 0), ("high", 1)):
                want = bounds[name][k, c]
                got = getattr(f, f"{name}_{end}")
                assert (got is None) if math.isnan(want) else got == pytest.approx(want)
        for end, k in (("low", 0), ("high", 1)):
            want = bounds["log_or"][k, c]
            got = getattr(f, f"log_or_boot_{end}")
            assert (got is None) if math.isnan(want) else got == pytest.approx(want)
    r2 = figures[1]
    assert (r2.acc_h_low, r2.acc_h_high) == (pytest.approx(1.0), pytest.approx(1.0))
    # r2's rationality: ct alone 1/2, mr alone 0, both 1/3, ct twice 1/2: low below high
    assert r2.rationality_low < r2.rationality_high
    assert figures[3].acc_h_low is None and figures[3].acc_h_high is None


def test_the_pair_bootstrap_resamples_pairs_not_images(matrix):
    figures, _ = credibility_table(matrix, "paper", n_boot=300, seed=11, cluster="pair")
    # the three pairs d1×m1, d1×o1, s2×v2, one cluster each
    per_pair = np.array(
        [
            [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]],
            [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]],
            [[1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]],
        ],
        dtype=float,
    )
    bounds = bootstrap_intervals(per_pair, 300, 11)
    for c, f in enumerate(figures[:3]):
        for name in ("acc_h", "rationality"):
            want = bounds[name][:, c]
            got = (getattr(f, f"{name}_low"), getattr(f, f"{name}_high"))
            assert got == (None, None) if np.isnan(want).all() else got == pytest.approx(want)
    images, _ = credibility_table(matrix, "paper", n_boot=300, seed=11)
    assert (figures[1].rationality_low, figures[1].rationality_high) != (
        images[1].rationality_low,
        images[1].rationality_high,
    )
    with pytest.raises(ValueError, match=r"^cluster must be 'image' or 'pair', not 'item'$"):
        credibility_table(matrix, "paper", n_boot=0, cluster="item")


def test_on_one_image_the_warning_says_the_log_odds_ratio_is_0_by_construction(matrix):
    ct = matrix.select([0, 1, 2])
    one = RunMatrix(ct.items[:3], ct.runs, ct.correct[:3], ct.unparsed[:3])
    _, warnings = credibility_table(one, "paper", n_boot=0)
    assert warnings == [
        "the paper preset's pairs lie on only 1 image: intervals that resample images rest "
        "on that few clusters and come out too narrow (of zero width on one image), and "
        "Woolf's interval of the log odds ratio, which takes pairs as independent, is too "
        "narrow as well (on one image the log odds ratio is 0 by construction: every "
        "prerequisite is paired with every high-level item)"
    ]


def test_the_exact_permutation_p_is_the_hypergeometric_tail(tmp_path):
    # 20 images (FEW_IMAGES: from there no warning of few) of one prerequisite and one
    # high-level item each: 20 pairs per run
    records = []
    for k in range(20):
        records.append(item(f"m{k}", image=f"images/{k}.dcm", task="Modality Recognition"))
        records.append(item(f"d{k}", image=f"images/{k}.dcm", task="Disease Diagnosis"))
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": records},
        {f"ds1/images/{k}.dcm": dicom_file("CT_small.dcm") for k in range(20)},
    )
    items = load_benchmark(root).items
    rng = np.random.default_rng(4)
    low = rng.random((20, 3)) < [0.5, 0.7, 0.4]
    high = np.where(rng.random((20, 3)) < [0.8, 0.5, 0.1], low, rng.random((20, 3)) < 0.5)
    correct = np.zeros((len(items), 3))
    for n, it in enumerate(items):
        k = int(it.id[1:])
        correct[n] = (low if it.id[0] == "m" else high)[k]
    m = RunMatrix(items, ("x", "y", "z"), correct, np.zeros(correct.shape, bool))
    figures, warnings = credibility_table(m, "paper", n_boot=0)
    assert warnings == []  # 20 images: no warning of few
    for c, f in enumerate(figures):
        a, b, cc, d = counts_of(low[:, c], high[:, c])
        assert (f.a, f.b, f.c, f.d) == (a, b, cc, d)
        expected = stats.hypergeom.sf(a - 1, 20, a + b, a + d)
        assert f.p_permutation == pytest.approx(expected, rel=1e-12)
        fisher = stats.fisher_exact([[a, b], [d, cc]], alternative="greater").pvalue
        assert f.p_permutation == pytest.approx(fisher, rel=1e-9)
    # the image bootstrap: each image holds one pair, its group one-hot per run
    per_image = np.zeros((20, 3, 4))
    for k in range(20):
        for c in range(3):
            per_image[k, c] = np.array(counts_of(low[k : k + 1, c], high[k : k + 1, c]))
    booted, _ = credibility_table(m, "paper", n_boot=200, seed=3)
    bounds = bootstrap_intervals(per_image, 200, 3)
    other_seed = bootstrap_intervals(per_image, 200, 4)
    fewer = bootstrap_intervals(per_image, 3, 3)
    for c, f in enumerate(booted):
        assert (f.acc_h_low, f.acc_h_high) == tuple(pytest.approx(v) for v in bounds["acc_h"][:, c])
    got = np.array([[f.acc_h_low, f.acc_h_high] for f in booted]).T
    assert not np.allclose(got, other_seed["acc_h"])  # the seed given is the one used
    assert not np.allclose(got, fewer["acc_h"])  # and the replicates asked for


def test_counts_of_by_hand():
    low = np.array([1, 1, 0, 0, 1, 0, 0], bool)
    high = np.array([1, 0, 0, 1, 1, 1, 0], bool)
    assert counts_of(low, high) == (2, 1, 2, 2)
    assert counts_of([], []) == (0, 0, 0, 0)


def test_figures_left_none_where_their_denominator_is_zero():
    (no_d,) = model_credibility({"m": (0, 4, 3, 0)})  # A + D = 0: no rationality, SP 0
    assert (no_d.acc_h, no_d.rationality, no_d.shortcut_prob) == (0.0, None, 0.0)
    assert no_d.baseline == 0.0
    assert no_d.log_or is None and no_d.log_or_undefined is not None
    (all_h,) = model_credibility({"m": (5, 0, 0, 3)})
    assert all_h.rationality == pytest.approx(1 - 3 / 8)
    assert all_h.shortcut_prob == 1.0 and all_h.baseline == 0.0


def test_the_woolf_interval_is_z95_standard_errors_either_side():
    assert pytest.approx(stats.norm.ppf(0.975), abs=1e-15) == Z95
    value, low, high, haldane = log_odds_ratio((12, 5, 9, 4))
    se = math.sqrt(1 / 12 + 1 / 5 + 1 / 9 + 1 / 4)
    assert value == pytest.approx(math.log(12 * 9 / (5 * 4)))
    assert (low, high) == (pytest.approx(value - Z95 * se), pytest.approx(value + Z95 * se))
    assert haldane is False
    with pytest.raises(MedRCubeError, match=r"^log odds ratio undefined: L right on every pair"):
        log_odds_ratio((3, 2, 0, 0))


def _figure(**kw):
    base = dict(run="r", a=1, b=1, c=1, d=1, acc_h=0.5, rationality=0.5, shortcut_prob=0.5,
                baseline=0.0, log_or=1.3863, log_or_low=0.4061, log_or_high=2.3666,
                haldane=False)  # fmt: skip
    return ModelCredibility(**{**base, **kw})


def test_the_log_odds_ratio_and_permutation_p_as_written():
    assert _figure().log_or_text() == "1.39 [0.41, 2.37]"
    assert _figure().log_or_text(3) == "1.386 [0.406, 2.367]"
    assert _figure().log_or_text(mark="†") == "1.39 [0.41, 2.37]"  # not corrected: no mark
    corrected = _figure(haldane=True)
    assert corrected.log_or_text() == f"1.39 [0.41, 2.37] ({CORRECTION_NOTE})"
    assert corrected.log_or_text(mark="†") == "1.39 [0.41, 2.37]†"
    for missing in ("log_or", "log_or_low", "log_or_high"):
        assert _figure(**{missing: None}).log_or_text() == "undefined: no pairs"
    why = _figure(log_or=None, log_or_undefined="L right on every pair (C+D = 0)")
    assert why.log_or_text() == "undefined: L right on every pair (C+D = 0)"
    assert why.p_permutation_text() == "undefined: L right on every pair (C+D = 0)"
    assert _figure().p_permutation_text() == "undefined: no pairs"
    assert _figure(p_permutation=0.0312).p_permutation_text() == "0.0312"
    assert _figure(p_permutation=1e-4).p_permutation_text() == "0.0001"
    assert _figure(p_permutation=0.99e-4).p_permutation_text() == "< 0.0001"
    assert _figure(p_permutation=1.0).p_permutation_text() == "1.0000"
    assert _figure(a=3, b=4, c=5, d=6).n_pairs == 18


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.5, "p = 0.500"),
        (0.001, "p = 0.001"),
        (0.00099, "p = 0.00099"),
        (0.000123, "p = 0.00012"),
        (1e-5, "p = 1e-05"),
        (0.99e-5, "p < 1e-05"),
    ],
)
def test_the_correlation_is_written_with_p_by_its_size(p, text):
    r = Correlation(0.6931, 0.41234, 0.85149, p, 33)
    assert r.defined
    assert r.summary() == f"r = 0.693 (95% CI 0.412 to 0.851), {text}, n = 33 models"


def test_an_undefined_correlation_is_written_with_its_reason():
    one = Correlation(
        None, None, None, None, 1, "fewer than 4 distinct points (1 points, 1 distinct)"
    )
    assert not one.defined
    assert one.summary() == (
        "r undefined: fewer than 4 distinct points (1 points, 1 distinct), n = 1 model"
    )
    infinite = Correlation(0.5, -math.inf, 0.9, 0.1, 5)
    assert not infinite.defined
    assert infinite.summary() == "r undefined: not a number, n = 5 models"
    for field in range(4):
        values = [0.5, 0.1, 0.9, 0.2]
        values[field] = None
        assert not Correlation(*values, 6).defined
    assert not Correlation(0.5, 0.1, 0.9, 0.2, 6, "a reason").defined


def test_independent_r_is_the_simulation_it_describes():
    acc_low, acc_high, n, seed = [0.3, 0.5, 0.7, 0.9, 0.6], [0.2, 0.4, 0.5, 0.8, 0.9], 150, 9
    rng = np.random.default_rng(seed)
    low = rng.random((5, n)) < np.array(acc_low)[:, None]
    high = rng.random((5, n)) < np.array(acc_high)[:, None]
    acc_h = high.mean(axis=1)
    sp = (high & ~low).sum(axis=1) / (~low).sum(axis=1)
    expected = np.corrcoef(acc_h, sp)[0, 1]
    assert independent_r(acc_low, acc_high, n, seed) == pytest.approx(expected, rel=1e-12)
    # a model whose L is always right: SP's denominator held at 1, not a division by 0
    r = independent_r([1.0, 0.5, 0.4, 0.3], [0.9, 0.2, 0.5, 0.7], 40, 2)
    assert math.isfinite(r)


def test_monte_carlo_permutation_p_is_the_share_of_shuffles_as_large():
    low = np.array([1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1], bool)
    high = np.array([1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0], bool)

    def log_or(lo, hi):
        a, b, c, d = counts_of(lo, hi)
        if 0 in (a, b, c, d):
            a, b, c, d = a + 0.5, b + 0.5, c + 0.5, d + 0.5
        return math.log(a * c / (b * d))

    rng = np.random.default_rng(5)
    shuffled = rng.permuted(np.broadcast_to(low, (400, low.size)), axis=1)
    observed = log_or(low, high)
    extreme = sum(log_or(s, high) >= observed - 1e-12 for s in shuffled)
    assert permutation_p(low, high, n_permutations=400, seed=5) == (1 + extreme) / 401
    with pytest.raises(MedRCubeError, match="^no pairs: nothing to permute$"):
        permutation_p(np.array([], bool), np.array([], bool))
    with pytest.raises(MedRCubeError, match="^permutation p undefined: "):
        permutation_p(np.ones(5, bool), np.array([1, 0, 1, 0, 1], bool))


def test_an_undefined_correlation_names_the_figure_that_does_not_vary():
    same_sp = model_credibility(
        {"a": (5, 1, 2, 2), "b": (3, 3, 2, 2), "c": (1, 5, 2, 2), "d": (2, 4, 2, 2)}
    )
    assert accuracy_shortcut_correlation(same_sp).undefined == (
        "zero variance: Shortcut Probability is the same at every point (0.5)"
    )
    same_acc = model_credibility(
        {
            "a": (2, 2, 2, 2),
            "b": (1, 2, 2, 3),
            "c": (3, 3, 1, 1),
            "d": (1, 4, 0, 3),
            "e": (2, 3, 1, 2),
        }
    )
    assert all(f.acc_h == 0.5 for f in same_acc)
    assert accuracy_shortcut_correlation(same_acc).undefined == (
        "zero variance: Acc_H is the same at every point (0.5)"
    )
    none = accuracy_shortcut_correlation(model_credibility({"a": (1, 1, 0, 0)}))
    assert none.undefined == (
        "no model has both Acc_H and Shortcut Probability (no pairs with L wrong)"
    )
    assert none.n == 0


def test_the_official_preset_reaches_the_pairs_and_the_table(matrix):
    pairs, _ = model_pairs(matrix, "official")  # View Identification ignored: s2 unpaired
    assert {run: len(low) for run, (low, high) in pairs.items()} == {
        "r1": 2, "r2": 2, "r3": 1, "r4": 0}  # fmt: skip
    figures, warnings = credibility_table(matrix, "official", n_boot=0)
    assert [(f.a, f.b, f.c, f.d) for f in figures][:3] == [(2, 0, 0, 0), (1, 0, 0, 1), (0, 0, 1, 0)]
    assert figures[0].preset == "official"
    assert "the official preset's pairs lie on only 1 image" in warnings[0]


def test_a_pair_with_one_item_unanswered_is_left_out(matrix):
    pairs, _ = model_pairs(matrix, "paper")
    # r3 did not answer o1: d1×o1 is no pair of r3's; d1×m1 (C) and s2×v2 (B) are
    low, high = pairs["r3"]
    assert sorted(zip(low.tolist(), high.tolist(), strict=True)) == [(False, False), (True, False)]


def test_no_pair_at_all_gives_no_warning_of_few_images(matrix):
    only_low = RunMatrix(
        matrix.items[:2], matrix.runs, matrix.correct[:2], matrix.unparsed[:2]
    )  # m1 and o1: prerequisites without a high-level item
    _, warnings = credibility_table(only_low, "paper", n_boot=0)
    assert warnings == [
        f"run {run!r} has no (prerequisite, high-level) pair under the paper preset: no "
        "credibility figures"
        for run in ("r1", "r2", "r3", "r4")
    ]


def test_independent_r_defaults_to_seed_0_and_divides_one_wrong_prerequisite_by_one():
    acc_low = [0.9, 0.8, 0.7, 0.95, 0.6, 0.85, 0.75, 0.9]
    acc_high = [0.2, 0.8, 0.5, 0.6, 0.3, 0.9, 0.4, 0.7]
    assert independent_r(acc_low, acc_high, 30) == independent_r(acc_low, acc_high, 30, seed=0)
    rng = np.random.default_rng(0)
    low = rng.random((8, 3)) < np.array(acc_low)[:, None]
    high = rng.random((8, 3)) < np.array(acc_high)[:, None]
    assert ((~low).sum(axis=1) == 1).any()  # a model with exactly one L wrong
    sp = (high & ~low).sum(axis=1) / np.maximum((~low).sum(axis=1), 1)
    expected = np.corrcoef(high.mean(axis=1), sp)[0, 1]
    assert independent_r(acc_low, acc_high, 3, seed=0) == pytest.approx(expected, rel=1e-12)


def test_figures_where_two_cells_are_equal_are_still_given():
    (fig,) = model_credibility({"m": (2, 3, 1, 1)})  # C = D: SP 1/2
    assert fig.shortcut_prob == 0.5
    (fig,) = model_credibility({"m": (2, 3, 1, 2)})  # A = D: Rationality 1/2
    assert fig.rationality == 0.5
    (undefined,) = model_credibility({"m": (3, 2, 0, 0)})
    assert undefined.haldane is False
    (corrected,) = model_credibility({"m": (3, 0, 2, 1)})
    assert corrected.haldane is True


def test_permutation_p_defaults_and_reads_0_1_lists_as_booleans():
    low = np.array([1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1], bool)
    high = np.array([1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 0], bool)
    assert permutation_p(low, high) == permutation_p(low, high, n_permutations=2000, seed=0)
    as_ints = permutation_p(low.astype(int).tolist(), high.astype(int).tolist(), 300, 2)
    assert as_ints == permutation_p(low, high, 300, 2)
    with pytest.raises(MedRCubeError) as caught:
        permutation_p(np.ones(5, bool), np.array([1, 0, 1, 0, 1], bool))
    assert str(caught.value) == "permutation p undefined: L right on every pair (C+D = 0)"


def test_the_pair_bootstrap_resamples_the_pairs_of_the_preset_asked_for(matrix):
    # the official preset leaves View Identification out: only d1×m1 and d1×o1 on ct
    figures, _ = credibility_table(matrix, "official", n_boot=300, seed=11, cluster="pair")
    assert [(f.a, f.b, f.c, f.d) for f in figures[:3]] == [(2, 0, 0, 0), (1, 0, 0, 1), (0, 0, 1, 0)]
    per_pair = np.array(
        [
            [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]],
            [[1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]],
        ],
        dtype=float,
    )
    bounds = bootstrap_intervals(per_pair, 300, 11)
    for c, f in enumerate(figures[:3]):
        for name in ("acc_h", "rationality", "shortcut_prob"):
            want = bounds[name][:, c]
            got = (getattr(f, f"{name}_low"), getattr(f, f"{name}_high"))
            assert got == (None, None) if np.isnan(want).all() else got == pytest.approx(want)
    # r2 is A on one pair, D on the other: a draw of the pair twice gives rationality 1
    # or 0, so its interval is [0, 1]
    assert (figures[1].rationality_low, figures[1].rationality_high) == (0.0, 1.0)
    # one run right on all but s2: official pairs A, A (every draw gives Acc_H 1); the
    # paper adds s2×v2 in B, and three draws of it (1 in 27) give Acc_H 0
    one = RunMatrix(matrix.items, ("r",), np.array([[1], [1], [1], [1], [0]], float),
                    np.zeros((5, 1), bool))  # fmt: skip
    (official,), _ = credibility_table(one, "official", n_boot=300, seed=11, cluster="pair")
    assert (official.a, official.b, official.c, official.d) == (2, 0, 0, 0)
    assert (official.acc_h_low, official.acc_h_high) == (1.0, 1.0)
    assert (official.rationality_low, official.rationality_high) == (1.0, 1.0)
    assert (official.shortcut_prob_low, official.shortcut_prob_high) == (None, None)
    (paper,), _ = credibility_table(one, "paper", n_boot=300, seed=11, cluster="pair")
    assert (paper.a, paper.b, paper.c, paper.d) == (2, 1, 0, 0)
    assert (paper.acc_h_low, paper.acc_h_high) == (0.0, 1.0)


def test_a_run_named_twice_is_refused_not_reported_once(matrix):
    twice = RunMatrix(matrix.items, ("r1", "r1", "r3", "r4"), matrix.correct, matrix.unparsed)
    with pytest.raises(ValueError):
        credibility_table(twice, "paper", n_boot=0)


@pytest.mark.parametrize(
    "image_mode, text_only, mark",
    [
        (None, False, ""),
        (None, True, " (text only)"),
        ("blank", False, " (blank ablation)"),
        ("swapped", True, " (swapped ablation)"),  # the recorded mode wins
        ("image", True, ""),
    ],
)
def test_the_mark_after_a_runs_name(image_mode, text_only, mark):
    assert _figure(image_mode=image_mode, text_only=text_only).mark() == mark
