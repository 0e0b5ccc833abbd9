"""The jobs half of ``medrcube-desktop self-test``: evaluate, judge and render-batch, each
run by this installation's own executable as a user would start it, then checked.

A frozen app whose executable cannot start the processes the app starts (the image
workers' fork server, issue 21) stops an evaluation with 0 answers; nothing short of
running one shows it. So the self-test starts a local OpenAI-compatible endpoint with
fixed answers (:class:`~medrcube_desktop.demo.stub_endpoint.StubEndpoint`, no model) and
runs, as child processes of this installation (the bundle's executable, or ``python -m
medrcube_desktop``):

- ``evaluate --engine openai`` with two image workers and no image cache: an answer
  stored for every item it asked, each sent with its image;
- ``judge``: a judgment stored for every item, each passing all seven rules as the
  endpoint said;
- ``render-batch``: a PNG per item, none of a single colour;
- ``compare --out`` on the evaluation's run: every file of
  :data:`~medrcube_desktop.evaluation.compare.report.OUTPUTS` written, every SVG well-formed
  XML and every PNG a picture (the figures are saved through matplotlib backends that a
  frozen bundle holds only when its spec names them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from medrcube_desktop.demo.stub_endpoint import ALL_PASS, EVAL_MODEL, JUDGE_MODEL, StubEndpoint

RUN = "self-test"
"""The evaluation run's name."""
KEY_VARIABLE = "MEDRCUBE_SELF_TEST_KEY"
"""The key the jobs send to the local endpoint: never the user's own."""
JOB_TIMEOUT_S = 600
"""A job still running after this long is killed and is a problem (a hang, not a speed
limit: each takes a few seconds)."""
IMAGE_WORKERS = 2
ONE_RUN_SKIPS = ("voxel_correlation.csv",)
"""``compare --out`` files not written for one run (the voxel correlation needs three)."""


