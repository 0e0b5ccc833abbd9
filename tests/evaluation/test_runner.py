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
        "image",
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


def test_image_modes_record_as_before_and_an_ablation_its_mode_and_seed():
    from medrcube_desktop.evaluation.runner import ImageOptions

    # an image or text-only run records what it recorded before modes (so it resumes)
    assert ImageOptions().recorded() == {"text_only": False, "min_side": 28,
                                         "max_pixels": 1003520}  # fmt: skip
    assert ImageOptions(text_only=True) == ImageOptions(mode="text-only")  # the alias
    assert ImageOptions(mode="text-only").recorded()["text_only"] is True
    assert ImageOptions(mode="noise", seed=9).recorded() == {
        "text_only": False, "min_side": 28, "max_pixels": 1003520, "mode": "noise", "seed": 9,
    }  # fmt: skip
    with pytest.raises(ValueError, match="text only and image mode 'blank'"):
        ImageOptions(text_only=True, mode="blank")
    with pytest.raises(ValueError, match="image mode 'sepia'"):
        ImageOptions(mode="sepia")


def test_an_ablation_run_resumes_only_with_its_mode_and_seed():
    image = {"text_only": False, "min_side": 28, "max_pixels": 1003520}
    noise = dataclasses.replace(RUN, image_mode="noise",
                                params={**RUN.params, "image": {**image, "mode": "noise", "seed": 1}})  # fmt: skip
    assert resume_conflicts(noise, noise) == []
    other_seed = dataclasses.replace(noise, params={**noise.params,
                                     "image": {**image, "mode": "noise", "seed": 2}})  # fmt: skip
    assert resume_conflicts(noise, other_seed) == ["image"]
    blank = dataclasses.replace(noise, image_mode="blank")
    assert resume_conflicts(noise, blank) == ["image"]
    linked = dataclasses.replace(noise, image_run="m-openai")
    assert resume_conflicts(linked, dataclasses.replace(noise, image_run="m2")) == ["image"]


def test_a_picture_mismatch_is_said_in_words_with_both_values():
    from medrcube_desktop.evaluation.runner import conflict_values

    image = {"text_only": False, "min_side": 28, "max_pixels": 1003520}
    blank = dataclasses.replace(RUN, image_mode="blank", image_run="m-openai",
                                params={**RUN.params, "image": {**image, "mode": "blank", "seed": 0}})  # fmt: skip
    noise = dataclasses.replace(blank, image_mode="noise", image_run="m2",
                                params={**RUN.params, "image": {**image, "mode": "noise", "seed": 7}})  # fmt: skip
    assert conflict_values(blank, noise, resume_conflicts(blank, noise)) == [
        "image: the run is a blank run (image run m-openai), you asked for a noise run "
        "(seed 7, image run m2)"
    ]
    text = dataclasses.replace(RUN, text_only=True, image_mode="text-only",
                               params={**RUN.params, "image": {**image, "text_only": True,
                                                               "max_pixels": 500}})  # fmt: skip
    assert conflict_values(RUN, text, resume_conflicts(RUN, text)) == [
        "image: the run is an image run (min side unset, max pixels unset), you asked for a "
        "text-only run (no image run, min side 28, max pixels 500)"
    ]
    with_size = dataclasses.replace(RUN, params={**RUN.params, "image": image})
    assert conflict_values(with_size, text, resume_conflicts(with_size, text)) == [
        "image: the run is an image run (max pixels 1003520), you asked for a text-only run "
        "(no image run, max pixels 500)"
    ]


def test_an_ablation_run_is_linked_to_the_image_run_of_its_model_and_engine():
    from medrcube_desktop.evaluation.runner import linked_image_run

    store = StudyStore(None)
    blank = dataclasses.replace(RUN, name="m-openai-blank", image_mode="blank")
    assert linked_image_run(store, blank, None, "m-openai") == ""  # not stored: not known
    store.save_run(dataclasses.replace(RUN, name="m-openai"))
    assert linked_image_run(store, blank, None, "m-openai") == "m-openai"
    assert linked_image_run(store, blank, "m-openai", "other") == "m-openai"
    # a link to nothing, or to another model's run, would pair the wrong answers in compare
    with pytest.raises(StoreError, match="--image-run elsewhere: no run of that name"):
        linked_image_run(store, blank, "elsewhere", "m-openai")
    store.save_run(dataclasses.replace(RUN, name="x-openai", model="x"))
    with pytest.raises(StoreError, match="a run of model 'x', not of this run's"):
        linked_image_run(store, blank, "x-openai", "m-openai")
    assert linked_image_run(store, RUN, "m-openai", "m-openai") == ""  # an image run: none
    store.save_run(dataclasses.replace(RUN, name="m-openai-noise", image_mode="noise"))
    with pytest.raises(StoreError, match="--image-run m-openai-noise: a noise run, not an image"):
        linked_image_run(store, blank, "m-openai-noise", "m-openai")
    with pytest.raises(StoreError, match="itself, not an image run"):
        linked_image_run(store, blank, "m-openai-blank", "m-openai")
    # another benchmark's answers would pair with this run's by item id alone
    store.save_run(dataclasses.replace(RUN, name="m-other", benchmark="/data/other"))
    here = dataclasses.replace(blank, benchmark="/data/here")
    with pytest.raises(StoreError, match="--image-run m-other: a run on benchmark /data/other, "
                                         "not on this run's /data/here"):  # fmt: skip
        linked_image_run(store, here, "m-other", "m-openai")
    store.save_run(dataclasses.replace(RUN, name="m-legacy", benchmark=""))  # not recorded
    assert linked_image_run(store, here, "m-legacy", "m-openai") == "m-legacy"
    # the default name taken by another benchmark's run: not linked, as --image-run refuses
    assert linked_image_run(store, here, None, "m-other") == ""
    assert linked_image_run(store, here, None, "m-legacy") == "m-legacy"
    assert linked_image_run(store, here, None, "x-openai") == ""  # another model's run
    assert linked_image_run(store, here, None, "m-openai-noise") == ""  # no image run
