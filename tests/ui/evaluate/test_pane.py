"""Review › Evaluate a model: a run against a local server, the cube, a group D pair."""

import numpy as np
from PySide6.QtGui import QImage

from medrcube_desktop.core.dataset import load_benchmark
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI, text
from tests.ui.review.test_review_binding_window import open_window


def red_pixels(label) -> int:
    image = label.pixmap().toImage().convertToFormat(QImage.Format.Format_RGBA8888)
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.width(), 4)
    return int(((pixels[..., 0] == 255) & (pixels[..., 1] == 0)).sum())


def test_run_results_and_a_right_diagnosis_with_wrong_perception(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item(
                    "m1",
                    task="Modality Recognition",
                    question="q-modality?",
                    bbox=[10, 10, 100, 100],
                ),
                item("d1", task="Disease Diagnosis", question="q-disease?"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    window, store = open_window(qtbot, root, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    script = {"q-modality": [text("A")], "q-disease": [text("The answer is B")]}  # L wrong, H right
    with FakeOpenAI(script) as server:
        pane.engine.setCurrentText("openai")
        pane.model.setText("qwen-test")
        pane.base_urls.setText(server.base_url)
        pane.run_name.setEditText("first-run")
        with qtbot.waitSignal(pane.run_finished, timeout=30000):
            pane.start_button.click()
    assert "finished" in pane.status.text()
    assert "Accuracy <b>50.0%</b>" in pane.summary.text()
    rows = {
        pane.results.item(r, 0).text(): pane.results.item(r, 3).text()
        for r in range(pane.results.rowCount())
    }
    assert rows == {"DD": "100.0%", "MR": "0.0%"}
    pane.pairs_view.group_filter.setCurrentIndex(pane.pairs_view.group_filter.findData("D"))
    assert (
        pane.pairs_view.pairs_table.rowCount() == 1
        and pane.pairs_view.pairs_table.item(0, 5).text() == "D"
    )
    assert "Luck Rate 1.000" in pane.pairs_view.credibility_label.text()
    pane.pairs_view.pairs_table.setCurrentCell(0, 0)
    view = pane.pairs_view
    assert "Read as:</i> B (answer_phrase)" in view.texts["high"].text()
    assert (
        "Read as:</i> A" in view.texts["low"].text() and "q-modality?" in view.texts["low"].text()
    )
    qtbot.waitUntil(  # both rendered on the render pool, applied on the GUI thread
        lambda: all(not view.images[s].pixmap().isNull() for s in ("low", "high")), timeout=10000
    )
    # each item with its own overlay: the prerequisite's box, none on the high-level item
    # (before: the high-level item's image stood for both)
    assert red_pixels(view.images["low"]) > 100 and red_pixels(view.images["high"]) == 0
    with qtbot.waitSignal(pane.open_item):
        pane.pairs_view.review_low.click()
    assert window.session.current.id == "m1"
    assert len(store.responses("first-run")) == 2
    assert [i.id for i in load_benchmark(root).items] == ["m1", "d1"]
    pane.close()


def test_a_run_without_a_name_and_the_items_behind_unparsed_and_failed(qtbot, tmp_path):
    from tests.llm.fake_openai import status

    root = write_benchmark(
        tmp_path / "b",
        {
            "ds1": [
                item("m1", task="Modality Recognition", question="q-modality?"),
                item("d1", task="Disease Diagnosis", question="q-disease?"),
                item("v1", task="View Identification", question="q-view?"),
            ]
        },
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    window, store = open_window(qtbot, root, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    script = {
        "q-modality": [text("I cannot tell from this picture.")],
        "q-disease": [text("B")],
        "q-view": [status(400, "bad request")],
    }
    with FakeOpenAI(script) as server:
        pane.engine.setCurrentText("openai")
        pane.model.setText("qwen-test")
        pane.base_urls.setText(server.base_url)
        pane.run_name.setEditText("")  # before: "A model and a run name are needed."
        with qtbot.waitSignal(pane.run_finished, timeout=30000):
            pane.start_button.click()
    assert pane.run_name.currentText() == "qwen-test-openai"  # as `evaluate` names it
    assert store.eval_run("qwen-test-openai") is not None
    assert "<a href='unparsed'>unparsed 1</a>" in pane.summary.text()
    pane.summary.linkActivated.emit("unparsed")
    assert pane.linked.isVisibleTo(pane) and pane.linked.item_ids() == ["m1"]
    assert "I cannot tell" in pane.linked.list.item(0).text()
    with qtbot.waitSignal(pane.open_item):
        pane.linked.list.itemDoubleClicked.emit(pane.linked.list.item(0))
    assert window.session.current.id == "m1"
    assert "<a href='failed'>1 item failed</a>" in pane.status.text()
    pane.status.linkActivated.emit("failed")
    assert pane.linked.item_ids() == ["v1"]
    pane.close()


def test_the_pairs_of_many_items_on_one_picture_are_counted_all_and_listed_in_part(
    qtbot, tmp_path, monkeypatch
):
    from medrcube_desktop.evaluation.metrics import Outcome
    from medrcube_desktop.ui.evaluate import pairs_view
    from medrcube_desktop.ui.evaluate.run_results import RunResults

    # six prerequisites (two wrong) and six high-level items (three wrong) on one image:
    # A = 4 * 3, B = 4 * 3, C = 2 * 3, D = 2 * 3, 36 pairs; at most 10 listed
    records = [item(f"m{k}", task="Modality Recognition") for k in range(6)]
    records += [item(f"d{k}", task="Disease Diagnosis") for k in range(6)]
    root = write_benchmark(tmp_path / "b", {"ds1": records},
                           {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")})  # fmt: skip
    items = load_benchmark(root).items
    wrong = {"m0", "m1", "d0", "d1", "d2"}
    outcomes = [Outcome(i, ("B" if i.answer == "A" else "A") if i.id in wrong else i.answer)
                for i in items]  # fmt: skip
    assert [o.correct for o in outcomes].count(False) == 5
    monkeypatch.setattr(pairs_view, "PAIR_ROWS", 10)
    view = pairs_view.PairsView()
    qtbot.addWidget(view)
    view.show_run(RunResults("r", None, {}, outcomes, {}))
    assert "Pairs 36: A 12 · B 12 · C 6 · D 6." in view.credibility_label.text()
    assert view.pairs_table.rowCount() == 10
    assert "Showing the first 10 of 36 pairs (the figures" in view.pair_text.text()
    view.group_filter.setCurrentIndex(view.group_filter.findData("D"))
    assert view.pairs_table.rowCount() == 6
    assert {view.pairs_table.item(r, 5).text() for r in range(6)} == {"D"}
    assert view.pair_text.text().startswith("Select a pair")
    right = [Outcome(i, i.answer) for i in items]  # every answer right: B, C, D empty
    view.show_run(RunResults("r", None, {}, right, {}))
    assert view.pairs_table.rowCount() == 0 and view.pair_text.text() == "No pair in group D."
