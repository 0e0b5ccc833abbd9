"""RunMatrix by hand (issue 26): its defaults and refusals, selecting columns, the image
runs, image clusters and labels, and run_matrix's answers, modes and links from a store,
each against values written out here."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare import RunMatrix, run_matrix
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord


def _items(bench, n=3):
    base = load_benchmark(bench).items[:n]
    looks = [
        ("MRI", "Brain", "ds-a", "a.png"),
        ("CT", "Chest", "ds-b", "b.png"),
        ("CT", "Brain", "ds-a", "a.png"),  # the first item's image again
        ("X-ray", "Hand", "ds-c", "c.png"),
    ][:n]
    return tuple(
        dataclasses.replace(it, modality=m, region=r, dataset=d, image_path=Path("/img") / p)
        for it, (m, r, d, p) in zip(base, looks, strict=True)
    )


def _matrix(items, runs=("a", "b", "c"), **kw):
    shape = (len(items), len(runs))
    correct = np.arange(shape[0] * shape[1], dtype=float).reshape(shape) % 2
    unparsed = np.zeros(shape, bool)
    return RunMatrix(items, runs, correct, unparsed, **kw)


def test_defaults_models_are_the_runs_and_every_run_saw_its_image(bench):
    m = _matrix(_items(bench))
    assert m.models == ("a", "b", "c")
    assert m.text_only == (False, False, False)
    assert m.image_modes == ("image", "image", "image")
    assert m.image_links == ("", "", "")
    assert m.answers is None
    t = _matrix(_items(bench), text_only=(False, True, False))
    assert t.image_modes == ("image", "text-only", "image")
    given = _matrix(
        _items(bench), image_modes=("image", "blank", "noise"), image_links=("", "a", "a")
    )
    assert (given.image_modes, given.image_links) == (("image", "blank", "noise"), ("", "a", "a"))


def test_shapes_and_lengths_that_do_not_fit_are_refused_with_the_figures(bench):
    items = _items(bench)
    good = np.zeros((3, 2))
    with pytest.raises(ValueError, match=r"^matrix shapes \(3, 3\), \(3, 2\) != \(3, 2\)$"):
        RunMatrix(items, ("a", "b"), np.zeros((3, 3)), good.astype(bool))
    with pytest.raises(ValueError, match=r"^matrix shapes \(3, 2\), \(2, 2\) != \(3, 2\)$"):
        RunMatrix(items, ("a", "b"), good, np.zeros((2, 2), bool))
    with pytest.raises(ValueError, match="^1 models, 2 text_only flags for 2 runs$"):
        RunMatrix(items, ("a", "b"), good, good.astype(bool), models=("m",))
    with pytest.raises(ValueError, match="^2 models, 3 text_only flags for 2 runs$"):
        RunMatrix(
            items, ("a", "b"), good, good.astype(bool), text_only=(False,) * 3,
            image_modes=("image", "image"),
        )  # fmt: skip
    with pytest.raises(ValueError, match="^3 image modes, 2 image links for 2 runs$"):
        RunMatrix(items, ("a", "b"), good, good.astype(bool), text_only=(False,) * 3)
    with pytest.raises(ValueError, match="^1 image modes, 2 image links for 2 runs$"):
        RunMatrix(items, ("a", "b"), good, good.astype(bool), image_modes=("image",))
    with pytest.raises(ValueError, match="^2 image modes, 3 image links for 2 runs$"):
        RunMatrix(items, ("a", "b"), good, good.astype(bool), image_links=("", "", ""))


def test_select_takes_every_attribute_of_the_columns_in_the_order_given(bench):
    items = _items(bench)
    answers = np.array([["A", "B", None], ["C", None, "D"], [None, "A", "B"]], dtype=object)
    m = _matrix(
        items,
        models=("ma", "mb", "mc"),
        text_only=(False, True, False),
        answers=answers,
        image_modes=("image", "text-only", "swapped"),
        image_links=("", "a", "a"),
    )
    s = m.select([2, 0])
    assert s.runs == ("c", "a")
    assert s.models == ("mc", "ma")
    assert s.text_only == (False, False)
    assert s.image_modes == ("swapped", "image")
    assert s.image_links == ("a", "")
    np.testing.assert_array_equal(s.correct, m.correct[:, [2, 0]])
    np.testing.assert_array_equal(s.unparsed, m.unparsed[:, [2, 0]])
    assert s.answers.tolist() == [[None, "A"], ["D", "C"], ["B", None]]
    assert s.items == items
    assert _matrix(items).select([1]).answers is None
    assert m.select([1, 0]).text_only == (True, False)  # the text-only run's flag kept


def test_image_runs_leave_out_text_only_and_every_ablation(bench):
    m = _matrix(
        _items(bench),
        runs=("img", "txt", "blank", "img2"),
        text_only=(False, True, False, False),
        image_modes=("image", "text-only", "blank", "image"),
    )
    assert m.image_runs().runs == ("img", "img2")


def test_column_finds_a_run_and_names_the_runs_when_it_is_absent(bench):
    m = _matrix(_items(bench))
    assert [m.column(r) for r in ("a", "b", "c")] == [0, 1, 2]
    with pytest.raises(ValueError, match=r"^no run 'z' in the matrix \(runs: a, b, c\)$"):
        m.column("z")


def test_answered_images_and_labels(bench):
    items = _items(bench, 4)
    correct = np.array([[1.0, np.nan], [np.nan, 0.0], [0.0, 1.0], [np.nan, np.nan]])
    m = RunMatrix(items, ("a", "b"), correct, np.zeros((4, 2), bool))
    assert m.answered.tolist() == [[True, False], [False, True], [True, True], [False, False]]
    assert m.images().tolist() == [0, 1, 0, 2]  # a.png, b.png, a.png again, c.png
    assert m.labels("modality").tolist() == ["MRI", "CT", "CT", "X-ray"]
    assert m.labels("region").tolist() == ["Brain", "Chest", "Brain", "Hand"]
    assert m.labels("dataset").tolist() == ["ds-a", "ds-b", "ds-a", "ds-c"]
    task = items[0].task.abbreviation
    assert m.labels("task").tolist() == [task] * 4
    assert m.labels("voxel").tolist() == [
        f"{task}|MRI|Brain",
        f"{task}|CT|Chest",
        f"{task}|CT|Brain",
        f"{task}|X-ray|Hand",
    ]
    assert m.labels("region").dtype == object
    with pytest.raises(KeyError):
        m.labels("colour")


def _run(store, name, answers, **kw):
    store.save_run(RunRecord(name=name, engine="openai", model=f"model-{name}", params={},
                             prompt_sha256="x", app_version="t", created_at=utc_now(), **kw))  # fmt: skip
    for item_id, letter in answers.items():
        store.save_response(ResponseRecord(
            run=name, item_id=item_id, response=letter or "?", parsed_answer=letter,
            parse_method="t", correct=False, official_answer=None, official_correct=False,
            created_at=utc_now(),
        ))  # fmt: skip


def test_run_matrix_from_a_store_keeps_answers_modes_links_and_skips_lost_items(bench, tmp_path):
    items = load_benchmark(bench).items[:4]  # every item's answer is B
    store = StudyStore(tmp_path / "s.db")
    _run(store, "img", {items[0].id: "B", items[1].id: None, items[3].id: "C"})
    _run(store, "txt", {items[2].id: "B", "gone-item": "B"}, text_only=True)
    _run(store, "noise", {items[0].id: "A"}, image_mode="noise", image_run="img")
    m = run_matrix(store, ["noise", "img", "txt"], items)
    assert m.runs == ("noise", "img", "txt")
    assert m.models == ("model-noise", "model-img", "model-txt")
    assert m.text_only == (False, False, True)
    assert m.image_modes == ("noise", "image", "text-only")
    assert m.image_links == ("img", "", "")
    assert m.answers.tolist() == [["A", "B", None], [None, None, None], [None, None, "B"],
                                  [None, "C", None]]  # fmt: skip
    np.testing.assert_array_equal(
        m.correct,
        [[0.0, 1.0, np.nan], [np.nan, 0.0, np.nan], [np.nan, np.nan, 1.0], [np.nan, 0.0, np.nan]],
    )
    assert m.correct.dtype == np.float64
    assert m.unparsed.tolist() == [[False] * 3, [False, True, False], [False] * 3, [False] * 3]
    assert m.answered.sum() == 5  # the answer to an item no longer in the benchmark left out
    store.close()


def test_run_matrix_names_every_missing_run_and_the_known_ones(bench, tmp_path):
    items = load_benchmark(bench).items[:1]
    store = StudyStore(tmp_path / "s.db")
    with pytest.raises(MedRCubeError, match=r"^no run named 'x' \(runs: none\)$"):
        run_matrix(store, ["x"], items)
    _run(store, "b", {})
    _run(store, "a", {})
    with pytest.raises(MedRCubeError, match=r"^no run named 'x', 'y' \(runs: a, b\)$"):
        run_matrix(store, ["x", "a", "y"], items)
    store.close()


def test_run_matrix_over_no_items_or_no_runs_is_empty(bench, tmp_path):
    items = load_benchmark(bench).items[:2]
    store = StudyStore(tmp_path / "s.db")
    _run(store, "a", {items[0].id: "B"})
    none = run_matrix(store, ["a"], [])
    assert none.correct.shape == (0, 1) and none.unparsed.shape == (0, 1)
    assert none.unparsed.dtype == bool
    empty = run_matrix(store, [], items)
    assert empty.correct.shape == (2, 0) and empty.runs == ()
    store.close()
