"""``demo serve``: the scripted endpoint started as a user starts it (a subprocess), then
``evaluate --engine openai`` against it, with the item's picture and ablated; every figure
checked against the seeded script computed here."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from medrcube_desktop.cli import main
from medrcube_desktop.core.dataset import load_benchmark
from medrcube_desktop.demo.build import build_demo
from medrcube_desktop.demo.example_script import PERSONALITIES, scripted_answers
from medrcube_desktop.demo.serve import data_url_digest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return build_demo(tmp_path_factory.mktemp("serve") / "demo")


@pytest.fixture
def served(demo):
    """``demo serve DEMO`` in a subprocess: (process, base URL, printed lines)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "medrcube_desktop", "demo", "serve", str(demo)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        assert lines[0].startswith("serving the demo's scripted models at "), (
            lines,
            proc.stderr.read() if proc.poll() is not None else "",
        )
        yield proc, lines[0].rsplit(" ", 1)[1].strip(), lines
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def _evaluate(capsys, demo: Path, db: Path, url: str, model: str, run: str, *extra: str,
              status: int = 0):  # fmt: skip
    argv = ["evaluate", "--dataset", str(demo), "--db", str(db), "--engine", "openai",
            "--base-url", url, "--model", model, "--run", run, *extra, "--json"]  # fmt: skip
    assert main(argv) == status, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_serve_answers_the_picture_better_than_its_ablations(served, demo, tmp_path, capsys):
    proc, url, lines = served
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    assert lines[1].strip() == (
        "models: demo-strong, demo-middling, demo-weak, demo-guesser (judge: demo-judge)"
    )
    items = load_benchmark(demo).items
    answers = scripted_answers(items)
    blind = next(p.run for p in PERSONALITIES if p.text_only)
    want_sighted = sum(answers["demo-strong"][i.id] == i.answer for i in items)
    want_blind = sum(answers[blind][i.id] == i.answer for i in items)
    assert want_sighted > want_blind  # the script itself has a gap to find
    db = tmp_path / "study.sqlite"
    sighted = _evaluate(capsys, demo, db, url, "demo-strong", "strong")
    blank = _evaluate(capsys, demo, db, url, "demo-strong", "strong-blank", "--image", "blank")
    noise = _evaluate(capsys, demo, db, url, "demo-strong", "strong-noise", "--image", "noise")
    text = _evaluate(capsys, demo, db, url, "demo-strong", "strong-text", "--text-only")
    assert (sighted["n"], sighted["correct"]) == (len(items), want_sighted)
    for ablated in (blank, noise, text):
        assert (ablated["n"], ablated["correct"]) == (len(items), want_blind)
    # items with no other picture of their modality and region fail (status 1); the
    # others are shown another item's picture: answered as without their own
    swapped = _evaluate(
        capsys, demo, db, url, "demo-strong", "strong-sw", "--image", "swapped", status=1
    )
    failed = {entry["item"] for entry in swapped["failed"]}
    asked = [i for i in items if i.id not in failed]
    assert failed and asked
    assert (swapped["n"], swapped["correct"]) == (
        len(asked),
        sum(answers[blind][i.id] == i.answer for i in asked),
    )
    assert swapped["accuracy"] < sighted["accuracy"]
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) == 0
    assert "stopped" in proc.stderr.read()


def test_data_url_digest():
    import base64
    import hashlib

    payload = base64.b64encode(b"\x89PNG pixels").decode()
    assert data_url_digest(f"data:image/png;base64,{payload}") == (
        hashlib.sha256(b"\x89PNG pixels").hexdigest()
    )
    assert data_url_digest("https://example.org/a.png") is None
    assert data_url_digest("data:image/png;base64,@@not base64@@") is None
