"""An executable that behaves like the frozen bundle's, for tests that need no bundle.

It runs ``packaging/entry.py`` with ``sys.frozen`` set and ``sys.executable`` (and so
multiprocessing's executable) pointing at itself, as PyInstaller's bootloader leaves a
bundle's process: every child the app starts comes back through the entry point."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_frozen_app(folder: Path) -> Path:
    """Write the executable ``folder/medrcube-desktop`` (and its script) and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    app = folder / "medrcube-desktop"
    stub = folder / "frozen_entry.py"
    stub.write_text(
        "import multiprocessing, runpy, sys\n"
        f"sys.frozen = True; sys.executable = {str(app)!r}\n"
        f"multiprocessing.set_executable({str(app)!r})\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        f"runpy.run_path({str(ROOT / 'packaging' / 'entry.py')!r}, run_name='__main__')\n"
    )
    app.write_text(f'#!/bin/sh\nexec {sys.executable} {stub} "$@"\n')
    app.chmod(0o755)
    return app
