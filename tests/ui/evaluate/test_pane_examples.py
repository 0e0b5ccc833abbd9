"""Review › Evaluate a model on the examples study (``--demo --with-examples``): its runs
were answered by a scripted endpoint that ran only while they were built, so its URL is
said as recorded but never put in the Endpoints field a new run starts on; on any other
study a stored run's endpoints still fill the field, so that Start resumes it."""

from medrcube_desktop.demo.examples import VERSION_KEY, recorded_version
from medrcube_desktop.ui.evaluate.pane import ENDPOINTS_SETTING, EvaluatePane
from medrcube_desktop.ui.widgets.api_key_row import remember
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI
from tests.ui.review.test_review_binding_window import open_window


def test_the_examples_endpoint_is_said_as_recorded_not_offered(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"ds1": [item("c1", question="q-one?")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )  # fmt: skip
    window, store = open_window(qtbot, root, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    with FakeOpenAI() as server:  # the examples' stub: gone once they are built
        dead = server.base_url
        pane.model.setText("qwen")
        pane.base_urls.setText(dead)
        pane.run_name.setEditText("example-run")
        with qtbot.waitSignal(pane.run_finished, timeout=30000):
            pane.start_button.click()
    pane.close()
    remember(ENDPOINTS_SETTING, "")  # no endpoint of the user's own yet
    again = EvaluatePane(
        window, window.session, root
    )  # an ordinary study: the run resumes as it was run
    assert (again.run_name.currentText(), again.base_urls.text()) == ("example-run", dead)
    assert "scripted endpoint" not in again.status.text()
    again.close()
    remember(ENDPOINTS_SETTING, "")
    store.set_state(VERSION_KEY, recorded_version())  # what demo --with-examples records
    examples = EvaluatePane(window, window.session, root)
    assert examples.run_name.currentText() == "example-run" and examples.model.text() == "qwen"
    assert examples.base_urls.text() == ""  # the placeholder: the normal default
    assert f"scripted endpoint that ran only while they were built ({dead}, as recorded)" in (
        examples.status.text()
    )
    remember(ENDPOINTS_SETTING, "http://gpu-box:8000/v1")  # the user's own, used last
    mine = EvaluatePane(window, window.session, root)
    assert mine.base_urls.text() == "http://gpu-box:8000/v1"
    for pane in (examples, mine):
        pane.close()
