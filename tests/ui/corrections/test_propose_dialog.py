"""The propose dialog: each kind's change reaches the store the moment it is submitted;
what is missing is named (item and field) and nothing is stored; a failed save keeps
every field (the real store on a file, written on a worker)."""

from __future__ import annotations

import io

import numpy as np
from PySide6.QtCore import QEvent

from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.imaging.edit_slice import load_edit_slice
from medrcube_desktop.review.corrections import (
    ANSWER_KEY,
    BBOX,
    MASK,
    OPTION_TEXT,
    QUESTION_TEXT,
    RETIRE,
)
from medrcube_desktop.review.study import StudySettings
from medrcube_desktop.store import StudyStore
from medrcube_desktop.ui.corrections.controls import store_proposal
from medrcube_desktop.ui.corrections.propose_dialog import ProposeDialog
from medrcube_desktop.ui.corrections.saving import StoreWriter
from tests.conftest import dicom_file, item, write_benchmark
from tests.ui.corrections.slices import drag, mouse, viewport_point


def _dialog(qtbot, tmp_path, author="dr-a", **record):
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1", **record)]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    loaded = load_benchmark(root).items[0]
    store = StudyStore(tmp_path / "study.db")
    StudySettings(blind=False).save(store)
    writer = StoreWriter(store)

    def save(draft, done, failed):  # as the window does: on a worker, its own store
        writer.run(lambda s: store_proposal(s, loaded, draft, dialog.edit), done, failed)

    dialog = ProposeDialog(None, loaded, author, lambda: load_edit_slice(loaded), save)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog, store


def _choose_rule(dialog, rule: str) -> None:
    dialog.rule.setCurrentIndex(dialog.rule.findData(rule))


def test_an_answer_key_proposal_is_stored_on_submit(qtbot, tmp_path):
    dialog, store = _dialog(qtbot, tmp_path)
    assert dialog.answer.count() == 3  # the options but the answer (B. CT)
    dialog.answer.setCurrentIndex(dialog.answer.findData("C"))
    _choose_rule(dialog, "1.3")
    dialog.reason.setPlainText("The image is a radiograph.")
    with qtbot.waitSignal(dialog.submitted):
        dialog.submit()
    [stored] = store.proposals("ct-1")
    assert (stored.kind, stored.rule, stored.author) == (ANSWER_KEY, "1.3", "dr-a")
    assert stored.change == {"answer": "C"} and stored.reason == "The image is a radiograph."
    assert stored.record_before["gt_answer"] == "CT" and stored.source_file == "ds1/test.json"
    assert stored.uid and store.proposal_status(stored.uid) == "open"
    assert not dialog.isVisible()


def test_no_reason_or_no_rule_is_named_and_nothing_is_stored(qtbot, tmp_path):
    dialog, store = _dialog(qtbot, tmp_path)
    dialog.set_kind(RETIRE)
    dialog.reason.setPlainText("Duplicate of ct-9.")
    dialog.submit()
    assert "item ct-1 field rule" in dialog.message.text()
    _choose_rule(dialog, "2.1")
    dialog.reason.setPlainText("   ")
    dialog.submit()
    assert "item ct-1 field reason: a reason is required" in dialog.message.text()
    dialog.set_kind(QUESTION_TEXT)
    dialog.reason.setPlainText("Typo.")
    dialog.submit()  # the question text is unchanged
    assert "item ct-1 field question" in dialog.message.text()
    assert store.proposals() == [] and dialog.isVisible()


def test_a_failed_save_keeps_the_dialog_and_its_fields(qtbot, tmp_path):
    dialog, store = _dialog(qtbot, tmp_path, author="  ")  # the store refuses no author
    dialog.set_kind(QUESTION_TEXT)
    dialog.question_text.setPlainText("Which imaging modality was used?")
    _choose_rule(dialog, "1.2")
    dialog.reason.setPlainText("Clearer wording.")
    dialog.submit()
    qtbot.waitUntil(lambda: not dialog.saving, timeout=10000)
    assert "Not saved:" in dialog.message.text() and "author" in dialog.message.text()
    assert "ct-1" in dialog.message.text()
    assert dialog.isVisible() and dialog.submit_button.isEnabled()
    assert dialog.question_text.toPlainText() == "Which imaging modality was used?"
    assert dialog.reason.toPlainText() == "Clearer wording."
    assert store.proposals() == []


def test_a_dragged_box_is_stored_in_the_files_pixels(qtbot, tmp_path):
    dialog, store = _dialog(qtbot, tmp_path, bbox=[10, 20, 60, 90])
    dialog.set_kind(BBOX)
    qtbot.waitUntil(lambda: dialog.edit is not None, timeout=10000)
    view = dialog.box_editor.view
    assert dialog.box_editor.current.text() == "Current box: [10, 20, 60, 90]"
    view.zoom(1.6)
    view.centerOn(view._pixmap_item.mapToScene(61.0, 91.0))
    drag(view, viewport_point(view, 61.0, 91.0), viewport_point(view, 71.0, 101.0))
    _choose_rule(dialog, "1.1")
    dialog.reason.setPlainText("The box misses the lower edge of the lesion.")
    with qtbot.waitSignal(dialog.submitted):
        dialog.submit()
    [stored] = store.proposals()
    assert stored.kind == BBOX and stored.change == {"bbox": [10, 20, 70, 100]}


def test_a_painted_mask_is_stored_as_npy_labels_of_the_slice_shape(qtbot, tmp_path):
    dialog, store = _dialog(qtbot, tmp_path)
    dialog.set_kind(MASK)
    qtbot.waitUntil(lambda: dialog.edit is not None, timeout=10000)
    view = dialog.mask_editor.view
    dialog.mask_editor.radius.setValue(3.0)
    view.zoom(2.0)
    point = viewport_point(view, 64.5, 64.5)
    mouse(view, QEvent.Type.MouseButtonPress, point)
    mouse(view, QEvent.Type.MouseButtonRelease, point)
    _choose_rule(dialog, "1.4")
    dialog.reason.setPlainText("The nodule is not labelled.")
    with qtbot.waitSignal(dialog.submitted):
        dialog.submit()
    [stored] = store.proposals()
    assert stored.change == {"slice_index": None, "axis": None, "shape": [128, 128]}
    labels = np.load(io.BytesIO(stored.mask_labels))
    assert labels.dtype == np.uint8 and labels.shape == (128, 128)
    assert int(np.count_nonzero(labels)) == int(np.count_nonzero(view.labels)) > 0
    assert set(np.unique(labels)) == {0, 1}


def test_an_option_text_proposal_shows_the_current_text_beside_the_proposed(qtbot, tmp_path):
    dialog, store = _dialog(qtbot, tmp_path)
    dialog.set_kind(OPTION_TEXT)
    dialog.letter.setCurrentIndex(dialog.letter.findData("D"))
    assert dialog.letter.currentText() == "D. Ultrasound"
    assert dialog.option_now.toPlainText() == "Ultrasound" and dialog.option_now.isReadOnly()
    assert dialog.letter.itemText(dialog.letter.findData("B")) == "B. CT  (the answer)"
    dialog.option_text.setPlainText("Ultrasound (B-mode)")
    _choose_rule(dialog, "2.1")
    dialog.reason.setPlainText("Homogeneous with the others.")
    with qtbot.waitSignal(dialog.submitted, timeout=10000):
        dialog.submit()
    [stored] = store.proposals()
    assert stored.kind == OPTION_TEXT
    assert stored.change == {"letter": "D", "text": "Ultrasound (B-mode)"}
    assert stored.record_before["option_D"] == "Ultrasound"
