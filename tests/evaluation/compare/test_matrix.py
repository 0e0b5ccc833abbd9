"""The items × runs matrix that model comparison starts from (issue 14)."""

import numpy as np
import pytest

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.errors import MedRCubeError
from medrcube_desktop.evaluation.compare import run_matrix
from medrcube_desktop.store import StudyStore, utc_now
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord


def _run(store, name, answers):
    store.save_run(RunRecord(name=name, engine="openai", model=name, params={},
                             prompt_sha256="x", app_version="t", created_at=utc_now()))  # fmt: skip
    for item_id, letter in answers.items():
        store.save_response(ResponseRecord(
            run=name, item_id=item_id, response=letter or "?", parsed_answer=letter,
            parse_method="t", correct=False, official_answer=None, official_correct=False,
            created_at=utc_now(),
        ))  # fmt: skip


def test_right_wrong_unparsed_and_unanswered_by_item_and_run(bench, tmp_path):
    items = load_benchmark(bench).items[:3]  # every item's answer is B (CT)
    store = StudyStore(tmp_path / "s.db")
    _run(store, "m1", {items[0].id: "B", items[1].id: "A", items[2].id: None})
    _run(store, "m2", {items[0].id: "B"})
    matrix = run_matrix(store, ["m1", "m2"], items)
    expected = np.array([[1.0, 1.0], [0.0, np.nan], [0.0, np.nan]])
    np.testing.assert_array_equal(matrix.correct, expected)
    assert matrix.unparsed.tolist() == [[False, False], [False, False], [True, False]]
    assert matrix.answered.sum() == 4
    assert matrix.images().tolist() == [0, 0, 0]  # one CT for every item
    assert set(matrix.labels("task")) == {"MR"}
    with pytest.raises(MedRCubeError, match=r"no run named 'm3' \(runs: m1, m2\)"):
        run_matrix(store, ["m1", "m3"], items)
    store.close()


def test_each_run_carries_its_model_its_family_and_whether_it_saw_images(bench, tmp_path):
    items = load_benchmark(bench).items[:1]
    store = StudyStore(tmp_path / "s.db")
    for name, model, text_only in [
        ("a", "OpenGVLab/InternVL3_5-8B", False),
        ("b", "lingshu-medical-mllm/Lingshu-7B", True),
        ("c", "llava-med-v1.5-mistral-7b", False),
        ("d", "acme-vl-2b", False),
    ]:
        store.save_run(RunRecord(name=name, engine="vllm", model=model, params={},
                                 prompt_sha256="x", app_version="t", created_at=utc_now(),
                                 text_only=text_only))  # fmt: skip
    matrix = run_matrix(store, ["a", "b", "c", "d"], items)
    assert matrix.text_only == (False, True, False, False)
    assert [(f.series, f.group) for f in matrix.families()] == [
        ("InternVL", "General-purpose"),
        ("Lingshu", "Medical-specific"),
        ("LLaVA-Med", "Medical-specific"),  # not LLaVA: the longer name decides
        ("acme", "Other"),
    ]
    store.close()