def app_command() -> list[str]:
    """How this installation is started: the bundle's executable when frozen, else this
    interpreter running this process's own ``medrcube_desktop`` (from the folder it was
    imported from, whatever the working folder holds: a source checkout there must not
    stand in for the installed wheel)."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    import medrcube_desktop

    home = str(Path(medrcube_desktop.__file__).resolve().parent.parent)
    code = (
        f"import sys; sys.path.insert(0, {home!r}); "
        "from medrcube_desktop.cli import main; sys.exit(main())"
    )
    return [sys.executable, "-c", code]


def run_job_checks(root: Path, out: Path) -> tuple[dict[str, object], list[str]]:
    """Run and check the three jobs on the benchmark at ``root``, writing under ``out``
    (``jobs.sqlite``, ``rendered/``).

    Returns
    -------
    (facts, problems) : (dict, list of str)
        ``facts`` per job (``evaluate``: answers, with_image; ``judge``: judgments;
        ``render_batch``: pngs); ``problems``: one line per failed check (empty: passed).
    """
    from medrcube_desktop.core.dataset import load_benchmark

    items = load_benchmark(root).items
    db = out / "jobs.sqlite"
    facts: dict[str, object] = {}
    problems: list[str] = []
    with StubEndpoint() as stub:
        common = ["--dataset", str(root), "--db", str(db), "--base-url", stub.base_url,
                  "--api-key-env", KEY_VARIABLE, "--json"]  # fmt: skip
        evaluate = _run_job(
            ["evaluate", "--engine", "openai", "--model", EVAL_MODEL, "--run", RUN,
             "--image-workers", str(IMAGE_WORKERS), "--no-image-cache", *common],
        )  # fmt: skip
        sent_with_image = stub.counts.with_image
        judge = _run_job(["judge", "--model", JUDGE_MODEL, *common])
    facts["evaluate"], found = _check_evaluation(db, evaluate, items, sent_with_image)
    problems += [f"evaluate: {p}" for p in found]
    facts["judge"], found = _check_judgments(db, judge, items)
    problems += [f"judge: {p}" for p in found]
    rendered = out / "rendered"
    batch = _run_job(["render-batch", str(root), "--out", str(rendered), "--json"])
    facts["render_batch"], found = _check_pictures(rendered, batch, items)
    problems += [f"render-batch: {p}" for p in found]
    figures = out / "compare"
    compare = _run_job(["compare", "--db", str(db), "--dataset", str(root), "--run", RUN,
                        "--bootstrap", "0", "--stability", "0", "--out", str(figures),
                        "--json"])  # fmt: skip
    facts["compare"], found = _check_compare(figures, compare)
    problems += [f"compare: {p}" for p in found]
    return facts, problems


def _run_job(args: list[str]) -> dict:
    """Run the app with ``args``: ``{"status", "summary" (its --json, or None), "err"}``."""
    command = [*app_command(), *args]
    env = {**os.environ, KEY_VARIABLE: "self-test"}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=JOB_TIMEOUT_S, env=env, check=False
        )
    except subprocess.TimeoutExpired:
        return {"status": None, "summary": None, "err": f"still running after {JOB_TIMEOUT_S} s"}
    try:
        summary = json.loads(done.stdout)
    except ValueError:
        summary = None
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return {"status": done.returncode, "summary": summary, "err": " | ".join(lines[-3:])}


def _job_problems(job: dict) -> list[str]:
    if job["status"] != 0:
        return [f"exit status {job['status']}: {job['err'] or 'no message'}"]
    if not isinstance(job["summary"], dict):
        return [f"no --json summary: {job['err'] or 'no message'}"]
    return []


def _check_evaluation(db: Path, job: dict, items: list, with_image: int) -> tuple[dict, list]:
    from medrcube_desktop.store import StudyStore

    problems = _job_problems(job)
    answers = {}
    if db.exists():
        store = StudyStore(db, read_only=True)
        try:
            answers = store.responses(RUN)
        finally:
            store.close()
    asked = [i.id for i in items if not i.restricted]  # a restricted item has no image
    missing = sorted(set(asked) - set(answers))
    if not answers:
        problems.append(f"0 answers stored of {len(asked)} items")
    elif missing:
        problems.append(f"{len(missing)} of {len(asked)} items have no answer ({missing[0]}, …)")
    unparsed = sorted(i for i, r in answers.items() if r.parsed_answer != "A")
    if unparsed:
        problems.append(f"{len(unparsed)} answers not read as A ({unparsed[0]}, …)")
    if with_image != len(answers):
        problems.append(f"{with_image} requests carried an image, for {len(answers)} answers")
    return {"answers": len(answers), "with_image": with_image}, problems


def _check_judgments(db: Path, job: dict, items: list) -> tuple[dict, list]:
    from medrcube_desktop.store import StudyStore

    problems = _job_problems(job)
    judgments = {}
    if db.exists():
        store = StudyStore(db, read_only=True)
        try:
            judgments = store.judgments(JUDGE_MODEL)
        finally:
            store.close()
    missing = sorted({i.id for i in items} - set(judgments))
    if not judgments:
        problems.append(f"0 judgments stored of {len(items)} items")
    elif missing:
        problems.append(f"{len(missing)} of {len(items)} items not judged ({missing[0]}, …)")
    wrong = sorted(i for i, j in judgments.items() if j.status != "ok" or j.scores != ALL_PASS)
    if wrong:
        problems.append(f"{len(wrong)} judgments differ from the endpoint's ({wrong[0]}, …)")
    return {"judgments": len(judgments)}, problems


def _check_pictures(rendered: Path, job: dict, items: list) -> tuple[dict, list]:
    from PIL import Image

    problems = _job_problems(job)
    pictures = [i for i in items if not i.restricted]
    pngs = sorted(rendered.rglob("*.png")) if rendered.is_dir() else []
    if len(pngs) != len(pictures):
        problems.append(f"{len(pngs)} PNGs written for {len(pictures)} items")
    blank = []
    for path in pngs:
        with Image.open(path) as image:
            pixels = np.asarray(image.convert("RGB"))
        if pixels.size == 0 or int(pixels.max()) == int(pixels.min()):
            blank.append(path.name)
    if blank:
        problems.append(f"{len(blank)} PNGs of a single colour ({blank[0]}, …)")
    return {"pngs": len(pngs)}, problems


def _check_compare(folder: Path, job: dict) -> tuple[dict, list]:
    """Every file ``compare --out`` writes is there; each SVG parses as XML, each PNG opens."""
    from xml.etree import ElementTree

    from PIL import Image

    from medrcube_desktop.evaluation.compare.report import OUTPUTS

    problems = _job_problems(job)
    expected = [name for name in OUTPUTS if name not in ONE_RUN_SKIPS]
    missing = [name for name in expected if not (folder / name).is_file()]
    if missing:
        problems.append(f"{len(missing)} of {len(expected)} files not written ({missing[0]}, …)")
    bad = []
    for path in sorted(folder.glob("*.svg")) if folder.is_dir() else []:
        try:
            root = ElementTree.parse(path).getroot()
        except ElementTree.ParseError as exc:
            bad.append(f"{path.name} ({exc})")
            continue
        if not root.tag.endswith("svg"):
            bad.append(f"{path.name} (root <{root.tag}>)")
    for path in sorted(folder.glob("*.png")) if folder.is_dir() else []:
        try:
            with Image.open(path) as image:
                image.verify()
        except (OSError, SyntaxError) as exc:
            bad.append(f"{path.name} ({exc})")
    if bad:
        problems.append(f"{len(bad)} figures unreadable: {bad[0]}")
    svgs = len(list(folder.glob("*.svg"))) if folder.is_dir() else 0
    return {"files": len(expected) - len(missing), "svgs": svgs}, problems
