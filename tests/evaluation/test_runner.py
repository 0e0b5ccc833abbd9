"""The resume rule of an evaluation run: which settings must match to resume it."""

import dataclasses

import pytest

from medrcube_desktop.errors import StoreError
from medrcube_desktop.evaluation.runner import OPERATIONAL_PARAMS, open_run, resume_conflicts
from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.evaluation import RunRecord

RUN = RunRecord(
    name="r1", engine="openai", model="m", prompt_sha256="p", app_version="1",
    created_at="2026-01-01T10:00:00+00:00", benchmark="/bench",
    params={"temperature": 0.0, "max_tokens": 512, "concurrency": 8, "timeout_s": 60},
)  # fmt: skip


def test_operational_parameters_may_change_on_resume():
    other = dataclasses.replace(RUN, params={**RUN.params, "concurrency": 2, "base_urls": ["x"]})
    assert resume_conflicts(RUN, other) == []
    assert {"concurrency", "timeout_s", "base_urls", "gpu_memory_utilization"} <= OPERATIONAL_PARAMS


def test_answer_relevant_settings_must_match():
    other = dataclasses.replace(
        RUN, model="m2", text_only=True, params={"temperature": 0.7, "seed": 1}
    )
    assert resume_conflicts(RUN, other) == [
        "model",
        "text_only",
        "max_tokens",
        "seed",
        "temperature",
    ]
    assert resume_conflicts(RUN, dataclasses.replace(RUN, benchmark="/other")) == ["benchmark"]
    # a run stored before the benchmark was recorded resumes on any
    assert resume_conflicts(dataclasses.replace(RUN, benchmark=""), RUN) == []


def test_open_run_creates_resumes_or_refuses():
    store = StudyStore(None)
    assert open_run(store, RUN) == RUN
    later = dataclasses.replace(
        RUN, created_at="2026-02-01T00:00:00+00:00", params={**RUN.params, "concurrency": 1}
    )
    assert open_run(store, later) == RUN  # the stored record, as it was created
    with pytest.raises(
        StoreError,
        match=r"^run 'r1' exists with other settings \(prompt, temperature differ\); resume it "
        r"with the same ones or pick another name \(prompt: the run has p, you gave q; "
        r"temperature: the run has 0\.0, you gave 1\.0\)$",  # both values, not just the names
    ):
        open_run(
            store,
            dataclasses.replace(RUN, prompt_sha256="q", params={**RUN.params, "temperature": 1.0}),
        )
    assert store.eval_run_names() == ["r1"]


def test_import_run_keeps_the_resume_rule(tmp_path):
    from pathlib import Path

    from medrcube_desktop.core.items import Item
    from medrcube_desktop.core.taxonomy import canonical_task
    from medrcube_desktop.evaluation.results_json import Imported, import_run

    item = Item(id="q1", question="?", options={"A": "a", "B": "b"}, answer="B",
                task=canonical_task("Modality Recognition"), raw_task="Modality Recognition",
                modality="CT", region="Chest", dataset="d", image_path=Path("x.png"),
                source_file=Path("test.json"))  # fmt: skip
    store = StudyStore(None)
    for name, answer in (("a.json", "B"), ("b.json", "A")):
        (tmp_path / name).write_text(f'[{{"id": "q1", "model_response": "{answer}"}}]')
    assert import_run(store, "imported", "m", [item], tmp_path / "a.json") == Imported(1, [], 0)
    assert import_run(store, "imported", "m", [item], tmp_path / "a.json") == Imported(0, [], 1)
    with pytest.raises(
        StoreError, match=r"run 'imported' exists with other settings \(source file differ\)"
    ):
        import_run(store, "imported", "m", [item], tmp_path / "b.json")
