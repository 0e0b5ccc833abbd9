"""Image necessity per item and the sighted − ablated gaps (issue 24 item 2), each
figure recomputed by hand on a small matrix."""

from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.core.items import Item
from medrcube_desktop.core.taxonomy import TASKS
from medrcube_desktop.evaluation.compare.matrix import RunMatrix
from medrcube_desktop.evaluation.compare.necessity import (
    ablation_pairs,
    item_necessity,
    necessity,
    necessity_gap,
    necessity_lines,
)
from medrcube_desktop.evaluation.compare.result import compare_runs

N = np.nan
RUNS = (  # run, model, mode, linked image run
    ("m1", "M1", "image", ""),
    ("m1-text", "M1", "text-only", ""),
    ("m1-blank", "M1", "blank", "m1"),
    ("m2", "M2", "image", ""),
    ("m2-noise", "M2", "noise", ""),
    ("m3-swapped", "M3", "swapped", ""),
)
CORRECT = np.array([
    [1, 1, 1, 1, 1, 1],
    [1, 0, 1, 1, 0, 0],
    [1, 1, 0, 0, 1, N],
    [0, 1, 1, 1, 1, 1],
    [1, 0, 0, 1, 0, 1],
    [1, 1, 1, N, N, 0],
], dtype=float)  # fmt: skip
IMAGES = ("a", "a", "b", "b", "c", "d")  # items 0-1 and 2-3 share an image


def _items():
    return tuple(
        Item(id=f"i{n}", question="q", options={"A": "a", "B": "b"}, answer="A",
             task=TASKS[0 if n < 3 else 5], raw_task="t", modality="CT", region="Chest",
             dataset="d", image_path=Path(f"{IMAGES[n]}.png"), source_file=Path("t"))
        for n in range(6)
    )  # fmt: skip


def _matrix(correct=CORRECT, runs=RUNS):
    return RunMatrix(
        _items(), tuple(r[0] for r in runs), correct, np.zeros(correct.shape, bool),
        models=tuple(r[1] for r in runs),
        text_only=tuple(r[2] == "text-only" for r in runs),
        image_modes=tuple(r[2] for r in runs), image_links=tuple(r[3] for r in runs),
    )  # fmt: skip


def test_models_right_per_item_and_mode_and_the_answerable_items_by_hand():
    found = item_necessity(_matrix())
    # M1 pools its text-only and blank answers: right when more than half are right
    # item: M1 (text, blank), M2 noise, M3 swapped -> right under ablation / models
    # i0: 2/2 yes, 1, 1 -> 3/3 ; i1: 1/2 no, 0, 0 -> 0/3 ; i2: 1/2 no, 1, - -> 1/2
    # i3: yes, 1, 1 -> 3/3 ; i4: no, 0, 1 -> 1/3 ; i5: yes, -, 0 -> 1/2
    assert found.ablated_right.tolist() == [3, 0, 1, 3, 1, 1]
    assert found.ablated_models.tolist() == [3, 3, 2, 3, 3, 2]
    assert found.answerable_ids() == ["i0", "i3"]  # 1 of 2 is not more than half
    assert found.right["image"].tolist() == [2, 2, 1, 1, 2, 1]
    assert found.models["image"].tolist() == [2, 2, 2, 2, 2, 1]
    assert found.right["text-only"].tolist() == [1, 0, 1, 1, 0, 1]
    assert found.right["swapped"].tolist() == [1, 0, 0, 1, 1, 0]
    assert found.models["swapped"].tolist() == [1, 1, 0, 1, 1, 1]
    assert found.right["noise"].tolist() == [1, 0, 1, 1, 0, 0]
    assert found.models["noise"].tolist() == [1, 1, 1, 1, 1, 0]
    # a lower share: half of the models is enough above 0.49
    assert item_necessity(_matrix(), 0.49).answerable_ids() == ["i0", "i2", "i3", "i5"]
    assert item_necessity(_matrix(), 1.0).answerable_ids() == []
    with pytest.raises(ValueError):
        item_necessity(_matrix(), 1.5)
    row = found.rows()[0]
    assert row["item"] == "i0" and row["task"] == TASKS[0].abbreviation
    assert row["answerable"] is True and row["blank_right"] == 1 and row["blank_models"] == 1
    # underscores only in the column names (it was ``text-only_right``); the values of
    # the evidence the reveal reads keep the mode's own name
    assert (row["text_only_right"], row["text_only_models"]) == (1, 1)
    assert all("-" not in key for key in row)
    assert found.evidence()["i0"]["text-only_right"] == 1


def test_pairs_follow_the_link_else_the_model_and_skip_a_model_without_image_run():
    assert ablation_pairs(_matrix()) == [
        ("m1", "m1-text", "text-only"), ("m1", "m1-blank", "blank"),
        ("m2", "m2-noise", "noise"),
    ]  # fmt: skip


