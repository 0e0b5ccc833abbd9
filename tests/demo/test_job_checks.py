"""The self-test's jobs (evaluate with image workers, judge, render-batch), run by the
app's executable against the local stub endpoint, and checks that can fail."""

import json
import sys

import numpy as np
import pytest
from PIL import Image

from medrcube_desktop.demo import job_checks
from medrcube_desktop.demo.stub_endpoint import ALL_PASS, JUDGE_MODEL, StubEndpoint
from tests.conftest import dicom_file, item, write_benchmark
from tests.frozen_app import make_frozen_app


def _benchmark(tmp_path):
    return write_benchmark(
        tmp_path / "bench",
        {"ds1": [item("ct-1"), item("mr-1", "images/mr.dcm", modality="MR")]},
        {
            "ds1/images/ct.dcm": dicom_file("CT_small.dcm"),
            "ds1/images/mr.dcm": dicom_file("MR_small.dcm"),
        },
    )


@pytest.mark.slow
def test_the_jobs_pass_from_an_executable_frozen_as_the_bundle_is(tmp_path, monkeypatch):
    """Issue 21: from the frozen executable the image workers' fork server was parsed as
    a command and evaluate stored 0 answers; here every item is answered with its image."""
    app = make_frozen_app(tmp_path / "app")
    monkeypatch.setattr(job_checks, "app_command", lambda: [str(app)])
    facts, problems = job_checks.run_job_checks(_benchmark(tmp_path), tmp_path / "out")
    assert problems == []
    assert facts == {
        "evaluate": {"answers": 2, "with_image": 2},
        "judge": {"judgments": 2},
        "render_batch": {"pngs": 2},
        "compare": {"files": 13, "svgs": 4},
    }


def test_an_app_that_does_nothing_fails_every_job(tmp_path, monkeypatch):
    monkeypatch.setattr(job_checks, "app_command", lambda: [sys.executable, "-c", "exit(2)"])
    _, problems = job_checks.run_job_checks(_benchmark(tmp_path), tmp_path / "out")
    assert "evaluate: 0 answers stored of 2 items" in problems
    assert "judge: 0 judgments stored of 2 items" in problems
    assert "render-batch: 0 PNGs written for 2 items" in problems
    assert "compare: 13 of 13 files not written (leaderboard.csv, …)" in problems
    assert sum(p.endswith("exit status 2: no message") for p in problems) == 4


@pytest.mark.slow
def test_answers_the_endpoint_did_not_give_are_a_problem(tmp_path, monkeypatch):
    all_fail = json.dumps(dict.fromkeys(ALL_PASS, 0))
    monkeypatch.setattr(
        StubEndpoint,
        "_answer",
        lambda self, body: all_fail if body["model"] == JUDGE_MODEL else "I cannot tell.",
    )
    _, problems = job_checks.run_job_checks(_benchmark(tmp_path), tmp_path / "out")
    assert "evaluate: 2 answers not read as A (ct-1, …)" in problems
    assert "judge: 2 judgments differ from the endpoint's (ct-1, …)" in problems
    assert "evaluate: 0 requests carried an image, for 2 answers" in problems


def test_a_blank_picture_is_a_problem(tmp_path):
    out = tmp_path / "rendered" / "ds1"
    out.mkdir(parents=True)
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(out / "ct-1.png")
    ramp = np.tile(np.arange(8, dtype=np.uint8)[None, :, None] * 30, (8, 1, 3))
    Image.fromarray(ramp).save(out / "mr-1.png")
    items = [type("I", (), {"restricted": False})() for _ in range(2)]
    job = {"status": 0, "summary": {"rendered": 2}, "err": ""}
    facts, problems = job_checks._check_pictures(tmp_path / "rendered", job, items)
    assert facts == {"pngs": 2}
    assert problems == ["1 PNGs of a single colour (ct-1.png, …)"]


@pytest.mark.slow
def test_a_bundle_without_matplotlib_s_svg_backend_fails_the_compare_check(tmp_path, monkeypatch):
    """The clinician trial: the bundle held only matplotlib's agg backend, and compare --out
    stopped with ModuleNotFoundError for backend_svg (savefig loads it by name). The app
    here is started with that module missing, as the bundle had it."""
    from tests.frozen_app import ROOT

    code = (
        "import sys; sys.modules['matplotlib.backends.backend_svg'] = None; "
        f"sys.path.insert(0, {str(ROOT)!r}); "
        "from medrcube_desktop.cli import main; sys.exit(main())"
    )
    monkeypatch.setattr(job_checks, "app_command", lambda: [sys.executable, "-c", code])
    out = tmp_path / "out"
    facts, problems = job_checks.run_job_checks(_benchmark(tmp_path), out)
    compare = [p for p in problems if p.startswith("compare: ")]
    assert compare[0].startswith("compare: exit status 1: ")
    assert "backend_svg" in compare[0]
    assert compare[1] == "compare: 13 of 13 files not written (leaderboard.csv, …)"
    assert facts["compare"] == {"files": 0, "svgs": 0}
    assert [p for p in problems if not p.startswith("compare: ")] == []
    assert not (out / "compare").exists()  # the failed export left no empty folder


def _compare_folder(folder):
    """Every file compare --out writes for one run, the figures real ones."""
    from medrcube_desktop.evaluation.compare.report import OUTPUTS

    folder.mkdir()
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect/></svg>'
    for name in OUTPUTS:
        if name in job_checks.ONE_RUN_SKIPS:
            continue
        if name.endswith(".svg"):
            (folder / name).write_text(svg, encoding="utf-8")
        elif name.endswith(".png"):
            Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(folder / name)
        else:
            (folder / name).write_text("x", encoding="utf-8")


def test_compare_files_that_are_all_there_and_readable_pass(tmp_path):
    _compare_folder(tmp_path / "compare")
    job = {"status": 0, "summary": {}, "err": ""}
    assert job_checks._check_compare(tmp_path / "compare", job) == ({"files": 13, "svgs": 4}, [])


def test_an_svg_that_is_not_xml_or_a_missing_file_is_a_problem(tmp_path):
    folder = tmp_path / "compare"
    _compare_folder(folder)
    svgs = sorted(folder.glob("*.svg"))
    svgs[0].write_text('<svg xmlns="http://www.w3.org/2000/svg"><rect>', encoding="utf-8")
    (folder / "report.html").unlink()
    job = {"status": 0, "summary": {}, "err": ""}
    facts, problems = job_checks._check_compare(folder, job)
    assert facts == {"files": 12, "svgs": 4}
    assert problems[0] == "1 of 13 files not written (report.html, …)"
    assert problems[1].startswith(f"1 figures unreadable: {svgs[0].name} (no element found")
