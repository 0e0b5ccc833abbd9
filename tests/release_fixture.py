"""A tiny source benchmark, a corrected release of it written by hand (release.json,
changes.json, test.json as ``/work/wt/ISSUE23.md`` specifies them) and a database of
runs over the source: what the rescore, compare --release-diff and only-changed tests
share. Every figure the tests check is countable from the tables here.

Items (all four options MRI, CT, X-ray, Ultrasound; key B = "CT" unless changed):

====  =======  ==================================  ======
item  image    release                             key
====  =======  ==================================  ======
k1    a.png    answer key B → A (rule 1.3)         A
k2    a.png    answer key B → C (rule 1.3)         C
k3    b.png    answer key B → D (rule 2.1)         D
rt    b.png    retired (rule 1.1)                  —
qn    c.png    question text changed (rule 1.2)    B
u1-u5 d,e,…    unchanged                           B
====  =======  ==================================  ======
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from medrcube_desktop.store import StudyStore
from medrcube_desktop.store.evaluation import ResponseRecord, RunRecord
from tests.conftest import item, write_benchmark

VERSION = "v2"
OPTIONS = {"A": "MRI", "B": "CT", "C": "X-ray", "D": "Ultrasound"}
IDS = ["k1", "k2", "k3", "rt", "qn", "u1", "u2", "u3", "u4", "u5"]
IMAGES = {"k1": "a", "k2": "a", "k3": "b", "rt": "b", "qn": "c",
          "u1": "d", "u2": "d", "u3": "e", "u4": "f", "u5": "g"}  # fmt: skip
NEW_KEY = {"k1": "A", "k2": "C", "k3": "D"}
RETIRED = {"rt"}
NEEDS_NEW = {"qn"}
OLD_KEY = dict.fromkeys(IDS, "B")

ANSWERS = {
    # k1    k2   k3   rt   qn   u1   u2   u3   u4   u5
    "alpha": [
        "B",
        "C",
        "D",
        "B",
        "B",
        "B",
        "B",
        "B",
        "A",
        "B",
    ],  # k1 right→wrong, k2/k3 wrong→right
    "beta": ["A", "B", "B", "B", "A", "B", "A", "B", "B", "B"],  # k1 wrong→right, k2/k3 right→wrong
    "gamma": [
        "B",
        "B",
        "B",
        "A",
        "B",
        "B",
        "B",
        "B",
        "B",
        "-",
    ],  # every key change right→wrong; u5 unparsed
}
"""Each run's parsed letter per item of :data:`IDS` ("-": no letter could be read)."""

TEXT_ONLY = {"gamma-text": ("gamma", ["B", "B", "C", "B", "C", "A", "B", "B", "B", "B"])}
"""A text-only run of gamma's model."""


def record(item_id: str, **overrides) -> dict:
    return item(item_id, image=f"images/{IMAGES[item_id]}.png", **overrides)


def source_records() -> dict[str, list[dict]]:
    """``{folder: records}`` of the source benchmark: k*, rt, qn in ds1, u* in ds2."""
    ds1 = [record(i) for i in IDS[:5]]
    ds2 = [record(i, dataset="ds2") for i in IDS[5:]]
    return {"ds1": ds1, "ds2": ds2}


