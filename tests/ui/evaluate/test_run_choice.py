"""The Evaluate pane's run fields on their own (ui/evaluate/run_choice.py): which name
the Run box follows with the image mode, which image run an ablation is linked to, and
that a stored run's own mode is shown without the Run box leaving it."""

import dataclasses

from PySide6.QtWidgets import QLineEdit

from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.evaluation import RunRecord
from medrcube_desktop.ui.evaluate.run_choice import RunChoice

RUN = RunRecord(
    name="qwen-openai", engine="openai", model="qwen", prompt_sha256="p", app_version="1",
    created_at="2026-01-01T10:00:00+00:00", benchmark="/bench", params={},
)  # fmt: skip


def choice_over(qtbot, store: StudyStore, model: str = "qwen"):
    """A RunChoice over ``store``, the Model box's text ``model`` (the box returned to
    change it). The Model box is the parent: it keeps the RunChoice and its
    connections alive for the test."""
    box = QLineEdit(model)
    qtbot.addWidget(box)
    return RunChoice(store, lambda: box.text().strip(), lambda: "openai", box), box


def pick(choice: RunChoice, mode: str) -> None:
    choice.image_mode.setCurrentIndex(choice.image_mode.findData(mode))


def test_the_run_box_follows_the_mode_until_a_name_is_typed(qtbot):
    store = StudyStore(None)
    choice, _ = choice_over(qtbot, store)
    choice.fill()
    assert choice.run_name.currentText() == "" and not choice.image_run.isEnabled()
    assert choice.name_or_default() == "qwen-openai"  # Start on an empty box: the CLI's
    pick(choice, "noise")
    assert choice.run_name.currentText() == "qwen-openai-noise"
    assert choice.image_run.isEnabled() and choice.image_run.currentText() == ""  # not stored
    assert choice.image_run_given() is None
    choice.run_name.setEditText("my-own")  # typed: it stays
    pick(choice, "blank")
    assert choice.run_name.currentText() == "my-own"
    assert choice.name_or_default() == "my-own"
    pick(choice, "image")
    assert choice.run_name.currentText() == "my-own" and choice.image_run_given() is None


def test_an_ablation_is_linked_to_the_stored_image_run_of_its_model(qtbot):
    store = StudyStore(None)
    store.save_run(RUN)
    store.save_run(dataclasses.replace(RUN, name="other-openai", model="other"))
    blank = dataclasses.replace(RUN, name="qwen-blank-7", image_mode="blank", image_run="mine")
    store.save_run(dataclasses.replace(RUN, name="mine"))
    store.save_run(blank)
    choice, model = choice_over(qtbot, store)
    choice.fill()
    # the image runs only are offered as image runs
    offered = [choice.image_run.itemText(i) for i in range(choice.image_run.count())]
    assert sorted(offered) == ["mine", "other-openai", "qwen-openai"]
    assert choice.current_image_run() == "qwen-openai"  # the first run shown: itself
    choice.run_name.setEditText("qwen-blank-7")
    assert choice.current_image_run() == "mine"  # what the ablation is linked to
    choice.run_name.setEditText("other-openai")  # another model's image run: not it
    assert choice.current_image_run() == "qwen-openai"
    model.setText("nobody")
    assert choice.current_image_run() == ""  # no image run of that model is stored
    model.setText("qwen")
    choice.run_name.setEditText("")
    pick(choice, "swapped")
    assert choice.image_run.currentText() == "qwen-openai"
    assert choice.image_run_given() == "qwen-openai"
    choice.image_run.setEditText("mine")  # typed: a change of mode leaves it
    pick(choice, "noise")
    assert choice.image_run.currentText() == "mine"


def test_a_stored_runs_mode_is_shown_without_the_run_box_leaving_it(qtbot):
    store = StudyStore(None)
    choice, _ = choice_over(qtbot, store)
    choice.run_name.setEditText("qwen-blank-7")
    choice.auto_name = "qwen-blank-7"  # as a pick from the list sets it
    choice.show_stored({"image": {"mode": "blank", "seed": 7}})
    assert choice.mode() == "blank" and choice.image_seed.value() == 7
    assert choice.run_name.currentText() == "qwen-blank-7"
    choice.show_stored({"image": {"text_only": True}})
    assert choice.mode() == "text-only" and choice.image_seed.value() == 0
    assert choice.run_name.currentText() == "qwen-blank-7"
    # a run picked from the list (not typed) follows a mode the user chooses
    assert choice.name_follows("noise")
    pick(choice, "noise")
    assert choice.run_name.currentText() == "qwen-openai-noise"
