"""The guarded terminal streams: a write to a pipe whose reader has left marks the
stream closed, points its descriptor at the null device and cancels the watching job."""

from __future__ import annotations

import logging
import os
import sys
import threading

import pytest

from medrcube_desktop.jobs.terminal_output import GuardedStream, any_closed, guarded, watch


def _pipe_without_reader():
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has left
    return os.fdopen(write_end, "w", buffering=1)


def test_a_write_after_the_reader_left_is_dropped_and_cancels_the_job(capsys):
    stream = _pipe_without_reader()
    guard = GuardedStream(stream, "stdout")
    cancel = threading.Event()
    with watch(cancel, "cancelling: run it again to resume"):
        assert guard.write("a line\n") == len("a line\n")  # no BrokenPipeError
    assert guard.closed_by_reader and cancel.is_set()
    assert os.path.samefile(f"/proc/self/fd/{stream.fileno()}", os.devnull)
    guard.write("more\n")  # dropped; and the flush at exit raises nothing either
    stream.close()
    assert capsys.readouterr().err == (
        "stdout's reader has gone: cancelling: run it again to resume\n"
    )


def test_a_job_started_after_the_reader_left_is_cancelled_at_once():
    stream = _pipe_without_reader()
    saved = sys.stdout
    sys.stdout = stream
    try:
        with guarded():
            print("lost")
            sys.stdout.flush()
            assert any_closed()
            cancel = threading.Event()
            with watch(cancel, "stopping"):
                assert cancel.is_set()
        assert sys.stdout is stream  # given back
    finally:
        sys.stdout = saved
        stream.close()
    assert not any_closed()  # only while the command runs


def test_a_logging_handler_on_a_closed_stderr_prints_no_logging_error():
    stream = _pipe_without_reader()
    guard = GuardedStream(stream, "stderr")
    handler = logging.StreamHandler(guard)
    errors = []
    handler.handleError = errors.append  # what prints '--- Logging error ---'
    handler.emit(logging.makeLogRecord({"msg": "a message", "levelno": logging.WARNING}))
    stream.close()
    assert errors == [] and guard.closed_by_reader


def test_other_write_errors_still_raise():
    class Full:
        def write(self, text):
            raise OSError(28, "No space left on device")

        def flush(self):
            pass

    guard = GuardedStream(Full(), "stdout")
    with pytest.raises(OSError, match="No space left"):
        guard.write("x")
    assert not guard.closed_by_reader
