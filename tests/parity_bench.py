"""A study on which every surface must give the same figures (issue 21, "one computation
per figure"): a benchmark with restricted items (shipped without their image), four
image runs with missing and unparsed answers, a text-only run that answers the
restricted items too, expert reviews (of restricted items too) and LLM judgments.

Qt-free: the CLI tests and the pane tests build it alike. The answers are drawn from a
seeded generator and kept in :data:`ANSWERS`, so a test can count by hand what a figure
must be.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from medrcube_desktop.core.rubric import RULE_IDS
from medrcube_desktop.store import Review, StudyStore
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from medrcube_desktop.store.judgments import Judgment
from tests.conftest import dicom_file, item, write_benchmark

TASKS = ("Modality Recognition", "Organ Recognition", "Disease Diagnosis", "Abnormity Diagnosis")
"""On every image: a low-, a mid- and two high-level items (credibility pairs)."""

IMAGES = {  # image: (region, restricted: no file shipped)
    "img0.dcm": ("Chest", False),
    "img1.dcm": ("Chest", False),
    "img2.dcm": ("Brain", False),
    "img3.dcm": ("Brain", False),
    "sec0.dcm": ("Chest", True),
    "sec1.dcm": ("Brain", True),
}

RUNS = {  # name: (model, text only)
    "iv8": ("OpenGVLab/InternVL3_5-8B", False),
    "iv2": ("OpenGVLab/InternVL3_5-2B", False),
    "ls": ("lingshu-medical-mllm/Lingshu-7B", False),
    "qw": ("Qwen/Qwen2.5-VL-7B-Instruct", False),
    "iv8-text": ("OpenGVLab/InternVL3_5-8B", True),
}
TEXT_RUN = "iv8-text"
RIGHT = "B"  # every item's answer is "CT", option B
MISSING = "missing"
"""An answer never stored (the run stopped, or the item was added later)."""


def _items() -> list[dict]:
    records = []
    for n, (image, (region, restricted)) in enumerate(IMAGES.items()):
        for t, task in enumerate(TASKS):
            records.append(
                item(f"i{n}t{t}", image=f"images/{image}", task=task, parts=region,
                     question=f"Question {t} on image {n}?", restricted=restricted or None)
            )  # fmt: skip
    return records


ITEMS = [r["id"] for r in _items()]
RESTRICTED = [r["id"] for r in _items() if r.get("restricted")]


def _answers() -> dict[str, dict[str, str | None]]:
    """run → item → the letter stored (None: unparsed), or :data:`MISSING`."""
    rng = random.Random(21)
    skill = {"iv8": 0.7, "iv2": 0.5, "ls": 0.6, "qw": 0.45, TEXT_RUN: 0.4}
    table: dict[str, dict[str, str | None]] = {}
    for run, p in skill.items():
        answers: dict[str, str | None] = {}
        for item_id in ITEMS:
            if item_id in RESTRICTED and not RUNS[run][1]:
                answers[item_id] = MISSING  # no image to send
                continue
            draw = rng.random()
            if draw < 0.1:
                answers[item_id] = MISSING
            elif draw < 0.15:
                answers[item_id] = None  # unparsed: counted wrong
            else:
                answers[item_id] = RIGHT if rng.random() < p else rng.choice("ACD")
        table[run] = answers
    # the text-only run answers every restricted item, right on four of them
    for n, item_id in enumerate(RESTRICTED):
        table[TEXT_RUN][item_id] = RIGHT if n in (0, 2, 3, 5) else "A"
    return table


ANSWERS = _answers()

REVIEWED = ITEMS[::2] + RESTRICTED[1::2]
"""Items both experts and the LLM judged (restricted ones among them)."""


def _scores(seed: str) -> dict[str, int]:
    rng = random.Random(seed)
    return {rule: int(rng.random() < 0.8) for rule in RULE_IDS}


def build(tmp_path: Path) -> tuple[Path, Path]:
    """Write the benchmark and the database under ``tmp_path``; (benchmark, database)."""
    shipped = {
        f"ds1/images/{image}": dicom_file("CT_small.dcm")
        for image, (_, restricted) in IMAGES.items()
        if not restricted
    }
    root = write_benchmark(tmp_path / "bench", {"ds1": _items()}, shipped)
    db = tmp_path / "study.db"
    store = StudyStore(db)
    try:
        for n, (name, (model, text)) in enumerate(RUNS.items()):
            store.save_run(RunRecord(name=name, engine="openai", model=model, params={},
                                     prompt_sha256="x", app_version="t", text_only=text,
                                     created_at=f"2026-01-0{n + 1}T00:00:00+00:00"))  # fmt: skip
        for run, answers in ANSWERS.items():
            for item_id, letter in answers.items():
                if letter == MISSING:
                    continue
                store.save_response(ResponseRecord(
                    run=run, item_id=item_id, response=f"The answer is {letter}",
                    parsed_answer=letter, parse_method="letter" if letter else "none",
                    correct=letter == RIGHT, official_answer=letter,
                    official_correct=letter == RIGHT, created_at="2026-01-09T00:00:00+00:00",
                ))  # fmt: skip
        for item_id in REVIEWED:
            for reviewer in ("dr-a", "dr-b"):
                store.save_review(Review(reviewer, item_id, _scores(reviewer + item_id), "",
                                         "2026-01-10T00:00:00+00:00",
                                         "2026-01-10T00:01:00+00:00"))  # fmt: skip
            store.save_judgment(Judgment(item_id, "gpt-5.1", _scores("llm" + item_id),
                                         created_at="2026-01-11T00:00:00+00:00"))  # fmt: skip
    finally:
        store.close()
    return root, db


def accuracy_by_hand(run: str) -> tuple[int, int]:
    """(right, answered) of ``run`` over every item it answered, restricted ones
    included (an unparsed answer is answered and wrong)."""
    given = [a for a in ANSWERS[run].values() if a != MISSING]
    return sum(a == RIGHT for a in given), len(given)


def read_json(text: str) -> object:
    """The one JSON document a ``--json`` command printed."""
    return json.loads(text)
