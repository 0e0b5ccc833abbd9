"""Benchmark: writing a release of 7,626 items with 300 accepted corrections (issue 23).

Run by hand or in CI's second command (not collected by pytest):

    .venv/bin/python tests/benchmarks/bench_release.py [--repeat 3] [--items 7626]

It builds, in a temporary folder, a benchmark of ``--items`` items over 8 ``test.json``
files (indented as ``json.dump(indent=2)`` writes them), each item with its own image file
(a small PNG; a few NIfTI volumes), then 300 accepted corrections of every kind, spread
over the files: 100 answer keys, 50 option texts, 50 questions, 60 boxes, 30 retirements
and 10 masks (5 PNG, 5 slices of NIfTI volumes). It times ``write_release`` (the whole
command's work: every file hard-linked, the test.json files rewritten, the masks written,
changes.json, CHANGELOG.md, release.json, the corrected records checked), best of
``--repeat``, and prints it against the target (issue 23: under 5 s) and against the
floor: reading every ``test.json``'s bytes and writing them to a new file, which any
release must do (and, for scale, hard-linking every file alone). Exit status 1 when above
the target.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from medrcube_desktop.core.corrections import encode_labels
from medrcube_desktop.review.corrections import AcceptedCorrection, Decision, Proposal

TARGET_S = 5.0
FOLDERS = 8
VOLUMES = 5  # items on a NIfTI volume with a NIfTI mask (in the first folder)
MASKED = 5  # items on a PNG with a PNG mask (in the second folder)
SIZE = 64  # pixels of each picture, and of each volume's slice
SLICES = 12


def _png(value: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(np.full((SIZE, SIZE), value % 256, np.uint8)).save(buffer, format="PNG")
    return buffer.getvalue()


def _mask(label: int) -> np.ndarray:
    labels = np.zeros((SIZE, SIZE), np.uint8)
    labels[10:30, 12:40] = label
    return labels


def build(root: Path, n_items: int) -> dict[str, list[dict]]:
    """Write the benchmark; return its records per folder."""
    import nibabel as nib
    from PIL import Image

    per_folder = -(-n_items // FOLDERS)
    picture = _png(90)
    volume = nib.Nifti1Image(
        np.arange(SIZE * SIZE * SLICES, dtype=np.int16).reshape(SIZE, SIZE, SLICES),
        np.diag([0.8, 0.8, 2.0, 1.0]),
    )
    mask = nib.Nifti1Image(np.zeros((SIZE, SIZE, SLICES), np.uint8), volume.affine)
    files: dict[str, list[dict]] = {}
    made = 0
    for f in range(FOLDERS):
        name = f"ds{f}"
        images = root / name / "images"
        images.mkdir(parents=True)
        rows = []
        for i in range(min(per_folder, n_items - made)):
            image = f"images/{i}.png"
            (root / name / image).write_bytes(picture)
            row = {
                "id": f"{name}-{i}", "question": f"What is the imaging modality of image {i}?",
                "option_A": "MRI", "option_B": "CT", "option_C": "X-ray", "option_D": "Ultrasound",
                "gt_answer": "CT", "correct_index": 1, "image_path": image,
                "task": "Modality Recognition", "original_task": "modality classification",
                "modality": "CT", "parts": "Chest", "dataset": name, "restricted": False,
            }  # fmt: skip
            if f == 0 and i < VOLUMES:
                row["image_path"] = f"images/vol{i}.nii.gz"
                row["mask_path"] = f"images/vol{i}_mask.nii.gz"
                nib.save(volume, root / name / row["image_path"])
                nib.save(mask, root / name / row["mask_path"])
            if f == 1 and i < MASKED:
                row["mask_path"] = f"images/{i}_mask.png"
                Image.fromarray(_mask(1)).save(root / name / row["mask_path"])
            if i % 10 == 3:
                row["bbox"] = [4, 5, 30, 40]
            rows.append(row)
        made += len(rows)
        (root / name / "test.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
        files[name] = rows
    return files


def corrections(files: dict[str, list[dict]]) -> list[AcceptedCorrection]:
    """300 accepted corrections: every kind, spread over the files, one per item."""
    plan = [("answer_key", 100), ("option_text", 50), ("question_text", 50), ("bbox", 60),
            ("retire", 30)]  # fmt: skip
    chosen = [
        (name, rows[i]) for i in range(10, 10_000, 7) for name, rows in files.items()
        if i < len(rows)
    ]  # fmt: skip
    made: list[AcceptedCorrection] = []
    kinds = [kind for kind, count in plan for _ in range(count)]
    for n, (kind, (name, row)) in enumerate(zip(kinds, chosen, strict=False)):
        change = {"answer_key": {"answer": "C"}, "option_text": {"letter": "D", "text": "PET"},
                  "question_text": {"text": f"Which modality is shown in image {n}?"},
                  "bbox": {"bbox": [2, 3, 50, 60]}, "retire": {}}[kind]  # fmt: skip
        made.append(_accepted(n, row, name, kind, change))
    for i in range(VOLUMES):
        change = {"slice_index": i, "axis": 2, "shape": [SIZE, SIZE]}
        made.append(_accepted(300 + i, files["ds0"][i], "ds0", "mask", change, _mask(2)))
    for i in range(MASKED):
        change = {"slice_index": None, "axis": None, "shape": [SIZE, SIZE]}
        made.append(_accepted(310 + i, files["ds1"][i], "ds1", "mask", change, _mask(3)))
    return made


def _accepted(n, row, folder, kind, change, labels=None) -> AcceptedCorrection:
    proposal = Proposal(
        row["id"], kind, "1.3", f"reason {n}", "dr-a", change, row, f"{folder}/test.json",
        None if labels is None else encode_labels(labels), uid=f"p{n:05d}",
        created_at=f"2026-12-01T10:{n // 60 % 60:02d}:{n % 60:02d}+00:00",
    )  # fmt: skip
    decision = Decision(proposal.uid, "accepted", "agreed", "dr-b", 1, f"d{n:05d}",
                        "2026-12-02T10:00:00+00:00")  # fmt: skip
    return AcceptedCorrection(proposal, decision)


def floor_seconds(root: Path, scratch: Path) -> float:
    """Read every test.json's bytes and write them to a new file."""
    start = time.perf_counter()
    for n, path in enumerate(sorted(root.glob("*/test.json"))):
        (scratch / f"{n}.json").write_bytes(path.read_bytes())
    return time.perf_counter() - start


