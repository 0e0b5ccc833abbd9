"""The Evaluate pane resumes an existing run with the settings it was run with."""

from medrcube_desktop.evaluation.engines.base import SamplingConfig
from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine
from medrcube_desktop.evaluation.runner import ImageOptions, run_record
from tests.conftest import dicom_file, item, write_benchmark
from tests.ui.test_review_window import open_window


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
