"""The one Qt job runner: progress with ETA, Cancel by button or Esc, cancel on close."""

import threading

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QVBoxLayout

from medrcube_desktop.core.progress import Progress
from medrcube_desktop.ui.widgets.job_runner import JobRunnerView, eta_text


def test_eta_text_counts_the_rate_from_this_run_only():
    assert eta_text(0, None, 0, 1.0) == "Working…"
    assert eta_text(10, 40, 0, 5.0) == "10 of 40 · 2.00 items/s · under 1 min left"
    assert eta_text(110, 400, 10, 50.0) == "110 of 400 · 2.00 items/s · about 3 min left"
    assert eta_text(40, 40, 0, 5.0) == "40 of 40 · 8.00 items/s"
    assert eta_text(5, 40, 5, 5.0) == "5 of 40"  # resumed: nothing new done yet


def dialog_with_runner(qtbot):
    dialog = QDialog()
    runner = JobRunnerView(dialog)
    QVBoxLayout(dialog).addWidget(runner)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog, runner


def waiting_job(reached: threading.Event):
    """Reports 2 of 4, then waits for Cancel; returns whether it was cancelled."""

    def job(store, cancel, progress):
        assert store.path is not None  # a connection of its own, on this thread
        progress(Progress(1, 4))
        progress(Progress(2, 4, detail={"mine": True}))
        reached.set()
        cancelled = cancel.wait(20)
        return {"cancelled": cancelled}

    return job


def test_progress_eta_and_escape_cancels_the_job(qtbot, tmp_path):
    dialog, runner = dialog_with_runner(qtbot)
    records = []
    runner.progressed.connect(records.append)
    reached = threading.Event()
    assert runner.start(tmp_path / "s.db", waiting_job(reached))
    assert not runner.start(tmp_path / "s.db", waiting_job(reached))  # one at a time
    qtbot.waitUntil(lambda: len(records) == 2, timeout=10000)
    assert records[1].detail == {"mine": True}
    assert (runner.bar.maximum(), runner.bar.value()) == (4, 2)
    assert runner.eta.text().startswith("2 of 4")
    assert runner.cancel_button.isEnabled()
    with qtbot.waitSignal(runner.finished, timeout=10000) as finished:
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert finished.args == [{"cancelled": True}, ""]
    assert runner.cancelled and not runner.cancel_button.isEnabled()
    assert dialog.isVisible()  # Esc stopped the job, not the dialog
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # idle: Esc closes as usual
    assert not dialog.isVisible()


def test_closing_the_dialog_cancels_and_waits(qtbot, tmp_path):
    dialog, runner = dialog_with_runner(qtbot)
    reached = threading.Event()
    runner.start(tmp_path / "s.db", waiting_job(reached))
    assert reached.wait(10)
    dialog.close()
    assert runner.worker.isFinished() and runner.cancelled


def test_an_error_reaches_the_pane_as_text(qtbot, tmp_path):
    _, runner = dialog_with_runner(qtbot)

    def job(store, cancel, progress):
        raise ValueError("no such thing")

    with qtbot.waitSignal(runner.finished, timeout=10000) as finished:
        runner.start(tmp_path / "s.db", job)
    assert finished.args == [None, "ValueError: no such thing"]