def test_a_link_to_a_run_no_longer_an_image_run_of_the_model_is_not_followed():
    # import-run --replace can put a run of another model (or an ablation run) under the
    # linked name: the gap then pairs with the model's image runs, never across models.
    runs = (
        ("m1", "M1", "image", ""),
        ("m1-b", "M1", "image", ""),
        ("m1-blank", "M1", "blank", "other"),
        ("other", "M2", "image", ""),
        ("m1-noise", "M1", "noise", "m1-blank"),
    )
    correct = np.ones((6, 5))
    assert ablation_pairs(_matrix(correct, runs)) == [
        ("m1", "m1-blank", "blank"), ("m1-b", "m1-blank", "blank"),
        ("m1", "m1-noise", "noise"), ("m1-b", "m1-noise", "noise"),
    ]  # fmt: skip


def _brute_interval(d, images, n_boot, seed):
    """Resample images with the same draws, then take every item of each drawn image
    along one by one (no bincount)."""
    names = sorted(set(images))
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, len(names), size=(n_boot, len(names)))
    reps = []
    for row in drawn:
        picked = [d[k] for n in row for k in range(len(d)) if images[k] == names[n]]
        reps.append(sum(picked) / len(picked))
    return np.percentile(reps, [2.5, 97.5])


def test_gap_overall_and_per_task_with_the_interval_clustered_by_image():
    gap = necessity_gap(_matrix(), "m1", "m1-text", "text-only", n_boot=300, seed=4)
    overall = gap.row("Overall")
    # m1 right on 5 of 6, its text-only run on 4 of 6
    assert overall["n"] == 6 and overall["images"] == 4
    assert overall["with_image"] == pytest.approx(5 / 6)
    assert overall["ablated"] == pytest.approx(4 / 6)
    assert overall["gap"] == pytest.approx(1 / 6)
    d = CORRECT[:, 0] - CORRECT[:, 1]
    low, high = _brute_interval(list(d), IMAGES, 300, 4)
    assert (overall["low"], overall["high"]) == pytest.approx((low, high))
    first = gap.row(TASKS[0].abbreviation)  # items 0-2: 3/3 against 2/3
    assert first["gap"] == pytest.approx(1 / 3) and first["n"] == 3 and first["images"] == 2
    low, high = _brute_interval(list(d[:3]), IMAGES[:3], 300, 4)
    assert (first["low"], first["high"]) == pytest.approx((low, high))
    assert gap.row(TASKS[5].abbreviation)["gap"] == pytest.approx(0.0)
    assert [r["level"] for r in gap.rows].count("voxel") == 2
    # the noise run did not answer i5: the gap is over the 5 items both answered
    noise = necessity_gap(_matrix(), "m2", "m2-noise", "noise", n_boot=0).row("Overall")
    assert noise["n"] == 5 and noise["gap"] == pytest.approx(4 / 5 - 3 / 5)
    assert np.isnan(noise["low"])


def test_compare_carries_it_into_json_and_text_and_nothing_without_ablations():
    result = compare_runs(_matrix(), n_boot=50, n_stability=0)
    doc = result.to_dict()["necessity"]
    assert doc["summary"] == {"items": 6, "answerable": 2}
    assert [r["item"] for r in doc["items"] if r["answerable"]] == ["i0", "i3"]
    assert len(doc["gaps"]) == len(result.necessity.gap_rows())
    assert "2 of the 6 items" in necessity_lines(result.necessity)[0]
    sighted = [0, 3]
    plain = compare_runs(_matrix(CORRECT[:, sighted], [RUNS[c] for c in sighted]), n_boot=50,
                         n_stability=0)  # fmt: skip
    assert plain.necessity is None and "necessity" not in plain.to_dict()
    assert necessity(plain.matrix) is None
    # ablation runs are baselines: the voxel matrix and Fig. 4 take image runs only
    assert result.voxel_runs == ("m1", "m2")


def test_without_ablation_runs_every_output_is_as_before(tmp_path):
    from openpyxl import load_workbook

    from medrcube_desktop.evaluation.compare.report import OUTPUTS, write_compare_outputs

    sighted = [0, 3]
    plain = _matrix(CORRECT[:, sighted], [RUNS[c] for c in sighted])
    result = compare_runs(plain, n_boot=50, n_stability=0)
    assert result.preset == "paper"  # the paper's pairing stays the default
    doc = result.to_dict()
    assert set(doc) == {"runs", "order", "families", "leaderboard", "voxels",
                        "voxels_undefined", "credibility", "text_only"}  # fmt: skip
    # the new option cannot change a figure when there is nothing to count
    assert compare_runs(plain, n_boot=50, n_stability=0, answerable=0.9).to_dict() == doc
    written = write_compare_outputs(tmp_path / "out", result, {"command": "c"})
    names = {p.name for p in written}
    assert names <= set(OUTPUTS) and not any("necessity" in n for n in names)
    assert "Image necessity" not in (tmp_path / "out" / "report.html").read_text()
    sheets = load_workbook(tmp_path / "out" / "compare.xlsx").sheetnames
    assert not [s for s in sheets if "necessity" in s]
    # with ablation runs beside them, the image runs' own figures are the same
    full = compare_runs(_matrix(), n_boot=50, n_stability=0).to_dict()
    for run in ("m1", "m2"):
        assert full["leaderboard"]["runs"][run] == doc["leaderboard"]["runs"][run]
    models = {m["run"]: m for m in full["credibility"]["models"]}
    assert [models[m["run"]] for m in doc["credibility"]["models"]] == doc["credibility"]["models"]


