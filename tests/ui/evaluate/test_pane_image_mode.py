"""Review › Evaluate a model: the image mode (issue 24) is a field made from the same row
as ``evaluate --image``; a blank run started there is stored with its mode and linked
to the image run of the same model and engine, and the run's settings come back."""

import base64
import io

import numpy as np
from PIL import Image

from medrcube_desktop.evaluation.image_modes import IMAGE_MODES, IMAGE_OPTIONS
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI
from tests.ui.review.test_review_binding_window import open_window


def test_a_blank_run_from_the_pane(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"ds1": [item("c1", question="q-one?"), item("c2", question="q-two?")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    window, store = open_window(qtbot, root, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    row = IMAGE_OPTIONS["image_mode"]
    assert [pane.image_mode.itemData(i) for i in range(pane.image_mode.count())] == list(
        IMAGE_MODES
    )
    assert pane.image_mode.currentData() == "image" and "--image" in pane.image_mode.toolTip()
    assert row.help_text().split(";")[0] in pane.image_mode.toolTip()
    with FakeOpenAI() as server:
        pane.engine.setCurrentText("openai")
        pane.model.setText("qwen")
        pane.base_urls.setText(server.base_url)
        for mode in ("image", "blank"):
            pane.run_name.setEditText("")  # the default name, as the CLI gives it
            pane.image_mode.setCurrentIndex(pane.image_mode.findData(mode))
            pane.image_seed.setValue(4)
            with qtbot.waitSignal(pane.run_finished, timeout=30000):
                pane.start_button.click()
        parts = server.requests[-1]["body"]["messages"][0]["content"]
    assert store.eval_run_names() == ["qwen-openai", "qwen-openai-blank"]
    blank = store.eval_run("qwen-openai-blank")
    assert (blank.image_mode, blank.image_run, blank.params["image"]["seed"]) == (
        "blank", "qwen-openai", 4,
    )  # fmt: skip
    data = base64.b64decode(parts[0]["image_url"]["url"].split(",", 1)[1])
    assert np.all(np.asarray(Image.open(io.BytesIO(data))) == 128)
    assert "· blank ·" in pane.summary.text()
    pane.run_name.setEditText("qwen-openai")  # an image run: its mode comes back
    qtbot.waitUntil(lambda: pane.image_mode.currentData() == "image", timeout=5000)
    pane.run_name.setEditText("qwen-openai-blank")
    qtbot.waitUntil(lambda: pane.image_mode.currentData() == "blank", timeout=5000)
    assert pane.image_seed.value() == 4
    pane.close()