def write_images(root: Path) -> None:
    """A small grey PNG for every image of :data:`IMAGES` (what ``evaluate`` loads)."""
    import numpy as np
    from PIL import Image

    for folder, records in source_records().items():
        for rec in records:
            path = root / folder / rec["image_path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            value = 40 + 20 * sorted(set(IMAGES.values())).index(IMAGES[rec["id"]])
            Image.fromarray(np.full((32, 32), value, dtype=np.uint8)).save(path)


def write_source(root: Path, images: bool = False) -> Path:
    """The source benchmark (records only unless ``images``: figures over stored answers
    do not need the pictures)."""
    write_benchmark(root, source_records())
    if images:
        write_images(root)
    return root


def _change(kind: str, field: str, old, new, rule: str) -> dict:
    return {"kind": kind, "field": field, "from": old, "to": new, "rule": rule,
            "reason": f"{kind} fixed", "proposer": "dr-a", "proposed_at": "2026-12-01T10:00:00Z",
            "proposal_uid": f"p-{kind}-{rule}", "acceptor": "dr-b",
            "accepted_at": "2026-12-02T10:00:00Z", "acceptance_reason": "agreed"}  # fmt: skip


def write_release(root: Path, source: Path, version: str = VERSION, images: bool = False) -> Path:
    """The corrected release of :func:`write_source` (as ``release`` would write it;
    with ``images``, its pictures too)."""
    if images:
        write_images(root)
    folders = source_records()
    entries = []
    kept = []
    rules = {"k1": "1.3", "k2": "1.3", "k3": "2.1"}
    for rec in folders["ds1"]:
        rid = rec["id"]
        if rid in NEW_KEY:
            new = {**rec, "gt_answer": OPTIONS[NEW_KEY[rid]]}
            kept.append(new)
            entries.append({
                "item_id": rid, "file": "ds1/test.json", "task": rec["task"],
                "dataset": "ds1", "status": "changed", "needs_new_answer": False,
                "answer_before": "B", "answer_after": NEW_KEY[rid],
                "changes": [_change("answer_key", "gt_answer", "CT", new["gt_answer"],
                                    rules[rid])],
            })  # fmt: skip
        elif rid in RETIRED:
            entries.append({
                "item_id": rid, "file": "ds1/test.json", "task": rec["task"],
                "dataset": "ds1", "status": "retired", "needs_new_answer": False,
                "answer_before": "B", "answer_after": None,
                "changes": [_change("retire", "", None, None, "1.1")],
            })  # fmt: skip
        elif rid in NEEDS_NEW:
            question = "Which modality acquired this scan?"
            kept.append({**rec, "question": question})
            entries.append({
                "item_id": rid, "file": "ds1/test.json", "task": rec["task"],
                "dataset": "ds1", "status": "changed", "needs_new_answer": True,
                "answer_before": "B", "answer_after": "B",
                "changes": [_change("question_text", "question", rec["question"], question,
                                    "1.2")],
            })  # fmt: skip
    write_benchmark(root, {"ds1": kept, "ds2": folders["ds2"]})
    meta = {"format": "medrcube-release", "format_version": 1, "version": version,
            "source": str(source.resolve()), "created_at": "2026-12-03T10:00:00Z",
            "app_version": "test", "items": 9, "retired": 1, "changed": 4}  # fmt: skip
    changes = {
        "format": "medrcube-release-changes", "format_version": 1, "version": version,
        "items": entries,
        "counts": {"changed": 4, "retired": 1, "unchanged": 5, "needs_new_answer": 1,
                   "per_rule": {"1.3": 2, "2.1": 1, "1.1": 1, "1.2": 1},
                   "per_task": {"Modality Recognition": 5},
                   "per_kind": {"answer_key": 3, "retire": 1, "question_text": 1}},
    }  # fmt: skip
    (root / "release.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    (root / "changes.json").write_text(json.dumps(changes, indent=2), encoding="utf-8")
    return root


def response(run: str, item_id: str, letter: str, n: int) -> ResponseRecord:
    parsed = None if letter == "-" else letter
    return ResponseRecord(
        run=run, item_id=item_id, response=f"The answer is {letter}. ({n})",
        parsed_answer=parsed, parse_method="letter" if parsed else "none",
        correct=parsed == OLD_KEY[item_id], official_answer=parsed,
        official_correct=parsed == OLD_KEY[item_id], created_at=f"2026-11-0{1 + n % 8}T00:00:00Z",
        latency_s=0.5 + n, prompt_tokens=100 + n, completion_tokens=5,
        image={"sent": "original"},
    )  # fmt: skip


def write_runs(db: Path, source: Path) -> Path:
    """A database with the image runs of :data:`ANSWERS` and the text-only runs of
    :data:`TEXT_ONLY`, every item answered, over ``source``."""
    store = StudyStore(db)
    try:
        runs = {name: (name, letters, False) for name, letters in ANSWERS.items()}
        runs.update({n: (model, letters, True) for n, (model, letters) in TEXT_ONLY.items()})
        for name, (model, letters, text_only) in runs.items():
            store.save_run(
                RunRecord(name=name, engine="openai", model=model,
                          params={"temperature": 0.0}, prompt_sha256="p" * 64,
                          app_version="test", created_at=f"2026-11-0{len(name) % 9}T00:00:00Z",
                          text_only=text_only, benchmark=str(source.resolve()))
            )  # fmt: skip
            store.save_responses(
                [
                    response(name, i, letter, n)
                    for n, (i, letter) in enumerate(zip(IDS, letters, strict=True))
                ]
            )
    finally:
        store.close()
    return db


def build(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``(source, release, db)`` in ``tmp_path``."""
    source = write_source(tmp_path / "source")
    release = write_release(tmp_path / "release", source)
    db = write_runs(tmp_path / "study.db", source)
    return source, release, db


def tree_digest(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root`` by relative path (the source-tree check)."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def table_rows(db: Path, run: str) -> list[tuple]:
    """Every column of ``run``'s ``eval_runs`` row and ``eval_responses`` rows, sorted."""
    import sqlite3

    conn = sqlite3.connect(db)
    try:
        head = conn.execute("SELECT * FROM eval_runs WHERE name = ?", [run]).fetchall()
        rows = conn.execute(
            "SELECT * FROM eval_responses WHERE run = ? ORDER BY item_id", [run]
        ).fetchall()
        return head + rows
    finally:
        conn.close()
