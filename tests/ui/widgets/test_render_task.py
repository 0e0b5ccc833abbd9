"""The render task's log: a bad input in one line, a bug with its traceback."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

from medrcube_desktop.errors import ImageLoadError
from medrcube_desktop.ui.widgets import render_task


@pytest.mark.parametrize(
    ("error", "traceback"),
    [(ImageLoadError("images/ct.dcm: file not found"), False), (ZeroDivisionError("x"), True)],
)
def test_render_failure_logs_a_traceback_only_for_a_bug(
    qtbot, monkeypatch, caplog, error, traceback
):
    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(render_task, "render_item", fail)
    task = render_task.RenderTask(7, SimpleNamespace(id="it-1"), None)  # type: ignore[arg-type]
    shown = []
    task.signals.failed.connect(lambda generation, message: shown.append((generation, message)))
    with caplog.at_level(logging.WARNING, logger=render_task.log.name):
        task.run()
    assert shown == [(7, f"item it-1: {error}")]
    (record,) = [r for r in caplog.records if r.name == render_task.log.name]
    assert (record.exc_info is not None) is traceback
    assert str(error) in record.getMessage() or traceback
