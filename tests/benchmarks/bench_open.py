"""Benchmark: opening a benchmark costs about what reading its JSON costs (issue 15, item 1).

Run by hand or in CI's second command (not collected by pytest):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_open.py

It builds benchmarks of 7,626 and 100,000 items in a temporary folder (a few real small
pictures, a PNG and two DICOM files from pydicom-data, referenced by many items, in
several dataset folders and image folders), then times, in seconds:

- ``json.load`` of every ``test.json`` (the physical floor);
- ``load_benchmark`` as the review window calls it (record checks only; the file checks
  run later, on a worker thread);
- the time to the first item on screen in the real window (``MainWindow``, offscreen,
  from the start of loading until ``first_item_shown``, the first item's image
  rendered), less the same time for a benchmark of 12 items: what the benchmark's size
  *adds* to opening.

Each added time is printed against its target (DESIGN.md, "Scale"): max(0.3 s, 3 ×
json.load) for 7,626 items, max(1 s, 3 × json.load) for 100,000 items. Exit status 1 when
a figure is above its target. ``--eager`` also times ``load_benchmark`` with every file
check done at load (what ``validate`` runs).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

SIZES = ((7_626, 0.3), (100_000, 1.0))  # items, floor of the target in seconds
FOLDERS = 8  # dataset sub-folders
IMAGE_DIRS = 4  # image folders per dataset
RESTRICTED_EVERY = 8  # one item in 8 of the last folder is restricted (no image shipped)


def _pictures() -> list[Path]:
    from pydicom.data import get_testdata_file

    return [
        Path(str(get_testdata_file(name, download=False)))
        for name in ("CT_small.dcm", "MR_small.dcm")
    ]


def build(root: Path, n_items: int) -> None:
    """Write ``n_items`` items over :data:`FOLDERS` ``test.json`` files under ``root``."""
    import numpy as np
    from PIL import Image

    sources = _pictures()
    per_folder = -(-n_items // FOLDERS)
    made = 0
    for f in range(FOLDERS):
        folder = root / f"ds{f}"
        names = []
        for d in range(IMAGE_DIRS):
            images = folder / f"images{d}"
            images.mkdir(parents=True)
            for s, source in enumerate(sources):
                shutil.copy(source, images / f"scan{s}.dcm")
                names.append(f"images{d}/scan{s}.dcm")
            png = np.full((64, 64), 40 * d, np.uint8)
            Image.fromarray(png).save(images / "picture.png")
            names.append(f"images{d}/picture.png")
        records = []
        for i in range(min(per_folder, n_items - made)):
            record = {
                "id": f"ds{f}-{i}",
                "question": f"What is the imaging modality of image {i}?",
                "option_A": "MRI",
                "option_B": "CT",
                "option_C": "X-ray",
                "option_D": "Ultrasound",
                "gt_answer": "CT",
                "correct_index": 1,
                "image_path": names[i % len(names)],
                "task": "Modality Recognition",
                "original_task": "modality classification",
                "modality": "CT",
                "parts": "Chest",
                "dataset": f"ds{f}",
                "restricted": False,
            }
            if f == FOLDERS - 1 and i % RESTRICTED_EVERY == 0:
                record.update(restricted=True, image_path=f"restricted/{i}.png")
            records.append(record)
        made += len(records)
        (folder / "test.json").write_text(json.dumps(records), encoding="utf-8")


def best_of(run, repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds (the least disturbed by other work)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def json_seconds(root: Path, repeat: int) -> float:
    def run() -> None:
        for path in sorted(root.glob("*/test.json")):
            with open(path, encoding="utf-8") as handle:
                json.load(handle)

    return best_of(run, repeat)


def load_for_window(root: Path):
    """The benchmark as the review window loads it."""
    from medrcube_desktop.ui.window_factory import load_for_review

    return load_for_review(root)


def first_item_seconds(app, root: Path, db: Path) -> float:
    """Seconds from the start of loading until the first item's image is on screen."""
    from PySide6.QtCore import QEventLoop, QTimer

    from medrcube_desktop import settings
    from medrcube_desktop.ui.main_window import MainWindow
    from medrcube_desktop.ui.window_factory import build_window, open_store

    start = time.perf_counter()
    benchmark = load_for_window(root)
    store = open_store(db)
    window = build_window(MainWindow, benchmark, store, "bench", settings.Settings())
    loop = QEventLoop()
    window.first_item_shown.connect(loop.quit)
    QTimer.singleShot(60_000, loop.quit)  # never hang CI
    window.show()
    if not window._shown_first:
        loop.exec()
    elapsed = time.perf_counter() - start
    if not window._shown_first:
        raise SystemExit(f"{root}: no item shown within 60 s")
    window.close()
    window.deleteLater()
    app.processEvents()
    store.close()
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--eager", action="store_true", help="also time validate's load")
    args = parser.parse_args(argv)
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from medrcube_desktop.core.dataset import load_benchmark

    app = QApplication.instance() or QApplication(sys.argv[:1])
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        os.environ["MEDRCUBE_DATA_DIR"] = str(home / "data")
        os.environ["MEDRCUBE_CONFIG_DIR"] = str(home / "config")
        small = home / "small"
        build(small, 12)
        first_item_seconds(app, small, home / "warm-up.db")  # imports, first window: not counted
        base = min(first_item_seconds(app, small, home / f"s{i}.db") for i in range(args.repeat))
        print(f"first item shown, 12 items: {base:.3f} s (the baseline subtracted below)")
        for n_items, floor in SIZES:
            root = home / f"b{n_items}"
            build(root, n_items)
            read = json_seconds(root, args.repeat)
            load = best_of(lambda r=root: load_for_window(r), args.repeat)
            shown = min(
                first_item_seconds(app, root, home / f"{n_items}-{i}.db")
                for i in range(args.repeat)
            )
            added = shown - base
            target = max(floor, 3 * read)
            verdict = "ok" if added <= target else "ABOVE TARGET"
            failed |= added > target
            print(f"{n_items:>7,} items: json.load {read:.3f} s, load_benchmark {load:.3f} s")
            if args.eager:
                eager = best_of(lambda r=root: load_benchmark(r), args.repeat)
                print(f"{'':>15}load_benchmark with file checks (validate) {eager:.3f} s")
            print(
                f"{'':>15}first item shown {shown:.3f} s, adds {added:.3f} s; "
                f"target max({floor:g} s, 3 x json.load) = {target:.3f} s: {verdict}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
