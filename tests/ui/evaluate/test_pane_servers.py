"""The Evaluate pane says which server failed, as ``evaluate`` does (issue 21: a dead
server among several was never mentioned)."""

from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI, status
from tests.ui.review.test_review_binding_window import open_window


def test_a_server_answering_500_is_named_when_the_run_finishes(qtbot, tmp_path):
    records = [item(f"q{n}", question=f"question {n}?") for n in range(6)]
    root = write_benchmark(
        tmp_path / "b", {"ds1": records}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    window, _ = open_window(qtbot, root, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    with FakeOpenAI() as good, FakeOpenAI({"": [status(500, "down")]}) as bad:
        pane.engine.setCurrentText("openai")
        pane.model.setText("m")
        pane.base_urls.setText(f"{good.base_url} {bad.base_url}")
        pane.run_name.setEditText("r")
        with qtbot.waitSignal(pane.run_finished, timeout=60000):
            pane.start_button.click()
    text = pane.status.text()
    assert "Run r finished." in text and "failed</a>" not in text
    assert f"server {bad.base_url}: HTTP 500 ×" in text
