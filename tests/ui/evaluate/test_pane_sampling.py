"""The Evaluate pane's decoding fields: ranges from SAMPLING_RANGES, a run's own values."""

from medrcube_desktop.evaluation.engines.base import SAMPLING_RANGES, SamplingConfig
from medrcube_desktop.evaluation.engines.openai_engine import OpenAIEngine
from medrcube_desktop.evaluation.runner import ImageOptions, run_record
from tests.conftest import dicom_file, item, write_benchmark
from tests.llm.fake_openai import FakeOpenAI, text
from tests.ui.review.test_review_binding_window import open_window


def test_the_fields_take_their_range_from_sampling_ranges(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"ds1": [item("m1")]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    window, _store = open_window(qtbot, root, tmp_path / "s.db")
    pane = window.open_evaluate_pane()
    assert (pane.max_tokens.minimum(), pane.max_tokens.maximum()) == (1, 1_048_576)
    assert (pane.temperature.minimum(), pane.temperature.maximum()) == (0.0, 2.0)
    assert 0 < pane.top_p.minimum() <= 0.0001 and pane.top_p.maximum() == 1.0
    assert (pane.seed.minimum(), pane.seed.maximum()) == (0, 2**32 - 1)
    assert pane.max_tokens.maximum() == SAMPLING_RANGES["max_tokens"][1]
    assert (pane.temperature.value(), pane.top_p.value(), pane.seed.value()) == (0.0, 0.0001, 0)
    pane.close()


def test_a_cli_run_with_its_own_sampling_resumes_from_the_pane(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b",
        {"ds1": [item("m1", question="q-one?"), item("m2", question="q-two?")]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )
    window, store = open_window(qtbot, root, tmp_path / "s.db")
    with FakeOpenAI({"q-one": [text("A")], "q-two": [text("B")]}) as server:
        sampling = SamplingConfig(temperature=0.123456, top_p=0.9, max_tokens=200_000, seed=7)
        engine = OpenAIEngine("qwen-test", [server.base_url], "k", sampling)
        store.save_run(run_record("cli-run", engine, "qwen-test", ImageOptions(), str(root)))
        pane = window.open_evaluate_pane()
        pane.run_name.setEditText("cli-run")
        assert pane.max_tokens.value() == 200_000 and pane.seed.value() == 7
        assert (pane.temperature.value(), pane.top_p.value()) == (0.1235, 0.9)
        assert "stored decoding settings" in pane.resumes.text()
        assert "max_tokens 200000" in pane.resumes.text()
        with qtbot.waitSignal(pane.run_finished, timeout=30000):
            pane.start_button.click()
        assert "finished" in pane.status.text(), pane.status.text()
        stored = store.eval_run("cli-run").params
        assert (stored["temperature"], stored["max_tokens"]) == (0.123456, 200_000)
        assert set(store.responses("cli-run")) == {"m1", "m2"}
    pane.close()