def link_seconds(root: Path, scratch: Path) -> float:
    """Hard-link every file of the source into ``scratch`` (flat): what linking alone costs."""
    import os

    start = time.perf_counter()
    n = 0
    for folder, _, names in os.walk(root):
        for name in names:
            os.link(os.path.join(folder, name), scratch / f"{n}")
            n += 1
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs (best kept)")
    parser.add_argument("--items", type=int, default=7_626, help="items in the benchmark")
    args = parser.parse_args(argv)
    from medrcube_desktop.review.release import write_release

    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        files = build(home / "src", args.items)
        accepted = corrections(files)
        times, floors, links, summary = [], [], [], None
        for n in range(args.repeat):
            scratch = home / f"floor{n}"
            scratch.mkdir()
            floors.append(floor_seconds(home / "src", scratch))
            links.append(link_seconds(home / "src", scratch))
            start = time.perf_counter()
            summary = write_release(home / "src", accepted, home / f"release{n}", "1.1")
            times.append(time.perf_counter() - start)
        assert summary is not None
        best, floor = min(times), min(floors)
        verdict = "ok" if best < TARGET_S else "ABOVE TARGET"
        print(
            f"release of {args.items:,} items, {len(accepted)} accepted corrections "
            f"({summary.changed} changed, {summary.retired} retired, "
            f"{len(summary.masks_written)} masks): {summary.linked:,} files hard-linked, "
            f"{summary.copied} copied, {len(summary.files_rewritten)} test.json rewritten"
        )
        print(
            f"write_release {best:.3f} s (best of {args.repeat}); target < {TARGET_S:g} s: "
            f"{verdict}; floor (read + write the JSON bytes) {floor:.3f} s, "
            f"{best / floor if floor else float('inf'):.0f} x the floor; hard-linking "
            f"every file alone {min(links):.3f} s"
        )
    return 0 if best < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
