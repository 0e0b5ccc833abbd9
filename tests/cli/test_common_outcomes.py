"""Exit status by outcome, the terminal job runner, the one database policy (issue 12)."""

import errno
import json
import os
import signal
import sqlite3
import threading
import time

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.cli.common import exit_status
from medrcube_desktop.core.progress import Progress
from medrcube_desktop.errors import DatasetError, EngineError, StoreError
from medrcube_desktop.jobs.terminal import JobFailed, run_in_terminal
from tests.conftest import dicom_file, item, write_benchmark


def _chained(outer: Exception, cause: BaseException) -> Exception:
    try:
        raise outer from cause
    except Exception as exc:  # noqa: BLE001 - built for the test
        return exc


def test_a_failed_write_is_a_failed_job_and_bad_input_is_bad_input():
    assert exit_status(OSError(errno.ENOSPC, "No space left on device")) == 1
    assert exit_status(_chained(StoreError("db: cannot save"), OSError(errno.EIO, "I/O"))) == 1
    full = sqlite3.OperationalError("database or disk is full")
    assert exit_status(_chained(StoreError("db: cannot save"), full)) == 1
    assert exit_status(FileNotFoundError(errno.ENOENT, "No such file")) == 2
    assert exit_status(StoreError("db: no such review database")) == 2
    assert exit_status(DatasetError("bench: does not exist")) == 2
    locked = sqlite3.OperationalError("database is locked")
    assert exit_status(_chained(StoreError("db: locked"), locked)) == 2


def test_the_terminal_runner_tells_a_job_that_failed_from_one_that_could_not_start():
    def fails_before(progress, cancel):
        raise EngineError("vLLM would not start: no such model")

    with pytest.raises(EngineError):
        run_in_terminal(fails_before, quiet=True)

    def dies_midway(progress, cancel):
        progress(Progress(1, 4))
        raise EngineError("vLLM lost a process of its engine")

    with pytest.raises(JobFailed, match="lost a process") as failed:
        run_in_terminal(dies_midway, quiet=True)
    assert isinstance(failed.value.__cause__, EngineError)


def test_ctrl_c_cancels_the_job_and_waits_for_what_it_stores(capsys):
    stored = []
    units = 2000  # up to 20 s: the Ctrl+C lands long before, even on a loaded machine

    def job(progress, cancel):
        for n in range(units):  # stops between units once cancelled
            if cancel.is_set():
                return {"stored": len(stored), "cancelled": True}
            stored.append(n)
            progress(Progress(n + 1, units))
            if n == 5:  # the job is surely running and the terminal waiting on it
                os.kill(os.getpid(), signal.SIGINT)  # as a Ctrl+C (the main thread gets it)
            time.sleep(0.01)
        return {"stored": len(stored), "cancelled": False}

    # Python's own Ctrl+C handler, as a terminal's python has it: a shell starts a
    # background job with SIGINT ignored, and Python then keeps it ignored
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        result = run_in_terminal(job, quiet=True, on_cancel="cancelling: resume later")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert result["cancelled"] and 6 <= result["stored"] == len(stored) < units
    assert "cancelling: resume later (Ctrl+C again to stop waiting)" in capsys.readouterr().err


def test_a_window_option_given_to_a_command_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--demo", "validate", str(tmp_path)])
    assert exit_info.value.code == 2
    assert "--demo before validate: an option of the window" in capsys.readouterr().err


@pytest.fixture
def bench(tmp_path):
    return write_benchmark(
        tmp_path / "b",
        {"ds1": [item(f"i{n}", question=f"q{n}: which one?") for n in range(4)]},
        {"ds1/images/ct.dcm": dicom_file("CT_small.dcm")},
    )


class _DiesAfterOneAnswer:
    """An engine whose model process dies after its first answer."""

    name = "dies"

    def describe(self):
        return {"engine": "dies"}

    def library_versions(self):
        return {}

    def gpu(self):
        return ""

    def run(self, requests, on_response, cancel):
        from medrcube_desktop.evaluation.engines.base import EvalResponse

        first = next(iter(requests))
        on_response(EvalResponse(first.item_id, "B"))
        raise EngineError("the engine's process died (killed: out of memory?)")

    def close(self):
        pass


