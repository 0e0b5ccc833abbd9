"""The old release against the corrected one (tests/release_fixture.py): accuracies,
the paired difference and its interval against an exact enumeration of the cluster
bootstrap, McNemar against scipy's binomial test, ranks and the effects per rule."""

import itertools

import numpy as np
import pytest
from scipy.stats import binomtest

from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare.inputs import scored_benchmark
from medrcube_desktop.evaluation.compare.release_diff import release_diff, release_diff_study
from medrcube_desktop.evaluation.release_read import read_release
from medrcube_desktop.evaluation.rescore import rescore_runs
from medrcube_desktop.store import StudyStore
from tests import release_fixture as rf


@pytest.fixture
def rescored(tmp_path):
    source, release_dir, db = rf.build(tmp_path)
    store = StudyStore(db)
    rescore_runs(store, read_release(release_dir))
    yield source, release_dir, store
    store.close()


def _outcomes(run):
    """(before, after) 0/1 per item of rf.IDS by hand (None: not scored)."""
    letters = rf.ANSWERS.get(run) or rf.TEXT_ONLY[run][1]
    before = {i: int(a == "B") for i, a in zip(rf.IDS, letters, strict=True)}
    after = {
        i: int(a == rf.NEW_KEY.get(i, "B"))
        for i, a in zip(rf.IDS, letters, strict=True)
        if i not in rf.RETIRED | rf.NEEDS_NEW
    }
    return before, after


def _exact_interval(run):
    """The 2.5 and 97.5 percentiles of the exact cluster bootstrap (every ordered draw of
    the images with replacement, each equally likely)."""
    before, after = _outcomes(run)
    d = {i: after[i] - before[i] for i in after}
    images = sorted({rf.IMAGES[i] for i in d})
    sums = {m: sum(v for i, v in d.items() if rf.IMAGES[i] == m) for m in images}
    sizes = {m: sum(1 for i in d if rf.IMAGES[i] == m) for m in images}
    values = [
        sum(sums[m] for m in draw) / sum(sizes[m] for m in draw)
        for draw in itertools.product(images, repeat=len(images))
    ]
    return np.percentile(values, [2.5, 97.5])


def test_accuracy_before_and_after_and_the_paired_difference_by_hand(rescored):
    source, release_dir, store = rescored
    diff = release_diff_study(store, source, release_dir, n_boot=20000, seed=1)
    models = {m["run"]: m for m in diff.to_dict()["models"]}
    assert list(models) == ["gamma-text", "beta", "alpha", "gamma"]  # database order
    for run, m in models.items():
        before, after = _outcomes(run)
        assert (m["correct_before"], m["n_before"]) == (sum(before.values()), 10)
        assert (m["correct_after"], m["n_after"]) == (sum(after.values()), 8)
        assert m["n_paired"] == 8 and m["retired"] == 1 and m["pending"] == 1
        assert m["diff"] == pytest.approx(np.mean([after[i] - before[i] for i in after]))
        low, high = _exact_interval(run)
        assert m["diff_low"] == pytest.approx(low, abs=0.02), run
        assert m["diff_high"] == pytest.approx(high, abs=0.02), run
        flips = [(before[i], after[i]) for i in after]
        assert (m["to_right"], m["to_wrong"]) == (flips.count((0, 1)), flips.count((1, 0)))
        discordant = m["to_right"] + m["to_wrong"]
        expected = binomtest(m["to_right"], discordant, 0.5).pvalue if discordant else 1.0
        assert m["mcnemar_p"] == pytest.approx(expected)
    assert (models["alpha"]["diff"], models["gamma"]["diff"]) == (0.125, -0.375)
    assert models["gamma"]["mcnemar_p"] == pytest.approx(0.25)  # 3 right→wrong, 0 back


def test_ranks_among_the_image_runs_before_and_after(rescored):
    source, release_dir, store = rescored
    models = {
        m["run"]: m for m in release_diff_study(store, source, release_dir).to_dict()["models"]
    }
    # before: gamma 80 %, alpha and beta 70 % (tied: both 2nd); after: alpha 75, beta
    # 62.5, gamma 50
    ranks = {
        run: (m["rank_before"], m["rank_after"], m["rank_change"]) for run, m in models.items()
    }
    assert ranks == {"gamma": (1, 3, -2), "alpha": (2, 1, 1), "beta": (2, 2, 0),
                     "gamma-text": (None, None, None)}  # fmt: skip


def test_which_corrections_moved_which_model(rescored):
    source, release_dir, store = rescored
    data = release_diff_study(store, source, release_dir).to_dict()
    rows = {(c["kind"], c["rule"], c["run"]): c for c in data["changes"]}
    # rule 1.3 is k1 (B→A) and k2 (B→C): alpha answered B, C (k1 right→wrong, k2
    # wrong→right); gamma B, B (both right→wrong)
    assert (
        rows["answer_key", "1.3", "alpha"]["to_right"],
        rows["answer_key", "1.3", "alpha"]["to_wrong"],
    ) == (1, 1)
    assert rows["answer_key", "1.3", "gamma"]["to_wrong"] == 2
    assert rows["answer_key", "2.1", "alpha"]["to_right"] == 1  # k3 D
    retired = rows["retire", "1.1", "gamma"]  # gamma answered rt A: wrong, dropped
    assert (retired["retired_right"], retired["retired_wrong"]) == (0, 1)
    assert rows["question_text", "1.2", "beta"]["pending"] == 1
    assert {r["run"]: (r["kind"], r["rule"], r["moved"]) for r in data["most_moved"]} == {
        "gamma-text": ("answer_key", "1.3", 2), "beta": ("answer_key", "1.3", 2),
        "alpha": ("answer_key", "1.3", 2), "gamma": ("answer_key", "1.3", 2),
    }  # fmt: skip


def test_a_new_answer_counts_once_only_changed_stored_it(rescored):
    source, release_dir, store = rescored
    store.save_responses([rf.response("alpha@v2", "qn", "A", 4)])  # wrong on the new item
    alpha = next(m for m in release_diff_study(store, source, release_dir).to_dict()["models"]
                 if m["run"] == "alpha")  # fmt: skip
    assert (alpha["pending"], alpha["n_after"], alpha["n_paired"]) == (0, 9, 9)
    assert alpha["to_wrong"] == 2  # k1, and qn (right before, wrong with the new question)


def test_named_runs_need_a_rescored_run(rescored, tmp_path):
    source, release_dir, store = rescored
    items = scored_benchmark(source).items
    release = read_release(release_dir)
    diff = release_diff(store, items, release, ["alpha", "beta@v2", "beta"])
    assert [m.run for m in diff.shifts] == ["alpha", "beta"]  # a rescored run is an "after"
    from medrcube_desktop.store.evaluation import RunRecord

    store.save_run(RunRecord(name="delta", engine="openai", model="delta", params={},
                             prompt_sha256="p", app_version="t", created_at="2027"))  # fmt: skip
    with pytest.raises(MedRCubeError, match="'delta' has no rescored run on release 'v2'"):
        release_diff(store, items, release, ["delta"])


@pytest.mark.parametrize(
    ("moved", "net", "said"),
    [
        (1, 1, "1 answer changed its verdict, 1 more now right than wrong"),
        (3, -1, "3 answers changed their verdict, 1 more now wrong than right"),
        (2, 0, "2 answers changed their verdict, as many now right as now wrong"),
    ],
)
def test_the_most_moved_line_counts_in_words(moved, net, said):
    from medrcube_desktop.evaluation.compare.release_diff_report import moved_text

    assert moved_text(moved, net) == said
