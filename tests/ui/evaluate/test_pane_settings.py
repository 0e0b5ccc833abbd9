"""The Evaluate pane resumes an existing run with the settings it was run with."""

from medrcube_desktop.evaluation.engines.base import SamplingConfig
from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine
from medrcube_desktop.evaluation.runner import ImageOptions, run_record
from tests.conftest import dicom_file, item, write_benchmark
from tests.ui.review.test_review_binding_window import open_window


def test_picking_an_existing_run_fills_its_settings(qtbot, tmp_path):
    root = write_benchmark(
        tmp_path / "b", {"ds1": [item("m1")]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    window, store = open_window(qtbot, root, tmp_path / "s.db")
    engine = VLLMEngine("tiny", SamplingConfig(max_tokens=64), max_model_len=2048,
                        kv_cache_memory_bytes=256 << 20, data_parallel_size=2,
                        enforce_eager=True)  # fmt: skip
    store.save_run(run_record("cli-run", engine, "tiny", ImageOptions(), str(root)))
    pane = window.open_evaluate_pane()
    pane.run_name.setEditText("cli-run")
    assert (pane.engine.currentText(), pane.model.text()) == ("vllm", "tiny")
    assert (pane.max_tokens.value(), pane.max_model_len.value()) == (64, 2048)
    assert pane.kv_cache.text() == "256M" and pane.data_parallel.value() == 2
    assert pane.enforce_eager.isChecked() and pane.gpu_memory.value() == 0.0
    pane.close()


def test_a_refresh_reads_the_runs_responses_once_and_typing_waits_for_a_pause(
    qtbot, tmp_path, monkeypatch
):
    root = write_benchmark(
        tmp_path / "b", {"ds1": [item("m1")]}, {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")}
    )
    window, store = open_window(qtbot, root, tmp_path / "s.db")
    engine = VLLMEngine("tiny", SamplingConfig(max_tokens=64))
    store.save_run(run_record("cli-run", engine, "tiny", ImageOptions(), str(root)))
    pane = window.open_evaluate_pane()
    reads = {"responses": 0, "eval_run": 0}
    for name in reads:
        original = getattr(store, name)

        def counted(*args, _name=name, _original=original):
            reads[_name] += 1
            return _original(*args)

        monkeypatch.setattr(store, name, counted)
    pane.run_name.setEditText("")  # (the pane opened on cli-run)
    reads.update(responses=0, eval_run=0)
    pane.run_name.setEditText("cli-run")  # set (or picked): at once
    assert reads == {"responses": 1, "eval_run": 1}
    pane.run_name.setEditText("")
    reads.update(responses=0, eval_run=0)
    qtbot.keyClicks(pane.run_name.lineEdit(), "cli-run")
    assert reads["eval_run"] <= 1  # not one read per key
    qtbot.waitUntil(lambda: reads["responses"] == 1, timeout=5000)
    qtbot.wait(400)
    assert reads == {"responses": 1, "eval_run": 1}
    assert "cli-run" in pane.summary.text()
    pane.close()