def test_an_engine_dying_mid_run_exits_1_and_keeps_what_it_stored(bench, tmp_path, monkeypatch):
    import medrcube_desktop.evaluation.engines.factory as factory

    monkeypatch.setattr(factory, "build_engine", lambda options, **_: _DiesAfterOneAnswer())
    db = tmp_path / "s.db"
    args = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "vllm"]
    assert main([*args, "--model", "m", "--run", "r", "--text-only", "--json"]) == 1
    from medrcube_desktop.store import StudyStore

    store = StudyStore(db)
    assert list(store.responses("r")) == ["i0"]
    store.close()


def test_commands_that_only_read_never_create_a_database(bench, tmp_path, capsys):
    missing = tmp_path / "typo.db"
    for args in (
        ["export-run", "--db", str(missing), "--run", "r", "--dataset", str(bench)]
        + ["--out", str(tmp_path / "r.json")],
        ["export-judgments", "--db", str(missing), "--model", "m", "--out", str(tmp_path / "j")],
        ["credibility", "--db", str(missing), "--dataset", str(bench), "--run", "r"],
        ["agreement", "--db", str(missing), "--reviewer", "a", "--model", "m"],
    ):
        assert main(args) == 2, args
        assert capsys.readouterr().err.endswith(f"{missing}: no such review database\n")
        assert not missing.exists()