def test_every_setting_of_the_command_and_the_pane_reaches_compare_runs(monkeypatch):
    """``compare --answerable-share`` (and the pane's field) was dropped on its way to
    ``compare_runs``, which computed at 0.5 under a report saying 0.9 (issue 24 trial):
    each setting of :class:`CompareSettings`, given a value other than its default,
    arrives as that value."""
    import dataclasses

    from medrcube_desktop.evaluation.compare import inputs, matrix, result
    from medrcube_desktop.evaluation.compare_options import CompareSettings

    seen = {}

    def spy(matrix_, min_items, clusters, preset, **kwargs):
        seen.update(min_items=min_items, clusters=clusters, preset=preset, **kwargs)
        raise LookupError("stop here")

    monkeypatch.setattr(result, "compare_runs", spy)
    monkeypatch.setattr(matrix, "run_matrix", lambda store, runs, items: None)
    given = CompareSettings(sort="accuracy", min_items=7, clusters=4, preset="official",
                            n_boot=11, seed=5, n_stability=3, leakage=True, answerable=0.9)  # fmt: skip
    for field in dataclasses.fields(CompareSettings):  # every one differs from its default
        assert getattr(given, field.name) != getattr(CompareSettings(), field.name), field.name
    with pytest.raises(LookupError):
        inputs.compare_study(None, [], ["r"], given)
    expected = {f.name: getattr(given, f.name) for f in dataclasses.fields(CompareSettings)}
    assert seen == expected


def test_the_share_is_printed_as_given_never_rounded_to_another():
    # 0.99999 once printed "more than 100% of the models" beside items counted as answerable
    from medrcube_desktop.evaluation.compare.html import report_html

    result = compare_runs(_matrix(), n_boot=0, n_stability=0, answerable=0.99999)
    assert result.necessity.items.threshold == 0.99999
    assert "by more than 99.999% of the models" in necessity_lines(result.necessity)[0]
    assert "by more than 99.999% of the models" in report_html(result, {}, {})
    half = compare_runs(_matrix(), n_boot=0, n_stability=0)
    assert "by more than 50% of the models" in necessity_lines(half.necessity)[0]


def test_a_pair_without_an_item_both_runs_answered_says_so():
    # the image run answered other items (another benchmark): the line ended in ": "
    correct = CORRECT.copy()
    correct[:, 0] = N  # m1 answered nothing here; its blank run linked to it did
    found = necessity(_matrix(correct), n_boot=0)
    line = next(x for x in necessity_lines(found) if "m1 vs m1-blank" in x)
    assert line.endswith(
        "(points, 95% interval by image): undefined: no item answered by both runs"
    )


def test_gap_cells_filter_by_level_and_pair():
    from medrcube_desktop.evaluation.compare.necessity import (
        GAP_LEVELS,
        gap_cells,
        gap_pairs,
        necessity,
    )

    found = necessity(_matrix(), n_boot=20)
    rows = found.gap_rows()
    pairs = gap_pairs(found)
    assert pairs == [("m1", "m1-text", "text-only"), ("m1", "m1-blank", "blank"),
                     ("m2", "m2-noise", "noise")]  # fmt: skip
    every = gap_cells(found)
    assert len(every) == len(rows)
    # the levels split the rows; one overall row per pair, scope "Overall"
    by_level = {level: gap_cells(found, level) for level in GAP_LEVELS}
    assert sum(map(len, by_level.values())) == len(rows)
    assert [(c[0], c[1], c[3]) for c in by_level["overall"]] == [
        (i, a, "Overall") for i, a, _ in pairs
    ]
    assert {c[3] for c in by_level["voxel"]} == {
        r["scope"] for r in rows if str(r["scope"]).count("|") == 2
    }
    one = gap_cells(found, None, ("m2", "m2-noise"))
    assert one and {(c[0], c[1]) for c in one} == {("m2", "m2-noise")}
    assert len(one) == sum(r["ablated_run"] == "m2-noise" for r in rows)
    assert gap_cells(found, "voxel", ("m1", "m1-blank")) == [
        c for c in by_level["voxel"] if c[1] == "m1-blank"
    ]
    with pytest.raises(ValueError):
        gap_cells(found, "region")
