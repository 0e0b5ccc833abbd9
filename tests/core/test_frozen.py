"""The frozen executable recognises the children the app starts before the CLI parses
them (issue 21: the fork server's ``-c`` command line was parsed as a command, and
evaluation stopped with EOFError and 0 answers).

A frozen app is simulated by a wrapper executable that runs ``packaging/entry.py`` with
``sys.frozen`` set, as PyInstaller's bootloader does; multiprocessing is pointed at it as
it is at a bundle's executable (``sys.executable``)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from medrcube_desktop.core import frozen
from medrcube_desktop.evaluation.engines.worker_engine import GUARD, WORKER
from tests.conftest import dicom_file, item, write_benchmark
from tests.frozen_app import ROOT, make_frozen_app

HANG_GUARD_S = 180  # a child that is never recognised must not hang the test run


def _stdlib_helper_commands(monkeypatch) -> list[list[str]]:
    """The command lines Python itself builds for its fork server and resource tracker."""
    from multiprocessing import forkserver, resource_tracker, util

    seen: list[list[str]] = []

    def capture(path, args, passfds):
        seen.append(list(args))
        raise OSError("captured")  # start nothing

    monkeypatch.setattr(util, "spawnv_passfds", capture)
    with pytest.raises(OSError, match="captured"):
        resource_tracker.ResourceTracker().ensure_running()
    monkeypatch.setattr(resource_tracker, "ensure_running", lambda: None)  # the one above
    with pytest.raises(OSError, match="captured"):
        forkserver.ForkServer().ensure_running()
    return seen


def test_python_s_own_helper_command_lines_are_children(monkeypatch):
    commands = _stdlib_helper_commands(monkeypatch)
    assert len(commands) == 2
    assert commands[0][-1].startswith("from multiprocessing.resource_tracker import main")
    assert commands[1][-1].startswith("from multiprocessing.forkserver import main")
    assert [frozen.child_role(c) for c in commands] == ["multiprocessing", "multiprocessing"]


def test_a_spawn_child_and_the_engine_guard_are_children(monkeypatch):
    from multiprocessing import spawn

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert frozen.child_role(spawn.get_command_line(tracker_fd=5, pipe_handle=7)) == "spawn"
    assert frozen.child_role(["app", "-m", GUARD, WORKER, "9"]) == "module"


@pytest.mark.parametrize(
    "argv",
    [
        ["app"],
        ["app", "evaluate", "--dataset", "d", "--db", "x.db"],
        ["app", "-m", "os"],  # only the app's own modules run by name
        ["app", "judge", "--model", "m", "-c"],
        ["app", "-c", "print('hello')"],  # no arbitrary code
    ],
)
def test_a_user_s_command_line_is_not_a_child(argv):
    assert frozen.child_role(argv) is None


def test_unfrozen_nothing_is_run(monkeypatch):
    monkeypatch.delattr(sys, "frozen", raising=False)
    assert frozen.run_child_if_asked(["python", "-m", "medrcube_desktop.cli", "--version"]) is None


@pytest.fixture
def frozen_app(tmp_path) -> Path:
    return make_frozen_app(tmp_path / "app")


def _run_as_frozen_parent(app: Path, code: str, cwd: Path) -> dict:
    """Run ``code`` in a process that is frozen as the bundle is: ``sys.executable`` and
    multiprocessing's executable are ``app``. ``code`` prints one JSON line last."""
    prelude = (
        "import sys, json, multiprocessing\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        f"sys.frozen = True; sys.executable = {str(app)!r}\n"
        f"multiprocessing.set_executable({str(app)!r})\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)],
        capture_output=True, text=True, cwd=cwd, timeout=HANG_GUARD_S,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver: Linux")
def test_image_workers_run_in_a_frozen_app(frozen_app, tmp_path):
    """The evaluation's image workers (forkserver, with its resource tracker) start the
    frozen executable and prepare every image, as they do unfrozen."""
    root = write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1"), item("mr-1", "images/mr.dcm", modality="MR")]},
        {
            "ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
            "ds1/images/mr.dcm": dicom_file("MR_small.dcm"),
        },
    )
    code = f"""
        from medrcube_desktop.core.dataset import load_benchmark
        from medrcube_desktop.evaluation.prepare import ImagePipeline
        items = load_benchmark({str(root)!r}).items
        pipeline = ImagePipeline(items, 28, 1280 * 28 * 28, workers=2)
        done = {{p.item.id: [p.image is not None, p.error] for p in pipeline}}
        print(json.dumps({{"workers": pipeline.stats.workers, **done}}))
    """
    assert _run_as_frozen_parent(frozen_app, code, tmp_path) == {
        "workers": 2,
        "ct-1": [True, ""],
        "mr-1": [True, ""],
    }


def test_spawn_workers_run_in_a_frozen_app(frozen_app, tmp_path):
    code = """
        import os
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            pids = [pool.apply(os.getpid) for _ in range(2)]
        print(json.dumps({"workers": len(pids), "other_process": os.getpid() not in pids}))
    """
    assert _run_as_frozen_parent(frozen_app, code, tmp_path) == {
        "workers": 2,
        "other_process": True,
    }


