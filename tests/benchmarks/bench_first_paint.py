"""Benchmark: start to the first image on screen (issue 25 item 4), against its floor.

Run by hand or from report.py (not collected by pytest):

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_first_paint.py [--repeat 3]

For the demo (built from real public images into a temporary folder) and a benchmark of
7,626 items (bench_open's), each in a fresh process as a user starts it
(``python -m medrcube_desktop --dataset DIR --db FILE --reviewer bench --quit-after-ms 0``,
settings in a temporary folder), it prints the seconds from the launch (before the
process is made) to the window's first show and to the first item's image rendered on
screen (``first_item_shown``), best of ``--repeat``. Beside them the floor, measured the
same way in a fresh process: Python started, PySide6's QtWidgets imported and a
QApplication made, every ``test.json`` read with ``json.load`` and the first item's
picture decoded (pydicom / Pillow). Targets: the first image <= 100 ms after the window's
first show (issue 25), and the whole start printed against the floor; exit 1 above it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
TARGET_SHOW_TO_IMAGE_S = 0.100

CHILD = r"""
import sys, time
from PySide6.QtWidgets import QApplication
from medrcube_desktop.ui import main_window
marks = {}
shown = main_window.MainWindow.showEvent
def show_event(self, event):
    marks.setdefault("shown", time.time())
    marks.setdefault("shown_cpu", time.process_time())
    shown(self, event)
main_window.MainWindow.showEvent = show_event
announce = main_window.MainWindow._announce_first
def first(self):
    marks.setdefault("image", time.time())
    marks.setdefault("image_cpu", time.process_time())
    announce(self)
main_window.MainWindow._announce_first = first
from medrcube_desktop.cli.app import main
status = main(sys.argv[1:])
print("MARKS", marks.get("shown", 0), marks.get("image", 0), marks.get("shown_cpu", 0),
      marks.get("image_cpu", 0), status, flush=True)
"""

FLOOR = r"""
import json, sys, time
from pathlib import Path
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
root = Path(sys.argv[1])
records = [json.load(open(p, encoding="utf-8")) for p in sorted(root.glob("*/test.json"))]
first = next(p for p in sorted(root.glob("*/test.json")))
item = json.load(open(first, encoding="utf-8"))[0]
image = first.parent / item["image_path"]
if image.name.lower().endswith((".nii", ".nii.gz")):
    import nibabel as nib
    import numpy as np
    volume = nib.load(image)
    np.asanyarray(volume.dataobj[:, :, volume.shape[2] // 2])
elif image.suffix.lower() in (".dcm", ""):
    import pydicom
    pydicom.dcmread(image).pixel_array
else:
    import numpy as np
    from PIL import Image
    np.asarray(Image.open(image))
print("DONE", time.time(), time.process_time(), flush=True)
"""


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    env.update(MEDRCUBE_DATA_DIR=str(home / "data"), MEDRCUBE_CONFIG_DIR=str(home / "config"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parents[1]), env.get("PYTHONPATH")]))
    return env


def app_start(root: Path, db: Path, home: Path) -> tuple[float, float, float, float]:
    """Seconds from launch to the window's first show and to the first image, and the
    process's CPU seconds at each (all its threads: less disturbed by a busy machine)."""
    argv = ["--dataset", str(root), "--db", str(db), "--reviewer", "bench", "--quit-after-ms", "0"]
    launched = time.time()
    out = subprocess.run([sys.executable, "-c", CHILD, *argv], env=_env(home),
                         capture_output=True, text=True, timeout=90)  # fmt: skip
    line = next((x for x in out.stdout.splitlines() if x.startswith("MARKS")), None)
    if line is None:
        raise SystemExit(f"the app did not start: {out.stderr[-2000:]}")
    _, shown, image, shown_cpu, image_cpu, _status = line.split()
    return float(shown) - launched, float(image) - launched, float(shown_cpu), float(image_cpu)


def floor(root: Path, home: Path) -> tuple[float, float]:
    """Seconds and CPU seconds of the floor, from launch."""
    launched = time.time()
    out = subprocess.run([sys.executable, "-c", FLOOR, str(root)], env=_env(home),
                         capture_output=True, text=True, timeout=90)  # fmt: skip
    line = next((x for x in out.stdout.splitlines() if x.startswith("DONE")), None)
    if line is None:
        raise SystemExit(f"the floor did not run: {out.stderr[-2000:]}")
    _, done, cpu = line.split()
    return float(done) - launched, float(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from bench_open import build

    from medrcube_desktop.demo.build import build_demo

    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        demo = home / "demo"
        build_demo(demo)
        big = home / "b7626"
        build(big, 7626)
        app_start(demo, home / "warm.db", home)  # the first start compiles .pyc files
        for label, root in (("demo", demo), ("7,626 items", big)):
            runs = [app_start(root, home / f"{label[:4]}-{i}.db", home) for i in range(args.repeat)]
            shown, image = min(r[0] for r in runs), min(r[1] for r in runs)
            gap = min(r[1] - r[0] for r in runs)
            shown_cpu, image_cpu = min(r[2] for r in runs), min(r[3] for r in runs)
            floors = [floor(root, home) for _ in range(args.repeat)]
            base, base_cpu = min(f[0] for f in floors), min(f[1] for f in floors)
            verdict = "ok" if gap <= TARGET_SHOW_TO_IMAGE_S else "ABOVE TARGET"
            failed |= gap > TARGET_SHOW_TO_IMAGE_S
            print(
                f"{label}: launch -> window shown {shown:.3f} s, -> first image {image:.3f} s "
                f"(window shown -> first image {gap * 1000:.0f} ms, target <= "
                f"{TARGET_SHOW_TO_IMAGE_S * 1000:.0f} ms: {verdict})"
            )
            print(
                f"{'':>12}floor (Python + PySide6 + QApplication, json.load, one decode) "
                f"{base:.3f} s: first image at {image / base:.1f}x the floor"
            )
            print(f"{'':>12}CPU seconds: window shown {shown_cpu:.3f}, first image "
                  f"{image_cpu:.3f}, floor {base_cpu:.3f} ({image_cpu / base_cpu:.1f}x)")  # fmt: skip
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