def test_a_command_that_stores_says_it_created_the_database(bench, tmp_path, capsys):
    db = tmp_path / "new.db"
    args = ["study", "--dataset", str(bench), "--db", str(db), "--name", "s", "--n", "2"]
    assert main([*args, "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)["items"]) == 2
    assert err == f"medrcube-desktop: created a new review database {db}\n"
    assert main([*args, "--json"]) == 0
    assert capsys.readouterr().err == ""  # the second time it exists


def test_export_run_of_a_run_that_does_not_exist_is_bad_input(bench, tmp_path, capsys):
    from medrcube_desktop.store import StudyStore

    db = tmp_path / "s.db"
    StudyStore(db).close()
    assert main(["export-run", "--db", str(db), "--run", "nope", "--dataset", str(bench),
                 "--out", str(tmp_path / "r.json"), "--json"]) == 2  # fmt: skip
    out, err = capsys.readouterr()
    assert "nope" in err and json.loads(out)["exit_status"] == 2
    assert not (tmp_path / "r.json").exists()


def test_an_empty_result_is_refused_and_never_written_over_an_earlier_export(
    bench, tmp_path, capsys
):
    from medrcube_desktop.evaluation.engines.base import SamplingConfig
    from medrcube_desktop.evaluation.engines.local_engines import VLLMEngine
    from medrcube_desktop.evaluation.runner import ImageOptions, run_record
    from medrcube_desktop.store import StudyStore

    db = tmp_path / "s.db"
    store = StudyStore(db)
    engine = VLLMEngine("m", SamplingConfig())
    store.save_run(run_record("empty", engine, "m", ImageOptions(), str(bench)))
    store.close()
    earlier = tmp_path / "r.json"
    earlier.write_text("[{...an export of last week}]")
    assert main(["export-run", "--db", str(db), "--run", "empty", "--dataset", str(bench),
                 "--out", str(earlier)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "run 'empty' has no answer to any of the 4 items loaded (0 answers stored)" in err
    assert earlier.read_text() == "[{...an export of last week}]"
    assert main(["credibility", "--db", str(db), "--run", "empty", "--dataset", str(bench)]) == 2
    assert "run empty: no usable answer to count" in capsys.readouterr().err
    unusable = tmp_path / "bad.json"
    unusable.write_text('[{"id": "x"}, 5]')
    assert main(["credibility", "--results", str(unusable), "--json"]) == 2
    out, err = capsys.readouterr()
    assert "no usable answer to count" in json.loads(out)["error"]
    assert "record 1: not an object" in err


def test_a_benchmark_with_no_loadable_item_is_said_so_not_sampled_from(tmp_path, capsys):
    root = write_benchmark(tmp_path / "b", {"ds1": [{"id": "x"}, {"id": "y"}]}, {})
    db = tmp_path / "s.db"
    args = ["study", "--dataset", str(root), "--db", str(db), "--name", "s", "--n", "5"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"{root}: no item can be sampled: 2 items (18 problems) cannot be loaded\n")
    assert "warning: 2 items (18 problems) cannot be loaded and are not sampled" in err
    assert not db.exists()


def test_with_json_an_error_is_one_json_document_too(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nope"), "--json"]) == 2
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert document["exit_status"] == 2 and "does not exist" in document["error"]
    assert err.count("\n") == 1


def test_a_new_database_refused_before_anything_is_stored_leaves_no_file(
    bench, tmp_path, monkeypatch
):
    db = tmp_path / "fresh.db"
    args = ["evaluate", "--dataset", str(bench), "--db", str(db), "--engine", "vllm"]
    import medrcube_desktop.evaluation.engines.factory as factory

    class NeverStarts(_DiesAfterOneAnswer):
        def run(self, requests, on_response, cancel):
            raise EngineError("vLLM would not start: no such model")

    monkeypatch.setattr(factory, "build_engine", lambda options, **_: NeverStarts())
    assert main([*args, "--model", "m", "--run", "r", "--text-only"]) == 2
    assert not db.exists() and not (tmp_path / "fresh.db-wal").exists()


def test_an_export_onto_its_own_database_is_refused_and_the_database_kept(tmp_path, capsys):
    from medrcube_desktop.store import StudyStore

    db = tmp_path / "study.db"
    StudyStore(db).close()
    before = db.read_bytes()
    for args in (
        ["export-reviews", "--db", str(db), "--reviewer", "a", "--out", str(db)],
        ["export-judgments", "--db", str(db), "--model", "m", "--out", str(db)],
    ):
        assert main(args) == 2
        assert f"{db}: is the input {db}; write the output elsewhere" in capsys.readouterr().err
    assert db.read_bytes() == before


def test_a_read_only_command_refuses_an_empty_file_and_leaves_it_empty(tmp_path, capsys):
    empty = tmp_path / "empty.db"
    empty.touch()
    args = ["export-reviews", "--db", str(empty), "--reviewer", "a", "--out", str(tmp_path / "x")]
    assert main(args) == 2
    assert "an empty file, not a review database" in capsys.readouterr().err
    assert empty.stat().st_size == 0


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["judge", "--dataset", ".", "--db", "x", "--model", "m", "--concurrency", "100000"],
         "must be between 1 and 1024, got 100000"),
        (["--quit-after-ms", "0", "validate", "."], "--quit-after-ms before validate"),
        (["--db", "a.db", "export-reviews", "--db", "b.db", "--reviewer", "r", "--out", "o"],
         "--db before export-reviews: an option of the window"),
    ],
)  # fmt: skip
def test_a_usage_error_is_one_line_and_with_json_one_json_document(argv, reason, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--json"])
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and reason in err
    assert json.loads(out)["exit_status"] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["import-judgments", "--db", "{db}", "--model", "m", "{fifo}"],
        ["import-judgments", "--db", "{db}", "--model", "m", "--batch", "{fifo}"],
        ["credibility", "--results", "{fifo}"],
        ["import-reviews", "--db", "{db}", "--reviewer", "r", "{fifo}"],
    ],
)
def test_a_named_pipe_as_an_input_file_is_named_not_read(argv, tmp_path, capsys):
    fifo = tmp_path / "in.jsonl"
    os.mkfifo(fifo)
    args = [a.format(db=tmp_path / "s.db", fifo=fifo) for a in argv]
    done = {}
    worker = threading.Thread(target=lambda: done.update(rc=main(args)), daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():  # free the reader so the test run can go on, then fail
        with open(fifo, "w"):
            pass
        worker.join(5)
        pytest.fail(f"{argv[0]} blocked on a named pipe")
    assert done["rc"] in (1, 2) and "is a named pipe, not a file" in capsys.readouterr().err


def test_ctrl_c_before_a_command_starts_is_one_line_not_a_traceback(monkeypatch, capsys):
    import medrcube_desktop.cli.app as app

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(app, "build_parser", interrupted)
    assert main(["validate", "somewhere"]) == 130
    assert capsys.readouterr().err == "medrcube-desktop: interrupted\n"


def test_an_os_error_is_said_as_file_then_reason(bench, tmp_path, capsys):
    blocker = tmp_path / "MANIFEST.json"
    blocker.write_text("{}")
    image = bench / "ds1" / "images" / "ct.dcm"
    assert main(["render", str(image), "--out", str(blocker / "x.png")]) == 2
    assert capsys.readouterr().err == (
        f"medrcube-desktop: {blocker}: is a file where a folder is needed\n"
    )
    args = ["study", "--dataset", str(bench), "--db", str(tmp_path / "s.db"), "--name", "s"]
    with pytest.raises(SystemExit) as usage:
        main([*args, "--n", "0"])
    assert usage.value.code == 2 and "--n: must be at least 1, got 0" in capsys.readouterr().err