def test_the_engine_guard_runs_in_a_frozen_app(frozen_app, tmp_path):
    """The guard (as the model workers and vLLM's server are started: ``APP -m GUARD
    MODULE ARGS``) runs MODULE as __main__ with its arguments."""
    from medrcube_desktop import __version__

    result = subprocess.run(
        [str(frozen_app), "-m", GUARD, "medrcube_desktop", "--version"],
        capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=tmp_path,
        env={**os.environ, "MEDRCUBE_PARENT_PID": str(os.getpid())},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["medrcube-desktop", __version__]


def test_the_frozen_app_answers_whether_it_has_a_module_itself(monkeypatch):
    from medrcube_desktop.evaluation.engines import vllm_engine

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(
        vllm_engine.subprocess, "run", lambda *a, **k: pytest.fail("ran the app with -c")
    )
    assert vllm_engine.has_module(sys.executable, "json")
    assert not vllm_engine.has_module(sys.executable, "no_such_module_here")


def test_a_model_worker_of_the_frozen_app_says_what_it_lacks(frozen_app, ct_benchmark, tmp_path):
    """``evaluate --engine hf`` from the bundle: the guard and the model worker run from
    the frozen executable (they were parsed as commands); the bundle has no torch, and
    the error says so, naming the executable."""
    result = subprocess.run(
        [str(frozen_app), "evaluate", "--dataset", str(ct_benchmark), "--db",
         str(tmp_path / "s.db"), "--engine", "hf", "--model", "some/model", "--limit", "1"],
        capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=tmp_path,
        env={**os.environ, "PYTHONNOUSERSITE": "1"},
    )  # fmt: skip
    assert result.returncode == 2
    assert f"torch is not installed for {frozen_app}: pip install" in result.stderr


# Only the exact command lines Python's multiprocessing and the app build are children.


def test_the_modules_run_by_name_are_the_engine_guard_and_the_model_worker():
    assert {GUARD, WORKER} == frozen.OWN_MODULES


@pytest.mark.parametrize(
    "argv",
    [
        # a multiprocessing -c command after a user's option: the flags are not Python's
        [
            "app",
            "--reviewer",
            "-c",
            'from multiprocessing.forkserver import main; print("EXECUTED")',
        ],
        # the prefix of a helper's command, then other code
        ["app", "-c", 'from multiprocessing.forkserver import main; print("EXECUTED")'],
        ["app", "-c", "from multiprocessing.resource_tracker import main;main(3); print(1)"],
        ["app", "-c", "from multiprocessing.forkserver import main; main(3, 4, 'x', **{})"],
        ["app", "-c", "from multiprocessing.forkserver import main; main(3, 4, [], **{'a': 1})"],
        ["app", "-c", "from multiprocessing.forkserver import main; main(3, 4, [f()], **{})"],
        ["app", "-m", "medrcube_desktop.nonexist"],
        ["app", "-m", "medrcube_desktop.cli"],
        ["app", "evaluate", "-m", GUARD],  # -m is a child's only right after the executable
    ],
)
def test_a_command_line_that_only_looks_like_a_child_s_is_left_to_the_parser(
    argv, monkeypatch, capsys
):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert frozen.child_role(argv) is None
    assert frozen.run_child_if_asked(argv) is None  # nothing run: the parser's turn
    assert "EXECUTED" not in capsys.readouterr().out


def test_the_parser_refuses_those_command_lines(capsys):
    from medrcube_desktop.cli.app import main

    with pytest.raises(SystemExit) as exit_:
        main(["-m", "medrcube_desktop.nonexist"])
    assert exit_.value.code == 2


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["garbage"], "--multiprocessing-fork 'garbage': not a spawn child's argument"),
        (["pipe_handle=x"], "--multiprocessing-fork 'pipe_handle=x': pipe_handle must be a"),
        (["evil=3"], "--multiprocessing-fork 'evil=3': not a spawn child's argument"),
        (["pipe_handle=3", "pipe_handle=4"], "'pipe_handle=4': not a spawn child's argument"),
    ],
)
def test_a_malformed_spawn_command_line_is_one_line_and_status_2(args, said, monkeypatch, capsys):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    with pytest.raises(SystemExit) as exit_:
        frozen.run_child_if_asked(["app", frozen.SPAWN_FLAG, *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and said in err and "Traceback" not in err


def test_the_helpers_main_is_called_with_the_parameters_parsed_from_the_command(monkeypatch):
    from multiprocessing import forkserver, resource_tracker

    commands = _stdlib_helper_commands(monkeypatch)
    calls = []
    monkeypatch.setattr(resource_tracker, "main", lambda *a, **k: calls.append(("rt", a, k)))
    monkeypatch.setattr(forkserver, "main", lambda *a, **k: calls.append(("fs", a, k)))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    for command in commands:
        with pytest.raises(SystemExit) as exit_:
            frozen.run_child_if_asked(command)
        assert exit_.value.code == 0
    # the numbers Python wrote into the commands, read back independently
    fd_tracker = int(commands[0][-1].rsplit("(", 1)[1].rstrip(")"))
    listener, alive = (int(n) for n in commands[1][-1].split("main(", 1)[1].split(",")[:2])
    assert calls[0] == ("rt", (fd_tracker,), {})
    assert calls[1][0] == "fs" and calls[1][1][:2] == (listener, alive)
    assert isinstance(calls[1][1][2], list)


def test_a_spawn_command_line_gives_spawn_main_its_numbers(monkeypatch):
    from multiprocessing import spawn

    seen = {}
    monkeypatch.setattr(spawn, "spawn_main", lambda **kwds: seen.update(kwds))
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    argv = spawn.get_command_line(tracker_fd=5, pipe_handle=7)
    with pytest.raises(SystemExit):
        frozen.run_child_if_asked(argv)
    assert seen == {"tracker_fd": 5, "pipe_handle": 7}
